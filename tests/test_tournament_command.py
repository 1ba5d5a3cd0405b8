"""``manage.py tournament``: bot tournaments from the command line, by the web's own code, with HSLU bots by URL."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games.models import Fault, Game
from tests.bot_helpers import example_bot
from tests.bot_servers.faulty import FaultyBots
from tournaments.models import Tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


def tournament(*args: str) -> tuple[dict, str]:
    """Run the command; return its last stdout line as JSON, and its stderr."""
    out, err = StringIO(), StringIO()
    call_command("tournament", *args, stdout=out, stderr=err)
    return json.loads(out.getvalue().strip().splitlines()[-1]), err.getvalue()


def test_a_six_team_round_robin_with_two_hslu_bots_finishes_counts_their_faults_and_replays_from_its_seed(capfd):
    with example_bot() as example, FaultyBots() as faulty:
        teams = [
            f"Example={example}",
            f"Garbage={faulty.url('garbagehalf')}",
            "rules",
            "random",
            "Rules 2=rules",
            "Random 2=random",
        ]
        args = ["run", "--format", "round-robin", "--match-rounds", "2", "--seed", "11", "--timeout", "5"]
        for team in teams:
            args += ["--team", team]
        first, _ = tournament(*args)
        second, _ = tournament(*args)
    progress = capfd.readouterr().err
    assert "15/15 games" in progress and "games/min" in progress
    assert {s["team"] for s in first["standings"]} == {
        "Example",
        "Garbage",
        "Rule-based",
        "Random",
        "Rules 2",
        "Random 2",
    }
    assert len(first["games"]) == 15 and {g["status"] for g in first["games"]} == {"finished"}
    assert sum(s["played"] for s in first["standings"]) == 30
    faults = {s["team"]: s for s in first["standings"]}
    assert faults["Garbage"]["faults"] > 20 and set(faults["Garbage"]["fault_kinds"]) == {"not_json"}
    assert all(s["faults"] == 0 for team, s in faults.items() if team != "Garbage")
    garbage_games = [g["game"] for g in first["games"] if "Garbage" in g["teams"]]
    assert Fault.objects.filter(game_id__in=garbage_games).count() == faults["Garbage"]["faults"]
    # The same seed: the same pairings, games, points and standings.
    strip = lambda d: ([(s["team"], s["match_points"], s["point_advantage"], s["faults"]) for s in d["standings"]],  # noqa: E731
                       [(g["teams"], g["points"]) for g in d["games"]])  # fmt: skip
    assert strip(first) == strip(second)
    assert first["tournament"] != second["tournament"]


def test_create_run_by_id_and_standings_print_the_same_json():
    created, _ = tournament("create", "--format", "swiss", "--rounds", "2", "--team", "rules", "--team", "random",
                            "--team", "R=rules", "--seed", "4", "--match-rounds", "2")  # fmt: skip
    tournament_id = created["tournament"]
    assert Tournament.objects.get(pk=tournament_id).status == Tournament.REGISTRATION
    ran, _ = tournament("run", str(tournament_id))
    shown, _ = tournament("standings", str(tournament_id))
    assert ran == shown and ran["tournament"] == tournament_id
    assert Tournament.objects.get(pk=tournament_id).status == Tournament.FINISHED
    assert Game.objects.filter(status=Game.RUNNING).count() == 0


def test_the_command_refuses_what_it_cannot_run():
    with pytest.raises(CommandError, match="two --team"):
        call_command("tournament", "run", "--team", "rules")
    with pytest.raises(CommandError, match="unknown bot"):
        call_command("tournament", "run", "--team", "rules", "--team", "nobody")
    with pytest.raises(CommandError, match="no tournament 999"):
        call_command("tournament", "standings", "999")
