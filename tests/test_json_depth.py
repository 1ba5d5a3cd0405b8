"""How deeply a JSON text nests, read before parsing (games/json_depth.py), and the readers that ask it first.

The readers of untrusted JSON (a websocket frame, an uploaded record, a bot's reply) refuse a text nested
deeper than they read without handing it to ``json.loads``, which would recurse to Python's limit: a
garbage collection starting down there once printed a ``RecursionError`` from the collector's hook into
the server's log (CI of 2026-11-29, tests/test_hostile_websocket.py).
"""

from __future__ import annotations

import gc
import json
import sys

import pytest

from games.hslu import InvalidReplyError, parse_reply_body
from games.json_depth import nested_deeper_than
from games.live import metrics
from games.live.protocol import MAX_DEPTH, ProtocolError, parse
from games.records.schema import MAX_RECORD_BYTES, RecordError, _nested_deeper_than, parse_record


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("{}", 1),
        ('{"type": "ping", "id": 3}', 1),
        ('{"type": "join", "seat": [[0]]}', 3),
        ("[" * 9 + "]" * 9, 9),
        ('["[[[[[[[[[[[[", "{{{{{{{{{{{"]', 1),  # brackets in strings do not nest
        (r'["\"[[[[[[[[[[[[[\\", [[["\\\"]]]]]]"]]]]', 4),  # nor do they after escaped quotes and backslashes
        ('[{"a": [{"b": []}]}, [[[]]]]', 5),
        ("[" + ", ".join(["[]"] * 500) + "]", 2),  # many lists side by side, none inside another
        ("]" * 20 + "[" * 3, 3),  # not JSON: the parser stops at the first bracket, and so does no count
    ],
)
def test_the_depth_is_read_from_the_text_as_json_would_nest_it(text, depth):
    assert not nested_deeper_than(text, depth) and not nested_deeper_than(text.encode(), depth)
    assert nested_deeper_than(text, depth - 1) and nested_deeper_than(text.encode(), depth - 1)
    if text[0] != "]":  # what json.loads made of it nests exactly as deeply (the record reader's own walk)
        value = json.loads(text)
        assert not _nested_deeper_than(value, depth) and _nested_deeper_than(value, depth - 1)


def test_no_text_is_read_as_shallower_than_the_parser_goes_whatever_it_holds_or_its_encoding():
    assert not nested_deeper_than('["' + "[" * 40, 8)  # the parser stops in an unterminated string: no nesting
    assert nested_deeper_than("[" * 40 + '"', 8) and nested_deeper_than('[""' + "[" * 40, 8)  # no fewer than it reads
    assert nested_deeper_than("[" * 100_000, 8)
    assert nested_deeper_than(b"{" * 100_000, 31)
    for text in (r'["\\", "\"", ' + "[" * 20 + "]" * 20 + "]", r'["\"' + "[" * 20 + '"]'):
        for encoding in ("utf-8", "utf-16", "utf-16-be", "utf-32-le"):  # each read as json.loads reads it
            assert nested_deeper_than(text.encode(encoding), 8) is nested_deeper_than(text, 8), (text, encoding)
    assert not nested_deeper_than(b"\xff" + b"[" * 20, 8)  # no UTF-8: json.loads refuses it unparsed


def test_a_hostile_record_is_read_once_not_once_per_quote():
    # Quotes and backslashes that never close a string: a string pattern tried again at every quote took
    # 28 s for 80 KB of them (quadratic); read left to right, a 2 MB upload of them is refused at once.
    hostile = "[" * 40 + '"\\' * (MAX_RECORD_BYTES // 2 - 20)
    with pytest.raises(RecordError, match="nested too deeply"):
        parse_record(hostile)


DEEP = "[" * 1500 + "]" * 1500  # deeper than Python's recursion limit, within a websocket frame


@pytest.mark.parametrize(
    ("read", "refusal", "message"),
    [
        (parse, None, f"nested too deeply (at most {MAX_DEPTH} levels)"),
        (parse_record, RecordError, "the record is not usable: a value in it is nested too deeply"),
        (parse_reply_body, InvalidReplyError, "reply nests lists and objects more than 8 levels deep"),
    ],
)
def test_a_deep_text_is_refused_before_json_recurses_and_no_collection_runs_out_of_stack(
    read, refusal, message, monkeypatch
):
    metrics.time_garbage_collections()
    printed: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", printed.append)
    thresholds = gc.get_threshold()
    gc.set_threshold(1, 1, 1)  # a collection at almost every allocation, wherever the stack is
    try:
        for text in (DEEP, DEEP.encode(), '{"type": "ping", "id": ' + DEEP + "}"):
            if read is parse:
                if isinstance(text, bytes):
                    continue  # a websocket text frame is a str
                error = read(text)
                assert isinstance(error, ProtocolError) and message in error.message
            else:
                with pytest.raises(refusal) as refused:
                    read(text)
                assert message in str(refused.value)
    finally:
        gc.set_threshold(*thresholds)
    assert printed == []
