"""The threads on which HTTP requests' sync code runs (see ``RequestThreads``)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import ThreadSensitiveContext


class RequestThreads:
    """The threads on which Django's sync code serves HTTP requests: a fixed set, one request at a time each.

    Django's ASGI handler gives each request a ``ThreadSensitiveContext`` of its own, and asgiref then
    starts a new one-thread executor, so a new thread, for every request. Each new thread opened a
    SQLite connection of its own (kept open for the thread's life, never used again) and could take a
    glibc malloc arena of its own: the server grew by megabytes for every table opened over HTTP
    (``bench/live_tables.py``: memory per table's pages). Here a request borrows one of
    ``JASSWEB_HTTP_THREADS`` one-thread executors (default 8; Django's handler keeps an outer context's
    executor) and gives it back; a request that finds none free waits for one. ``JASSWEB_HTTP_THREADS=0``
    leaves Django's own (a thread per request), e.g. to compare the two in ``bench/live_tables.py``.
    """

    def __init__(self, app: Any, count: int) -> None:
        self.app = app
        self.count = max(0, count)
        self._free: asyncio.Queue[ThreadPoolExecutor] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _queue(self) -> asyncio.Queue[ThreadPoolExecutor]:
        loop = asyncio.get_running_loop()
        if self._free is None or self._loop is not loop:  # the server's loop, on its first request
            self._free, self._loop = asyncio.Queue(), loop
            for number in range(self.count):
                self._free.put_nowait(ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"http-{number}"))
        return self._free

    async def serve(self, scope: Any, receive: Any, send: Any) -> None:
        if not self.count:
            await self.app(scope, receive, send)
            return
        free = self._queue()
        executor = await free.get()
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.app(scope, receive, send)
        finally:
            free.put_nowait(executor)
