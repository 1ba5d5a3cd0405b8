"""A person who closes the tab: the others see them offline, their clock runs out, a bot stands in, they come back.

Two people and two bots at a table with a five-second turn clock (the server
offers it through ``JASSWEB_TURN_CLOCK_CHOICES``). One person closes the tab;
the other sees them go offline, and within the clock the stand-in bot plays
their cards. They come back, press *I'm back* and play on, and the game ends.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.browser_helpers import (
    add_bots,
    become_guest,
    my_seat,
    open_table,
    screenshot,
    start_game,
    table_seat,
    take_turn,
    wait_for_turn,
)
from tests.server_helpers import running_server

pytest_plugins = ["tests.browser_helpers"]

CLOCK = 5  # seconds a move


@pytest.fixture(scope="module")
def jass_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The project with a short turn clock on offer (the others are 30, 60 and 120 s)."""
    database = tmp_path_factory.mktemp("standin") / "db.sqlite3"
    env = {
        "JASSWEB_SQLITE_PATH": str(database),
        "JASSWEB_BOT_DELAY_MS": "50",
        "JASSWEB_TURN_CLOCK_CHOICES": f"0,{CLOCK},30,60,120",
    }
    with running_server(env) as base:
        yield base


def play_until(pages: list[Page], done, timeout: float = 60.0) -> None:
    """Take every turn of ``pages`` until ``done()`` is true."""
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "the game did not get there in time"
        try:
            page, state = wait_for_turn(pages, timeout=1.0)
        except AssertionError:
            continue  # nobody of ours is to move: a bot, or the stand-in
        if state == "over":
            return
        take_turn(page, state)


def test_a_closed_tab_goes_offline_the_stand_in_plays_and_the_person_comes_back(open_page):
    anna = open_page()
    become_guest(anna, "Anna")
    table_id = open_table(anna, "Clocked table", target=150)

    # A short clock, chosen at the table before the game; the choice outlives a redraw (Beat sits
    # down meanwhile) until it is saved.
    anna.get_by_test_id("turn-clock-input").select_option(str(CLOCK))

    beat = open_page()
    become_guest(beat, "Beat")
    lobby_table = beat.locator(f"[data-testid=lobby-table][data-table-id='{table_id}']")
    lobby_table.get_by_role("button", name="Sit here: East at Clocked table").click()
    beat.wait_for_url(f"**/tables/{table_id}/")
    expect(table_seat(anna, 1)).to_contain_text("Beat")
    expect(anna.get_by_test_id("turn-clock-input")).to_have_value(str(CLOCK))
    anna.get_by_test_id("clock-save").click()
    expect(anna.get_by_test_id("turn-clock-option")).to_contain_text(f"{CLOCK} s a move")
    expect(beat.get_by_test_id("turn-clock-option")).to_contain_text(f"{CLOCK} s a move")
    expect(table_seat(anna, 1).get_by_test_id("presence")).to_have_attribute("data-online", "true")
    add_bots(anna, [0, 3], bot="rules")
    start_game(anna)
    assert my_seat(beat) == 1

    # Beat plays a card of his own, then closes the tab.
    played: list[str] = []
    deadline = time.monotonic() + 60
    while not played:
        assert time.monotonic() < deadline
        page, state = wait_for_turn([anna, beat])
        card = take_turn(page, state)
        if page is beat and card:
            played.append(card)
    context = beat.context
    beat.close()
    expect(table_seat(anna, 1).get_by_test_id("presence")).to_have_attribute("data-online", "false", timeout=5000)
    expect(table_seat(anna, 1)).to_contain_text("offline")

    # Anna plays on; when Beat's turn comes his clock runs out and the stand-in plays for him.
    badge = table_seat(anna, 1).get_by_test_id("standin-badge")
    play_until([anna], lambda: badge.count() > 0, timeout=4 * CLOCK + 30)
    expect(badge).to_contain_text("Rule-based bot plays")
    screenshot(anna, "standin-playing")
    seq_at_standin = int(anna.get_by_test_id("table-app").get_attribute("data-seq"))
    play_until([anna], lambda: int(anna.get_by_test_id("table-app").get_attribute("data-seq")) > seq_at_standin + 4)

    # Beat comes back: his seat is his, a bot is playing it, and "I'm back" returns it to him.
    beat = context.new_page()
    beat.goto(f"/tables/{table_id}/")
    expect(beat.get_by_test_id("away-panel")).to_contain_text("Your time ran out")
    expect(table_seat(anna, 1).get_by_test_id("presence")).to_have_attribute("data-online", "true")
    beat.get_by_test_id("back").click()
    expect(beat.get_by_test_id("away-panel")).to_have_count(0)
    expect(badge).to_have_count(0)

    # Both play on to the end of the game.
    result = anna.get_by_test_id("result")
    play_until([anna, beat], lambda: result.is_visible(), timeout=240)
    expect(result).to_be_visible()
    game_id = int(anna.get_by_test_id("game-link").get_attribute("href").strip("/").split("/")[-1])
    record = anna.request.get(f"/games/{game_id}/record.json").json()
    assert record["status"] == "finished"
    assert record["standin_moves"] and {m["seat"] for m in record["standin_moves"]} == {1}
    assert record["standin_bot"] == "rules"
