"""One driver per game: leases in the database, and a dead driver's games passing to a live one.

At the database (``games.live.workers``): a worker holds a game while it beats; when
it stops, another takes the game over. Across processes: two servers on
PostgreSQL and Redis, a table of four HSLU bots (a counting bot server on
loopback): every bot request is sent once, by the one process that drives the
game; when that process is killed, the other takes the game over within the
lease and plays it to its end.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid

import psycopg
import pytest
from websockets.exceptions import InvalidHandshake

from games.live import workers
from games.models import Game, GameSeat, Worker
from tests.bot_servers.counting import CountingBots
from tests.server_helpers import ServerProcess, migrate, wait_for
from tests.services import postgres_database, require_redis, scale_out
from tests.table_helpers import make_players, make_table, start
from tests.ws_helpers import LiveClient, close_all_clients, create_live_table, guest_cookies

pytestmark = pytest.mark.services


def test_one_driver_at_a_time_and_a_dead_drivers_games_pass_to_another(db):
    """Leases at the database: one worker drives a game; when it stops beating, another takes it over."""
    from datetime import timedelta

    from django.utils import timezone

    players = make_players(("Nora",))
    table = make_table(players[0], ["random"] * 4)
    game = start(table, players[0])
    first = workers.register()
    assert workers.claim(game.pk)
    assert Game.objects.get(pk=game.pk).driver == first

    workers.forget_local_id()  # another process, as far as the lease is concerned
    second = workers.register()
    assert not workers.claim(game.pk)  # the first is alive: the game stays with it
    assert workers.reap() == ([], [])

    Worker.objects.filter(pk=first).update(heartbeat_at=timezone.now() - timedelta(seconds=workers.LEASE_SECONDS + 1))
    taken, _ = workers.reap()
    assert taken == [game.pk] and Game.objects.get(pk=game.pk).driver == second
    assert not Worker.objects.filter(pk=first).exists()
    assert GameSeat.objects.filter(game=game).count() == 4


def _game_row(database_url: str, table_id: int) -> tuple[int, str, str, int]:
    """(game id, status, driver, moves) of a table's game, straight from PostgreSQL."""
    with psycopg.connect(database_url) as db:
        row = db.execute(
            "SELECT id, status, driver, action_count FROM games_game WHERE table_id = %s ORDER BY id DESC LIMIT 1",
            (table_id,),
        ).fetchone()
    assert row is not None, f"table {table_id} has no game"
    return row[0], row[1], row[2], row[3]


def _worker_pid(database_url: str, worker_id: str) -> int | None:
    return _one(database_url, "SELECT pid FROM games_worker WHERE id = %s", worker_id)


@pytest.mark.asyncio
async def test_two_servers_one_driver_each_bot_request_once_and_a_killed_driver_is_replaced():
    redis_url = require_redis()
    with postgres_database() as database_url, CountingBots() as bots:
        env = {
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "JASSWEB_CHANNEL_PREFIX": f"lease-{uuid.uuid4().hex[:8]}",
            "JASSWEB_BOT_DELAY_MS": "40",
        }
        migrate(env)
        servers = [ServerProcess(env), ServerProcess(env)]
        try:
            owner = guest_cookies(servers[0].url, "Olga")
            table_id = create_live_table(servers[0].url, owner, mode="fair", round_count="4", seat="watch")
            watchers = [await LiveClient.open(s.url, table_id, owner, f"Olga on {i}") for i, s in enumerate(servers)]
            for seat in range(4):
                await watchers[seat % 2].send(
                    {"type": "add_remote_bot", "seat": seat, "url": bots.url(f"b{seat}"), "name": "", "dialect": "spec"}
                )
            await watchers[1].state(lambda v: all(s["kind"] == "remote" for s in v["seats"]))
            await watchers[1].send({"type": "start"})
            await watchers[0].state(lambda v: v["game"] is not None and v["game"]["seq"] >= 30, 60)

            # One game, one driver: a worker of one of the two servers, and no request sent twice.
            _, status, driver, _ = _game_row(database_url, table_id)
            assert status == "running" and driver
            pid = _worker_pid(database_url, driver)
            victim = next(s for s in servers if s.process.pid == pid)
            survivor = next(s for s in servers if s is not victim)
            assert bots.duplicates == 0

            # The driver dies in the middle of the game: once its lease runs out the other server drives
            # on (when exactly a lease runs out is pinned by the test above, on the clock of the rows).
            victim.kill()
            wait_for(lambda: _game_row(database_url, table_id)[2] not in ("", driver), 30, "a new driver")
            new_driver = _game_row(database_url, table_id)[2]
            assert _worker_pid(database_url, new_driver) == survivor.process.pid
            survivor_watch = watchers[servers.index(survivor)]
            view = await survivor_watch.state(lambda v: v["game"]["over"], 90)
            assert view["game"]["status"] == "finished"
            _, status, _, moves = _game_row(database_url, table_id)
            assert status == "finished"
            # At most the one decision in flight when the driver died was asked again.
            assert bots.duplicates <= 1
            assert bots.decisions >= moves
        finally:
            await close_all_clients()
            for server in servers:
                server.stop()


@pytest.mark.asyncio
async def test_a_server_keeps_its_lease_while_its_database_queue_is_stuck():
    """A server's database work waits in a queue (its database threads); its heartbeat does not wait there.

    Queued behind a storm of websocket connects, the heartbeat used to come late: at 500 tables behind the
    front (``bench/live_tables.py --front``) a running server was declared dead, its games taken over and
    its people shown offline. Here the queue is stuck for certain: the test holds the table's row lock, so
    the next socket's connect waits on it inside the server's database thread (PostgreSQL shows it waiting
    on the lock); meanwhile the server's worker row must still be renewed, again and again. The server runs
    one database thread, so that the one stuck connect stops the whole queue (with four, a heartbeat put
    back in the queue would still pass by on another thread)."""
    with scale_out("lease-queue", JASSWEB_DB_THREADS="1") as (env, database_url):
        migrate(env)
        server = ServerProcess(env)
        try:
            owner = guest_cookies(server.url, "Queue")
            table_id = create_live_table(server.url, owner, mode="fair", round_count="4", seat="0")
            first = await LiveClient.open(server.url, table_id, owner, "first")  # starts the driver
            worker_id = wait_for(
                lambda: _one(database_url, "SELECT id FROM games_worker WHERE pid = %s", server.process.pid),
                30,
                "the server's worker row",
            )
            with psycopg.connect(database_url) as holder:  # a transaction: the row lock holds until rollback
                holder.execute("SELECT id FROM games_table WHERE id = %s FOR UPDATE", (table_id,))
                # Its handshake waits for the server's connect, i.e. for the lock.
                second = asyncio.create_task(LiveClient.open(server.url, table_id, owner, "second", open_timeout=60))
                await asyncio.to_thread(
                    wait_for,
                    lambda: _one(database_url, _LOCK_WAITS),
                    30,
                    "the server's connect waiting on the row lock",
                )
                beats = set()

                def renewed_twice() -> bool:
                    beats.add(_one(database_url, "SELECT heartbeat_at FROM games_worker WHERE id = %s", worker_id))
                    return len(beats) >= 3

                await asyncio.to_thread(wait_for, renewed_twice, 30, "two renewals of the lease")
                # The queue was stuck all along: the connect still waits on the lock. (Its handshake may have
                # been given up meanwhile: daphne drops a socket its application has not accepted within 5 s,
                # its --websocket_connect_timeout, and on a busy machine two renewals can take longer.)
                assert _one(database_url, _LOCK_WAITS) == 1
                holder.rollback()
            with contextlib.suppress(InvalidHandshake):  # the handshake given up (above), e.g. InvalidMessage
                await asyncio.wait_for(second, 60)
            later = await LiveClient.open(server.url, table_id, owner, "later")  # the unstuck queue serves it
            assert later.view["table"]["id"] == table_id
            assert _one(database_url, "SELECT count(*) FROM games_worker") == 1  # nobody declared it dead
            await first.close()
        finally:
            await close_all_clients()
            server.stop()


# Sessions of this test's own database waiting on a lock (pg_stat_activity shows every database of the
# cluster, and other test workers' databases share it).
_LOCK_WAITS = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"


def _one(database_url: str, sql: str, *params: object):
    """The first column of the first row of a query (None when there is none), straight from PostgreSQL."""
    with psycopg.connect(database_url) as db:
        row = db.execute(sql, params).fetchone()
    return row[0] if row else None


def test_bots_wait_the_round_summary_at_a_new_deal_with_people_at_the_table():
    """The first bot move of every round after the first waits for the round's summary (at most the
    table's round pause) while people sit at the table; never within a round, never for bots alone."""
    import random

    from bots.runner import Driver, GameInfo, LiveGame, SeatInfo
    from games.engine import GameConfig, GameState

    rng = random.Random(5)
    state = GameState.new(GameConfig(seed=5))
    start_of_round_two = None
    while state.round_index == 0:
        state = state.apply(state.player, rng.choice(state.observation(state.player).legal_actions()))
    start_of_round_two = state

    def pause(state: GameState, person: bool) -> float:
        seats = [SeatInfo(1 if (person and s == 2) else None, "random", "", "", "") for s in range(4)]
        info = GameInfo(
            table_id=1, seed=5, status="running", seq=0, seats=seats, clock_s=0, standin_bot="rules",
            delay=0.1, timeout=5.0, jass_typ="SCHIEBER", turn_started_at=0.0, round_pause=5.0,
        )  # fmt: skip
        if person and state.player == 2:
            seats[3].player_id, seats[2].player_id = 1, None  # keep the person off the seat to move
        turn = LiveGame(Driver(), 1, info, state).next_turn()  # a driver never started: next_turn() does not use it
        assert turn is not None
        assert turn.delay == pytest.approx(0.1)
        return turn.pause

    assert pause(start_of_round_two, person=True) == 5.0
    assert pause(start_of_round_two, person=False) == 0.0
    after = start_of_round_two.apply(
        start_of_round_two.player, start_of_round_two.observation(start_of_round_two.player).legal_actions()[0]
    )
    while after.current.trump < 0:  # a push: the partner declares, still the round's opening
        after = after.apply(after.player, after.observation(after.player).legal_actions()[0])
    assert pause(after, person=True) == 0.0
