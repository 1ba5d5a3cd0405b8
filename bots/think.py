"""Built-in bots think in worker processes sized for the machine, never on the server's event loop.

A search bot burns a whole core for up to a second per move; in a thread it
would hold the GIL against the websockets. So the server hands each decision
to a process pool (one worker per core by default, ``JASSWEB_BOT_WORKERS``)
whose workers run at a much lower priority (``lower_priority``), so pages and
sockets get their share of a core while every core searches. The pool starts
with the server's bot runner (``start``, at the first websocket), off its
event loop.

A live move comes with a wall-clock deadline: the moment it was asked for
plus the bot's budget. A worker that picks the move up late gives the search
only what is left, so when twenty tables of strong bots share two cores each
move still lands on time and thinking gets shallower instead of tables
stalling. (Headless games and the arena use the bots' count budgets without a
deadline, so that a seed reproduces a game.)

This module imports no Django: the workers start from a clean forkserver.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from games.engine import Action, Observation
from games.engine.round import Trick

if TYPE_CHECKING:
    from bots.base import Bot

NICENESS = 10  # workers' niceness: CPU weight 110 against the server's 1024

# The analysis worker yields to live bots' searches too (JASSWEB_ANALYSIS_NICENESS; 0 keeps the server's priority).
ANALYSIS_NICENESS = int(os.environ.get("JASSWEB_ANALYSIS_NICENESS", "15"))

# "eager" (the default): a worker prepares every built-in bot when it starts, so that a searching bot's first
# move is searched. "lazy": each bot the first time it is asked to move (a searching bot's first moves are then
# the rule bot's while its kernels load): a server whose tables seat only simple bots never loads the search
# kernels, 1.5 s of CPU per bot process, as the tests' servers (over 60 start in a run).
WARM_UP = os.environ.get("JASSWEB_BOT_WARM_UP", "eager")
if WARM_UP not in ("eager", "lazy"):
    raise ValueError(f"JASSWEB_BOT_WARM_UP must be 'eager' or 'lazy', got {WARM_UP!r:.20}")

_bots: dict[str, Bot] = {}
_pool: ProcessPoolExecutor | None = None
_analysis_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()


def worker_count() -> int:
    """Worker processes for bots: ``JASSWEB_BOT_WORKERS``, else one per core."""
    configured = os.environ.get("JASSWEB_BOT_WORKERS", "")
    return max(1, int(configured)) if configured.isdigit() else max(1, os.cpu_count() or 1)


@runtime_checkable
class _SearchesByDeadline(Protocol):
    """A bot whose search can stop at a wall-clock deadline (the MCTS bots)."""

    def act_by(self, obs: Observation, rng: np.random.Generator, deadline: float) -> Action: ...


def _bot(name: str) -> Bot:
    from bots.registry import get_bot

    bot = _bots.get(name)
    if bot is None:
        bot = _bots[name] = get_bot(name)
        if WARM_UP == "lazy":
            _prepare_in_background([type(bot)])
    return bot


def _exit_with(server: int) -> None:
    """End this worker when the server process is gone (even SIGKILLed): no orphans left behind."""
    while True:
        time.sleep(1.0)
        try:
            os.kill(server, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:
            pass


def lower_priority() -> None:
    """Lower this process's priority by ``NICENESS``: a busy server takes nine tenths of a contested core.

    Not ``SCHED_IDLE``: that starves the bots altogether whenever anything else on
    the machine keeps the cores busy, and a table would stop instead of slowing.
    """
    with contextlib.suppress(OSError):
        os.nice(NICENESS)


def warm_up(server: int | None = None) -> None:
    """Prepare every built-in bot in this process (compiled kernels, tables) before the first move, or with
    ``JASSWEB_BOT_WARM_UP=lazy`` none yet (``_bot`` prepares each when it is first asked for)."""
    if server is not None:
        threading.Thread(target=_exit_with, args=(server,), daemon=True, name="server-watch").start()
    lower_priority()
    if WARM_UP == "lazy":
        return
    from bots.registry import IMPLEMENTATIONS

    # Compiling (or loading) the search kernels takes seconds on a fresh machine: do it beside the first
    # moves, not before them, so that a table of simple bots never waits for it.
    _prepare_in_background([type(_bot(name)) for name in IMPLEMENTATIONS])


def _preparers(classes: Iterable[type[Bot]]) -> list[Callable[[], None]]:
    """The ``warm_up`` of each class that has one (the search bots: compile or load their kernels)."""
    return [prepare for cls in classes if callable(prepare := getattr(cls, "warm_up", None))]


def _prepare_in_background(classes: Iterable[type[Bot]]) -> None:
    steps = _preparers(classes)
    if steps:
        threading.Thread(target=_run_each, args=(steps,), daemon=True, name="bot-warm-up").start()


def _run_each(steps: list[Callable[[], None]]) -> None:
    for step in steps:
        step()


def _prepare_all() -> None:
    from bots.registry import IMPLEMENTATIONS, bot_class

    _run_each(_preparers(map(bot_class, IMPLEMENTATIONS)))


def think(name: str, obs: Observation, seed: tuple[int, ...], deadline: float | None = None) -> Action:
    """The move of built-in bot ``name`` on ``obs``; ``deadline`` (``time.time()``) caps a searching bot."""
    bot = _bot(name)
    rng = np.random.default_rng(list(seed))
    if deadline is not None and isinstance(bot, _SearchesByDeadline):
        return bot.act_by(obs, rng, deadline)
    return bot.act(obs, rng)


def observation_to_data(obs: Observation) -> list[Any]:
    """An observation as plain lists and ints (JSON or msgpack), to send to a thinker on another machine."""
    return [
        obs.viewer,
        obs.dealer,
        obs.player,
        obs.trump,
        obs.forehand,
        obs.leader,
        list(obs.trick),
        [[t.first, list(t.cards), t.winner, t.points] for t in obs.tricks],
        list(obs.points),
        obs.hand,
        list(obs.hand_sizes),
        None if obs.shown_weis is None else [list(codes) for codes in obs.shown_weis],
        None if obs.announced_weis is None else [list(points) for points in obs.announced_weis],
        obs.weis_team,
        obs.stoeck,
    ]


def observation_from_data(data: list[Any]) -> Observation:
    """The observation ``observation_to_data`` wrote."""
    viewer, dealer, player, trump, forehand, leader, trick, tricks, points, hand, sizes, *weis = data
    shown, announced, weis_team, stoeck = weis or (None, None, -1, -1)
    return Observation(
        viewer=viewer,
        dealer=dealer,
        player=player,
        trump=trump,
        forehand=forehand,
        leader=leader,
        trick=tuple(trick),
        tricks=tuple(Trick(first, tuple(cards), winner, won) for first, cards, winner, won in tricks),
        points=(points[0], points[1]),
        hand=hand,
        hand_sizes=(sizes[0], sizes[1], sizes[2], sizes[3]),
        shown_weis=None if shown is None else tuple(tuple(codes) for codes in shown),
        announced_weis=None if announced is None else tuple(tuple(points) for points in announced),
        weis_team=weis_team,
        stoeck=stoeck,
    )


def pool() -> Executor:
    """The process pool of this server process, started on first use."""
    global _pool
    with _pool_lock:
        if _pool is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["bots.think"])
            _pool = ProcessPoolExecutor(
                max_workers=worker_count(), mp_context=context, initializer=warm_up, initargs=(os.getpid(),)
            )
        return _pool


def _warm_up_analysis(server: int) -> None:
    threading.Thread(target=_exit_with, args=(server,), daemon=True, name="server-watch").start()
    with contextlib.suppress(OSError):
        os.nice(ANALYSIS_NICENESS)
    from bots.analysis import warm_up as prepare

    prepare()


def analyse_round(
    hands: list[int], dealer: int, actions: list[int], seed: int, weis: bool = False
) -> tuple[dict[str, Any], float]:
    """``bots.analysis.analyse_round`` in a worker, with the CPU seconds it took."""
    from bots.analysis import analyse_round as analyse

    started = time.process_time()
    result = analyse(hands, dealer, actions, seed, weis=weis)
    return result, time.process_time() - started


def analysis_pool() -> Executor:
    """One worker process for game analyses, beside the bots' pool so that a long analysis never holds
    up a live move; at a lower priority still than the bots' workers."""
    global _analysis_pool
    with _pool_lock:
        if _analysis_pool is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["bots.think"])
            _analysis_pool = ProcessPoolExecutor(
                max_workers=1, mp_context=context, initializer=_warm_up_analysis, initargs=(os.getpid(),)
            )
        return _analysis_pool


def ready() -> bool:
    """A no-op a worker runs to show it is up (``start``, the health check)."""
    return True


def started() -> bool:
    """Whether this process's pool has been started (the server's bot runner starts it)."""
    return _pool is not None


WARM_UP_S = 60.0  # seconds a starting pool may take to load its kernels before the health check asks it
_warming_since: float | None = None  # when ``start`` began, while it has not finished


def warming() -> bool:
    """Whether the pool is still starting (loading its kernels) and has had less than ``WARM_UP_S`` for it."""
    since = _warming_since
    return since is not None and time.monotonic() - since < WARM_UP_S


def start() -> None:
    """Start the pool and its workers now (a blocking call: run it off the event loop), not at the first move."""
    global _warming_since
    _warming_since = time.monotonic()
    try:
        executor = pool()
        for future in [executor.submit(ready) for _ in range(worker_count())]:
            future.result()
    finally:
        _warming_since = None


def start_in_background() -> None:
    """``start`` on a thread of its own (a broken pool started afresh); ``warming`` holds from now on."""
    global _warming_since
    _warming_since = time.monotonic()
    threading.Thread(target=start, daemon=True, name="bot-pool-start").start()


def shutdown() -> None:
    global _pool
    with _pool_lock:
        if _pool is not None:
            _pool.shutdown(wait=False, cancel_futures=True)
            _pool = None


def shutdown_analysis() -> None:
    """Drop the analysis worker (a broken one: the next job starts a fresh one)."""
    global _analysis_pool
    with _pool_lock:
        if _analysis_pool is not None:
            _analysis_pool.shutdown(wait=False, cancel_futures=True)
            _analysis_pool = None


if __name__ == "__main__":
    # `make run` / `make test`: compile the search kernels into numba's cache at set-up, so that no
    # server's first moves wait for the compiler (seconds on a fresh checkout).
    _prepare_all()
    from bots.analysis import warm_up as prepare_analysis

    prepare_analysis()
