"""A person's move on PostgreSQL without the table's lock and the game's read first, and when it may not.

``service.submit`` stores a person's move in one statement when nothing happened at the
table since this process stored the game's last move (``fastpath.move_if_unchanged``):
the statement writes only while the table is still at the event the process knows. These
games run in a process of their own on a fresh PostgreSQL database (the suite's database
is SQLite) and pin what must hold whichever way a move goes: two tabs racing with the same
move store it once and refuse the other as stale; a process whose view of a game is behind
(another server stored the last move) stores nothing from it and lets the full path decide;
a game abandoned meanwhile takes no move; and every event is numbered once, so the table's
watchers miss none. Four people at one server on PostgreSQL play a round whose moves the
server's event loop stores on connections of its own (no hop to a database thread), and the
first seat sees every event of the table, in order.
"""

from __future__ import annotations

import random

import pytest

from games.live.fastpath import LOOP_APPLICATION_NAME
from tests.server_helpers import ServerProcess, migrate, probe_on_postgresql
from tests.services import fetch_one, scale_out
from tests.ws_helpers import LiveClient, after, at, close_all_clients, create_live_table, guest_cookies

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
    report = probe_on_postgresql(PROBE, timeout=180)
    for number, race in enumerate(report["races"], start=1):
        # One tab's move is stored, the other's refused as made for a game that moved on; one event, one action.
        assert race == {"refused": ["stale"], "stored": 1, "events": 1, "actions": number + 1}, (number, race)
    assert report["behind"] == [
        {"move": "replayed", "outcome": "stale", "events": 0, "actions": 3},
        {"move": "current", "outcome": "stored", "events": 1, "actions": 4},
    ], report["behind"]
    assert report["abandoned"] == "game_over" and report["abandoned_actions"] == 1, report


async def _play_a_round_on_one_server(**settings: str) -> dict:
    """Four people play a fair game's first round at one server on PostgreSQL; what the database and the
    first seat's socket saw."""
    with scale_out("unchanged", JASSWEB_BOT_DELAY_MS="0", **settings) as (env, database_url):
        migrate(env)
        server = ServerProcess(env)
        try:
            people = [guest_cookies(server.url, name) for name in ("Nora", "Emil", "Sara", "Wim")]
            table_id = create_live_table(server.url, people[0], mode="fair", round_count="2", seat="0")
            tabs = [await LiveClient.open(server.url, table_id, people[0], "Nora")]
            for seat in (1, 2, 3):
                tabs.append(await LiveClient.open(server.url, table_id, people[seat], f"seat {seat}"))
                await tabs[seat].send({"type": "join", "seat": seat})
            await tabs[0].state(lambda v: all(s["kind"] == "human" for s in v["seats"]))
            await tabs[0].send({"type": "start"})
            rng, loop_connections = random.Random(3), 0
            for seq in range(37):  # the round's 36 cards and its trump: the round's end takes the full path
                game = (await tabs[0].state(at(seq), 20))["game"]
                view = (await tabs[game["player"]].state(at(seq), 20))["game"]
                if view["legal_trumps"]:
                    move = {"type": "choose_trump", "trump": rng.choice(view["legal_trumps"]), "seq": seq}
                else:
                    move = {"type": "play_card", "card": rng.choice(view["legal"]), "seq": seq}
                await tabs[game["player"]].send(move)
                loop_connections = max(
                    loop_connections,
                    fetch_one(
                        database_url,
                        "SELECT count(*) FROM pg_stat_activity"
                        " WHERE application_name = %s AND datname = current_database()",
                        LOOP_APPLICATION_NAME,
                    )[0],
                )
            await tabs[0].state(after(36), 20)
            versions = [f["version"] for f in tabs[0].frames if f["type"] == "state"]
            count, counter, seqs = fetch_one(
                database_url,
                "SELECT count(a.id), g.action_count, array_agg(a.seq ORDER BY a.seq) FROM games_game g"
                " JOIN games_action a ON a.game_id = g.id WHERE g.table_id = %s GROUP BY g.id",
                table_id,
            )
            errors = [f for tab in tabs for f in tab.frames if f["type"] == "error"]
            return {
                "loop_connections": loop_connections,
                "versions": versions,
                "count": count,
                "counter": counter,
                "seqs": seqs,
                "errors": errors,
            }
        finally:
            await close_all_clients()
            server.stop()


@pytest.mark.asyncio
@pytest.mark.services
@pytest.mark.parametrize("unchanged", ["1", "0"])
async def test_people_moves_are_stored_from_the_event_loop_and_every_event_reaches_the_table(unchanged):
    report = await _play_a_round_on_one_server(JASSWEB_UNCHANGED_MOVES=unchanged)
    # The moves went through the event loop's own connections (and only when the setting says so).
    assert (report["loop_connections"] >= 1) == (unchanged == "1"), report["loop_connections"]
    assert report["errors"] == []
    assert report["count"] == report["counter"] >= 37 and report["seqs"] == list(range(report["count"]))
    # The first seat saw every event of the table after its first state, in order, none twice and none missed.
    versions = report["versions"]
    assert versions == list(range(versions[0], versions[0] + len(versions))), versions
