"""The Prometheus series every process records (``/metrics``, ``jassweb/metrics.py``, serves them).

Each process counts what it does itself — the moves it commits, the sockets it
holds, the games it takes over, the bot answers it gets, the refusals it makes —
and nothing is counted twice: a move is counted by the process whose transaction
stored it, once it is committed. With ``PROMETHEUS_MULTIPROC_DIR`` set (every
server and bot worker of a machine the same directory) ``prometheus-client``
keeps each process's values in a memory-mapped file there, and a scrape of any
server of the machine sums them all; without it (a test, a management command)
the values stay in the process.

Recording is on the live path, so it is counters only: a dictionary look-up
and a write into the mapped file, no lock shared between processes, no I/O.
Every series has a label, so that a process that records nothing (``migrate``,
a bot pool's worker) leaves no file behind.
"""

from __future__ import annotations

import gc
import math
import os
import time
from typing import Any

from prometheus_client import Counter, Gauge, Histogram

# The settings made sure it is a directory this process may write to (or dropped it, with a warning).
MULTIPROCESS_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")

# Seconds; a move is a few milliseconds on a quiet server, a second is a table that stalls.
MOVE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# A garbage collection stops every table of its process: a young one a few milliseconds (with thousands of
# sockets it walks tens of thousands of objects), a full one over such a heap hundreds.
GC_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
# A bot's answer: built-in bots a few ms to their budget, HSLU bots up to their timeout (at most 60 s).
ANSWER_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

MOVES = Counter(
    "jassweb_moves", "Moves stored, each counted once by the process that committed it", ["by"]
)  # by: person or bot
MOVE_LATENCY = Histogram(
    "jassweb_move_latency_seconds",
    "A move's time in the service, from its arrival on the database thread to its commit",
    ["by"],
    buckets=MOVE_BUCKETS,
)
OPEN_SOCKETS = Gauge(
    "jassweb_open_sockets", "Websockets open now (kind: table or lobby)", ["kind"], multiprocess_mode="livesum"
)
LEASES_TAKEN = Counter(
    "jassweb_leases_taken_over",
    "Running games this process took over (dead: a worker whose lease ran out; handed_back: found without a "
    "driver at a heartbeat; restart: an earlier run's games at start; claimed: at once, told by a stopping server "
    "or when someone opened the table)",
    ["source"],
)
BOT_ANSWER = Histogram(
    "jassweb_bot_answer_seconds",
    "A bot's time to answer a move, as its driver measured it (bot: builtin or remote)",
    ["bot"],
    buckets=ANSWER_BUCKETS,
)
BOT_FAULTS = Counter("jassweb_bot_faults", "Faults of remote bots, by kind (games.catalogue.FaultKind)", ["kind"])
THINKER_FALLBACKS = Counter(
    "jassweb_thinker_fallbacks",
    "Built-in bot moves left to the rule bot because no bot worker answered in time",
    ["bot"],
)
THOUGHT = Histogram(
    "jassweb_thinker_seconds",
    "A bot worker's (runworker bots-think) time for one decision, by built-in bot",
    ["bot"],
    buckets=ANSWER_BUCKETS,
)
LIMIT_REFUSALS = Counter(
    "jassweb_limit_refusals", "Attempts refused by a limit on abuse (games/live/limits.py)", ["limit", "scope"]
)
LAYER_OUTAGES = Counter(
    "jassweb_channel_layer_outages", "Times this process lost the channel layer (Redis) and got it back"
)
TABLES_REDELIVERED = Counter(
    "jassweb_tables_redelivered", "Tables published again because they changed while the channel layer was lost"
)
GAMES_STARTED = Counter(
    "jassweb_games_started",
    "Games started, by what arranges their table (managed_by: empty for the lobby's tables, a tournament's page)",
    ["managed_by"],
)
GAMES_ENDED = Counter(
    "jassweb_games_ended",
    "Games that ended (status: finished or abandoned), by what arranges their table",
    ["managed_by", "status"],
)
GC_PAUSES = Histogram(
    "jassweb_gc_pause_seconds",
    "Python's cycle collections in a server process, each as long as it stopped the process's tables (wall time), "
    "by generation (2: a full collection, which walks every object the server made since it started)",
    ["generation"],
    buckets=GC_BUCKETS,
)

_moves: dict[str, tuple[Counter, Histogram]] = {}  # by -> its two series, made at the first move (none before)


def move_committed(by: str, seconds: float) -> None:
    """A move was committed (``by``: ``person`` or ``bot``), ``seconds`` after the service began it."""
    series = _moves.get(by)
    if series is None:
        series = _moves[by] = (MOVES.labels(by), MOVE_LATENCY.labels(by))
    series[0].inc()
    series[1].observe(seconds)


def bot_answered(remote: bool, seconds: float) -> None:
    BOT_ANSWER.labels("remote" if remote else "builtin").observe(seconds)


def bot_fault(kind: str) -> None:
    BOT_FAULTS.labels(kind).inc()


def socket_opened(kind: str) -> None:
    OPEN_SOCKETS.labels(kind).inc()


def socket_closed(kind: str) -> None:
    OPEN_SOCKETS.labels(kind).dec()


def leases_taken(source: str, count: int) -> None:
    if count:
        LEASES_TAKEN.labels(source).inc(count)


def limit_refused(limit: str, scope: str) -> None:
    LIMIT_REFUSALS.labels(limit, scope).inc()


def game_started(managed_by: str) -> None:
    GAMES_STARTED.labels(managed_by).inc()


def game_ended(managed_by: str, status: str) -> None:
    GAMES_ENDED.labels(managed_by, status).inc()


class _GcTimer:
    """``gc.callbacks``' hook: the wall time of each collection, into ``jassweb_gc_pause_seconds``.

    A collection starts wherever an allocation crosses the threshold, at any depth of the stack, even a
    few frames above Python's recursion limit. Recording it there (several calls into the client's
    files) would overflow, and the hook would print the ``RecursionError`` into the server's log: what
    cannot be recorded then waits, and the next collection records it (late, not lost). A collection
    whose start could not be noted is not timed. (Where the stack is full to the last frame or two the
    interpreter cannot even enter the hook; no reader of untrusted JSON goes there: games/json_depth.py.)
    """

    def __init__(self) -> None:
        self.series = [GC_PAUSES.labels(str(generation)) for generation in range(3)]
        self.started = math.nan
        self.waiting: list[tuple[int, float]] = []

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        try:
            if phase == "start":
                self.started = time.perf_counter()
                return
            seconds, self.started = time.perf_counter() - self.started, math.nan
            if not math.isnan(seconds):
                self.waiting.append((info["generation"], seconds))
            while self.waiting:
                generation, seconds = self.waiting[-1]
                self.series[generation].observe(seconds)
                self.waiting.pop()
        except RecursionError:
            self.started = math.nan  # the stack is nearly full: the next collection records what waits


def time_garbage_collections() -> None:
    """Record how long each of this process's garbage collections stops it (a server's, once: jassweb/asgi.py)."""
    if not any(isinstance(hook, _GcTimer) for hook in gc.callbacks):
        gc.callbacks.append(_GcTimer())
