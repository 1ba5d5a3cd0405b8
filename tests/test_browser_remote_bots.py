"""Bots by URL in the browser: invite jass-kit's player service, test it, seat it and play a game; the guard."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from games.records import check_record
from tests.bot_helpers import jasskit_service, jasskit_stats
from tests.browser_helpers import (
    PHONE,
    RESULT,
    add_bots,
    become_guest,
    open_invite,
    open_table,
    screenshot,
    start_game,
    table_seat,
    take_turn,
    wait_for_turn,
)
from tests.server_helpers import running_server

pytest_plugins = ["tests.browser_helpers"]

BOT_NAME = "kit"


@pytest.fixture(scope="module")
def jasskit() -> Iterator[str]:
    """jass-kit's real Flask player service with one random agent; yields its base URL."""
    with jasskit_service(BOT_NAME) as base:
        yield base


@pytest.fixture(scope="module")
def guarded_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose private-address guard is on, as in production."""
    database = tmp_path_factory.mktemp("guarded") / "db.sqlite3"
    env = {"JASSWEB_SQLITE_PATH": str(database), "JASS_ALLOW_PRIVATE_BOT_URLS": "0", "JASSWEB_BOT_DELAY_MS": "50"}
    with running_server(env) as base:
        yield base


def wait_for_stat(base: str, key: str, timeout: float = 10.0) -> dict[str, int]:
    """jass-kit's request counts once ``key`` (e.g. "game_info 200") has been counted."""
    deadline = time.monotonic() + timeout
    while True:
        stats = jasskit_stats(base)
        if stats.get(key) or time.monotonic() > deadline:
            return stats
        time.sleep(0.1)


def test_a_guest_tests_and_seats_a_jasskit_bot_by_url_and_plays_a_whole_game(open_page, jasskit):
    page = open_page()
    become_guest(page, "Vreni")
    # The longest bot timeout: this test is about jass-kit's dialect and a whole game with it, and with a core
    # kept busy beside the suite one of the reference bot's answers once took longer than the 5 s default
    # (faults by timeout are tested in test_remote_bots.py and below).
    open_table(page, "Bot by URL", target=150, bot_timeout=30)
    url = f"{jasskit}/{BOT_NAME}"

    dialog = open_invite(page, 1)
    expect(dialog.get_by_role("heading")).to_have_text("Invite a bot to East")
    dialog.get_by_label("Bot URL").fill(url)
    expect(dialog.get_by_label("Name")).to_have_attribute("placeholder", BOT_NAME)
    expect(dialog.get_by_label("Dialect")).to_have_value("auto")
    dialog.get_by_role("button", name="Test").click()
    expect(dialog.get_by_test_id("invite-verdict")).to_have_text("✓ The bot answered")
    expect(dialog.get_by_test_id("invite-dialect")).to_have_text("jass-kit")
    expect(dialog.get_by_test_id("invite-latency")).to_have_text(re.compile(r"^\d+ ms$"))
    expect(dialog.get_by_test_id("invite-answer")).to_contain_text("forehand")
    expect(dialog.get_by_test_id("invite-result")).to_have_attribute("role", "status")
    screenshot(page, "invite-tested")

    dialog.get_by_role("button", name="Seat bot at East").click()
    expect(dialog).to_be_hidden()
    east = table_seat(page, 1)
    expect(east.get_by_test_id("seat-name")).to_have_text(BOT_NAME)  # the URL's last part: no name given
    expect(east.get_by_test_id("hslu-badge")).to_have_text("HSLU")
    expect(east.get_by_test_id("seat-host")).to_have_text(jasskit.removeprefix("http://"))
    expect(east.get_by_test_id("seat-host")).to_have_attribute("title", url)
    expect(east).to_have_attribute("aria-label", re.compile(f"HSLU bot at {re.escape(url)}"))
    expect(page.get_by_test_id("remove-bot-1")).to_be_focused()

    add_bots(page, [0, 3])
    start_game(page)
    checked_mid_game = False
    cards_played = 0
    while True:
        _, state = wait_for_turn([page])
        if state == "over":
            break
        if take_turn(page, state):
            cards_played += 1
        if cards_played >= 2 and not checked_mid_game:
            # East plays right after us: by now it has answered at least once.
            expect(east.get_by_test_id("seat-latency")).to_have_text(re.compile(r"^\d+ ms$"))
            expect(east.get_by_test_id("fault-badge")).to_have_count(0)
            screenshot(page, "remote-bot-mid-game")
            checked_mid_game = True
        assert cards_played <= 9 * 20, "the game should have ended long ago"
    assert checked_mid_game

    result = page.locator(RESULT)
    expect(result.get_by_test_id("result-title")).to_have_text(re.compile(r"^You (won!|lost\.)$"))
    stats = wait_for_stat(jasskit, "game_info 200")
    assert stats.get("action_trump 200", 0) >= 1, stats  # the Test, and the game's own trump requests
    assert stats.get("action_play_card 200", 0) >= 1, stats
    assert stats.get("game_info 200", 0) >= 1, stats
    assert stats.get("select_trump 404") == 1, stats  # only the Test looked for the spec's paths
    assert not [key for key in stats if not key.endswith((" 200", "select_trump 404"))], stats

    # jass-kit's random agent answers from jass-kit's legal cards, which allow under-trumping (jass-kit-py
    # issue 10): such a card is refused as a fault. Any other fault would be ours.
    game_url = result.get_by_test_id("game-link").get_attribute("href")
    record = page.request.get(f"{game_url}record.json").json()
    state = check_record(record).state
    for fault in record["faults"]:
        played = re.search(r"played ([DHSC](?:10|[6-9AKQJ]))\)", fault["detail"])
        trump = state.rounds[fault["round"]].trump  # rounds are 0-based in records
        assert fault["kind"] == "illegal_card" and played and trump < 4, fault
        assert played.group(1)[0] == "DHSC"[trump], f"not an under-trump: {fault}"
    faults = len(record["faults"])
    expect(result.get_by_test_id("result-faults")).to_have_count(1 if faults else 0)
    if not faults:
        expect(page.get_by_test_id("faults-panel")).to_be_hidden()
        expect(page.get_by_test_id("fault-badge")).to_have_count(0)
    result.get_by_test_id("game-link").click()
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    expect(page.get_by_test_id("result-team-1")).to_contain_text(f"{BOT_NAME} (East) HSLU")
    expect(page.get_by_test_id("faults-panel")).to_have_count(1 if faults else 0)


def test_the_invite_dialog_and_a_remote_seat_fit_a_phone(open_page, jasskit):
    page = open_page(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    become_guest(page, "Mobile Marie")
    open_table(page, "Pocket bots", target=150)
    dialog = open_invite(page, 3)
    dialog.get_by_label("Bot URL").fill(f"{jasskit}/{BOT_NAME}")
    dialog.get_by_label("Dialect").select_option("jass-kit")
    dialog.get_by_role("button", name="Test").click()
    expect(dialog.get_by_test_id("invite-verdict")).to_have_text("✓ The bot answered")
    box = dialog.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    for name in ("Test", "Seat bot at West", "Cancel"):
        button = dialog.get_by_role("button", name=name, exact=True).bounding_box()
        assert button["x"] >= box["x"] and button["x"] + button["width"] <= box["x"] + box["width"], (name, button)
    screenshot(page, "invite-tested-phone")
    dialog.get_by_role("button", name="Seat bot at West").click()
    expect(dialog).to_be_hidden()
    west = table_seat(page, 3)
    expect(west.get_by_test_id("hslu-badge")).to_be_visible()
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]

    # Mid-game the bot's host, answer time and name fit its narrow side seat.
    add_bots(page, [0, 1])
    start_game(page)
    latency = west.get_by_test_id("seat-latency")
    while not latency.is_visible():
        _, state = wait_for_turn([page])
        assert state != "over"
        take_turn(page, state)
    expect(latency).to_have_text(re.compile(r"^\d+ ms$"))
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    # Measured in one go in the page, so that a re-render between two steps cannot interfere.
    boxes = page.evaluate(
        """() => {
            const seat = document.querySelector(".seat-slot > .seat[data-seat='3']");
            const box = (el) => { const r = el.getBoundingClientRect(); return {left: r.left, right: r.right}; };
            return {seat: box(seat), parts: ["seat-name", "seat-host", "seat-latency"].map(
                (id) => ({id, ...box(seat.querySelector(`[data-testid=${id}]`))}))};
        }"""
    )
    for part in boxes["parts"]:
        assert boxes["seat"]["left"] <= part["left"] and part["right"] <= boxes["seat"]["right"], boxes
    screenshot(page, "remote-bot-mid-game-phone")


def test_private_bot_urls_are_refused_next_to_the_url_field_when_the_guard_is_on(open_page, guarded_server):
    page = open_page(base_url=guarded_server)
    become_guest(page, "Ueli")
    open_table(page, "Guarded", target=150, bot_timeout=7)
    expect(page.get_by_test_id("bot-timeout")).to_have_text("7 s per answer")

    dialog = open_invite(page, 0)
    url_field = dialog.get_by_label("Bot URL")
    error = dialog.get_by_test_id("invite-url-error")
    dialog.get_by_role("button", name="Test").click()
    expect(error).to_have_text("✗ Enter the bot's URL, e.g. http://bots.example.org:5001/mybot.")

    url_field.fill("http://[::1]:9/")
    expect(error).to_be_hidden()
    dialog.get_by_role("button", name="Test").click()
    expect(error).to_contain_text("::1 is a private, loopback or otherwise non-public address")
    expect(url_field).to_have_attribute("aria-invalid", "true")
    expect(url_field).to_have_attribute("aria-describedby", re.compile(r"\binvite-url-error\b"))
    expect(dialog.get_by_test_id("invite-result")).to_be_hidden()
    field, shown = url_field.bounding_box(), error.bounding_box()
    assert 0 <= shown["y"] - (field["y"] + field["height"]) < 20, (field, shown)  # right under the field

    url_field.fill("http://10.0.0.1/")
    dialog.get_by_role("button", name="Seat bot").click()
    expect(error).to_contain_text("10.0.0.1 is a private, loopback or otherwise non-public address")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(page.get_by_test_id("invite-bot-0")).to_be_focused()  # the seat is still free

    # The table's options: the bot timeout changes between games.
    page.get_by_label("Bot timeout (s)").fill("12")
    page.get_by_test_id("bot-timeout-save").click()
    expect(page.get_by_test_id("bot-timeout")).to_have_text("12 s per answer")
