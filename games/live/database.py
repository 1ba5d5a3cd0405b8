"""Where a server process does its database work: one thread on SQLite, a few on PostgreSQL.

Channels runs every ``database_sync_to_async`` call of a process on one thread, one
after the other. On PostgreSQL most of that thread's time is spent waiting for the
server's answers (a round trip is ~0.15 ms here, and a socket's open made 26 of them):
in a rolling restart at 100 tables the new server's one thread was busy 90% of the
time, 62% of it waiting, while the machine had a core to spare, and the tables stood
for seconds behind the queue of reconnecting people. So on PostgreSQL the calls run
on a pool of ``JASSWEB_DB_THREADS`` threads (each with a connection of its own from the
pool), as many at once; what must not interleave is serialised by the database itself
(a move, a seat change and a connect lock their table's row). SQLite stays on one
thread: it has one writer anyway, and an embedded process nobody shares it with.

``settled`` waits until no call runs: a stopping server hands its games over only once
the last move in flight is committed (on one thread, order alone guaranteed that).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

from channels.db import DatabaseSyncToAsync
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections

_P = ParamSpec("_P")
_R = TypeVar("_R")

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
_running = {"next": 0}  # the number of the last database call started
_calls: set[int] = set()  # the numbers of the calls running now
_running_lock = threading.Lock()


def threads() -> int:
    """How many threads run this process's database calls (1 on SQLite).

    Read from the settings, not from ``connection``: Django's connections are local to the async context on
    the event loop's thread, so asking ``connection.vendor`` there made a database wrapper for every
    websocket's task and kept it as long as the socket (1,296 for 514 sockets, ~4 KB each)."""
    if connections.settings[DEFAULT_DB_ALIAS]["ENGINE"].endswith("sqlite3"):
        return 1
    return max(1, int(getattr(settings, "JASSWEB_DB_THREADS", 4)))


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=threads(), thread_name_prefix="database")
        return _pool


def database_sync_to_async(func: Callable[_P, _R]) -> Callable[_P, Coroutine[Any, Any, _R]]:
    """``channels.db.database_sync_to_async`` on the process's database threads (see the module)."""
    counted = _counted(func)
    made: list[DatabaseSyncToAsync] = []  # on the first call: the settings and the database are known by then

    @functools.wraps(func)
    async def call(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        if not made:
            if threads() == 1:
                made.append(DatabaseSyncToAsync(counted))
            else:
                made.append(DatabaseSyncToAsync(counted, thread_sensitive=False, executor=_executor()))
        return await made[0](*args, **kwargs)

    return call


def _counted(func: Callable[_P, _R]) -> Callable[_P, _R]:
    @functools.wraps(func)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with running():
            return func(*args, **kwargs)

    return run


@contextlib.contextmanager
def running() -> Iterator[None]:
    """A database call, counted for ``settled`` (the event loop's own statements count too)."""
    with _running_lock:
        _running["next"] += 1
        ticket = _running["next"]
        _calls.add(ticket)
    try:
        yield
    finally:
        with _running_lock:
            _calls.discard(ticket)


async def settled(timeout: float) -> bool:
    """Wait until every database call that runs now has ended (at most ``timeout`` seconds); whether they did.

    A call whose awaiting task was cancelled goes on in its thread to its end (a move is
    committed or not at all); this waits for those too, not for calls that start later."""
    with _running_lock:
        last = _running["next"]
    deadline = time.monotonic() + timeout
    while True:
        with _running_lock:
            if not _calls or min(_calls) > last:
                return True
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.005)
