"""The one driver of every non-human seat: live tables, ``playgame`` and the arena share one turn loop.

``drive`` is that loop: it asks the game whose bot is to move (``next_turn``),
gets the move from a ``BotPlayer`` (built-in bots think in worker processes,
remote HSLU bots are asked over HTTP) and commits it (``commit``), until the
game is over, or — live — waits to be woken when a person is to move.

Live, each game has exactly one driver among all server processes: the
``Worker`` its ``driver`` column names, which renews its lease with every
heartbeat (``games.live.workers``). The driver hears of every change to its games —
directly from the service in its own process, over the channel layer from the
others — and keeps each game's state in memory, so it knows at once whose turn
it is without reading the database. Besides the bots it runs two timers per
game: the **turn clock** (a person out of time gets a stand-in bot, which plays
for them until they press *I'm back*) and the **orphan timer** (a game whose
people have all been away from the table for ``JASSWEB_ORPHAN_MINUTES`` is
abandoned, with its reason, however many moves stand-ins and bots made
meanwhile). No process ever sweeps the running games: a game is woken by its
own events, and a dead driver's games are taken over by the first live one to
notice (``games.live.workers.reap``).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import logging
import threading
import time
from collections.abc import Coroutine
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import httpx
import numpy as np
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import IntegrityError

from bots import remote, think
from bots.registry import get_bot, move_budget
from games import signals
from games.catalogue import DEFAULT_TIMEOUT, Dialect, SeatKind
from games.engine import Action, GameState, Observation
from games.errors import ErrorCode
from games.hslu import jass_type
from games.live import bothooks, database, fastpath, redelivery, service, snapshot, states, workers
from games.live.database import database_sync_to_async
from games.live.events import publisher
from games.models import Game, GameSeat

if TYPE_CHECKING:
    from bots.thinkers import RemoteThinkers

_T = TypeVar("_T")

log = logging.getLogger(__name__)
STOP_GRACE_S = 5.0  # seconds a stopping driver waits for each part of its shutdown


async def _within_grace(step: Coroutine[Any, Any, None], what: str) -> None:
    """Await one step of a shutdown for at most ``STOP_GRACE_S``; a step that hangs is logged, not waited for."""
    try:
        await asyncio.wait_for(step, STOP_GRACE_S)
    except TimeoutError:
        log.warning("stopping: %s took longer than %s s; going on without it", what, STOP_GRACE_S)


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
    timeout: float = DEFAULT_TIMEOUT
    jass_typ: str = "SCHIEBER"
    standin: bool = False  # a built-in bot playing for a person (their clock ran out, or they left)
    # The first move of a new deal waits while people read the last round's summary: at most this many
    # seconds from the round's end, less once they are all ready (``DrivenGame.hold``).
    pause: float = 0.0
    # ``time.time()`` when the turn began (the move before it): ``delay`` counts from then, so a game another
    # server took over mid-turn keeps its pace instead of waiting the whole delay again. None: from now.
    since: float | None = None

    def rng(self) -> np.random.Generator:
        """The bot's randomness, seeded by the game and the move, so a replay decides the same."""
        return np.random.default_rng([self.seed, self.seq, self.seat])


def decide(turn: BotTurn) -> Action:
    """A built-in bot's move (CPU work: run it off the event loop)."""
    return get_bot(turn.bot).act(turn.observation, turn.rng())


# -- getting a bot's move ---------------------------------------------------------------------------


async def _start_pool() -> None:
    try:
        await asyncio.to_thread(think.start)
    except Exception:  # the first move will try again and report
        log.exception("bot worker pool did not start")


async def _in_pool(name: str, obs: Observation, seed: tuple[int, ...], deadline: float | None) -> Action:
    """``think.think(*args)`` in the process pool. Submitting can block (it may have to start a worker
    process), so even that happens in a thread, never on the event loop."""
    future = await asyncio.to_thread(lambda: think.pool().submit(think.think, name, obs, seed, deadline))
    return await asyncio.wrap_future(future)


class BotPlayer:
    """Gets bots' moves: built-in ones in a thread (headless), a local process pool, or on remote
    thinkers over the channel layer (``bots.thinkers``); remote HSLU bots over HTTP."""

    def __init__(
        self, client: httpx.AsyncClient, *, processes: bool = False, thinkers: RemoteThinkers | None = None
    ) -> None:
        self.client = client
        self.processes = processes
        self.thinkers = thinkers  # a bots.thinkers.RemoteThinkers, or None

    async def _think(self, turn: BotTurn, asked: float | None) -> Action:
        loop = asyncio.get_running_loop()
        if not self.processes and self.thinkers is None:
            return await loop.run_in_executor(None, decide, turn)
        budget = move_budget(turn.bot)
        # The answer is due within the budget from when the move was asked for (reading the game counts).
        deadline = (asked or time.time()) + budget if budget else None
        if self.thinkers is not None:
            return await self.thinkers.think(turn, deadline)
        args = (turn.bot, turn.observation, (turn.seed, turn.seq, turn.seat), deadline)
        try:
            return await _in_pool(*args)
        except BrokenProcessPool:  # a worker died (killed, out of memory): start a fresh pool, once
            log.warning("bot worker pool broke; starting a new one")
            think.shutdown()
            return await _in_pool(*args)

    async def move(self, turn: BotTurn, asked: float | None = None) -> tuple[Action, service.BotReport]:
        """The bot's action and what it comes with (time, fault, dialect); ``asked``: ``time.time()`` the
        server began to get this move, else now."""
        started = time.monotonic()
        if turn.bot:
            action = await self._think(turn, asked)
            latency = round((time.monotonic() - started) * 1000)
            return action, service.BotReport(latency_ms=latency, standin=turn.standin)
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


# -- the one turn loop ------------------------------------------------------------------------------


class DrivenGame(Protocol):
    """A game as the turn loop sees it: whose bot moves next, and how a move is committed."""

    @property
    def finished(self) -> bool: ...

    def next_turn(self) -> BotTurn | None:
        """The bot turn the game waits for now, or None (a person's turn, or the end)."""

    async def commit(self, turn: BotTurn, action: Action, report: service.BotReport) -> None:
        """Apply the bot's move (refusals of stale moves are the game's business)."""

    async def hold(self, turn: BotTurn) -> None:
        """Return when the round summary that ``turn`` waits for is over (its time, or everyone ready)."""


def _stop_if_cancelled() -> None:
    """Raise ``CancelledError`` if this task was cancelled and the cancellation got lost on the way.

    asgiref's ``sync_to_async`` (Channels' ``database_sync_to_async``) hands a cancellation that comes
    while its function runs on to what that function awaits through ``async_to_sync`` (a commit's channel
    send), and when the function goes on and returns, returns its result as if nothing happened. A
    stopping server's game task then went on to wait for the game's next change, and the stop for it
    (5 s: ``tests/test_rolling_restart.py`` saw one table in five stand that long). A bot's think through
    the worker processes loses one the same way (its request's channel send): the task then slept the
    bot's whole delay before it saw the cancellation (a stop that took 1 s in every other restart)."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


async def drive(game: DrivenGame, player: BotPlayer, wake: asyncio.Event | None = None) -> int:
    """Play a game's bot turns; return how many moves were made.

    Without ``wake`` (headless games, the arena) it returns when no bot is to move;
    with it (a live game) it waits to be woken by the next change instead, until
    the game is over.
    """
    loop = asyncio.get_running_loop()
    moves = 0
    while not game.finished:
        _stop_if_cancelled()
        turn = game.next_turn()
        if turn is None:
            if wake is None:
                break
            await wake.wait()
            wake.clear()
            continue
        asked = time.time()
        started = loop.time()
        if turn.since is not None:
            started -= min(turn.delay, max(0.0, asked - turn.since))
        action, report = await player.move(turn, asked)
        _stop_if_cancelled()  # the think's channel send loses a cancellation too: not the whole delay first
        if turn.pause:
            await game.hold(turn)
            started = max(started, loop.time() - turn.delay / 2)  # the new deal shows a moment first
        await asyncio.sleep(max(0.0, turn.delay - (loop.time() - started)))
        await game.commit(turn, action, report)
        moves += 1
    return moves


# -- live games -------------------------------------------------------------------------------------


@dataclass
class SeatInfo:
    player_id: int | None
    bot: str
    remote_url: str
    dialect: str
    standin: str
    ready_round: int = 0  # the last round whose summary this person closed

    @property
    def person(self) -> bool:
        return self.player_id is not None

    @property
    def plays(self) -> bool:
        """A person who plays this seat themselves (no stand-in bot)."""
        return self.player_id is not None and not self.standin


@dataclass
class GameInfo:
    """What a driver knows of a game besides its state (read when it takes the game, and on non-move events)."""

    table_id: int
    seed: int
    status: str
    seq: int
    seats: list[SeatInfo]
    clock_s: int
    standin_bot: str
    delay: float
    timeout: float
    jass_typ: str
    turn_started_at: float  # epoch seconds
    round_pause: float = 0.0  # seconds the bots wait at a new round while people read its summary
    online: set[int] = field(default_factory=set)


def load_info(game_id: int) -> tuple[GameInfo, GameState] | None:
    """A game's facts and state from the database (the driver calls it rarely: not for moves)."""
    return load_infos([game_id]).get(game_id)


def load_infos(game_ids: list[int]) -> dict[int, tuple[GameInfo, GameState]]:
    """``load_info`` of several games in a few queries for all (the games a stopping server handed over)."""
    games = list(Game.objects.select_related("table").filter(pk__in=game_ids).order_by("pk"))
    seats: dict[int, list[SeatInfo]] = {game.pk: [] for game in games}
    for s in GameSeat.objects.filter(game__in=games).order_by("game_id", "position"):
        seats[s.game_id].append(SeatInfo(s.player_id, s.bot, s.remote_url, s.remote_dialect, s.standin, s.ready_round))
    online = fastpath.online_players_of([game.table_id for game in games])
    played = states.load_many(games)
    return {
        game.pk: (
            GameInfo(
                table_id=game.table_id,
                seed=game.seed,
                status=game.status,
                seq=game.action_count,
                seats=seats[game.pk],
                clock_s=game.turn_clock_s,
                standin_bot=game.standin_bot,
                delay=game.table.bot_delay_ms / 1000,
                timeout=float(game.table.bot_timeout_s),
                jass_typ=jass_type(game.mode, game.target),
                round_pause=float(game.round_pause_s),
                turn_started_at=(game.turn_started_at or game.created_at).timestamp(),
                online=online[game.table_id],
            ),
            played[game.pk],
        )
        for game in games
    }


def orphan_seconds() -> float:
    return float(getattr(settings, "JASSWEB_ORPHAN_MINUTES", 30)) * 60


class LiveGame:
    """One game driven by this process: its state in memory, its bot turns, its clock and orphan timers."""

    def __init__(self, driver: Driver, game_id: int, info: GameInfo, state: GameState) -> None:
        self.driver = driver
        self.game_id = game_id
        self.info = info
        self.state = state
        self.seq = info.seq
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.clock: asyncio.TimerHandle | None = None
        self.orphan: asyncio.TimerHandle | None = None
        self.alone_since: float | None = None  # when the last person went (this driver's knowledge)
        self.changed = asyncio.Event()  # set on every change this driver hears of (``hold`` looks again)

    @property
    def finished(self) -> bool:
        return self.info.status != Game.RUNNING or self.state.over

    def next_turn(self) -> BotTurn | None:
        if self.finished:
            return None
        seat = self.state.player
        info = self.info.seats[seat]
        standin = info.person and bool(info.standin)
        if info.person and not standin:
            return None
        return BotTurn(
            game_id=self.game_id,
            seq=self.seq,
            seat=seat,
            round_index=self.state.round_index,
            observation=self.state.observation(seat),
            seed=self.info.seed,
            delay=self.info.delay,
            pause=self._round_pause(),
            bot=self.info.standin_bot if standin else info.bot,
            remote_url="" if standin else info.remote_url,
            dialect=info.dialect,
            timeout=self.info.timeout,
            jass_typ=self.info.jass_typ,
            standin=standin,
            since=self.info.turn_started_at,
        )

    def _round_pause(self) -> float:
        """At the first move of a round after the first, with people playing: the summary's longest time."""
        rnd = self.state.current
        fresh = self.state.round_index > 0 and rnd.trump < 0 and not rnd.pushed
        return self.info.round_pause if fresh and any(s.plays for s in self.info.seats) else 0.0

    def pause_over(self, round_number: int) -> bool:
        """Whether every person at the table who has it open closed the summary of ``round_number``."""
        seats = self.info.seats
        people = [i for i, s in enumerate(seats) if s.plays]
        ready = [i for i in people if seats[i].ready_round >= round_number]
        online = [i for i in people if seats[i].player_id in self.info.online]
        return snapshot.pause_over(people, ready, online)

    async def hold(self, turn: BotTurn) -> None:
        ends = self.info.turn_started_at + turn.pause  # the round ended with the last move
        while self.seq == turn.seq and not self.finished and not self.pause_over(turn.round_index):
            remaining = ends - time.time()
            if remaining <= 0:
                return
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), remaining)

    async def commit(self, turn: BotTurn, action: Action, report: service.BotReport) -> None:
        if report.dialect and self.info.seats[turn.seat].dialect == Dialect.AUTO:
            self.info.seats[turn.seat].dialect = report.dialect  # the dialect that answered, from now on
        try:
            after = await database_sync_to_async(service.submit)(
                self.game_id,
                turn.seat,
                action,
                actor=service.BOT_RUNNER,
                expected_seq=turn.seq,
                report=report,
                table_id=self.info.table_id,
            )
        except service.ServiceError as exc:
            if exc.code not in (ErrorCode.STALE, ErrorCode.GAME_OVER, ErrorCode.NOT_YOUR_SEAT):
                log.error("bot at seat %s could not move in game %s: %s", turn.seat, self.game_id, exc)
            await self.refresh()  # someone else moved, the game ended, or the seat changed: look again
            return
        if turn.seq + 1 > self.seq:
            self.seq, self.state = turn.seq + 1, after
            self.info.turn_started_at = time.time()
        self.reconsider()

    # -- events ------------------------------------------------------------------------------------

    def heard(self, change: service.Change) -> bool:
        """Take in a change; False when the game must be read again from the database."""
        if change.reason == "presence" and change.online is not None and change.seq == self.seq:
            self.info.online = set(change.online)
            return True
        if change.move is not None and change.seq is not None:
            if change.seq <= self.seq:
                return True  # our own move, or an old one
            if change.seq == self.seq + 1:
                seat, code = change.move
                after = states.advance(self.game_id, self.info.seed, self.seq, seat, code)
                if after is None:
                    after = self.state.apply(seat, Action.from_code(code))
                    states.remember(self.game_id, self.info.seed, change.seq, after)
                self.seq, self.state = change.seq, after
                self.info.turn_started_at = time.time()
                if after.over:
                    self.info.status = Game.FINISHED
                return True
        return False

    async def refresh(self) -> None:
        for attempt in range(3):
            loaded = await database_sync_to_async(load_info)(self.game_id)
            if loaded is None:
                self.info.status = Game.ABANDONED
                break
            # A move heard while the database was read is stored: read again rather than step back behind
            # it (at most twice; the database is the truth).
            if loaded[0].seq >= self.seq or attempt == 2:
                self.info, self.state = loaded
                self.seq = self.info.seq
                break
        self.reconsider()

    def reconsider(self) -> None:
        """After any change: wake the turn loop, set or clear the turn clock and the orphan timer."""
        self.wake.set()
        self.changed.set()
        self._cancel_timers(orphan=False)
        if self.finished:
            self._cancel_timers()
            self.driver.forget(self.game_id)
            return
        loop = asyncio.get_running_loop()
        seat = self.state.player
        info = self.info.seats[seat]
        if self.info.clock_s and info.person and not info.standin:
            due = self.info.turn_started_at + self.info.clock_s - time.time()
            self.clock = loop.call_later(max(0.0, due) + 0.05, self._clock_ran_out, seat, self.seq)
        self._consider_orphan(loop)

    def _consider_orphan(self, loop: asyncio.AbstractEventLoop) -> None:
        people = {s.player_id for s in self.info.seats if s.person and s.standin != GameSeat.LEFT}
        if not people or people & self.info.online:
            self.alone_since = None
            if self.orphan is not None:
                self.orphan.cancel()
                self.orphan = None
            return
        if self.alone_since is None:
            self.alone_since = time.time()
        # Moves do not put it off: stand-ins and bots playing on are no one at the table (issue 23).
        due = self.alone_since + orphan_seconds() - time.time()
        if self.orphan is not None:
            self.orphan.cancel()
        self.orphan = loop.call_later(max(0.0, due) + 0.05, self._orphaned)

    def _cancel_timers(self, orphan: bool = True) -> None:
        if self.clock is not None:
            self.clock.cancel()
            self.clock = None
        if orphan and self.orphan is not None:
            self.orphan.cancel()
            self.orphan = None

    def _clock_ran_out(self, seat: int, seq: int) -> None:
        self.clock = None
        self.driver.spawn(self._stand_in(seat, seq), f"clock-{self.game_id}")

    async def _stand_in(self, seat: int, seq: int) -> None:
        if await database_sync_to_async(service.clock_ran_out)(self.game_id, seat, seq):
            log.info("game %s: %s's clock ran out; the stand-in bot plays", self.game_id, seat)
        else:
            await self.refresh()

    def _orphaned(self) -> None:
        self.orphan = None
        self.driver.spawn(self._abandon_if_orphaned(), f"orphan-{self.game_id}")

    async def _abandon_if_orphaned(self) -> None:
        since = self.alone_since
        if since is None or not await database_sync_to_async(service.abandon_orphaned)(
            self.game_id, orphan_seconds(), since
        ):
            await self.refresh()

    def start(self, player: BotPlayer) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run(player), name=f"game-{self.game_id}")

    async def _run(self, player: BotPlayer) -> None:
        try:
            self.reconsider()
            await drive(self, player, self.wake)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("driving game %s failed; it is read again and driven on", self.game_id)
            await asyncio.sleep(1.0)
            self.driver.forget(self.game_id)
            await self.driver.take(self.game_id)


class Driver:
    """One per process: drives the live games this process holds the lease of."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._player: BotPlayer | None = None
        self._games: dict[int, LiveGame] = {}
        self._taking: dict[int, asyncio.Task[None]] = {}
        self._missed: set[int] = set()  # games being taken that changed while their state was read
        self._background: set[asyncio.Task[object]] = set()
        self._analysing: set[int] = set()
        self._retired: BotPlayer | None = None  # the bot clients of a driver that handed its games over
        self._final = False  # the server stops: never drive again in this process (``hand_over(final=True)``)
        self._lock = threading.Lock()
        self.worker_id: str | None = None

    # -- lifecycle ---------------------------------------------------------------------------------

    def ensure_started(self) -> None:
        """Attach to the running event loop (the server's): register, listen, beat; idempotent."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._loop is loop or self._final:
                return
            self._loop = loop
            self._games, self._taking, self._analysing, self._missed = {}, {}, set(), set()
            # Tasks of an earlier event loop (a test's, never stopped) died with it: never wait for them.
            self._background = {t for t in self._background if t.get_loop() is loop}
            self._player = BotPlayer(remote.new_client(), processes=True, thinkers=_thinkers())
        publisher.attach()
        redelivery.watch.start()  # what a Redis restart loses is published again once it is back
        service.add_listener(self._on_change)
        self.spawn(self._run(), "driver")
        if self._player.thinkers is None:
            self.spawn(_start_pool(), "bot-pool-start")  # workers load the kernels before the first move

    async def stop(self) -> None:
        """Stop driving (server shutdown, the end of a test's event loop): hand the games over, then close the
        bot clients and send the last events."""
        await self.hand_over()
        player, self._retired = self._retired, None
        if player is not None:
            await _within_grace(player.client.aclose(), "closing the HTTP client")
            if player.thinkers is not None:
                await _within_grace(player.thinkers.close(), "closing the thinkers")
        await _within_grace(redelivery.watch.stop(), "stopping the layer watch")
        await _within_grace(publisher.detach(), "sending the last events")
        self.worker_id = None

    async def hand_over(self, final: bool = False) -> None:
        """Stop driving and hand every game back at once, telling the other drivers, who take them over now
        rather than when the lease would have run out (the first part of ``stop``; a stopping server's first).

        ``final``: this process stops; a request or socket that still comes does not start the driver again
        (it would take back the games it just handed over)."""
        service.remove_listener(self._on_change)
        with self._lock:
            self._final = self._final or final
            tasks = [t for t in self._background if not t.done()]
            tasks += [g.task for g in self._games.values() if g.task is not None]
            tasks += list(self._taking.values())
            games, self._games, self._taking, self._background = list(self._games.values()), {}, {}, set()
            player, self._player, self._loop = self._player, None, None
            if player is not None:
                self._retired = player
        if player is None and not tasks and not games:
            return  # handed over already (a stopping server's drain, then ``stop``): not a second wait
        for game in games:
            game._cancel_timers()
        loop = asyncio.get_running_loop()
        for task in tasks:
            task.cancel()
        ours = [t for t in tasks if t.get_loop() is loop]
        steps = [time.monotonic()]
        if ours:
            _, stuck = await asyncio.wait(ours, timeout=STOP_GRACE_S)
            for task in stuck:  # a shutdown never hangs on one task: it is named, with where it waits
                log.warning("stopping: task %s did not end in %s s\n%s", task.get_name(), STOP_GRACE_S, _where(task))
        steps.append(time.monotonic())
        # A move in flight is committed (or not at all) before the games go: a cancelled task's database call
        # runs on in its thread to its end.
        if not await database.settled(STOP_GRACE_S):
            log.warning("stopping: database calls still running after %s s; handing the games over", STOP_GRACE_S)
        steps.append(time.monotonic())
        handed: tuple[list[int], list[str]] = ([], [])
        try:
            handed = await database_sync_to_async(workers.unregister)()
        except Exception:
            log.exception("stopping: could not hand the games back; other servers take them when the lease ends")
        steps.append(time.monotonic())
        await _within_grace(_hand_over(*handed), "telling the other servers")
        steps.append(time.monotonic())
        log.info(
            "stopping: %s tasks ended in %.2f s, the database calls in flight in %.2f s, the games handed back in"
            " %.2f s, the other servers told in %.2f s",
            len(ours),
            *(b - a for a, b in itertools.pairwise(steps)),
        )

    def spawn(self, coroutine: Coroutine[Any, Any, _T], name: str) -> asyncio.Task[_T]:
        task = asyncio.get_running_loop().create_task(coroutine, name=name)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def _run(self) -> None:
        """Register this worker, take over what has no live driver, then beat and watch for dead workers."""
        self.worker_id = await database_sync_to_async(workers.register)()
        if self._player is not None and self._player.thinkers is not None:
            await self._player.thinkers.start()
        self.spawn(self._listen(), "driver-listen")
        await self.take(*await database_sync_to_async(workers.claim_orphans)())
        if settings.JASSWEB_ANALYSIS:
            from bots import analysis_jobs  # only where analyses run: it loads the solver's module

            await analysis_jobs.resume_pending(self.worker_id, self.analyse)
        self.spawn(self._keep_lease(), "driver-lease")
        while True:
            await asyncio.sleep(workers.HEARTBEAT_SECONDS)
            try:
                taken, tables = await database_sync_to_async(workers.reap)()
                await self.take(*taken)
                if tables:
                    await database_sync_to_async(service.presence_changed)(tables)
                await database_sync_to_async(signals.send_in_transaction)(signals.driver_beat)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("driver reaping failed")

    async def _keep_lease(self) -> None:
        """Renew this worker's lease every ``HEARTBEAT_SECONDS``, apart from the reaping and the rejoining,
        so that neither (both wait in the database queue with every consumer's work) holds it back."""
        while True:
            await asyncio.sleep(workers.HEARTBEAT_SECONDS)
            try:
                if not await workers.renew():
                    await self._declared_dead()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("driver heartbeat failed")

    async def _declared_dead(self) -> None:
        """Others took this worker's games (it was silent too long): drop them and start again."""
        log.warning("worker %s was declared dead; registering again", self.worker_id)
        for game in list(self._games.values()):
            game._cancel_timers()
            if game.task is not None:
                game.task.cancel()
        self._games = {}
        workers.forget_local_id()
        self.worker_id = await database_sync_to_async(workers.register)()
        self.spawn(self._listen(), "driver-listen")
        # The consumers note their connections anew (a dead worker's connections are dropped), while the lease
        # is kept: a process with thousands of sockets takes longer than a lease for it.
        self.spawn(self._rejoin(), "driver-rejoin")

    async def _rejoin(self) -> None:
        try:
            await bothooks.rejoined()
        except IntegrityError:  # declared dead again meanwhile: the next registration notes them again
            log.warning("worker %s was declared dead again while noting its connections", self.worker_id)

    async def _listen(self) -> None:
        """Hear of changes that other processes made to the games this worker drives."""
        layer = get_channel_layer()
        if layer is None or self.worker_id is None:
            return
        channel = workers.driver_channel(self.worker_id)
        while True:
            try:
                message = await layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("driver channel failed; listening again")
                await asyncio.sleep(1.0)
                continue
            if message.get("type") == "driver.change":
                self._handle(service.Change.from_message(message))
            elif message.get("type") == "driver.handover":
                self.wake(*message.get("games", []))  # the first driver to claim one drives it

    # -- games -------------------------------------------------------------------------------------

    def _on_change(self, change: service.Change) -> None:
        """A committed change in this process (called from the database thread)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        # A fresh context: a call from a database thread must not hand its asgiref thread-sensitive
        # context to the tasks it starts, whose own database calls would then deadlock.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(self._handle, change, context=contextvars.Context())

    def _handle(self, change: service.Change) -> None:
        if change.game_id is None:
            return
        if change.reason == "finished" and settings.JASSWEB_ANALYSIS:
            self.analyse(change.game_id)
        game = self._games.get(change.game_id)
        remote_seats = game is None or any(s.remote_url for s in game.info.seats)
        if change.reason in ("round_over", "finished") and change.round_index is not None and remote_seats:
            self.spawn(send_game_infos(self._player, change.game_id, change.round_index), f"info-{change.game_id}")
        if game is None:
            if change.game_id in self._taking:
                self._missed.add(change.game_id)  # ``take`` may have read the game before this change
            elif change.reason not in ("finished", "abandoned"):
                self.wake(change.game_id)
            return
        if game.heard(change):
            game.reconsider()
        else:
            self.spawn(game.refresh(), f"refresh-{change.game_id}")

    def analyse(self, game_id: int) -> None:
        """Analyse a game that ended (on the analysis worker; a game already analysed or being analysed
        by a live job is left alone)."""
        from bots import analysis_jobs

        if self.worker_id is not None and game_id not in self._analysing:
            self._analysing.add(game_id)
            task = self.spawn(analysis_jobs.analyse_in_background(game_id, self.worker_id), f"analyse-{game_id}")
            task.add_done_callback(lambda _: self._analysing.discard(game_id))

    def wake(self, *game_ids: int) -> None:
        """Drive these games if they have no live driver (callable on the loop, e.g. when someone connects, or
        for all the games a stopping server handed over: claimed and read at once, in a few queries)."""
        fresh = [g for g in dict.fromkeys(game_ids) if g not in self._games and g not in self._taking]
        if not fresh or self._loop is None:
            return
        name = f"take-{fresh[0]}" + (f"-and-{len(fresh) - 1}-more" if len(fresh) > 1 else "")
        task = self.spawn(self._claim_and_take(fresh), name)
        for game_id in fresh:
            self._taking[game_id] = task

    async def _claim_and_take(self, game_ids: list[int]) -> None:
        try:
            await self.take(*await database_sync_to_async(workers.claim_many)(game_ids))
        finally:
            me = asyncio.current_task()
            for game_id in game_ids:
                if self._taking.get(game_id) is me:
                    del self._taking[game_id]

    async def take(self, *game_ids: int) -> None:
        """Start driving games this worker holds the lease of."""
        wanted = [g for g in game_ids if g not in self._games]
        if not wanted or self._player is None:
            return
        # A change heard while a game is read may be in what was read or not: read it again then (at
        # most twice), or the game would wait for a move it has already had (a bot's turn nobody takes).
        loaded: dict[int, tuple[GameInfo, GameState]] = {}
        for _ in range(3):
            self._missed.difference_update(wanted)
            loaded.update(await database_sync_to_async(load_infos)(wanted))
            wanted = [g for g in wanted if g in self._missed]
            if not wanted:
                break
        self._missed.difference_update(game_ids)
        for game_id, (info, state) in loaded.items():
            if game_id in self._games or self._player is None:
                continue
            game = LiveGame(self, game_id, info, state)
            if game.finished:
                continue
            self._games[game_id] = game
            game.start(self._player)

    def forget(self, game_id: int) -> None:
        game = self._games.pop(game_id, None)
        if game is not None:
            game._cancel_timers()
            game.wake.set()

    def driving(self) -> list[int]:
        """The games this process drives now (tests and the status of a server)."""
        return sorted(self._games)


def _where(task: asyncio.Task[Any]) -> str:
    """Where a suspended task waits: every coroutine down the chain it awaits (``Task.print_stack`` shows
    only the outermost one, which says nothing of what keeps it)."""
    lines = []
    awaited: Any = task.get_coro()
    while awaited is not None:
        frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "gi_frame", None)
        if frame is not None:
            lines.append(f'  File "{frame.f_code.co_filename}", line {frame.f_lineno}, in {frame.f_code.co_name}')
        awaited = getattr(awaited, "cr_await", None) or getattr(awaited, "gi_yieldfrom", None)
    return "\n".join(lines) or f"  {task!r}"


async def _hand_over(games: list[int], others: list[str]) -> None:
    """Tell every live driver which games this stopping one handed back: the first to claim one drives it."""
    layer = get_channel_layer()
    if layer is None or not games:
        return
    for worker_id in others:
        await layer.send(workers.driver_channel(worker_id), {"type": "driver.handover", "games": games})
    log.info("stopping: handed %s games back, told %s other servers", len(games), len(others), extra={"games": games})


def _thinkers() -> RemoteThinkers | None:
    if getattr(settings, "JASSWEB_THINKERS", "local") != "channels":
        return None
    from bots.thinkers import RemoteThinkers

    return RemoteThinkers()


async def send_game_infos(player: BotPlayer | None, game_id: int, round_index: int) -> None:
    """Tell every remote bot of a game how round ``round_index`` ended; store failures as faults."""
    if player is None:
        return
    targets = await database_sync_to_async(game_info_targets)(game_id, round_index)

    async def inform(target: InfoTarget) -> None:
        started = time.monotonic()
        fault = await remote.send_game_info(
            player.client, target.url, target.dialect, target.observation, target.jass_typ, target.timeout
        )
        if fault is not None:
            latency = round((time.monotonic() - started) * 1000)
            await database_sync_to_async(service.record_fault)(
                game_id, target.seat, round_index, fault.kind, fault.detail, latency
            )

    await asyncio.gather(*(inform(t) for t in targets))


@dataclass(frozen=True)
class InfoTarget:
    """A remote bot to tell how a round ended."""

    seat: int
    url: str
    dialect: str
    observation: Observation
    jass_typ: str
    timeout: float


def game_info_targets(game_id: int, round_index: int) -> list[InfoTarget]:
    """Every remote seat of a game, with its own view of round ``round_index`` (for ``game_info``)."""
    game = Game.objects.select_related("table").get(pk=game_id)
    seats = [s for s in GameSeat.objects.filter(game=game) if s.kind == SeatKind.REMOTE]
    if not seats:
        return []
    played = states.load(game).rounds[round_index]
    return [
        InfoTarget(
            s.position,
            s.remote_url,
            s.remote_dialect,
            played.observation(s.position),
            jass_type(game.mode, game.target),
            float(game.table.bot_timeout_s),
        )
        for s in seats
    ]


runner = Driver()


# -- headless ---------------------------------------------------------------------------------------


class HeadlessGame(LiveGame):
    """A stored game driven to its end (or a person's turn) by a management command or a test."""

    def __init__(self, game_id: int, info: GameInfo, state: GameState, player: BotPlayer) -> None:
        super().__init__(_headless_driver, game_id, info, state)
        self.player = player
        self.infos: list[asyncio.Task[object]] = []

    def reconsider(self) -> None:  # no clock, no orphan timer, nobody to wake
        pass

    async def commit(self, turn: BotTurn, action: Action, report: service.BotReport) -> None:
        before = self.state.round_index
        await super().commit(turn, action, report)
        if self.state.over or self.state.round_index > before:
            await send_game_infos(self.player, self.game_id, before)


class _NoDriver(Driver):
    """The driver of headless games: nothing to forget, tasks are plain tasks (it never starts)."""

    def forget(self, game_id: int) -> None:
        pass

    def spawn(self, coroutine: Coroutine[Any, Any, _T], name: str) -> asyncio.Task[_T]:
        return asyncio.get_running_loop().create_task(coroutine, name=name)


_headless_driver = _NoDriver()


async def _beat() -> None:
    """Keep this process's lease while a headless game runs (a server on the same database keeps off)."""
    while True:
        await asyncio.sleep(workers.HEARTBEAT_SECONDS)
        await workers.renew()


async def _play_all(game_id: int) -> int:
    if not await database_sync_to_async(workers.claim)(game_id):
        log.warning("game %s has another live driver; not driving it here", game_id)
        return 0
    loaded = await database_sync_to_async(load_info)(game_id)
    if loaded is None:
        return 0
    beat = asyncio.get_running_loop().create_task(_beat())
    try:
        async with remote.new_client() as client:
            player = BotPlayer(client)
            return await drive(HeadlessGame(game_id, *loaded, player), player)
    finally:
        beat.cancel()
        await asyncio.gather(beat, return_exceptions=True)


def play_bot_turns(game_id: int) -> int:
    """Play every pending bot move of a game to its end or a person's turn (headless); return how many."""
    return async_to_sync(_play_all)(game_id)
