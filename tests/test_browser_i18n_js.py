"""German, French and Italian pages: no English string of static/js on the lobby, table, replay and rules pages.

A browser whose language is German (then French, then Italian) plays a Weis table with three rule bots to its end
(declaring Weis, announcing Stöck, reading a round's summary), opens its replay and steps through it,
and looks at the lobby and the rules page. Every text, aria-label, title and placeholder that the
modules write into a page (a MutationObserver records them from the moment the server's HTML is
parsed, toasts and fleeting notes included) is compared with the English msgids of djangojs.po: none
may appear where the language has its own words. The server-rendered HTML is the business of the
templates' catalogue (django.po), so it is left out here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser_helpers import (
    LEGAL_CARDS,
    TRUMP_CHOOSER,
    FrameRecorder,
    next_moment,
    on_move,
    screenshot,
    wait_for_seq_after,
)
from tests.server_helpers import running_server
from tests.test_browser_weis import in_server, weis_deal
from tests.test_jsi18n import read_po

pytest_plugins = ["tests.browser_helpers"]

ROOT = Path(__file__).resolve().parent.parent
TARGET = 300  # two or three rounds: a round's summary between them, then the result and its replay

START = """
import json, os, sys
os.environ["DJANGO_SETTINGS_MODULE"] = "jassweb.settings"
import django
django.setup()
from games.live import service
from games.models import Player
name, seed, target = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
player = Player.objects.get(name=name)
table = service.create_table(player, name=f"Tisch {name}", weis=True, multipliers=True, target=target,
                             bot_delay_ms=50, round_pause_s=10)
service.take_seat(table.pk, 2, player)
for seat in (0, 1, 3):
    service.set_bot(table.pk, seat, "rules", service.SYSTEM)
game = service.start_game(table.pk, service.SYSTEM, seed=seed)
print(json.dumps({"table": table.pk, "game": game.pk}))
"""

# Records what scripts write into the page once the parser is done (module scripts run after that).
RECORDER = """
(() => {
  const seen = new Set();
  window.__jsTexts = seen;
  const ATTRS = ["aria-label", "title", "placeholder", "aria-valuetext"];
  const keep = (text) => { if (text && text.trim()) seen.add(text.trim()); };
  const record = (node) => {
    if (node.nodeType === Node.TEXT_NODE) return keep(node.data);
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    if (node.tagName === "SCRIPT" || node.tagName === "STYLE") return;
    for (const name of ATTRS) keep(node.getAttribute(name));
    node.childNodes.forEach(record);
  };
  const start = () => new MutationObserver((mutations) => {
    for (const m of mutations) {
      if (m.type === "childList") m.addedNodes.forEach(record);
      else if (m.type === "characterData") keep(m.target.data);
      else keep(m.target.getAttribute(m.attributeName));
    }
  }).observe(document.documentElement,
    { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ATTRS });
  document.addEventListener("readystatechange", () => { if (document.readyState === "interactive") start(); });
})();
"""


def english_patterns(language: str) -> list[tuple[str, re.Pattern[str]]]:
    """The English msgids that ``language`` says otherwise, as patterns matching a whole text (values as .+)."""
    patterns = []
    po = ROOT / "locale" / language / "LC_MESSAGES" / "djangojs.po"
    for entry in read_po(po):
        sources = [(entry["id"], entry["strs"][0])]
        if entry["plural"]:
            sources.append((entry["plural"], entry["strs"][1]))
        for english, translated in sources:
            words = re.sub(r"%\(\w+\)s", "", english)
            # Proper names and words the language shares (Weis, Stöck, "N/S", "Match!") are not English; nor is
            # a text whose only words the translation has too ("%(label)s bot" / "bot « %(label)s »": "Est, bot").
            if english == translated or not re.search(r"[A-Za-z]{2}", words):
                continue
            if set(re.findall(r"[a-z]{2,}", words.lower())) <= set(re.findall(r"[a-z]{2,}", translated.lower())):
                continue
            parts = re.split(r"(%\(\w+\)s)", english)
            regex = "".join(".+" if re.fullmatch(r"%\(\w+\)s", p) else re.escape(p) for p in parts)
            patterns.append((english, re.compile(regex)))
    return patterns


def untranslated(page: Page, language: str, *, at_least: int = 10) -> list[tuple[str, str]]:
    """The recorded texts of ``page`` (whole, and each " · " part) that are an English msgid."""
    # The recorder sees the modules at work (the lobby's list comes a moment after its socket opens).
    page.wait_for_function("n => window.__jsTexts.size >= n", arg=at_least)
    texts = page.evaluate("() => [...window.__jsTexts]")
    patterns = english_patterns(language)
    found = []
    for text in texts:
        for piece in {text, *text.split(" · ")}:
            for english, pattern in patterns:
                if pattern.fullmatch(piece.strip()):
                    found.append((text, english))
    return found


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    database = tmp_path_factory.mktemp("i18n") / "db.sqlite3"
    env = {"JASSWEB_SQLITE_PATH": str(database), "JASSWEB_BOT_DELAY_MS": "50"}
    with running_server(env) as base:
        yield base, env


@pytest.fixture(scope="module")
def jass_server(served: tuple[str, dict[str, str]]) -> str:
    return served[0]


def become_guest(page: Page, nickname: str) -> None:
    """Choose a guest nickname on the lobby page (by the form's fields, whatever its language)."""
    page.goto("/")
    form = page.locator("form:has(input[name=nickname])").first
    form.locator("input[name=nickname]").fill(nickname)
    form.locator("button[type=submit]").click()
    expect(page.get_by_test_id("identity")).to_contain_text(nickname)


def play_to_the_end(page: Page, language: str) -> set[str]:
    """Play the person's seat to the game's end: Weis declared, Stöck announced, summaries read."""
    moments = set()
    while (moment := next_moment(page)).kind != "over":
        moments.add(moment.kind)
        here = on_move(moment.seq)  # each click acts on the state just read, never on a later one
        moves = 1
        if moment.kind == "trump":
            page.locator(f"{here} {TRUMP_CHOOSER} button[data-trump]:not([data-trump='10'])").first.click()
        elif moment.kind == "summary":
            screenshot(page, f"i18n-{language}-summary")
            page.get_by_test_id("summary-continue").click()
            expect(page.get_by_test_id("round-summary")).to_be_hidden()
            continue
        elif len(moment.weis) > 1:
            page.locator(f"{here} [data-testid=declare-all-weis]").click()
            moves = len(moment.weis)  # one move per Weis
            moments.add("weis")
        elif moment.stoeck:
            page.locator(f"{here} [data-testid=announce-stoeck]").click()
            moves = 2  # Stöck, then the card
            moments.add("stoeck")
        else:
            toggle = page.get_by_test_id("last-trick-toggle")
            if "last-trick" not in moments and toggle.is_enabled():
                toggle.click()  # the last trick, open from now on
                moments.add("last-trick")
            inactive = page.locator(f"{here} [data-testid=hand] [data-legal=false]")
            if inactive.count():  # a greyed card says why it may not be played: try one, read the toast
                inactive.first.click(force=True)
                expect(page.get_by_test_id("toast").last).to_be_visible()
                moments.add("why-not")
            page.locator(f"{here} {LEGAL_CARDS}[data-card='{moment.legal[0]}']").click()
        wait_for_seq_after(page, moment.seq, moves)
    return moments


ENGLISH_BOT = "Rule-based"  # the bots' English label, which the live views carry (static/js/dom.js says it anew)
LANGUAGES = [("de-CH", "de", "Vreni"), ("fr-CH", "fr", "Josiane"), ("it-CH", "it", "Gianni")]


@pytest.mark.parametrize(("locale", "language", "nickname"), LANGUAGES)
def test_the_german_french_and_italian_pages_show_no_english_string_of_the_modules(
    served, open_page, locale, language, nickname
):
    env = served[1]
    seed, _trump, _codes, _points = weis_deal()
    page = open_page(locale=locale)
    page.context.add_init_script(RECORDER)
    become_guest(page, nickname)
    expect(page.locator(f'script[src^="/jsi18n/?l={language}&"]')).to_have_count(1)
    started = in_server(env, START, nickname, str(seed), str(TARGET))

    frames = FrameRecorder(page)
    page.goto(f"/tables/{started['table']}/")
    expect(page.get_by_test_id("weis-panel")).to_be_visible()
    moments = play_to_the_end(page, language)
    # Every click acted on the state the page showed: the server refused none as made on an older one.
    assert [f for f in frames.frames if f.get("type") == "error"] == []
    assert {"trump", "card", "weis", "summary"} <= moments, moments
    expect(page.get_by_test_id("result")).to_be_visible()
    assert untranslated(page, language) == []
    assert ENGLISH_BOT not in page.locator("main").inner_text()  # the live views carry English bot names

    expect(page.get_by_test_id("replay-link")).to_have_attribute("href", f"/games/{started['game']}/replay")
    page.goto(f"/games/{started['game']}/replay?round=1&card=3")
    expect(page.locator("#replay")).to_have_attribute("data-ready", "true")
    for _ in range(6):  # through the end of the first trick: the Weis decided, a trick won
        page.locator("#go-next").click()
    expect(page.get_by_test_id("replay-weis")).to_be_visible()
    screenshot(page, f"i18n-{language}-replay")
    rounds = page.locator("#round-select option")
    page.locator("#round-select").select_option(index=rounds.count() - 1)  # another round's Weis and pairs
    assert untranslated(page, language) == []
    assert ENGLISH_BOT not in page.locator("main").inner_text()

    page.goto("/")
    expect(page.get_by_test_id("lobby-live")).to_have_attribute("data-live", "true")
    expect(page.get_by_test_id("lobby-table").first).to_be_visible()
    assert untranslated(page, language) == []
    assert ENGLISH_BOT not in page.locator("main").inner_text()
    page.goto("/rules/")
    expect(page.locator("main")).to_be_visible()
    assert untranslated(page, language, at_least=0) == []
