"""The rules page (/rules/): reachable from every page, its card pictures agree with the engine."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games.decks import DECKS, FRENCH, card_html
from games.pages.rules_help import LEGAL_EXAMPLES, points_rows

pytestmark = pytest.mark.django_db

# What the page claims for each example, written out by hand from docs/rules.md's legal-card rules.
EXPECTED_LEGAL = {
    "Follow suit, or trump": {"HA", "H7", "D6"},
    "Cannot follow: play anything": {"HQ", "C7", "S6", "HJ"},
    "No under-trumping": {"HQ", "SA"},
    "The {rank_J} of trumps (Puur) need not follow": {"CJ", "HA", "D9", "S6"},
    "Only trumps left": {"H6", "H7", "HA"},
    "Obe-Abe and Une-Ufe: follow suit": {"S6", "SQ"},
}


def test_the_rules_page_shows_every_legal_card_example_with_its_verdicts():
    page = Client().get("/rules/").content.decode()
    examples = page.split('data-testid="legal-example"')[1:]
    assert len(examples) == len(LEGAL_EXAMPLES) == len(EXPECTED_LEGAL)
    for example, html in zip(LEGAL_EXAMPLES, examples, strict=True):
        shown_legal = set(re.findall(r'<li data-card="(\w+)" data-legal="true"', html))
        assert shown_legal == EXPECTED_LEGAL[example.title], example.title
        shown_illegal = set(re.findall(r'<li data-card="(\w+)" data-legal="false"', html))
        assert shown_illegal == set(example.hand) - shown_legal
        assert html.count("✕") == len(shown_illegal)  # every refused card says why


def test_the_rules_page_explains_scoring_fair_mode_and_rpa():
    page = Client().get("/rules/").content.decode()
    for words in ("157", "257", "Fair mode, and why", "Round point advantage", "Une-Ufe", "Obe-Abe", "push"):
        assert words in page, words


def test_points_table_adds_up_to_152_per_suit_set():
    rows = points_rows(DECKS[FRENCH])
    as_trump, plain = sum(r[1][0] for r in rows), sum(r[1][1] for r in rows)
    assert as_trump + 3 * plain == 152
    assert sum(r[1][2] for r in rows) * 4 == 152 and sum(r[1][3] for r in rows) * 4 == 152


def test_a_card_is_drawn_with_the_markup_of_static_js_cards():
    french = DECKS[FRENCH]
    html = str(card_html("H10", french))
    assert 'class="card suit-H ' in html and 'data-card="H10"' in html and 'aria-label="Ten of Hearts"' in html
    assert html.count('class="pip') == 10 and html.count("card-corner-") == 2
    assert "court-letter" in str(card_html("SK", french)) and "pip-ace" in str(card_html("DA", french))


@pytest.mark.parametrize("path", ["/", "/games/", "/rules/", "/accounts/login/"])
def test_every_page_links_to_the_rules(path):
    assert 'href="/rules/"' in Client().get(path).content.decode()


def test_the_rules_page_lists_every_weis_and_its_value_from_the_engine():
    from games.engine import hand_weis, mask_from_codes, weis_points

    page = Client().get("/rules/").content.decode()
    assert 'id="weis"' in page and "Stöck" in page
    # The values the page states are the engine's.
    for run, points in (("HA HK HQ", 20), ("HA HK HQ HJ", 50), ("HA HK HQ HJ H10", 100)):
        (code,) = hand_weis(mask_from_codes(run.split()))
        assert weis_points(code) == points and f'<td class="num">{points}</td>' in page
    assert weis_points(hand_weis(mask_from_codes(["DJ", "HJ", "SJ", "CJ"]))[0]) == 200
    assert weis_points(hand_weis(mask_from_codes(["D9", "H9", "S9", "C9"]))[0]) == 150
