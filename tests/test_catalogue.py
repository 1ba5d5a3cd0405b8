"""The catalogue of seat kinds, dialects and fault kinds: its values are the wire format and the stored data."""

from __future__ import annotations

import json
import re
from pathlib import Path

from django.template.loader import render_to_string

from games.catalogue import DIALECTS, FAULT_WORDS, FaultKind, SeatKind

ROOT = Path(__file__).resolve().parent.parent


def test_seat_kinds_and_dialects_keep_their_stored_values():
    assert [str(kind) for kind in SeatKind] == ["human", "bot", "remote", "empty"]
    assert list(DIALECTS) == ["auto", "spec", "jass-kit"]
    assert json.dumps({"kind": SeatKind.REMOTE}) == '{"kind": "remote"}'


def test_every_fault_kind_has_words_and_the_table_page_uses_the_same():
    assert set(FAULT_WORDS) == set(FaultKind) - {FaultKind.BAD_URL, FaultKind.PRIVATE_ADDRESS}
    source = (ROOT / "static/js/faults.js").read_text(encoding="utf-8")
    block = re.search(r"FAULT_KINDS = \{(.*?)\};", source, re.S)[1]
    in_js = dict(re.findall(r'(\w+): gettext\("([^"]*)"\)', block))  # translated on the page (djangojs.po)
    assert in_js == {str(kind): words for kind, words in FAULT_WORDS.items()}


def test_the_result_page_words_a_fault_kind():
    assert render_to_string("includes/fault_kind.html", {"kind": "timeout"}).strip().endswith("No answer in time")
    assert render_to_string("includes/fault_kind.html", {"kind": "odd_thing"}).strip().endswith("odd_thing")
