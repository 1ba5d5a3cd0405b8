"""The German and French interfaces leave no English string on the lobby, table, replay and rules pages.

A person walks the pages in a real browser: German chosen by the browser's language, French with the
header's switch (by keyboard). On each page the test reads what the server rendered and fails on any
text that equals an English message the language translates (tests/i18n_helpers.py).

Server-rendered and JavaScript-rendered text are told apart by where they are read: the test reads the
page's HTML as the server sends it (the same URL, fetched with the browser's cookies and language),
never the live DOM, so nothing that static/js/ writes into the page later (seats, hands, the score sheet,
the replay's felt) is in it; that text is the JavaScript catalogue's, with its own test. Everything the
server writes counts, hidden or not (dialogs, <template>, <noscript>, titles, aria-labels, placeholders);
<script> elements are data (json_script), not text.
"""

from __future__ import annotations

import json
import random
import re
from html.parser import HTMLParser

from playwright.sync_api import Page, expect

from games.engine import GameConfig, GameState
from games.hslu import encode_round
from tests.engine_helpers import play_random_game
from tests.i18n_helpers import english_patterns

pytest_plugins = ["tests.browser_helpers"]

TEXT_ATTRIBUTES = ("aria-label", "title", "placeholder", "alt")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class ServerText(HTMLParser):
    """Every text of a page: each text node, each element's whole text, and the attributes people read."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: set[str] = set()
        self.open: list[tuple[str, list[str]]] = []  # element name, its text so far
        self.in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in TEXT_ATTRIBUTES and value:
                self.add(value)
        if tag in ("script", "style"):
            self.in_script = True
        elif tag not in VOID:
            self.open.append((tag, []))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.in_script = False
            return
        while self.open:
            name, parts = self.open.pop()
            whole = " ".join(parts)
            self.add(whole)
            if self.open:
                self.open[-1][1].append(whole)
            if name == tag:
                break

    def handle_data(self, data: str) -> None:
        if self.in_script:
            return
        self.add(data)
        if self.open:
            self.open[-1][1].append(data)

    def add(self, text: str) -> None:
        text = " ".join(text.split())
        if text:
            self.texts.add(text)


def server_texts(page: Page) -> set[str]:
    """The texts of the current page as the server rendered it (fetched again with the page's cookies)."""
    response = page.request.get(page.url)
    assert response.ok, f"{page.url}: {response.status}"
    parser = ServerText()
    parser.feed(response.text())
    return parser.texts


def untranslated(page: Page, patterns: dict[str, re.Pattern[str]]) -> list[tuple[str, str]]:
    """(English message, text) for each text of the page that is an English message of the language."""
    found = []
    for text in sorted(server_texts(page)):
        for english, pattern in patterns.items():
            if pattern.fullmatch(text):
                found.append((english, text))
    return found


def standard_record(seed: int = 7) -> dict:
    """A finished standard game of random legal moves, to import."""
    state = play_random_game(GameState.new(GameConfig(target=300, seed=seed)), random.Random(seed))
    names = ["Vreni", "Ruedi", "Heidi", "Sepp"]
    seats = [{"position": i, "name": name, "kind": "human"} for i, name in enumerate(names)]
    return {"mode": "standard", "target": 300, "seats": seats, "rounds": [encode_round(r) for r in state.rounds]}


def walk_and_check(page: Page, language: str) -> list[str]:
    """Become a guest, open a table, import a game and open its replay, read the rules; return every page's
    untranslated texts (the page is already in ``language``)."""
    patterns = english_patterns(language)
    problems: list[str] = []

    def check(where: str) -> None:
        expect(page.locator("html")).to_have_attribute("lang", language)
        for english, text in untranslated(page, patterns):
            problems.append(f"{where}: {text!r} is the English {english!r}")

    page.goto("/")
    check("lobby (no nickname yet)")
    page.locator("#nickname").fill("Vreni")
    page.locator("[data-testid=nickname-panel] button[type=submit]").click()
    expect(page.get_by_test_id("create-table")).to_be_visible()
    check("lobby")

    page.locator("#table-name").fill("Stammtisch")
    page.locator("#create-table button[type=submit]").click()
    page.wait_for_url("**/tables/*/")
    expect(page.get_by_test_id("table-app")).to_be_visible()
    check("table")
    page.goto("/")
    expect(page.get_by_test_id("lobby-table").first).to_be_visible()
    check("lobby with a table")

    page.goto("/games/import/")
    page.locator("#record-text").fill(json.dumps(standard_record()))
    page.locator("[data-testid=import-form] button[type=submit]").click()
    page.wait_for_url(re.compile(r"/games/\d+/replay"))
    expect(page.get_by_test_id("replay")).to_have_attribute("data-ready", "true")
    check("replay")

    page.goto("/rules/")
    expect(page.get_by_test_id("rules")).to_be_visible()
    check("rules")
    return problems


def test_the_german_interface_chosen_by_the_browser_has_no_untranslated_string(open_page):
    page = open_page(locale="de-CH", extra_http_headers={"Accept-Language": "de-CH,de;q=0.9"})
    assert walk_and_check(page, "de") == []


def test_the_french_interface_chosen_with_the_header_switch_has_no_untranslated_string(open_page):
    page = open_page(locale="en-GB")
    page.goto("/rules/")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    french = page.get_by_test_id("language-switch").get_by_role("button", name="Français")
    french.focus()
    page.keyboard.press("Enter")  # a plain form: no JavaScript needed, and the keyboard reaches it
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    assert page.url.endswith("/rules/")
    expect(page.get_by_test_id("language-switch").get_by_role("button", name="Français")).to_have_attribute(
        "aria-pressed", "true"
    )
    assert walk_and_check(page, "fr") == []


def test_the_check_finds_english_where_it_is_left(open_page):
    """The same walk in English finds the English strings: the check would see any left in German or French."""
    page = open_page(locale="en-GB")
    page.goto("/rules/")
    found = {english for english, _ in untranslated(page, english_patterns("de"))}
    assert {"How Schieber is played here", "Which cards you may play", "Skip to content", "Rules"} <= found
    assert len(found) > 60
