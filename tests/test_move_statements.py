"""A move's statements on PostgreSQL: one, or three after a change at the table; each parsed and planned once.

A person's move at a table where nothing happened since this process stored the game's
last move is one statement (``fastpath.move_if_unchanged``: the table's event bumped only
if it is still the one this process knows, the game written and the move stored only then).
Any other move locks and numbers its table's event, reads the game with its seats, and
stores the move with the game's new columns (``games.live.fastpath``): the reads are one
statement, sent with the lock in one round trip (a pipeline), the writes another (a
data-modifying ``WITH``). All are bound on the server and prepared on their first use,
so the database does not parse and plan them again at every move (a third of
PostgreSQL's CPU per move, docs/benchmarks.md). The games are played in a process of
its own on a fresh database (the suite's own database is SQLite): a fair game's
first moves, counted, with a change at the table on the way that this process did not make,
and a standard game with Weis to its end (each new round's deal stored, the end's summaries and
ratings), which must replay to its points.
"""

from __future__ import annotations

import pytest

from tests.server_helpers import probe_on_postgresql

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
moves, prepared, round_trips, versions = [], [], [], []
refused = []
for seq in range(24):
    seat = state.player
    if seq == 10:  # a change at the table this process did not make (another's event), so not in its games
        with connection.cursor() as cursor:
            cursor.execute("UPDATE games_table SET version = version + 1 WHERE id = %s", [table.pk])
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
    versions.append(service.Table.objects.values_list("version", flat=True).get(pk=table.pk))
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
print(json.dumps({"moves": moves, "versions": versions, "prepared": prepared, "stored": stored,
                  "pipelines": round_trips,
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
    report = probe_on_postgresql(PROBE, settings)
    weis = report["weis"]
    assert weis["status"] == "finished" and weis["action_count"] == weis["moves"] == weis["stored"], weis
    assert weis["deals"] == weis["rounds"] >= 2 and weis["points"] == weis["scores"] == weis["replayed"], weis
    assert report["action_count"] == 24 and [seq for seq, _ in report["stored"]] == list(range(24))
    assert report["refused"] == ["no_game", "no_table"] * 2, report["refused"]
    unchanged = settings.get("JASSWEB_UNCHANGED_MOVES", "1") != "0"
    for seq, (statements, pipelines) in enumerate(zip(report["moves"], report["pipelines"], strict=True)):
        texts = [s.lstrip().upper() for s in statements]
        if unchanged and seq not in (0, 10):
            # Nothing happened at the table since this process stored the last move: one statement, no lock first.
            assert len(texts) == 1 and pipelines == 0, (seq, statements)
            assert texts[0].startswith("WITH BUMPED AS (UPDATE") and "INSERT INTO" in texts[0], statements
            continue
        if unchanged and seq == 10:  # the table changed (another process's event): tried, nothing written
            assert texts[0].startswith("WITH BUMPED AS (UPDATE"), statements
            texts = texts[1:]
        # The full path: the lock and the read in one round trip (a pipeline), then the write.
        assert len(texts) == 3 and pipelines == 1, (seq, statements)
        lock, read, write = texts
        assert lock.startswith("UPDATE") and "RETURNING VERSION" in lock
        assert read.startswith("SELECT") and " JOIN " in read
        assert write.startswith("WITH STORED AS (INSERT INTO") and "UPDATE" in write
    # Every move numbered the table's next event once (and the other process's change its own).
    steps = [b - a for a, b in zip(report["versions"], report["versions"][1:], strict=False)]
    assert steps == [1] * 9 + [2] + [1] * 13, report["versions"]
    return report


@pytest.mark.services
def test_a_move_on_postgresql_is_one_prepared_statement_or_three_after_a_change_at_the_table():
    report = _play_on_postgresql()
    _prepared_once(report)


@pytest.mark.services
def test_every_move_takes_the_full_path_when_told_to():
    report = _play_on_postgresql(JASSWEB_UNCHANGED_MOVES="0")
    _prepared_once(report)


def _prepared_once(report: dict) -> None:
    moves, prepared = report["moves"], report["prepared"]
    # Prepared on their first use and reused: no new prepared statement after the first moves (a move that ends a
    # trick or a round writes the same columns), and each of the last move's is among them. (A refusal rolls back,
    # and psycopg forgets the connection's prepared statements then: counted from the last refusal, at 17.)
    assert prepared[-1] == prepared[18], prepared[-1]
    for statement in moves[-1]:
        assert any(statement.split("%s")[0].strip() in text for text in prepared[-1]), (statement, prepared[-1])


@pytest.mark.services
def test_behind_an_old_pgbouncer_the_moves_statements_are_not_prepared():
    report = _play_on_postgresql(JASSWEB_DB_PREPARE="0")
    assert report["prepared"][-1] == []
