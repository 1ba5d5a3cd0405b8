"""German, French, Italian and English: chosen from the browser or the header's switch; complete catalogues.

The catalogues are read with a small parser (tests/i18n_helpers.py) and the compiled .mo files with the
standard library, so these tests need no gettext tools; only the check that the catalogues hold every
string the code marks runs ``makemessages`` (and so xgettext) when it is installed.
"""

from __future__ import annotations

import datetime as dt
import gettext
import html
import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.utils import formats, translation

from games.decks import DECKS, FRENCH, SWISS
from games.engine import GameConfig, GameState
from games.errors import ServiceError
from games.hslu import encode_round
from games.live.consumers import _guard, scope_language
from games.templatetags.stats_format import decimal, percent, signed
from tests.engine_helpers import play_random_game
from tests.i18n_helpers import LANGUAGES, PLACEHOLDER, messages, po_path, read_po

ROOT = Path(__file__).resolve().parent.parent
HEADLINES = {
    "en": "Schieber Jass in your browser",
    "de": "Schieber-Jass im Browser",
    "fr": "Le Jass Chibre dans ton navigateur",
    "it": "Jass Schieber nel tuo browser",
}


@pytest.fixture(autouse=True)
def _english_afterwards():
    """A request leaves its language active in the thread: later tests (same worker) expect English."""
    yield
    translation.deactivate()


def html_language(page: str) -> str:
    match = re.search(r'<html lang="([^"]+)"', page)
    assert match, "the page has no <html lang>"
    return match.group(1)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("accept", "language"),
    [("de-CH,de;q=0.9,en;q=0.5", "de"), ("fr-CH, fr;q=0.9", "fr"), ("it", "it"), ("en-GB", "en"), ("ja, rm", "en")],
)
def test_the_browsers_language_picks_the_pages_language(accept, language):
    page = Client().get("/", HTTP_ACCEPT_LANGUAGE=accept).content.decode()
    assert html_language(page) == language
    assert HEADLINES[language] in page
    for other, headline in HEADLINES.items():
        assert other == language or headline not in page


@pytest.mark.django_db
def test_the_header_offers_every_language_in_its_own_words_without_javascript():
    page = Client().get("/rules/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    switch = re.search(r'<form method="post" action="/i18n/setlang/"[^>]*"language-switch".*?</form>', page, re.S)
    assert switch, "the header has a language form posting to set_language"
    form = switch.group(0)
    assert 'name="next" value="/rules/"' in form and "csrfmiddlewaretoken" in form
    buttons = re.findall(r'<button type="submit" name="language" value="(\w+)".*?aria-label="([^"]+)"', form, re.S)
    # Each button's name holds the code it shows (WCAG 2.5.3), then the language in its own words.
    assert buttons == [("en", "EN: English"), ("de", "DE: Deutsch"), ("fr", "FR: Français"), ("it", "IT: Italiano")]
    assert re.search(r'value="de"[^>]*\n?[^>]*aria-pressed="true"', form)
    assert form.count('aria-pressed="true"') == 1


@pytest.mark.django_db
def test_the_switch_sets_the_language_and_it_sticks_over_the_browsers():
    client = Client()
    response = client.post("/i18n/setlang/", {"language": "fr", "next": "/rules/"}, HTTP_ACCEPT_LANGUAGE="de")
    assert response.status_code == 302 and response["Location"] == "/rules/"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "fr"
    for path in ("/", "/rules/", "/games/"):
        page = client.get(path, HTTP_ACCEPT_LANGUAGE="de").content.decode()
        assert html_language(page) == "fr", path
    assert "Comment on joue au Chibre ici" in client.get("/rules/").content.decode()
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert HEADLINES["en"] in client.get("/", HTTP_ACCEPT_LANGUAGE="de").content.decode()


@pytest.mark.django_db
def test_an_unknown_language_is_refused_and_changes_nothing():
    client = Client()
    client.post("/i18n/setlang/", {"language": "rm", "next": "/"})
    assert html_language(client.get("/", HTTP_ACCEPT_LANGUAGE="it").content.decode()) == "it"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_is_translated_and_none_is_fuzzy(language):
    entries = read_po(po_path(language))
    header = entries[0]
    assert header.msgid == "" and "fuzzy" not in header.flags
    assert f"Language: {language}\\n" in repr(header.msgstr[0]).replace("\\\\", "\\")
    problems = []
    for entry in entries[1:]:
        forms = 2 if entry.plural is not None else 1
        if "fuzzy" in entry.flags:
            problems.append(f"line {entry.line}: fuzzy {entry.msgid!r}")
        if sorted(entry.msgstr) != list(range(forms)) or not all(entry.msgstr.values()):
            problems.append(f"line {entry.line}: untranslated {entry.msgid!r}")
        for index, translated in entry.msgstr.items():
            english = entry.plural if index and entry.plural is not None else entry.msgid
            if set(PLACEHOLDER.findall(translated)) != set(PLACEHOLDER.findall(english)):
                problems.append(f"line {entry.line}: placeholders of {translated!r} differ from {english!r}")
    assert problems == []
    assert len(entries) > 500


def test_the_three_catalogues_hold_the_same_messages():
    keys = {language: {(e.key, e.plural) for e in messages(language)} for language in LANGUAGES}
    assert keys["de"] == keys["fr"] == keys["it"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_catalogue_is_up_to_date_with_its_po_file(language):
    """The committed .mo says what the .po says: compiled after the last edit (``manage.py compilemessages``)."""
    with open(po_path(language).with_suffix(".mo"), "rb") as compiled:
        catalogue = gettext.GNUTranslations(compiled)._catalog  # every compiled message, by key
    expected: dict[object, str] = {}
    for entry in messages(language):
        if entry.plural is None:
            expected[entry.key] = entry.msgstr[0]
        else:
            for index, translated in entry.msgstr.items():
                expected[(entry.key, index)] = translated
    compiled_messages = {key: value for key, value in catalogue.items() if key != ""}
    assert compiled_messages == expected


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="needs gettext's xgettext (Debian package gettext)")
def test_the_catalogues_hold_every_string_the_code_marks(tmp_path):
    """``makemessages`` over a copy of the code finds no message the committed catalogues lack, and none they
    keep without need (run it, then fill in the .po files and compile them, after changing marked strings)."""
    for part in ("games", "jassweb", "templates", "bots", "tournaments", "manage.py"):
        source = ROOT / part
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / part)
    (tmp_path / "locale" / "de" / "LC_MESSAGES").mkdir(parents=True)
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "de", "--no-location", "-v", "0"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    fresh = {(e.key, e.plural) for e in read_po(tmp_path / "locale/de/LC_MESSAGES/django.po") if e.msgid}
    committed = {(e.key, e.plural) for e in messages("de")}
    assert sorted(fresh - committed, key=str) == [], "marked in the code but missing from the catalogues"
    assert sorted(committed - fresh, key=str) == [], "in the catalogues but no longer marked in the code"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "words"),
    [("de", "ein Spitzname hat 1 bis 24 Zeichen"), ("fr", "un pseudo compte de 1 à 24 caractères")],
)
def test_a_refusal_comes_in_the_pages_language(language, words):
    client = Client()
    client.post("/guest/", {"nickname": "x" * 40, "next": "/"}, HTTP_ACCEPT_LANGUAGE=language)
    page = client.get("/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert words.capitalize() in page


@pytest.mark.django_db
def test_opening_a_table_without_a_name_is_refused_in_italian():
    client = Client()
    client.post("/guest/", {"nickname": "Vreni", "next": "/"})
    client.post("/tables/new/", {"name": " ", "mode": "standard"}, HTTP_ACCEPT_LANGUAGE="it")
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="it").content.decode()
    assert "il nome di un tavolo ha da 1 a 60 caratteri" in page


def test_a_sockets_language_is_its_pages_cookie_else_the_browsers():
    def scope(accept: str = "", cookie: str | None = None) -> dict[str, object]:
        cookies = {settings.LANGUAGE_COOKIE_NAME: cookie} if cookie else {}
        return {"headers": [(b"accept-language", accept.encode())], "cookies": cookies}

    assert scope_language(scope("fr-CH,fr;q=0.9")) == "fr"
    assert scope_language(scope("de-CH", cookie="it")) == "it"
    assert scope_language(scope("ja")) == "en"
    assert scope_language({"headers": []}) == "en"


def test_cards_are_named_in_the_language_and_deck_chosen():
    french, swiss = DECKS[FRENCH], DECKS[SWISS]
    expected = {
        "en": ("Ace of Hearts", "Rosen Ass", "Hearts", "Push"),
        "de": ("Herz-Ass", "Rosen Ass", "Herz", "Schieben"),
        "fr": ("As de Cœur", "As de Rosen", "Cœur", "Chibrer"),
        "it": ("Asso di Cuori", "Asso di Rosen", "Cuori", "Passare"),
    }
    for language, (french_ace, swiss_ace, hearts, push) in expected.items():
        with translation.override(language):
            assert french.card_name("HA") == french_ace
            assert swiss.card_name("HA") == swiss_ace
            assert french.trump_name(1) == hearts and swiss.trump_name(1) == "Rosen"
            assert french.trump_name(10) == push
            assert swiss.card_name("SQ").count("Ober") == 1  # Under, Ober and Banner keep their names
            assert french.trump_name(4) == "Obe-Abe"


def test_dates_and_numbers_follow_the_language():
    moment = dt.datetime(2026, 11, 24, 17, 5)
    shown = {}
    for language in ("en", "de", "fr", "it"):
        with translation.override(language):
            shown[language] = (formats.date_format(moment, "SHORT_DATETIME_FORMAT"), formats.number_format(1234.5, 1))
    assert shown["en"] == ("24 Nov 2026, 17:05", "1234.5")
    assert shown["de"] == ("24.11.2026 17:05", "1234,5")
    assert shown["fr"][0].startswith("24/11/2026") and shown["fr"][1] == "1234,5"
    assert shown["it"][0].startswith("24/11/2026") and shown["it"][1] == "1234,5"


def test_the_statistics_numbers_use_the_languages_decimal_separator():
    shown = {}
    for language in ("en", "de", "fr", "it"):
        with translation.override(language):
            shown[language] = (decimal(12.345), signed(-4.0), percent(0.5234, 1))
    assert shown["en"] == ("12.3", "\u22124.0", "52.3%")
    assert shown["de"] == shown["fr"] == shown["it"] == ("12,3", "\u22124,0", "52,3%")


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["de", "fr", "it"])
def test_every_page_renders_in_every_language_with_either_deck(language):
    client = Client()
    client.post("/guest/", {"nickname": "Vreni", "next": "/"})
    table = client.post("/tables/new/", {"name": "Stammtisch", "mode": "fair", "round_count": "4"})["Location"]
    pages = ["/", table, "/rules/", "/games/", "/games/mine/", "/stats/", "/ratings/", "/settings/", "/games/import/"]
    for deck in ("french", "swiss"):
        client.post("/settings/deck/", {"deck": deck, "next": "/"})
        for path in [*pages, "/accounts/login/", "/accounts/signup/"]:
            response = client.get(path, HTTP_ACCEPT_LANGUAGE=language)
            assert response.status_code == 200, (path, deck)
            page = response.content.decode()
            assert html_language(page) == language, (path, deck)
            assert "%(" not in page and "{% " not in page, (path, deck)
    rules = client.get("/rules/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert "Rosen" in rules and "Schellen" in rules  # the Swiss deck's proper names in every language


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["de", "fr", "it"])
def test_no_page_names_a_built_in_bot_in_english(language):
    """The pages a finished game, the profiles, the statistics and a bot tournament show, read without their
    scripts (the replay's and the table's data are named by the browser from the bot's key): not one "Rule-based"
    or "Random" left. A tournament's tables keep the names they were given from the teams' stored names, as any
    table keeps its name: the game lists are read before the tournament plays."""
    from games.models import Competitor, Player
    from tests.stats_helpers import finished_game
    from tests.tournament_helpers import bot_tournament, play_out
    from tournaments import service as tournaments

    def english_left(paths: list[str]) -> None:
        for path in paths:
            response = Client().get(path, HTTP_ACCEPT_LANGUAGE=language)
            assert response.status_code == 200, path
            shown = re.sub(r"<script\b.*?</script>", "", response.content.decode(), flags=re.DOTALL)
            shown = re.sub(r'\sdata-[\w-]+="[^"]*"', "", shown)  # what scripts and tests find things by, unread
            left = re.findall(r"\b(?:Rule-based|Random)\b", shown)
            assert not left, (path, left)

    nora = Player.objects.create(name="Nora")
    game = finished_game(nora, [nora, "random", "rules", "random"], seed=18, round_count=2)
    english_left(["/", "/games/", f"/games/{game.pk}/", f"/games/{game.pk}/replay"])
    tournament = bot_tournament({"Rule-based": "rules", "Random": "random"})
    tournaments.start(tournament.pk, None)
    play_out(tournament.pk)
    profiles = [f"/players/{c.pk}/" for c in Competitor.objects.all()]
    english_left(["/stats/", "/ratings/", *profiles, "/tournaments/", f"/tournaments/{tournament.pk}/"])


@pytest.mark.django_db
def test_a_damaged_record_is_refused_in_the_pages_language():
    game = play_random_game(GameState.new(GameConfig(target=1000, seed=3)), random.Random(3))
    rounds = [encode_round(rnd) for rnd in game.rounds]
    tricks = rounds[0]["tricks"]
    card = tricks[0]["cards"][0]
    tricks[2]["cards"][1] = card
    client = Client()
    client.post("/guest/", {"nickname": "Vreni", "next": "/"})
    text = json.dumps({"rounds": rounds})
    words = {
        "en": f"round 1: card {card} is dealt twice (trick 1, card 1 and trick 3, card 2)",
        "de": f"Runde 1: die Karte {card} ist doppelt verteilt (Stich 1, Karte 1 und Stich 3, Karte 2)",
    }
    for language, expected in words.items():
        response = client.post("/games/import/", {"text": text}, HTTP_ACCEPT_LANGUAGE=language)
        assert response.status_code == 400
        assert expected in html.unescape(response.content.decode()), language


@pytest.mark.django_db
@pytest.mark.asyncio
async def test_a_private_bot_url_is_refused_in_the_sockets_language(settings):
    settings.JASS_ALLOW_PRIVATE_BOT_URLS = False
    settings.JASS_BOT_URL_ALLOWLIST = []
    with translation.override("fr"), pytest.raises(ServiceError) as refused:
        await _guard("http://10.0.0.1/bot")
    assert refused.value.code == "bot_url_refused"
    assert str(refused.value.message).startswith(
        "10.0.0.1 est une adresse privée, de bouclage ou autrement non publique (10.0.0.1) ;"
    )
    with translation.override("fr"), pytest.raises(ServiceError) as refused:
        await _guard("ftp://bots.example/x")
    assert refused.value.message == "une URL de bot commence par http:// ou https://, pas 'ftp://bots.example/x'"
    with pytest.raises(ServiceError) as refused:  # English stays as it was
        await _guard("http://10.0.0.1/bot")
    assert "10.0.0.1 is a private, loopback or otherwise non-public address (10.0.0.1)" in refused.value.message


@pytest.mark.django_db
@pytest.mark.parametrize(("language", "word"), [("de", "Statistik"), ("it", "Statistiche"), ("fr", "Stats")])
def test_the_navigation_names_the_statistics_in_the_pages_language(language, word):
    """Issue 23: the German header said "Stats"."""
    page = Client().get("/rules/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    link = re.search(r'<a href="/stats/" data-testid="nav-stats"[^>]*>([^<]+)</a>', page)
    assert link and link.group(1) == word


@pytest.mark.parametrize(
    ("reason", "words"),
    [
        ("abandoned by a player", "ein Spieler hat es beendet"),
        ("Anna asked and the other players agreed", "Anna hat gefragt und die anderen waren einverstanden"),
        ("nobody was at the table for 30 minutes", "30 Minuten lang war niemand am Tisch"),
        ("nobody was connected and no move was made for 1.2 seconds", "1.2 Sekunden lang war niemand am Tisch"),
        ("the operator stopped it", "the operator stopped it"),  # an operator's or a record's own words
    ],
)
def test_why_a_game_was_abandoned_is_said_in_the_pages_language(reason, words):
    """Issue 23: the result page said "Abandoned: abandoned by a player." in every language."""
    from games.pages.names import abandon_words

    with translation.override("de"):
        assert abandon_words(reason) == words
