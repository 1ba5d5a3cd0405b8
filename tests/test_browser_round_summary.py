"""The end of a round is a moment: a Fair game of four rounds between two people and two bots.

Every round but the last ends with a summary over the table (the last one with the result); it
stays until both people pressed Continue (the first sees whom the table waits for), then the next
deal starts at once, long before the table's ten-second pause would have run out. A deal that
repeats an earlier one is announced; each fair pair's score is given from each viewer's side
("you +23"), in play order, and agrees with the engine's round point advantages.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from datetime import datetime

import pytest
from playwright.sync_api import Page, expect

from tests.browser_helpers import (
    RESULT,
    add_bots,
    become_guest,
    my_turn,
    start_game,
    table_seat,
    take_turn,
)
from tests.server_helpers import running_server

pytest_plugins = ["tests.browser_helpers"]


PAUSE_S = 10


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory):
    return tmp_path_factory.mktemp("summary") / "db.sqlite3"


@pytest.fixture(scope="module")
def jass_server(database) -> Iterator[str]:
    env = {"JASSWEB_SQLITE_PATH": str(database), "JASSWEB_BOT_DELAY_MS": "30", "JASSWEB_ROUND_PAUSE_S": "0"}
    with running_server(env) as base:
        yield base


def open_fair_table(page: Page, name: str) -> int:
    form = page.get_by_test_id("create-table")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Fair", exact=True).check()
    form.get_by_label("Rounds (even)").fill("4")
    form.get_by_label("Your seat").select_option("2")
    form.get_by_text("Advanced").click()
    form.get_by_label("Round summary").select_option(str(PAUSE_S))
    form.get_by_role("button", name="Open table").click()
    page.wait_for_url("**/tables/*/")
    expect(page.get_by_test_id("table-app")).to_have_attribute("data-socket", "open")
    expect(page.get_by_test_id("round-pause-option")).to_contain_text(f"{PAUSE_S} s")
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


def test_a_fair_game_of_four_rounds_has_its_moments(open_page, database):
    anna = open_page()
    become_guest(anna, "Anna")
    table_id = open_fair_table(anna, "Fair moments")
    beat = open_page()
    become_guest(beat, "Beat")
    beat.locator(f"[data-testid=lobby-table][data-table-id='{table_id}']").get_by_role(
        "button", name="Sit here: East at Fair moments"
    ).click()
    beat.wait_for_url(f"**/tables/{table_id}/")
    expect(table_seat(anna, 1)).to_contain_text("Beat")
    add_bots(anna, [0, 3], bot="rules")
    start_game(anna)

    pages = {"Anna": anna, "Beat": beat}
    summaries: dict[str, list[int]] = {name: [] for name in pages}
    repeats: list[str] = []
    pair_lines: dict[str, list[str]] = {name: [] for name in pages}
    over: set[str] = set()
    continued: dict[int, list[str]] = {}  # round -> who pressed Continue, in order
    for _ in range(2000):
        if over == set(pages):
            break
        for name, page in pages.items():
            box = page.get_by_test_id("round-summary")
            if box.is_visible():
                title = page.get_by_test_id("summary-title").inner_text()
                number = int(re.search(r"Round (\d+)", title).group(1))
                if number not in summaries[name]:
                    summaries[name].append(number)
                    points = [int(page.get_by_test_id(f"summary-points-{t}").inner_text()) for t in (0, 1)]
                    assert sum(points) in (157, 257), points
                    for note in page.get_by_test_id("repeat-note").all():
                        repeats.append(note.inner_text())
                    for line in page.get_by_test_id("summary-pair").all():
                        pair_lines[name].append(line.inner_text())
                if name in continued.setdefault(number, []):
                    continue  # waiting for the other person
                page.get_by_test_id("summary-continue").click()
                continued[number].append(name)
                if len(continued[number]) == 1:
                    other = next(n for n in pages if n != name)
                    expect(page.get_by_test_id("summary-wait")).to_have_text(
                        re.compile(rf"Waiting for {other} · \d+ s")
                    )
                    expect(pages[other].get_by_test_id("summary-continue")).to_have_text("Continue")
                else:  # both are ready: the summary closes for both at once
                    for each in pages.values():
                        expect(each.get_by_test_id("round-summary")).to_be_hidden()
                continue
            state = my_turn(page)
            if state == "over":
                over.add(name)
            elif state is not None:
                take_turn(page, state)
        anna.wait_for_timeout(20)
    assert over == set(pages), "the game did not end"

    # Rounds 1 to 3 end with a summary at both seats; the fourth with the result.
    assert summaries == {"Anna": [1, 2, 3], "Beat": [1, 2, 3]}, summaries
    assert {n: sorted(w) for n, w in continued.items()} == {n: ["Anna", "Beat"] for n in (1, 2, 3)}, continued
    assert repeats and all(re.search(r"Round \d deals round \d's hands again", r) for r in repeats), repeats
    assert any("suits swapped" in r and "other team holds them now" in r for r in repeats), repeats

    from games.engine import team_of
    from games.records import check_record

    game_url = anna.locator(RESULT).get_by_test_id("game-link").get_attribute("href")
    record = anna.request.get(f"{game_url}record.json").json()
    state = check_record(record).state

    # Each new deal began once both had pressed Continue, before the pause would have run out.
    game_id = int(game_url.rstrip("/").rsplit("/", 1)[1])
    with sqlite3.connect(database) as db:
        times = [
            datetime.fromisoformat(t)
            for (t,) in db.execute("SELECT created_at FROM games_action WHERE game_id = ? ORDER BY seq", [game_id])
        ]
    first = 0
    for played in state.rounds[:3]:
        last = first + (2 if played.pushed else 1) + 36 - 1  # the round's last card
        waited = (times[last + 1] - times[last]).total_seconds()
        assert waited < PAUSE_S, (played, waited)
        first = last + 1

    # The pair scores, from each side, as the engine counts them.
    rpa = state.round_point_advantages()
    expected_ns = []
    for first, _second in sorted(state.plan.pairs()):
        value = rpa[first]
        expected_ns.append(value if team_of(state.rounds[first].forehand_seat) == 0 else -value)
    for name, page, sign in (("Anna", anna, 1), ("Beat", beat, -1)):  # South plays for N&S, East for E&W
        items = page.locator(RESULT).get_by_test_id("result-pair")
        expect(items).to_have_count(len(expected_ns))
        shown = [int(items.nth(i).get_attribute("data-advantage")) for i in range(items.count())]
        assert shown == [sign * v for v in expected_ns], (name, shown, expected_ns)
        texts = [items.nth(i).inner_text() for i in range(items.count())]
        assert all(t.startswith(f"Pair {i + 1} (rounds ") for i, t in enumerate(texts)), texts
        assert all(re.search(r": you ([+\u2212]\d+|±0)$", t) for t in texts), texts
    # A pair completed before the last round was given in its summary, from the same side.
    for line in pair_lines["Anna"]:
        assert re.search(r"^Pair \d \(rounds \d & \d\): you ([+\u2212]\d+|±0)$", line), line

    # The result page tells the pairs from the same side.
    for page, sign in ((anna, 1), (beat, -1)):
        page.goto(game_url)
        rows = page.get_by_test_id("result-page-pair")
        expect(rows).to_have_count(len(expected_ns))
        assert [int(rows.nth(i).get_attribute("data-advantage")) for i in range(rows.count())] == [
            sign * v for v in expected_ns
        ]
        assert all(re.search(r"you ([+\u2212]\d+|±0)$", rows.nth(i).inner_text()) for i in range(rows.count()))
