"""Play again and play now in the browser.

Play again: Nora and Emil finish a short game; Nora offers to play again, Emil
accepts, and the same four play the next game with the deal moved on; after that
one, Emil declines and no game starts. Play now: Anna and Beat press *Play now* and
meet at one table, whose empty seats bots fill when the wait is over; Carla, with
nobody waiting, gets a table of her own that bots fill.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser_helpers import (
    PHONE,
    RESULT,
    add_bots,
    become_guest,
    open_table,
    start_game,
    table_seat,
    take_turn,
    wait_for_turn,
)
from tests.server_helpers import HTTP, running_server

pytest_plugins = ["tests.browser_helpers"]


def play_to_the_end(pages: list[Page]) -> None:
    """Both people play their cards until the game is over on every page."""
    done: set[int] = set()
    while len(done) < len(pages):
        page, state = wait_for_turn([p for i, p in enumerate(pages) if i not in done])
        if state == "over":
            done.add(pages.index(page))
        else:
            take_turn(page, state)


def first_dealer(base: str, game_id: int) -> int:
    return HTTP.get(f"{base}/games/{game_id}/record.json").json()["rounds"][0]["dealer"]


def last_dealer(base: str, game_id: int) -> int:
    return HTTP.get(f"{base}/games/{game_id}/record.json").json()["rounds"][-1]["dealer"]


def game_id(page: Page) -> int:
    link = page.locator(f"{RESULT} [data-testid=game-link]").get_attribute("href") or ""
    return int(re.findall(r"\d+", link)[0])


def test_the_same_four_play_again_when_everyone_accepts_and_not_when_one_declines(open_page, jass_server):
    nora, emil = open_page(), open_page(viewport=PHONE)
    become_guest(nora, "Nora")
    become_guest(emil, "Emil")
    table_id = open_table(nora, "Again and again", target=1, seat="0")  # to one point: one round a game
    add_bots(nora, [1, 3])
    emil.goto(f"/tables/{table_id}/")
    expect(emil.get_by_test_id("table-app")).to_have_attribute("data-socket", "open")  # a click now is sent
    emil.get_by_test_id("sit-2").click()
    expect(table_seat(nora, 2)).to_contain_text("Emil")
    start_game(nora)
    play_to_the_end([nora, emil])
    first = game_id(nora)
    expect(nora.get_by_test_id("new-game")).to_have_count(0)  # other people sit here: they are asked
    nora.get_by_test_id("rematch").click()
    expect(emil.get_by_test_id("rematch-text")).to_contain_text("Nora offers to play again")
    expect(nora.get_by_test_id("rematch-text")).to_contain_text("Waiting for Emil")
    emil.get_by_test_id("rematch-accept").click()
    for page in (nora, emil):
        expect(page.locator(RESULT)).to_be_hidden()
    play_to_the_end([nora, emil])
    second = game_id(nora)
    assert second != first
    assert first_dealer(jass_server, second) == (last_dealer(jass_server, first) - 1) % 4  # the deal moved on
    nora.goto(f"/games/{second}/")
    expect(nora.get_by_test_id("series")).to_contain_text("game 1")
    nora.go_back()

    nora.get_by_test_id("rematch").click()
    emil.get_by_test_id("rematch-decline").click()
    expect(nora.get_by_test_id("rematch-text")).to_contain_text("Emil declined to play again")
    expect(emil.get_by_test_id("rematch-text")).to_contain_text("You declined")
    # The decline is on both pages, so the server has handled it: and no game started after it.
    expect(nora.locator(RESULT)).to_be_visible()
    assert "game 3" not in HTTP.get(f"{jass_server}/games/{second}/").text


def test_play_now_brings_people_together_and_bots_fill_the_rest(open_page, tmp_path):
    env = {
        "JASSWEB_SQLITE_PATH": str(tmp_path / "db.sqlite3"),
        "JASSWEB_PLAY_NOW_WAIT_S": "4",
        "JASSWEB_BOT_DELAY_MS": "50",
    }
    with running_server(env) as base:
        anna, beat, carla = (open_page(base_url=base) for _ in range(3))
        for page, name in ((anna, "Anna"), (beat, "Beat"), (carla, "Carla")):
            become_guest(page, name)
        anna.get_by_test_id("play-now-button").click()
        anna.wait_for_url(re.compile(r"/tables/\d+/$"))
        beat.get_by_test_id("play-now-button").click()
        beat.wait_for_url(re.compile(r"/tables/\d+/$"))
        assert beat.url == anna.url  # the table waiting for people
        for page in (anna, beat):  # the wait is over: bots fill the two empty seats and the game starts
            expect(page.locator("[data-testid=hand] .card")).to_have_count(9, timeout=20_000)
        expect(anna.locator(".seat-slot > .seat")).to_have_count(4)

        carla.get_by_test_id("play-now-button").click()
        carla.wait_for_url(re.compile(r"/tables/\d+/$"))
        assert carla.url != anna.url  # nobody was waiting: a table of her own
        expect(carla.locator("[data-testid=hand] .card")).to_have_count(9, timeout=20_000)
        _, state = wait_for_turn([carla], timeout=30)
        assert state in ("trump", "card")
