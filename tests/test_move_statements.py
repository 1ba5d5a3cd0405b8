"""A move's statements on PostgreSQL: three, each parsed and planned once per connection.

A move locks and numbers its table's event, reads the game with its seats, and
stores the move with the game's new columns (``games.live.fastpath``). On
PostgreSQL the reads are one statement, sent with the lock in one round trip (a
pipeline), the writes another (a data-modifying ``WITH``), and all three are bound
on the server and prepared on their first use,
so the database does not parse and plan them again at every move (a third of
PostgreSQL's CPU per move, docs/benchmarks.md). The games are played in a process of
its own on a fresh database (the suite's own database is SQLite): a fair game's
first moves, counted, and a standard game with Weis to its end (each new round's
deal stored, the end's summaries and ratings), which must replay to its points.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.server_helpers import ROOT, _server_env, migrate
from tests.services import postgres_database

PROBE = r"""
import json, random
import psycopg
from django.db import connection
from tests.test_live_path import StatementCounter
from games.errors import ServiceError
from games.live import service
from games.models import Action, Game, Player

pipelines = []
_pipeline = psycopg.Connection.pipeline
def _counted_pipeline(self):
    pipelines.append(1)
    return _pipeline(self)
psycopg.Connection.pipeline = _counted_pipeline

players = [Player.objects.create(name=f"P{i}") for i in range(4)]
table = service.create_table(players[0], name="statements", mode="fair")
for position, player in enumerate(players):
    service.take_seat(table.pk, position, player)
game = service.start_game(table.pk, service.Actor(player_id=players[0].pk), seed=5)
state = service.load_state(game)
rng = random.Random(5)
moves, prepared, round_trips = [], [], []
refused = []
for seq in range(24):
    seat = state.player
    if seq in (5, 17):  # refusals on the way change nothing and leave the connection usable
        for game_id, table_id in ((game.pk + 1000, table.pk), (game.pk, table.pk + 1000)):
            try:
                service.submit(game_id, seat, state.current.legal_actions()[0],
                               actor=service.Actor(player_id=players[seat].pk), expected_seq=seq, table_id=table_id)
            except ServiceError as exc:
                refused.append(exc.code)
    before = len(pipelines)
    with StatementCounter() as counter:
        state = service.submit(
            game.pk, seat, rng.choice(state.current.legal_actions()),
            actor=service.Actor(player_id=players[seat].pk), expected_seq=seq, table_id=table.pk,
        )
    moves.append(counter.statements)
    round_trips.append(len(pipelines) - before)
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared.append(sorted(row[0] for row in cursor.fetchall()))
stored = list(Action.objects.filter(game=game).order_by("seq").values_list("seq", "seat"))
# Every kind of move through the same statements to a game's end: a standard game (it stores each new round's
# deal), with Weis and Stoeck, and the end (summaries, ratings), with the first table's game running beside it.
weis_table = service.create_table(players[0], name="weis", mode="standard", weis=True, round_count=2)
for position, player in enumerate(players):
    service.take_seat(weis_table.pk, position, player)
weis_game = service.start_game(weis_table.pk, service.Actor(player_id=players[0].pk), seed=6)
weis_state, seq = service.load_state(weis_game), 0
while not weis_state.over:
    seat = weis_state.player
    weis_state = service.submit(
        weis_game.pk, seat, rng.choice(weis_state.current.legal_actions()),
        actor=service.Actor(player_id=players[seat].pk), expected_seq=seq, table_id=weis_table.pk,
    )
    seq += 1
weis_game.refresh_from_db()
print(json.dumps({"moves": moves, "prepared": prepared, "stored": stored, "pipelines": round_trips,
                  "refused": [str(code) for code in refused],
                  "action_count": Game.objects.get(pk=game.pk).action_count,
                  "weis": {"status": weis_game.status, "action_count": weis_game.action_count, "moves": seq,
                           "stored": Action.objects.filter(game=weis_game).count(),
                           "deals": len(weis_game.deals), "rounds": len(weis_state.rounds),
                           "scores": list(weis_state.scores), "points": weis_game.points,
                           "replayed": list(service.load_state(weis_game).scores)}}))
"""


def _play_on_postgresql(**settings: str) -> dict:
    """Play 24 moves in a process of its own on a fresh PostgreSQL database; what ``PROBE`` saw."""
    with postgres_database() as database_url:
        env = {"DATABASE_URL": f"{database_url}?pool=off", **settings}
        migrate(env)
        result = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", PROBE],
            cwd=ROOT,
            env=_server_env(env),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    weis = report["weis"]
    assert weis["status"] == "finished" and weis["action_count"] == weis["moves"] == weis["stored"], weis
    assert weis["deals"] == weis["rounds"] >= 2 and weis["points"] == weis["scores"] == weis["replayed"], weis
    assert report["action_count"] == 24 and [seq for seq, _ in report["stored"]] == list(range(24))
    # The lock and the read go in one round trip (a pipeline), every move.
    assert report["pipelines"] == [1] * 24, report["pipelines"]
    assert report["refused"] == ["no_game", "no_table"] * 2, report["refused"]
    for statements in report["moves"]:
        assert len(statements) == 3, statements
        lock, read, write = (s.lstrip().upper() for s in statements)
        assert lock.startswith("UPDATE") and "RETURNING VERSION" in lock
        assert read.startswith("SELECT") and " JOIN " in read
        assert write.startswith("WITH STORED AS (INSERT INTO") and "UPDATE" in write
    return report


@pytest.mark.services
def test_a_move_on_postgresql_is_three_prepared_statements():
    report = _play_on_postgresql()
    moves, prepared = report["moves"], report["prepared"]
    # Prepared on their first use and reused: no new prepared statement after the first moves (a move that ends a
    # trick or a round writes the same columns), and each of the three is among them.
    assert prepared[-1] == prepared[len(prepared) // 2], prepared[-1]
    for statement in moves[-1]:
        assert any(statement.split("%s")[0].strip() in text for text in prepared[-1]), (statement, prepared[-1])


@pytest.mark.services
def test_behind_an_old_pgbouncer_the_moves_statements_are_not_prepared():
    report = _play_on_postgresql(JASSWEB_DB_PREPARE="0")
    assert report["prepared"][-1] == []
