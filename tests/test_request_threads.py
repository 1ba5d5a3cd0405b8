"""HTTP requests' sync code runs on a fixed set of threads (``jassweb.asgi.RequestThreads``), not a new one each.

Django's ASGI handler enters a ``ThreadSensitiveContext`` of its own for every request; the fake
application here does the same, so the tests show that the outer context's executor is the one used.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from asgiref.sync import ThreadSensitiveContext, sync_to_async

from jassweb.http_threads import RequestThreads


class SyncWork:
    """An application whose requests run sync code as Django's views do, and note where and how many at once."""

    def __init__(self) -> None:
        self.threads: set[int] = set()
        self.running = 0
        self.most = 0
        self.lock = threading.Lock()

    def work(self) -> None:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
            self.threads.add(threading.get_ident())
        threading.Event().wait(0.01)
        with self.lock:
            self.running -= 1

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async with ThreadSensitiveContext():  # as django.core.handlers.asgi.ASGIHandler.handle
            await sync_to_async(self.work)()
            await sync_to_async(self.work)()  # a second call of the same request: the same thread
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


async def _request(threads: RequestThreads) -> int:
    status = 0

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await threads.serve({"type": "http", "method": "GET", "path": "/"}, receive, send)
    return status


def _crowd(threads: RequestThreads, count: int) -> list[int]:
    """``count`` requests at once; their statuses."""

    async def together() -> list[int]:
        return await asyncio.gather(*(_request(threads) for _ in range(count)))

    return asyncio.run(together())


def test_sixty_requests_at_once_share_three_threads():
    app = SyncWork()
    assert _crowd(RequestThreads(app, 3), 60) == [200] * 60
    assert len(app.threads) == 3  # without the set: a thread of its own for every request
    assert app.most <= 3  # each thread serves one request at a time; the others waited for one


def test_a_thread_is_given_back_when_its_request_fails():
    async def broken(scope: Any, receive: Any, send: Any) -> None:
        raise RuntimeError("the view failed")

    threads = RequestThreads(broken, 1)

    async def twice() -> None:
        for _ in range(2):  # with the only thread kept by the first failure, the second would wait forever
            with pytest.raises(RuntimeError, match="the view failed"):
                await asyncio.wait_for(_request(threads), 5)

    asyncio.run(twice())


def test_none_leaves_django_a_thread_per_request():
    app = SyncWork()
    assert _crowd(RequestThreads(app, 0), 20) == [200] * 20
    assert app.most > 1  # no set of threads: the requests ran side by side, each on a thread of its own
