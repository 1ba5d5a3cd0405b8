"""Drives every non-human seat: notices that a bot is to move, gets its move off the event loop, submits it.

Built-in bots think in a process pool (``bots.think``) in a server, in a thread
for headless games; remote HSLU bots are asked over HTTP
(``bots.remote``), any number of tables at once. Moves go through the service
like everyone's, with the bot's time and, for a remote bot, its fault (the move
is then a random legal stand-in) and the path dialect that answered. After
each round every remote bot gets ``game_info`` with its view of the round.

In a server process ``runner`` lives on the event loop: the service wakes it
after every committed change, and a sweeper wakes it for running games nobody
has touched for a while (a restart, a lost task), so a table never stalls.
Headless games (``play_bot_turns``) use the same ``BotPlayer``.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from datetime import timedelta

import httpx
import numpy as np
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.utils import timezone

from bots import remote, think
from bots.registry import BUILTIN_BOTS, get_bot
from games import service
from games.engine import Action, Observation
from games.hslu import jass_type
from games.models import Game, GameSeat

log = logging.getLogger(__name__)

SWEEP_SECONDS = 5.0
STALL_SECONDS = 3.0


@dataclass(frozen=True)
class BotTurn:
    """A bot is to move: everything needed to decide and submit, nothing more (no other hands)."""

    game_id: int
    seq: int
    seat: int
    round_index: int
    observation: Observation
    seed: int
    delay: float
    bot: str = ""  # a built-in bot's name, or
    remote_url: str = ""  # a remote bot's URL
    dialect: str = ""
    timeout: float = remote.DEFAULT_TIMEOUT
    jass_typ: str = "SCHIEBER"

    def rng(self) -> np.random.Generator:
        """The bot's randomness, seeded by the game and the move, so a replay decides the same."""
        return np.random.default_rng([self.seed, self.seq, self.seat])


def _game_jass_type(game: Game) -> str:
    return jass_type(game.mode, game.target)


def pending_bot_turn(game_id: int) -> BotTurn | None:
    """Return the bot move a game is waiting for, if the seat to move is a bot."""
    game = Game.objects.select_related("table").filter(pk=game_id, status=Game.RUNNING).first()
    if game is None:
        return None
    state = service.load_state(game)
    if state.over:
        return None
    seat = GameSeat.objects.filter(game=game, position=state.player).first()
    if seat is None or seat.kind not in ("bot", "remote"):
        return None
    return BotTurn(
        game_id=game.pk,
        seq=game.action_count,
        seat=state.player,
        round_index=state.round_index,
        observation=state.observation(state.player),
        seed=game.seed,
        delay=game.table.bot_delay_ms / 1000,
        bot=seat.bot,
        remote_url=seat.remote_url,
        dialect=seat.remote_dialect,
        timeout=float(game.table.bot_timeout_s),
        jass_typ=_game_jass_type(game),
    )


def decide(turn: BotTurn) -> Action:
    """A built-in bot's move (CPU work: run it off the event loop)."""
    return get_bot(turn.bot).act(turn.observation, turn.rng())


@dataclass(frozen=True)
class GameInfo:
    """A remote bot to tell how a round ended."""

    seat: int
    url: str
    dialect: str
    observation: Observation
    jass_typ: str
    timeout: float


def game_info_targets(game_id: int, round_index: int) -> list[GameInfo]:
    """Every remote seat of a game, with its own view of round ``round_index`` (for ``game_info``)."""
    game = Game.objects.select_related("table").get(pk=game_id)
    seats = [s for s in GameSeat.objects.filter(game=game) if s.kind == "remote"]
    if not seats:
        return []
    played = service.load_state(game).rounds[round_index]
    return [
        GameInfo(
            s.position,
            s.remote_url,
            s.remote_dialect,
            played.observation(s.position),
            _game_jass_type(game),
            float(game.table.bot_timeout_s),
        )
        for s in seats
    ]


async def _start_pool() -> None:
    try:
        await asyncio.to_thread(think.start)
    except Exception:  # the first move will try again and report
        log.exception("bot worker pool did not start")


async def _in_pool(*args) -> Action:
    """``think.think(*args)`` in the process pool. Submitting can block (it may have to start a worker
    process), so even that happens in a thread, never on the event loop."""
    future = await asyncio.to_thread(lambda: think.pool().submit(think.think, *args))
    return await asyncio.wrap_future(future)


class BotPlayer:
    """Gets bots' moves: built-in ones in worker processes (or a thread, headless), remote ones over HTTP."""

    def __init__(self, client: httpx.AsyncClient, *, processes: bool = False) -> None:
        self.client = client
        self.processes = processes

    async def _think(self, turn: BotTurn, asked: float | None) -> Action:
        loop = asyncio.get_running_loop()
        if not self.processes:
            return await loop.run_in_executor(None, decide, turn)
        budget = getattr(BUILTIN_BOTS.get(turn.bot), "move_budget_s", None)
        # The answer is due within the budget from when the move was asked for (reading the game counts).
        deadline = (asked or time.time()) + budget if budget else None
        args = (turn.bot, turn.observation, (turn.seed, turn.seq, turn.seat), deadline)
        try:
            return await _in_pool(*args)
        except BrokenProcessPool:  # a worker died (killed, out of memory): start a fresh pool, once
            log.warning("bot worker pool broke; starting a new one")
            think.shutdown()
            return await _in_pool(*args)

    async def move(self, turn: BotTurn, asked: float | None = None) -> tuple[Action, service.BotReport]:
        """The bot's action and what it comes with (time, fault, dialect); ``asked``: ``time.time()`` the
        server began to get this move (before reading the game), else now."""
        started = time.monotonic()
        if turn.bot:
            action = await self._think(turn, asked)
            return action, service.BotReport(latency_ms=round((time.monotonic() - started) * 1000))
        answer = await remote.ask_bot(
            self.client, turn.remote_url, turn.dialect, turn.observation, turn.jass_typ, turn.timeout, turn.rng()
        )
        fault = answer.fault
        report = service.BotReport(
            latency_ms=round(answer.latency * 1000),
            dialect=answer.dialect if answer.dialect_confirmed else None,
            fault_kind=fault.kind if fault else None,
            fault_detail=fault.detail if fault else "",
            fault_hidden=fault.hidden_detail if fault else "",
        )
        return answer.action, report

    async def send_game_infos(self, game_id: int, round_index: int) -> None:
        """Tell every remote bot of a game how round ``round_index`` ended; store failures as faults."""
        targets = await database_sync_to_async(game_info_targets)(game_id, round_index)

        async def inform(target: GameInfo) -> None:
            started = time.monotonic()
            fault = await remote.send_game_info(
                self.client, target.url, target.dialect, target.observation, target.jass_typ, target.timeout
            )
            if fault is not None:
                latency = round((time.monotonic() - started) * 1000)
                await database_sync_to_async(service.record_fault)(
                    game_id, target.seat, round_index, fault.kind, fault.detail, latency
                )

        await asyncio.gather(*(inform(t) for t in targets))


async def _play_all(game_id: int) -> int:
    moves = 0
    async with remote.new_client() as client:
        player = BotPlayer(client)
        while (turn := await database_sync_to_async(pending_bot_turn)(game_id)) is not None:
            action, report = await player.move(turn)
            after = await database_sync_to_async(service.submit)(
                game_id, turn.seat, action, actor=service.BOT_RUNNER, expected_seq=turn.seq, report=report
            )
            moves += 1
            if after.over or after.round_index > turn.round_index:
                await player.send_game_infos(game_id, turn.round_index)
    return moves


def play_bot_turns(game_id: int) -> int:
    """Play every pending bot move of a game to its end or a human's turn (headless); return how many."""
    return async_to_sync(_play_all)(game_id)


class BotRunner:
    """One per server process: a task per game that has a bot to move, plus the stall sweeper."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._player: BotPlayer | None = None
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._lock = threading.Lock()

    def ensure_started(self) -> None:
        """Attach to the running event loop (the server's) and start sweeping; idempotent."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._loop is loop and self._sweeper is not None and not self._sweeper.done():
                return
            self._loop = loop
            self._tasks = {}
            self._player = BotPlayer(remote.new_client(), processes=True)
            self._sweeper = loop.create_task(self._sweep(), name="bot-sweeper")
            # Workers start (and load the search kernels) with the server, before any bot is asked to move.
            starting = loop.create_task(_start_pool(), name="bot-pool-start")
            self._background.add(starting)
            starting.add_done_callback(self._background.discard)
        service.add_listener(self._on_change)

    async def stop(self) -> None:
        """Cancel the sweeper and every game task (server shutdown, end of a test's event loop)."""
        with self._lock:
            tasks = [t for t in (self._sweeper, *self._tasks.values(), *self._background) if t is not None]
            player, self._player = self._player, None
            self._tasks, self._background, self._sweeper, self._loop = {}, set(), None, None
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if player is not None:
            await player.client.aclose()

    def _on_change(self, change: service.Change) -> None:
        if change.game_id is None:
            return
        self.wake(change.game_id)
        if change.reason in ("round_over", "finished") and change.round_index is not None:
            self._call_in_loop(self._inform, change.game_id, change.round_index)

    def wake(self, game_id: int) -> None:
        """Make sure a task drives ``game_id`` if a bot is to move; callable from any thread."""
        self._call_in_loop(self._ensure_task, game_id)

    def _call_in_loop(self, callback, *args) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        # A fresh context: a call from a database thread must not hand its asgiref thread-sensitive
        # context to the tasks it starts, whose own database calls would then deadlock.
        if running is loop:
            contextvars.Context().run(callback, *args)
        else:
            loop.call_soon_threadsafe(callback, *args, context=contextvars.Context())

    def _ensure_task(self, game_id: int) -> None:
        task = self._tasks.get(game_id)
        if task is None or task.done():
            self._tasks[game_id] = asyncio.get_running_loop().create_task(self._drive(game_id), name=f"bots-{game_id}")

    def _inform(self, game_id: int, round_index: int) -> None:
        if self._player is None:
            return
        task = asyncio.get_running_loop().create_task(
            self._player.send_game_infos(game_id, round_index), name=f"game-info-{game_id}"
        )
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _drive(self, game_id: int) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                asked = time.time()
                turn = await database_sync_to_async(pending_bot_turn)(game_id)
                if turn is None or self._player is None:
                    return
                started = loop.time()
                action, report = await self._player.move(turn, asked)
                await asyncio.sleep(max(0.0, turn.delay - (loop.time() - started)))
                try:
                    await database_sync_to_async(service.submit)(
                        game_id, turn.seat, action, actor=service.BOT_RUNNER, expected_seq=turn.seq, report=report
                    )
                except service.ServiceError as exc:
                    if exc.code == "stale":  # another process moved first: just look again
                        continue
                    if exc.code != "game_over":  # abandoned while the bot thought: nothing to do
                        log.error("bot at seat %s could not move in game %s: %s", turn.seat, game_id, exc)
                    return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot runner for game %s failed; the sweeper will retry", game_id)
        finally:
            if self._tasks.get(game_id) is asyncio.current_task():
                del self._tasks[game_id]

    async def _sweep(self) -> None:
        while True:
            try:
                for game_id in await database_sync_to_async(_stalled_games)():
                    self._ensure_task(game_id)
            except Exception:
                log.exception("bot sweeper failed")
            await asyncio.sleep(SWEEP_SECONDS)


def _stalled_games() -> list[int]:
    quiet_since = timezone.now() - timedelta(seconds=STALL_SECONDS)
    return list(
        Game.objects.filter(status=Game.RUNNING, table__updated_at__lt=quiet_since).values_list("pk", flat=True)
    )


runner = BotRunner()
