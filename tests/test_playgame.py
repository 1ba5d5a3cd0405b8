"""Headless games: manage.py playgame and exportgame, checked by jass-kit."""

from __future__ import annotations

import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from jass.game.game_state import GameState as JassKitState
from jass.game.rule_schieber import RuleSchieber

from games.models import Game

pytestmark = pytest.mark.django_db


def run(*args: str) -> dict:
    out = StringIO()
    call_command(*args, stdout=out)
    lines = out.getvalue().strip().splitlines()
    assert len(lines) == 1, "one JSON line / document"
    return json.loads(lines[0])


def check_with_jasskit(record: dict) -> tuple[int, int]:
    """Load every round with jass-kit; check each trick's winner and points with its rules; sum the points."""
    rule = RuleSchieber()
    totals = [0, 0]
    for number, log in enumerate(record["rounds"], start=1):
        state = JassKitState.from_json(log)
        assert state is not None, f"round {number} does not load"
        for i in range(state.nr_tricks):
            cards = state.tricks[i]
            winner = rule.calc_winner(cards, state.trick_first_player[i], state.trump)
            assert winner == state.trick_winner[i], f"round {number} trick {i + 1}: winner"
            points = rule.calc_points(cards, i == 8, state.trump)
            assert points == state.trick_points[i], f"round {number} trick {i + 1}: points"
            if i + 1 < state.nr_tricks:
                assert state.trick_first_player[i + 1] == winner
        round_points = [int(state.points[0]), int(state.points[1])]
        winning_teams = {int(w) % 2 for w in state.trick_winner[: state.nr_tricks]}
        if state.nr_tricks == 9 and len(winning_teams) == 1:  # a match: all nine tricks to one team
            round_points[winning_teams.pop()] += 100
        factor = int(record.get("multipliers", {}).get(str(state.trump), 1)) if state.trump >= 0 else 1
        totals = [totals[0] + round_points[0] * factor, totals[1] + round_points[1] * factor]
    return totals[0], totals[1]


@pytest.mark.parametrize(
    "options",
    [
        ["--mode", "standard", "--target", "1000"],
        ["--mode", "fair", "--rounds", "12"],
        ["--mode", "fair", "--rounds", "4", "--multipliers"],
        ["--mode", "standard", "--target", "2500", "--multipliers"],
    ],
)
def test_four_bots_finish_and_the_export_checks_out_in_jasskit(options):
    result = run(
        "playgame",
        "--seat",
        "rules",
        "--seat",
        "random",
        "--seat",
        "rules",
        "--seat",
        "random",
        "--seed",
        "17",
        *options,
    )
    assert set(result) == {"game", "points", "winner"}
    game = Game.objects.get(pk=result["game"])
    assert game.status == Game.FINISHED and result["points"] == game.points
    record = run("exportgame", str(result["game"]))
    assert record["id"] == result["game"] and record["points"] == result["points"]
    assert record["winner"] == result["winner"]
    if "--multipliers" in options:
        assert record["multipliers"] == {"0": 1, "1": 1, "2": 2, "3": 2, "4": 3, "5": 3}
    else:
        assert "multipliers" not in record
    if record["mode"] == "fair":
        assert len(record["rounds"]) == record["round_count"] == len(record["fair_schedule"])
        assert tuple(record["points"]) == check_with_jasskit(record)
        assert record["winner"] == (
            None if record["points"][0] == record["points"][1] else int(np.argmax(record["points"]))
        )
    else:
        assert "fair_schedule" not in record and record["target"] in (1000, 2500)
        assert tuple(record["points"]) == check_with_jasskit(record)
        assert max(record["points"]) >= record["target"] > min(record["points"])


def test_the_same_seed_plays_the_same_game():
    seats = ["--seat", "rules", "--seat", "random", "--seat", "random", "--seat", "rules"]
    first = run("playgame", *seats, "--seed", "99", "--mode", "fair", "--rounds", "2")
    second = run("playgame", *seats, "--seed", "99", "--mode", "fair", "--rounds", "2")
    assert first["points"] == second["points"]
    one, two = run("exportgame", str(first["game"])), run("exportgame", str(second["game"]))
    assert one["rounds"] == two["rounds"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seat", "random"] * 3, "exactly four"),
        (["--seat", "random"] * 3 + ["--seat", "alphago"], "unknown seat 'alphago'"),
        (["--seat", "random"] * 4 + ["--mode", "fair", "--rounds", "5"], "even number of rounds"),
    ],
)
def test_bad_playgame_arguments_say_what_is_wrong(args, message):
    with pytest.raises(CommandError, match=message):
        call_command("playgame", *args, stdout=StringIO())


def test_exporting_a_missing_game_fails_clearly():
    with pytest.raises(CommandError, match="there is no game 12345"):
        call_command("exportgame", "12345", stdout=StringIO())
