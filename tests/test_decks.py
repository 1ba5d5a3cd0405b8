"""French and Swiss-German cards: the drawn sprite, the names, the markup, and the choice kept per person."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from django.contrib.auth.models import User
from django.test import Client

from games.decks import DECKS, FRENCH, PIPS, REASONS, SUIT_LETTERS, SWISS, card_html, deck_named, trump_html
from games.engine import CARD_CODES, GameConfig, GameState, iter_cards, mask_from_codes, refusal, why_not
from games.engine.cards import card_from_code
from games.live import snapshot
from games.live.identity import DECK_SESSION_KEY
from games.models import Player

ROOT = Path(__file__).resolve().parent.parent
SPRITE = ROOT / "static" / "cards" / "swiss.svg"
CARDS_JS = ROOT / "static" / "js" / "cards.js"
SVG = "{http://www.w3.org/2000/svg}"
PASSWORD = "a-long-test-password-9"

french, swiss = DECKS[FRENCH], DECKS[SWISS]


# -- the drawing ---------------------------------------------------------------------------------


def test_the_committed_sprite_is_what_the_script_draws():
    script = ROOT / "scripts" / "draw_swiss_cards.py"
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_the_sprite_has_the_four_suits_and_a_face_for_every_picture_card():
    root = ElementTree.parse(SPRITE).getroot()
    symbols = {s.get("id"): s for s in root.iter(f"{SVG}symbol")}
    faces = {f"face-{suit}{rank}" for suit in SUIT_LETTERS for rank in ("A", "K", "Q", "J", "10")}
    assert set(symbols) == {f"suit-{s}" for s in SUIT_LETTERS} | faces
    for name in faces:
        # Every face shows its own suit's symbol (and no other), through the sprite's suit symbols.
        used = {u.get("href") for u in symbols[name].iter(f"{SVG}use")}
        assert used == {f"#suit-{name[5]}"}, (name, used)
    for suit in SUIT_LETTERS:
        assert len(list(symbols[f"suit-{suit}"])) >= 4, suit  # a drawing, not a placeholder


def test_the_swiss_deck_has_no_pictures_where_numbers_belong_and_the_banner_is_a_picture():
    assert swiss.pip_ranks == {"9", "8", "7", "6"} and french.pip_ranks == {"10", "9", "8", "7", "6"}
    banner = str(card_html("H10", swiss))
    assert "#face-H10" in banner and 'class="pip' not in banner
    nine = str(card_html("S9", swiss))
    assert nine.count('class="pip"') == len(PIPS["9"]) and nine.count("#suit-S") == len(PIPS["9"]) + 2
    assert "pip-flip" not in nine  # Swiss symbols stand upright
    assert 'aria-label="Schilten 9"' in nine and "♠" not in nine


# -- names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "french_name", "french_text", "swiss_name"),
    [
        ("HA", "Ace of Hearts", "♥A", "Rosen Ass"),
        ("DK", "King of Diamonds", "♦K", "Schellen König"),
        ("SQ", "Queen of Spades", "♠Q", "Schilten Ober"),
        ("CJ", "Jack of Clubs", "♣J", "Eicheln Under"),
        ("H10", "Ten of Hearts", "♥10", "Rosen Banner"),
        ("D6", "Six of Diamonds", "♦6", "Schellen 6"),
    ],
)
def test_cards_are_named_in_each_deck(code, french_name, french_text, swiss_name):
    assert french.card_name(code) == french_name and french.card_text(code) == french_text
    assert swiss.card_name(code) == swiss.card_text(code) == swiss_name


def test_the_suits_map_as_the_rules_say():
    # docs/rules.md: Diamonds/Schellen, Hearts/Rosen, Spades/Schilten, Clubs/Eicheln.
    rules = (ROOT / "docs" / "rules.md").read_text()
    assert "(Diamonds/Schellen, Hearts/Rosen, Spades/Schilten, Clubs/Eicheln)" in rules
    assert [swiss.trump_name(t) for t in range(4)] == ["Schellen", "Rosen", "Schilten", "Eicheln"]
    assert [french.trump_name(t) for t in range(4)] == ["Diamonds", "Hearts", "Spades", "Clubs"]
    assert swiss.trump_name(4) == french.trump_name(4) == "Obe-Abe" and swiss.trump_name(10) == "Push"
    assert swiss.indices["Q"] == "O" and swiss.indices["J"] == "U" and swiss.indices["10"] == "10"


def _js_object(name: str) -> dict:
    """A constant object literal of static/js/cards.js, read as JSON (its keys quoted)."""
    text = CARDS_JS.read_text()
    start = text.index(f"export const {name} = ") + len(f"export const {name} = ")
    end = text.index("\n};\n", start) + 2
    # The words are wrapped in the translation functions of static/js/i18n.js, with "%(name)s" fields.
    literal = re.sub(r'\b(?:gettext|pgettext)\((?:"[^"]*",\s*)?("[^"]*")\)', r"\1", text[start:end])
    literal = re.sub(r"%\((\w+)\)s", r"{\1}", literal)
    literal = re.sub(r"([{,]\s*)(\w+):", r'\1"\2":', literal)
    return json.loads(re.sub(r",(\s*[}\]])", r"\1", literal))


def test_the_pages_and_the_server_use_the_same_words():
    strings = _js_object("DECK_STRINGS")
    for key, deck in DECKS.items():
        js = strings[key]
        assert js["label"] == deck.label
        assert js["suits"] == deck.suit_names and js["symbols"] == deck.symbols
        assert js["ranks"] == deck.rank_names and js["indices"] == deck.indices
        assert js["card"] == deck.card_format
    assert {k: v for k, v in _js_object("REASON_STRINGS").items() if k != "unknown"} == REASONS


def test_the_french_reasons_are_the_engines_and_the_swiss_ones_name_no_french_suit():
    rng = random.Random(12)
    seen = set()
    for seed in range(6):
        state = GameState.new(GameConfig(target=300, seed=seed))
        while not state.over:
            rnd = state.current
            if rnd.trump >= 0 and rnd.trick:
                hand = rnd.hands[rnd.player]
                for card in iter_cards(hand & ~rnd.legal_mask()):
                    assert french.reason(hand, rnd.trick, rnd.trump, card) == why_not(hand, rnd.trick, rnd.trump, card)
                    text = swiss.reason(hand, rnd.trick, rnd.trump, card)
                    assert not re.search("[♦♥♠♣]|Hearts|Spades|Clubs|Diamonds|Jack|Queen", text), text
                    seen.add(refusal(hand, rnd.trick, rnd.trump, card)[0])
            state = state.apply(state.player, rng.choice(state.current.legal_actions()))
    assert seen == {"follow", "follow_trump", "under_trump"}
    trick = [card_from_code(c) for c in ("HK", "S10")]
    hand = mask_from_codes(["HQ", "S6", "SA", "D7"])
    assert (
        swiss.reason(hand, trick, 2, card_from_code("S6"))
        == "No under-trumping: the Schilten Banner in the trick is higher"
    )
    assert swiss.reason(hand, trick, 2, card_from_code("D7")) == "You must follow Rosen"


def test_a_seated_player_gets_each_refused_cards_rule_not_words():
    checked = 0
    for seed in range(40):
        state = GameState.new(GameConfig(target=1000, seed=seed))
        rng = random.Random(seed)
        while not state.over and len(state.rounds) < 2:
            rnd = state.current
            if rnd.trump >= 0 and rnd.trick and rnd.hands[rnd.player] & ~rnd.legal_mask():
                part = json.loads("{" + snapshot.private_part(state, rnd.player)[1:] + "}")
                for code, reason in part["why_not"].items():
                    rule, which = refusal(rnd.hands[rnd.player], rnd.trick, rnd.trump, card_from_code(code))
                    expected = (
                        {"rule": rule, "suit": "DHSC"[which]}
                        if "follow" in rule
                        else {"rule": rule, "card": CARD_CODES[which]}
                    )
                    assert reason == expected, (code, reason)
                    checked += 1
            state = state.apply(state.player, rng.choice(state.current.legal_actions()))
    assert checked > 50


def test_a_trump_is_shown_with_its_symbol_and_name():
    assert str(trump_html(1, french)) == '<span class="suit suit-H" aria-hidden="true">♥</span> Hearts'
    rosen = str(trump_html(1, swiss))
    assert "#suit-H" in rosen and rosen.endswith(" Rosen") and "♥" not in rosen
    assert str(trump_html(4, swiss)).endswith(" Obe-Abe") and str(trump_html(-1, swiss)) == "\u2013"
    assert deck_named("nonsense") is french and deck_named(None) is french


# -- the choice, kept per person -------------------------------------------------------------------


def _deck_of_page(client: Client, path: str = "/") -> str:
    html = client.get(path).content.decode()
    found = re.search(r'<html lang="en" data-deck="(\w+)"', html)
    assert found, html[:200]
    return found.group(1)


def _choose(client: Client, deck: str, follow: bool = False):
    return client.post("/settings/deck/", {"deck": deck, "next": "/rules/"}, follow=follow)


@pytest.mark.django_db
def test_a_visitor_without_a_name_keeps_the_deck_in_the_session():
    visitor = Client()
    assert _deck_of_page(visitor) == FRENCH
    response = _choose(visitor, SWISS)
    assert response.status_code == 302 and response["Location"] == "/rules/"
    assert _deck_of_page(visitor) == SWISS and _deck_of_page(visitor, "/rules/") == SWISS
    assert _deck_of_page(Client()) == FRENCH  # someone else still sees the French cards
    assert not Player.objects.exists()


@pytest.mark.django_db
def test_a_guest_keeps_the_deck_on_the_guest_player():
    visitor = Client()
    _choose(visitor, SWISS)
    visitor.post("/guest/", {"nickname": "Vreni"})
    vreni = Player.objects.get(name="Vreni")
    assert vreni.deck == SWISS  # the visitor's choice came along
    assert DECK_SESSION_KEY not in visitor.session
    _choose(visitor, FRENCH)
    vreni.refresh_from_db()
    assert vreni.deck == FRENCH and _deck_of_page(visitor) == FRENCH
    _choose(visitor, SWISS)
    assert Player.objects.get(pk=vreni.pk).deck == SWISS and _deck_of_page(visitor, "/games/") == SWISS


@pytest.mark.django_db
def test_an_account_keeps_the_deck_on_every_device():
    User.objects.create_user("hanna", password=PASSWORD)
    laptop = Client()
    laptop.login(username="hanna", password=PASSWORD)
    _choose(laptop, SWISS)
    phone = Client()
    phone.post("/accounts/login/", {"username": "hanna", "password": PASSWORD})
    assert _deck_of_page(phone) == SWISS
    assert Player.objects.get(user__username="hanna").deck == SWISS


@pytest.mark.django_db
def test_a_guest_who_signs_up_or_a_visitor_who_logs_in_keeps_the_latest_choice():
    guest = Client()
    guest.post("/guest/", {"nickname": "Ruedi"})
    _choose(guest, SWISS)
    guest.post("/accounts/signup/", {"username": "ruedi", "password1": PASSWORD, "password2": PASSWORD})
    assert Player.objects.get(user__username="ruedi").deck == SWISS and _deck_of_page(guest) == SWISS

    User.objects.create_user("mia", password=PASSWORD)
    visitor = Client()
    _choose(visitor, SWISS)
    visitor.post("/accounts/login/", {"username": "mia", "password": PASSWORD})
    assert Player.objects.get(user__username="mia").deck == SWISS and _deck_of_page(visitor) == SWISS


@pytest.mark.django_db
def test_an_unknown_deck_is_refused_and_changes_nothing():
    visitor = Client()
    visitor.post("/guest/", {"nickname": "Sepp"})
    page = _choose(visitor, "tarot", follow=True).content.decode()
    assert "No such deck: &#x27;tarot&#x27; (choose french or swiss)." in page
    assert Player.objects.get(name="Sepp").deck == FRENCH
    assert visitor.get("/settings/deck/").status_code == 405


@pytest.mark.django_db
def test_the_settings_page_previews_both_decks_and_marks_the_chosen_one():
    visitor = Client()
    _choose(visitor, SWISS)
    page = visitor.get("/settings/").content.decode()
    assert re.search(r'value="swiss" checked', page) and not re.search(r'value="french" checked', page)
    assert 'aria-label="Schellen Ass"' in page and 'aria-label="Ace of Diamonds"' in page
    assert 'data-deck-option="swiss"' in page and 'aria-pressed="true"' in page  # the header's switch


# -- pages in the chosen deck ----------------------------------------------------------------------


@pytest.mark.django_db
def test_the_rules_page_in_swiss_cards_names_no_french_card():
    visitor = Client()
    _choose(visitor, SWISS)
    page = visitor.get("/rules/").content.decode()
    examples = page[page.index('id="legal"') : page.index('id="points"')]
    assert "Rosen were led" in examples and "The Under of trumps (Puur)" in examples
    assert "No under-trumping: the Schilten Banner in the trick is higher" in examples
    assert "trump order U 9 A K O 10 8 7 6" in examples
    assert not re.search(r"[♦♥♠♣]|Hearts|Spades|Diamonds|Clubs|Jack|Queen|Ace\b", examples)
    assert "#face-SJ" in page and 'aria-label="Schilten Under"' in page
    assert '<th scope="row">Banner</th>' in page and '<th scope="row">Ober</th>' in page


@pytest.mark.django_db
def test_the_lobby_hint_names_the_suits_of_the_deck():
    visitor = Client()
    visitor.post("/guest/", {"nickname": "Lisi"})  # the form to open a table
    assert "♦</span> Diamonds and" in visitor.get("/").content.decode()
    _choose(visitor, SWISS)
    lobby = visitor.get("/").content.decode()
    assert "Schellen and" in lobby and "Diamonds" not in lobby
