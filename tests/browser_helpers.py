"""Browser tests: the real daphne server, Debian's Chromium driven by Playwright, and page helpers.

Test modules load the fixtures with ``pytest_plugins = ["tests.browser_helpers"]``. Every module
gets its own server (a fresh SQLite database, bots moving after 50 ms) and its own browser; each
test opens isolated browser contexts, so each person has their own session cookie.

The test modules import helpers from here before pytest loads it as a plugin, so pytest
cannot rewrite its asserts: PYTEST_DONT_REWRITE says so (the asserts carry their own messages).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, ViewportSize, WebSocket, expect, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.server_helpers import running_server

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-gpu",
    "--disable-component-update",
    "--no-first-run",
]
# Pages open as for a person who asked for less motion (the CSS then stops its animations and transitions):
# headless Chromium paints in software, and the endless glow of the seat to move repainted every frame of
# every open table page (three table pages waiting for a person: 0.6 of a core, 0.01 with less motion).
# No test is about motion.
REDUCED_MOTION = "reduce"
DESKTOP: ViewportSize = {"width": 1280, "height": 860}
PHONE: ViewportSize = {"width": 375, "height": 740}
TURN_TIMEOUT = 15.0  # seconds: bots move after 50 ms, so a turn comes round quickly
# Every ``expect`` waits as long as an action does: on a busy machine a state two pages away (a seat
# taken in one tab, shown in the other) may take more than Playwright's 5 s to arrive.
expect.set_options(timeout=TURN_TIMEOUT * 1000)

HAND_CARDS = "[data-testid=hand] .card"
LEGAL_CARDS = "[data-testid=hand] [data-legal=true]"
TRUMP_CHOOSER = "[data-testid=trump-chooser]"
RESULT = "[data-testid=result]"


@pytest.fixture(scope="module")
def jass_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The project served by daphne over a fresh SQLite database; yields the base URL."""
    database = tmp_path_factory.mktemp("browser") / "db.sqlite3"
    with running_server({"JASSWEB_SQLITE_PATH": str(database), "JASSWEB_BOT_DELAY_MS": "50"}) as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless (Playwright's own browser builds are never downloaded)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"browser tests need Chromium at {CHROMIUM}")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


@pytest.fixture
def open_page(browser: Browser, jass_server: str) -> Iterator[Callable[..., Page]]:
    """Open a page in a new browser context (a new person); ``open_page(viewport=PHONE)`` for a phone.

    ``open_page(base_url=...)`` opens it on another server than the module's.
    """
    contexts: list[BrowserContext] = []
    errors: list[str] = []

    def factory(viewport: ViewportSize = DESKTOP, **options: Any) -> Page:
        options.setdefault("base_url", jass_server)
        options.setdefault("reduced_motion", REDUCED_MOTION)
        context = browser.new_context(viewport=viewport, **options)
        context.set_default_timeout(TURN_TIMEOUT * 1000)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))
        page.on("console", lambda message: refused(page, message.text, errors))
        return page

    yield factory
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors or Content-Security-Policy refusals: {errors}"


def refused(page: Page, text: str, errors: list[str]) -> None:
    """Note a resource the page's Content-Security-Policy refused (Chromium reports it on the console)."""
    if "Content Security Policy" in text:
        errors.append(f"{page.url}: {text}")


# -- people and tables -----------------------------------------------------------------


def become_guest(page: Page, nickname: str) -> None:
    """Choose a guest nickname on the lobby page."""
    page.goto("/")
    page.get_by_label("Nickname").fill(nickname)
    page.get_by_role("button", name="Play as guest").click()
    expect(page.get_by_test_id("identity")).to_contain_text(nickname)


def open_table(page: Page, name: str, *, target: int = 1000, seat: str = "2", bot_timeout: int | None = None) -> int:
    """Create a standard table from the lobby form; return its id (the page is then on the table)."""
    form = page.get_by_test_id("create-table")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Points to win").fill(str(target))
    form.get_by_label("Your seat").select_option(seat)
    if bot_timeout is not None:
        form.get_by_text("Advanced").click()
        form.get_by_label("Bot timeout (s)").fill(str(bot_timeout))
    form.get_by_role("button", name="Open table").click()
    page.wait_for_url("**/tables/*/")
    expect(page.get_by_test_id("table-app")).to_be_visible()
    expect(page.get_by_test_id("table-app")).to_have_attribute("data-socket", "open")
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


def add_bots(page: Page, seats: list[int], bot: str = "random") -> None:
    """Put a built-in bot on each of ``seats`` with the table page's seat controls."""
    for seat in seats:
        page.get_by_test_id(f"bot-select-{seat}").select_option(bot)
        page.get_by_test_id(f"add-bot-{seat}").click()
        expect(page.get_by_test_id(f"remove-bot-{seat}")).to_be_visible()


def open_invite(page: Page, seat: int) -> Locator:
    """Open the "Invite a bot by URL" dialog of an empty seat; return the dialog."""
    page.get_by_test_id(f"invite-bot-{seat}").click()
    dialog = page.get_by_test_id("invite-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_label("Bot URL")).to_be_focused()
    return dialog


def table_seat(page: Page, seat: int) -> Locator:
    """The seat ``seat`` (0 North .. 3 West) on the felt, wherever it is drawn."""
    return page.locator(f".seat-slot > .seat[data-seat='{seat}']")


def start_game(page: Page) -> None:
    start = page.get_by_test_id("start")
    expect(start).to_be_enabled()
    start.click()
    expect(page.locator("[data-testid=seat-top] [data-testid=backs]")).to_be_visible()


def my_seat(page: Page) -> int:
    """The seat shown at the bottom as "you"."""
    seat = page.locator("[data-testid=seat-bottom] [data-you=true]")
    expect(seat).to_have_count(1)
    return int(seat.get_attribute("data-seat") or "")


# -- playing ------------------------------------------------------------------------------


MY_TURN = """() => {
    if (!document.querySelector('[data-testid=result]').hidden) return "over";
    if (document.querySelector('[data-testid=trump-chooser]')) return "trump";
    if (document.querySelector('[data-testid=hand] [data-legal=true]')) return "card";
    return null;
}"""


def my_turn(page: Page) -> str | None:
    """What this page may do now: "trump", "card", "over", or None (someone else is to move)."""
    return page.evaluate(MY_TURN)


def wait_for_turn(pages: list[Page], timeout: float = TURN_TIMEOUT) -> tuple[Page, str]:
    """Wait until one of ``pages`` may act (or its game is over); return it and what it may do."""
    if len(pages) == 1:
        # One page waits inside the page: a look every 50 ms costs no round trip through the driver (three
        # processes' CPU each), where asking from here every 30 ms did, turn after turn of every browser game.
        try:
            return pages[0], pages[0].wait_for_function(MY_TURN, polling=50, timeout=timeout * 1000).json_value()
        except PlaywrightTimeoutError:
            raise AssertionError(f"no page got a turn within {timeout} s") from None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for page in pages:
            state = my_turn(page)
            if state is not None:
                return page, state
        pages[0].wait_for_timeout(30)
    raise AssertionError(f"no page got a turn within {timeout} s")


def on_move(seq: int) -> str:
    """A selector prefix that matches only while the table shows move number ``seq``.

    A step reads what it acts on (a card's code, a trump) and the move number in one look at the
    page, then clicks through this prefix: should the page have moved on meanwhile (a second move
    of the same click, a stand-in, a bot), the click cannot land on a state it did not read.
    """
    return f"[data-testid=table-app][data-seq='{seq}']"


def choose_trump(page: Page) -> int:
    """Click the first trump offered (never push, so that the round moves on)."""
    seq, trump = page.evaluate(
        """() => {
            const app = document.querySelector('[data-testid=table-app]');
            const button = app.querySelector("[data-testid=trump-chooser] button[data-trump]:not([data-trump='10'])");
            return [Number(app.dataset.seq), button ? Number(button.dataset.trump) : null];
        }"""
    )
    assert trump is not None, "no trump offered"
    page.locator(f"{on_move(seq)} {TRUMP_CHOOSER} button[data-trump='{trump}']").click()
    wait_for_seq_after(page, seq)
    return trump


def play_card(page: Page, *, keyboard: bool = False) -> str:
    """Play the first legal card of the hand (by click, or with the keyboard); return its code."""
    seq, code = page.evaluate(
        """() => {
            const app = document.querySelector('[data-testid=table-app]');
            const card = app.querySelector('[data-testid=hand] [data-legal=true]');
            return [Number(app.dataset.seq), card ? card.dataset.card : null];
        }"""
    )
    assert code is not None, "no legal card to play"
    card = page.locator(f"{on_move(seq)} {LEGAL_CARDS}[data-card='{code}']")
    if keyboard:
        card.focus()
        page.keyboard.press("Enter")
    else:
        card.click()
    # Accepted when the game moves past the move we made. (Not "the card left the hand": the last
    # card of a round can come straight back in the next deal, a fair repeat above all.)
    wait_for_seq_after(page, seq)
    return code


def shown_seq(page: Page) -> int:
    """The game's move number the page shows."""
    return int(page.get_by_test_id("table-app").get_attribute("data-seq") or "")


def wait_for_seq_after(page: Page, seq: int, moves: int = 1) -> None:
    """Wait until the page shows the state after ``moves`` moves past move number ``seq``.

    One click can make several moves (declaring all Weis, Stöck with their card), each its own
    state: the next step must act on the last of them, not on one the page is about to replace.
    """
    page.wait_for_function(
        "target => Number(document.querySelector('[data-testid=table-app]').dataset.seq) >= target",
        arg=seq + moves,
    )


@dataclass(frozen=True)
class Moment:
    """What a person at the table may do now, read in one look at the page (see ``next_moment``)."""

    kind: str  # "over", "summary", "trump" or "card"
    seq: int  # the move number shown
    legal: list[str]  # the playable cards' codes
    weis: list[int]  # the Weis offered to declare, by code
    stoeck: bool  # the Stöck button is offered


MOMENT = """() => {
    const app = document.querySelector('[data-testid=table-app]');
    const shown = (id) => !document.querySelector(`[data-testid=${id}]`).hidden;
    const kind = shown('result') ? 'over' : shown('round-summary') ? 'summary'
        : app.querySelector('[data-testid=trump-chooser]') ? 'trump'
        : app.querySelector('[data-testid=hand] [data-legal=true]') ? 'card' : null;
    if (kind === null) return null;
    const all = (selector) => [...app.querySelectorAll(selector)];
    return {
        kind,
        seq: Number(app.dataset.seq),
        legal: all('[data-testid=hand] [data-legal=true]').map((card) => card.dataset.card),
        weis: all('[data-testid=declare-weis]').map((button) => Number(button.dataset.code)),
        stoeck: all('[data-testid=announce-stoeck]').length > 0,
    };
}"""


def next_moment(page: Page) -> Moment:
    """Wait until the person may act, a round's summary is up or the game is over; return that moment."""
    return Moment(**page.wait_for_function(MOMENT).json_value())


def take_turn(page: Page, state: str) -> str | None:
    """Act on ``state`` from ``my_turn``; return the card played, if any."""
    if state == "trump":
        choose_trump(page)
        return None
    if state == "card":
        return play_card(page)
    return None


def trick_card(page: Page, code: str):
    """The card ``code`` as it lies in the trick on ``page``."""
    return page.locator(f"[data-testid=trick] [data-card='{code}']")


def wait_for_trick_card(page: Page, code: str, seat: int | None = None) -> None:
    """Wait until ``page`` shows the card ``code`` in the trick (in front of ``seat``, if given).

    Checked on every animation frame: a trick's last card lies on the table only while the trick
    lingers, which a check every second or so (``expect``'s) can miss on a busy machine.
    """
    page.wait_for_function(
        """([code, seat]) => [...document.querySelectorAll('[data-testid=trick] [data-card]')].some(
            (card) => card.dataset.card === code && (seat === null || card.dataset.seat === String(seat))
                && card.checkVisibility())""",
        arg=[code, seat],
    )


# -- what the browser receives ---------------------------------------------------------------


class FrameRecorder:
    """Every websocket frame a page receives, parsed."""

    def __init__(self, page: Page) -> None:
        self.frames: list[dict[str, Any]] = []
        page.on("websocket", self._watch)

    def _watch(self, ws: WebSocket) -> None:
        ws.on("framereceived", self._record)

    def _record(self, payload: str | bytes) -> None:
        text = payload.decode() if isinstance(payload, bytes) else payload
        self.frames.append(json.loads(text))

    def states(self) -> list[dict[str, Any]]:
        return [f for f in self.frames if f.get("type") == "state"]


def hands_in(data: Any, path: str = "$") -> list[tuple[str, Any]]:
    """Every non-empty ``hand`` (or ``hands``) field anywhere in ``data``, with its path."""
    found = []
    if isinstance(data, dict):
        for key, value in data.items():
            if key in ("hand", "hands") and value:
                found.append((f"{path}.{key}", value))
            found.extend(hands_in(value, f"{path}.{key}"))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found.extend(hands_in(value, f"{path}[{index}]"))
    return found


def screenshot(page: Page, name: str) -> None:
    """Save a screenshot when JASSWEB_SCREENSHOT_DIR is set (to look at the design)."""
    folder = os.environ.get("JASSWEB_SCREENSHOT_DIR")
    if folder:
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)
