"""Publishing committed changes over the channel layer, in order, without holding up the writer.

The service publishes after commit, from the database thread. Waiting there for
the channel layer (a Redis round trip) would hold up every other change of the
process, so in a server the messages go to a queue that one task on the event
loop sends in order. Without a server loop (management commands, plain tests)
they are sent at once. What an outage of the layer loses is published again
when it is back (``games.live.redelivery``).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import Any

import redis.exceptions
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

# How a Redis that cannot be reached shows (the channel layer's or the cache's): refused or dropped connections,
# or no answer in time. Here, not in jassweb/layers.py (which uses it too), because nothing in games imports jassweb.
REDIS_DOWN = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError)

Send = tuple[str, str, dict[str, Any]]  # ("group" | "channel", name, message)


FAILURES_LOGGED_EVERY_S = 5.0
_failures = {"count": 0, "logged_at": -FAILURES_LOGGED_EVERY_S}  # sends lost to an unreachable Redis, not yet logged


async def _send_all(sends: list[Send]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    for kind, name, message in sends:
        try:
            if kind == "group":
                await layer.group_send(name, message)
            else:
                await layer.send(name, message)
        except REDIS_DOWN as exc:
            # The change is committed: once the layer is back, the tables changed meanwhile are published again
            # (games.live.redelivery). An outage fails every send: one line every few seconds, not one each.
            _failures["count"] += 1
            now = time.monotonic()
            if now - _failures["logged_at"] >= FAILURES_LOGGED_EVERY_S:
                log.warning(
                    "could not send %s message(s) over the channel layer (the last: %s to %s %s): %s",
                    _failures["count"],
                    message.get("type"),
                    kind,
                    name,
                    exc,
                    extra={"event": "layer_send_failed"},
                )
                _failures["count"], _failures["logged_at"] = 0, now
        except Exception:  # the change is committed; watchers resync, a driver looks again
            log.exception("could not send %s to %s %s", message.get("type"), kind, name)


class Publisher:
    """Sends the messages of committed changes in commit order."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[list[Send] | None] | None = None  # None in it: the end
        self._task: asyncio.Task[None] | None = None
        self._lock = threading.Lock()

    def attach(self) -> None:
        """Send from the running event loop from now on (a server process); idempotent."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._loop is loop and self._task is not None and not self._task.done():
                return
            self._loop = loop
            self._queue = asyncio.Queue()
            self._task = loop.create_task(self._drain(self._queue), name="event-publisher")

    async def detach(self) -> None:
        """Send what is queued, then stop (the end of a server or of a test's event loop).

        The sending task finishes the queue itself: cancelling it could cut off a message halfway through
        (a move committed while a server stops, that its watchers would then never see). A caller that
        cannot wait bounds this (cancelling it cancels the sending)."""
        with self._lock:
            queue, task = self._queue, self._task
            self._loop, self._queue, self._task = None, None, None
        if task is None or queue is None or task.get_loop() is not asyncio.get_running_loop():
            return  # nothing attached, or attached to an event loop that is gone
        queue.put_nowait(None)
        await asyncio.gather(task, return_exceptions=True)

    async def _drain(self, queue: asyncio.Queue[list[Send] | None]) -> None:
        while True:
            sends = await queue.get()
            if sends is None:
                return
            await _send_all(sends)

    def publish(self, sends: list[Send]) -> None:
        """Send these messages after everything published before them; callable from any thread."""
        if not sends:
            return
        loop, queue = self._loop, self._queue
        if loop is not None and queue is not None and not loop.is_closed():
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is loop:
                queue.put_nowait(sends)
                return
            try:
                loop.call_soon_threadsafe(queue.put_nowait, sends)
                return
            except RuntimeError:  # the loop closed meanwhile: send from here
                pass
        async_to_sync(_send_all)(sends)


publisher = Publisher()
