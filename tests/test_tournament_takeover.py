"""A tournament survives the death of the process driving its games: PostgreSQL, Redis and two servers.

The servers start the tournament at its start time (a driver's heartbeat), one of
them drives its games; it is killed (SIGKILL) in the middle. The other takes the
games over when their leases run out and plays on: every game is played exactly
once, and the standings equal those of an undisturbed run of the same seed
(teams of built-in bots, whose play is fixed by the seed).
"""

from __future__ import annotations

import json
import subprocess
import sys

import psycopg
import pytest

from tests.server_helpers import ROOT, ServerProcess, _server_env, migrate, wait_for
from tests.services import scale_out

pytestmark = pytest.mark.services

TEAMS = ["Ada=rules", "Bo=random", "Cleo=rules", "Dan=random"]  # a round robin of six games, two at a time
OPTIONS = ["--format", "round-robin", "--match-rounds", "2", "--seed", "2026", "--max-games", "2"]


def command(env: dict[str, str], *args: str) -> dict:
    """``manage.py tournament …`` in its own process; its last stdout line as JSON."""
    done = subprocess.run(
        [sys.executable, "manage.py", "tournament", *args],
        cwd=ROOT,
        env=_server_env(env),
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def team_args() -> list[str]:
    return [arg for team in TEAMS for arg in ("--team", team)]


def query(database_url: str, sql: str, *params: object) -> list[tuple]:
    with psycopg.connect(database_url) as db:
        cursor = db.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


def results(data: dict) -> tuple[list, list]:
    standings = [(s["team"], s["played"], s["match_points"], s["point_advantage"]) for s in data["standings"]]
    games = sorted((g["round"], tuple(g["teams"]), tuple(g["points"])) for g in data["games"])
    return standings, games


def test_a_killed_driver_loses_no_game_plays_none_twice_and_the_standings_are_those_of_an_undisturbed_run(tmp_path):
    reference_env = {"JASSWEB_SQLITE_PATH": str(tmp_path / "reference.sqlite3")}
    migrate(reference_env)
    undisturbed = command(reference_env, "run", *team_args(), *OPTIONS)

    with scale_out("cup") as (env, database_url):
        migrate(env)
        tournament_id = command(env, "create", *team_args(), *OPTIONS)["tournament"]
        servers = [ServerProcess(env), ServerProcess(env)]
        try:
            query(database_url, "UPDATE tournaments_tournament SET starts_at = now() WHERE id = %s", tournament_id)
            finished = (
                "SELECT count(*) FROM tournaments_matchgame mg JOIN games_game g ON g.id = mg.game_id "
                "JOIN tournaments_match m ON m.id = mg.match_id WHERE m.tournament_id = %s AND g.status = 'finished'"
            )
            wait_for(lambda: query(database_url, finished, tournament_id)[0][0] >= 2, 120, "two games played")
            (driver,) = wait_for(
                lambda: query(database_url, "SELECT driver FROM games_game WHERE status = 'running' AND driver <> ''"),
                30,
                "a running game",
            )[0]
            (pid,) = query(database_url, "SELECT pid FROM games_worker WHERE id = %s", driver)[0]
            victim = next(s for s in servers if s.process.pid == pid)
            survivor = next(s for s in servers if s is not victim)
            victim.kill()  # SIGKILL: only what was committed survives
            played_before = query(database_url, finished, tournament_id)[0][0]
            assert played_before < 6, "the tournament ended before the kill: nothing was taken over"

            status = "SELECT status FROM tournaments_tournament WHERE id = %s"
            wait_for(
                lambda: query(database_url, status, tournament_id)[0][0] == "finished", 240, "the tournament's end"
            )
            drivers = {
                row[0]
                for row in query(
                    database_url, "SELECT DISTINCT w.pid FROM games_game g JOIN games_worker w ON w.id = g.driver"
                )
            }
            assert drivers <= {survivor.process.pid}  # the dead server's worker row is gone; its games moved on
        finally:
            for server in servers:
                server.stop()

        # Every game exactly once: one game per match game, none at a tournament table besides, moves unique.
        (games, match_games, tables) = query(
            database_url,
            "SELECT (SELECT count(*) FROM games_game), (SELECT count(*) FROM tournaments_matchgame), "
            "(SELECT count(*) FROM games_table WHERE managed_by = %s)",
            f"/tournaments/{tournament_id}/",
        )[0]
        assert games == match_games == tables == 6
        assert query(database_url, "SELECT count(*) FROM games_game WHERE status <> 'finished'")[0][0] == 0
        shown = command(env, "standings", str(tournament_id))

    assert results(shown) == results(undisturbed)


def test_a_whole_restart_resumes_a_running_tournament(tmp_path):
    """One server on SQLite, killed mid-tournament and started again: the new process plays the tournament on."""
    env = {"JASSWEB_SQLITE_PATH": str(tmp_path / "db.sqlite3")}
    migrate(env)
    tournament_id = command(env, "create", *team_args(), *OPTIONS)["tournament"]  # four teams: six games
    database = str(tmp_path / "db.sqlite3")

    def sqlite(sql: str, *params: object) -> list[tuple]:
        import sqlite3

        with sqlite3.connect(database, timeout=20) as db:
            return db.execute(sql, params).fetchall()

    finished = (
        "SELECT count(*) FROM tournaments_matchgame mg JOIN games_game g ON g.id = mg.game_id "
        "WHERE g.status = 'finished'"
    )
    server = ServerProcess(env)
    try:
        sqlite("UPDATE tournaments_tournament SET starts_at = datetime('now') WHERE id = ?", tournament_id)
        wait_for(lambda: sqlite(finished)[0][0] >= 1, 120, "a game played")
        server.kill()
        assert sqlite(finished)[0][0] < 6
        server = ServerProcess(env)  # the whole site restarts: its first request starts its driver
        status = "SELECT status FROM tournaments_tournament WHERE id = ?"
        wait_for(lambda: sqlite(status, tournament_id)[0][0] == "finished", 180, "the tournament's end")
    finally:
        server.stop()
    assert sqlite("SELECT count(*) FROM games_game")[0][0] == 6
