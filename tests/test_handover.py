"""Taking over a stopping server's games at once: claimed and read together, played on at their pace.

A rolling restart hands every game of a stopping server to the one that runs
(``tests/test_rolling_restart.py`` does it across processes and times it). These
pin the parts that made it take seconds at 100 tables: the games are claimed and
read in a fixed number of statements whatever their number, a game taken over in
the middle of a bot's turn does not wait the bot's whole delay again, the database
calls run on several threads where the database allows it, and a stopping server
hands its games over only once the calls it has in flight have ended.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from types import SimpleNamespace

import pytest
from asgiref.sync import sync_to_async

from bots.runner import drive, load_infos
from games.live import database, states, workers
from games.models import Game
from tests.table_helpers import make_players, make_table, start
from tests.test_live_path import StatementCounter


def _running_games(count: int) -> list[int]:
    (owner,) = make_players(("Nora",))
    games = []
    for _ in range(count):
        table = make_table(owner, ["random"] * 4, mode="fair", round_count=2)
        games.append(start(table, owner).pk)
    return games


@pytest.mark.django_db(transaction=True)
def test_handed_over_games_are_claimed_and_read_in_the_same_statements_however_many():
    one, eight = _running_games(1), _running_games(8)
    counts = []
    for games in (one, eight):
        Game.objects.filter(pk__in=games).update(driver="")  # handed back by a server that stopped
        states.forget_all()  # a new server holds no states
        with StatementCounter() as counter:
            claimed = workers.claim_many(games)
            loaded = load_infos(claimed)
        assert claimed == sorted(games) and sorted(loaded) == sorted(games)
        for game_id, (info, state) in loaded.items():
            game = Game.objects.get(pk=game_id)
            assert info.seq == game.action_count and state.player == states.load(game).player
        counts.append(len(counter.game_statements()))
    assert counts[0] == counts[1], counts


@pytest.mark.django_db(transaction=True)
def test_a_game_already_driven_is_not_claimed_again():
    games = _running_games(2)
    me = workers.register()
    Game.objects.filter(pk=games[0]).update(driver=me)
    alive = "another-worker"
    from django.utils import timezone

    from games.models import Worker

    Worker.objects.create(id=alive, host="elsewhere", pid=1, heartbeat_at=timezone.now())
    Game.objects.filter(pk=games[1]).update(driver=alive)
    assert workers.claim_many(games) == [games[0]]  # its own, and not the live worker's
    assert Game.objects.get(pk=games[1]).driver == alive


class _OneTurn:
    """A game with one bot turn to play, as the turn loop sees it."""

    def __init__(self, delay: float, since: float | None) -> None:
        self.finished = False
        self.turns = [SimpleNamespace(pause=0.0, delay=delay, since=since)]
        self.committed = asyncio.Event()

    def next_turn(self):
        return self.turns.pop() if self.turns else None

    async def commit(self, turn, action, report) -> None:
        self.committed.set()
        self.finished = True


class _Bot:
    async def move(self, turn, asked):
        return "a move", "a report"


@pytest.mark.asyncio
@pytest.mark.parametrize("began_s_ago, waits_s", [(3600.0, 0.0), (600.0, 3000.0), (0.0, 3600.0), (None, 3600.0)])
async def test_a_bots_delay_counts_from_when_its_turn_began(monkeypatch, began_s_ago, waits_s):
    """A bot waits its delay from the move before its turn: a game taken over mid-turn (its turn began on
    the server that stopped) does not wait the whole delay again; a turn that begins now waits all of it."""
    from bots import runner

    waited: list[float] = []

    async def sleep(seconds: float) -> None:  # the turn loop's wait, noted instead of slept
        waited.append(seconds)

    monkeypatch.setattr(runner.asyncio, "sleep", sleep)
    since = None if began_s_ago is None else time.time() - began_s_ago
    game = _OneTurn(delay=3600.0, since=since)
    await drive(game, _Bot(), asyncio.Event())
    assert game.committed.is_set() and len(waited) == 1
    assert waits_s - 5 <= waited[0] <= waits_s, waited


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_database_calls_run_on_several_threads_where_the_database_allows_it(monkeypatch):
    # Two calls that each wait for the other: they meet only if they run at once.
    monkeypatch.setattr(database, "threads", lambda: 4)
    monkeypatch.setattr(database, "_pool", None)
    meeting = threading.Barrier(2, timeout=10)
    call = database.database_sync_to_async(meeting.wait)
    await asyncio.wait_for(asyncio.gather(call(), call()), 20)


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_stopping_server_waits_for_the_database_calls_in_flight():
    release, started = threading.Event(), threading.Event()

    def a_move_being_committed() -> None:
        started.set()
        release.wait(10)

    in_flight = asyncio.ensure_future(database.database_sync_to_async(a_move_being_committed)())
    await asyncio.to_thread(started.wait, 10)
    in_flight.cancel()  # its task is cancelled (the server stops); the call goes on in its thread
    assert not await database.settled(0.05)
    release.set()
    assert await database.settled(10)
    await asyncio.gather(in_flight, return_exceptions=True)


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_an_open_socket_reads_the_table_once_and_its_driver_reads_nothing(stop_runner, redis_layer):
    from tests.ws_helpers import Client, close_all_clients

    players = await sync_to_async(make_players)(("Nora", "Emil", "Sara", "Wim"))
    table = await sync_to_async(make_table)(players[0], list(players))
    await sync_to_async(start)(table, players[0], seed=3)
    clients = [await Client.open(table.pk, p) for p in players[:3]]
    for client in clients:
        await client.state(lambda v: set(v["online"]) == {p.pk for p in players[:3]})
    with StatementCounter() as counter:
        wim = await Client.open(table.pk, players[3])
        for client in [*clients, wim]:
            await client.state(lambda v: players[3].pk in v["online"])
    statements = counter.game_statements()
    # The person and their session, the table and their right to enter, then one transaction: lock the table,
    # note the connection, bump the event number and read the view once (its seats, game, game seats, who is
    # online), and whom they muted. The driver hears who is online with the event: it reads no game again.
    # (And the test's own: the session it makes for the person.) It was 30 before the view was reused and the
    # driver heard who is online with the event.
    assert len(statements) <= 16, statements
    assert sum(bool(re.search(r'FROM "?games_game"? ', s)) for s in statements) == 1, statements
    assert not any("games_action" in s for s in statements), statements
    await close_all_clients()
