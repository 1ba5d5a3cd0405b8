"""A stopping server's parts, in one process: its sockets sent away and new ones refused, its games handed back.

The whole stop across two daphne processes is ``tests/test_rolling_restart.py``.
"""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator

from games.live import consumers, workers
from games.models import Game, Worker
from tests.table_helpers import make_players, make_table, start
from tests.ws_helpers import ORIGIN, Client, session_cookie


@pytest.fixture
def accepting():
    """The socket refusal is per process: each test starts and ends accepting."""
    consumers._refusing["new"] = False
    yield
    consumers._refusing["new"] = False


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_stopping_server_asks_its_sockets_to_reconnect_and_refuses_new_ones(accepting, stop_runner):
    from asgiref.sync import sync_to_async

    from jassweb.asgi import application

    nora = (await sync_to_async(make_players)(("Nora",)))[0]
    table = await sync_to_async(make_table)(nora, [nora, "random", "random", "random"])
    tab = await Client.open(table.pk, nora)
    assert consumers.open_sockets() == 1

    assert await consumers.ask_to_reconnect() == 1
    closed = await tab.communicator.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": consumers.SERVICE_RESTART}

    consumers.refuse_new_sockets()
    late = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/", headers=[ORIGIN, await session_cookie(nora)])
    connected, code = await late.connect(timeout=5)
    assert (connected, code) == (False, consumers.SERVICE_RESTART)  # the page retries, through the balancer
    lobby = WebsocketCommunicator(application, "/ws/lobby/", headers=[ORIGIN])
    assert await lobby.connect(timeout=5) == (False, consumers.SERVICE_RESTART)


@pytest.mark.django_db
def test_a_stopping_worker_hands_its_games_back_and_names_the_live_workers_to_tell():
    nora = make_players(("Nora",))[0]
    games = [start(make_table(nora, ["random"] * 4, name=f"T{i}"), nora, seed=i) for i in range(2)]
    other = workers.register()  # another server, alive
    workers.forget_local_id()
    stopping = workers.register()
    for game in games:
        assert workers.claim(game.pk)

    handed, others = workers.unregister()
    assert sorted(handed) == sorted(g.pk for g in games) and others == [other]
    assert set(Game.objects.filter(pk__in=handed).values_list("driver", flat=True)) == {""}
    assert not Worker.objects.filter(pk=stopping).exists()
    assert workers.unregister() == ([], [])  # once only

    workers.register()  # a live server, told, claims them at once (no lease to wait for)
    assert all(workers.claim(g.pk) for g in games)


@pytest.mark.asyncio
async def test_the_drain_runs_in_a_fresh_context_whatever_task_the_signal_interrupted():
    """SIGTERM may land while a task waits on a database call; the drain started from there still reaches the
    database (it once failed with asgiref's "Single thread executor already being used, would deadlock")."""
    import asyncio

    from asgiref.sync import SyncToAsync, sync_to_async

    from jassweb import shutdown

    reached: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def drain() -> None:
        reached.set_result(await sync_to_async(lambda: "the database thread")())

    inside_a_database_call = SyncToAsync.deadlock_context.set(True)
    try:
        shutdown.schedule(asyncio.get_running_loop(), drain)
    finally:
        SyncToAsync.deadlock_context.reset(inside_a_database_call)
    assert await asyncio.wait_for(reached, 10) == "the database thread"


@pytest.mark.asyncio
async def test_a_game_task_cancelled_while_its_move_is_committed_ends_instead_of_waiting_for_the_next_change():
    """A stopping server cancels its game tasks. When the cancellation comes while a move is being committed
    (sync code in the database thread, sending on the channel layer through ``async_to_sync``), asgiref hands
    it to that send, and the commit, which goes on, returns as if nothing happened; the turn loop must still
    end rather than wait for the game's next change (a stop that waited 5 s for one such table)."""
    import asyncio
    import contextlib
    from types import SimpleNamespace

    from asgiref.sync import async_to_sync, sync_to_async

    from bots.runner import drive

    sending = asyncio.Event()

    async def send_on_the_layer() -> None:
        sending.set()
        await asyncio.sleep(1)

    def commit_in_the_database_thread() -> None:
        with contextlib.suppress(asyncio.CancelledError):  # the commit is done; what it tells is best effort
            async_to_sync(send_on_the_layer)()

    class Game:
        finished = False
        turns = [SimpleNamespace(pause=0.0, delay=0.0, since=None)]

        def next_turn(self):
            return self.turns.pop() if self.turns else None

        async def commit(self, turn, action, report) -> None:
            await sync_to_async(commit_in_the_database_thread)()

    class Player:
        async def move(self, turn, asked):
            return "a move", "a report"

    task = asyncio.create_task(drive(Game(), Player(), asyncio.Event()))
    await asyncio.wait_for(sending.wait(), 10)
    task.cancel()
    done, _ = await asyncio.wait([task], timeout=10)  # without the check it waits on the wake event for ever
    assert done and task.cancelled()


@pytest.mark.asyncio
async def test_a_game_task_cancelled_while_its_bot_thinks_ends_without_waiting_out_the_bots_delay():
    """The same loss of a cancellation while a bot's think is asked of a worker (its request's channel send):
    the turn loop used to sleep the bot's whole delay before it noticed (every other stop took 1 s)."""
    import asyncio
    import contextlib
    from types import SimpleNamespace

    from bots.runner import drive

    thinking = asyncio.Event()
    committed: list[str] = []

    class Game:
        finished = False
        turns = [SimpleNamespace(pause=0.0, delay=3600.0, since=None)]  # a bot that would think for an hour

        def next_turn(self):
            return self.turns.pop() if self.turns else None

        async def commit(self, turn, action, report) -> None:
            committed.append(action)

    class Player:
        async def move(self, turn, asked):
            thinking.set()
            with contextlib.suppress(asyncio.CancelledError):  # as the think's send on the layer loses it
                await asyncio.sleep(1)
            return "a move", "a report"

    task = asyncio.create_task(drive(Game(), Player(), asyncio.Event()))
    await asyncio.wait_for(thinking.wait(), 10)
    task.cancel()
    done, _ = await asyncio.wait([task], timeout=10)  # without the check it sleeps the delay first
    assert done and task.cancelled() and not committed
