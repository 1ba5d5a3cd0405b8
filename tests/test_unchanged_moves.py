"""A person's move on PostgreSQL without the table's lock and the game's read first, and when it may not.

``service.submit`` stores a person's move in one statement when nothing happened at the
table since this process stored the game's last move (``fastpath.move_if_unchanged``):
the statement writes only while the table is still at the event the process knows. These
games run in a process of their own on a fresh PostgreSQL database (the suite's database
is SQLite) and pin what must hold whichever way a move goes: two tabs racing with the same
move store it once and refuse the other as stale; a process whose view of a game is behind
(another server stored the last move) stores nothing from it and lets the full path decide;
a game abandoned meanwhile takes no move; and every event is numbered once, so the table's
watchers miss none.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.server_helpers import ROOT, _server_env, migrate
from tests.services import postgres_database

PROBE = r"""
import json, random, threading
from games.errors import ServiceError
from games.live import service
from games.models import Action, Game, Player, Table

players = [Player.objects.create(name=f"P{i}") for i in range(4)]
report = {"races": [], "behind": [], "abandoned": None}


def new_game(seed):
    table = service.create_table(players[0], name=f"unchanged {seed}", mode="fair")
    for position, player in enumerate(players):
        service.take_seat(table.pk, position, player)
    game = service.start_game(table.pk, service.Actor(player_id=players[0].pk), seed=seed)
    return table, game, service.load_state(game)


def move(table, game, state, seq, action=None):
    seat = state.player
    return service.submit(game.pk, seat, action or random.Random(seq).choice(state.current.legal_actions()),
                          actor=service.Actor(player_id=players[seat].pk), expected_seq=seq, table_id=table.pk)


def version(table):
    return Table.objects.values_list("version", flat=True).get(pk=table.pk)


# Two tabs of the same person send the same turn's move at once, twenty times over.
table, game, state = new_game(1)
state = move(table, game, state, 0)  # the first move takes the full path; from now on this process knows the game
for seq in range(1, 21):
    seat, before = state.player, version(table)
    legal = state.current.legal_actions()
    outcomes, barrier = [None, None], threading.Barrier(2)

    def tab(i):
        from django.db import connection
        barrier.wait()
        try:
            outcomes[i] = move(table, game, state, seq, legal[i % len(legal)])
        except ServiceError as exc:
            outcomes[i] = str(exc.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=tab, args=(i,)) for i in range(2)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    stored = [o for o in outcomes if not isinstance(o, str)]
    report["races"].append({"refused": sorted(o for o in outcomes if isinstance(o, str)), "stored": len(stored),
                            "events": version(table) - before,
                            "actions": Action.objects.filter(game=game).count()})
    state = stored[0] if stored else service.load_state(Game.objects.get(pk=game.pk))

# This process's view of a game falls behind: another server stored the last move.
table, game, state = new_game(2)
state = move(table, game, state, 0)
state = move(table, game, state, 1)
behind = service.hot_games.get(game.pk)
state = move(table, game, state, 2)
service.hot_games.keep(behind)  # as if move 2 had been stored by another process
for seq, label in ((2, "replayed"), (3, "current")):
    before = version(table)
    try:
        state = move(table, game, state, seq)
        outcome = "stored"
    except ServiceError as exc:
        outcome = str(exc.code)
    report["behind"].append({"move": label, "outcome": outcome, "events": version(table) - before,
                             "actions": Action.objects.filter(game=game).count()})

# A game abandoned by another process (its event numbered there) takes no move through what this one knows.
table, game, state = new_game(3)
state = move(table, game, state, 0)
kept = service.hot_games.get(game.pk)
service.abandon_game(table.pk, service.SYSTEM, reason="test")
service.hot_games.keep(kept)
try:
    move(table, game, state, 1)
    report["abandoned"] = "stored"
except ServiceError as exc:
    report["abandoned"] = str(exc.code)
report["abandoned_actions"] = Action.objects.filter(game=game).count()
print(json.dumps(report))
"""


@pytest.mark.services
def test_racing_tabs_behind_views_and_abandoned_games_on_the_one_statement_path():
    with postgres_database() as database_url:
        env = {"DATABASE_URL": f"{database_url}?pool=off"}
        migrate(env)
        result = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", PROBE],
            cwd=ROOT,
            env=_server_env(env),
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    for number, race in enumerate(report["races"], start=1):
        # One tab's move is stored, the other's refused as made for a game that moved on; one event, one action.
        assert race == {"refused": ["stale"], "stored": 1, "events": 1, "actions": number + 1}, (number, race)
    assert report["behind"] == [
        {"move": "replayed", "outcome": "stale", "events": 0, "actions": 3},
        {"move": "current", "outcome": "stored", "events": 1, "actions": 4},
    ], report["behind"]
    assert report["abandoned"] == "game_over" and report["abandoned_actions"] == 1, report
