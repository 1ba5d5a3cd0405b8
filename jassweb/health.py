"""``/healthz`` for a load balancer: is this server process fit to take players?

Three parts are checked, at once and each within ``TIMEOUT_S``:

- ``database``: a ``SELECT 1`` on a connection from this process's pool;
- ``channel_layer``: a message sent to this process over the default channel
  layer comes back (Redis up and the layer working, or the in-memory layer);
- ``bot_workers``: whoever thinks for built-in bots answers — the local process
  pool once it has started (it starts with the first table), or with
  ``JASSWEB_THINKERS=channels`` a ``runworker`` process on the ``bots-think``
  channel; and this server's driver (``games.live.workers``), once registered, still
  holds its heartbeat lease.

All fine: 200 and ``{"status": "ok", "checks": {...}}``. Else 503 with
``"failing": [parts]`` and each failing part's ``error``. A middleware, first in
the chain, answers before host validation, the HTTPS redirect and sessions: load
balancers probe servers by address over plain HTTP.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from asgiref.sync import async_to_sync, iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse

log = logging.getLogger(__name__)

PATH = "/healthz"
TIMEOUT_S = 3.0


class CheckFailed(Exception):
    """A part is not healthy; the message says why, for the operator."""


# -- the parts ----------------------------------------------------------------------------------------


def _select_one() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        return connection.vendor
    finally:
        # This runs in a helper thread of its own: give its connection back (to the pool) now.
        connection.close()


async def check_database() -> dict[str, Any]:
    # Not thread-sensitive: a database that hangs must not hold the thread the request's other work uses.
    vendor = await sync_to_async(_select_one, thread_sensitive=False)()
    return {"vendor": vendor}


class _Echo:
    """One channel per process and layer that health checks send to and read from, one check at a time."""

    def __init__(self, alias: str, prefix: str = "healthz.") -> None:
        self.alias = alias
        self.prefix = prefix
        self.channel: str | None = None
        self.lock: asyncio.Lock | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    def _lock(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        if self.lock is None or self.loop is not loop:
            self.lock, self.loop, self.channel = asyncio.Lock(), loop, None
        return self.lock

    async def round_trip(self, send: Callable[[Any, str, str], Awaitable[None]], expect: str) -> None:
        """Call ``send(layer, reply_channel, nonce)`` and wait for a message of type ``expect`` with the nonce."""
        from channels.layers import get_channel_layer

        layer = get_channel_layer(self.alias)
        if layer is None:
            raise CheckFailed(f"no channel layer {self.alias!r} is configured")
        async with self._lock():
            if self.channel is None:
                # channels-redis takes a prefix; the stubs know only the base layer's new_channel().
                self.channel = await layer.new_channel(self.prefix)  # type: ignore[call-arg]
            nonce = uuid.uuid4().hex
            await send(layer, self.channel, nonce)
            try:
                while True:  # answers to earlier, timed-out checks may still come first
                    message = await layer.receive(self.channel)
                    if message.get("type") == expect and message.get("nonce") == nonce:
                        return
            except asyncio.CancelledError:
                # The pub/sub layer gives a channel up when its receive is cancelled (a timed-out check);
                # a process-local channel ("…!…") stays, and the next check skips its late answer.
                if "!" not in self.channel:
                    self.channel = None
                raise


_layer_echo = _Echo("default")
_thinker_echo: _Echo | None = None


async def check_channel_layer() -> dict[str, Any]:
    async def send(layer, channel: str, nonce: str) -> None:
        await layer.send(channel, {"type": "healthz.echo", "nonce": nonce})

    await _layer_echo.round_trip(send, "healthz.echo")
    backend = str(settings.CHANNEL_LAYERS["default"]["BACKEND"])
    return {"backend": backend.rsplit(".", 1)[-1]}


async def check_bot_workers() -> dict[str, Any]:
    from bots.runner import runner

    result: dict[str, Any] = {"thinkers": settings.JASSWEB_THINKERS}
    if settings.JASSWEB_THINKERS == "channels":
        result["workers"] = await _thinker_answers()
    else:
        result["workers"] = await _pool_answers()
    if runner.worker_id is not None:
        if not await sync_to_async(_holds_lease, thread_sensitive=False)(runner.worker_id):
            raise CheckFailed(f"this server's driver {runner.worker_id} lost its lease (declared dead)")
        result["driver"] = runner.worker_id
    return result


async def _thinker_answers() -> str:
    """A ``runworker --layer bots bots-think`` process answers a ping queued like a bot's decision."""
    from bots import thinkers

    global _thinker_echo
    if _thinker_echo is None:
        _thinker_echo = _Echo(thinkers.LAYER, thinkers.REPLY_PREFIX)

    async def send(layer, channel: str, nonce: str) -> None:
        await layer.send(thinkers.CHANNEL, {"type": "bot.ping", "reply": channel, "nonce": nonce})

    wait = TIMEOUT_S - 0.5
    try:
        await asyncio.wait_for(_thinker_echo.round_trip(send, "bot.pong"), wait)
    except TimeoutError:
        raise CheckFailed(f"no runworker process answered on {thinkers.CHANNEL!r} within {wait:g} s") from None
    return f"a runworker process answered on {thinkers.CHANNEL!r}"


async def _pool_answers() -> str:
    """This process's bot pool runs a no-op; a broken pool is started afresh (as a bot move would)."""
    from concurrent.futures.process import BrokenProcessPool

    from bots import think

    if not think.started():
        return "the local bot processes start with the first table"
    if think.warming():  # a server's first request starts them: they load their kernels for a few seconds
        return f"{think.worker_count()} local bot processes are starting"
    try:
        future = await asyncio.to_thread(lambda: think.pool().submit(think.ready))
        await asyncio.wrap_future(future)
    except BrokenProcessPool:
        think.shutdown()
        restarted = _pool_restarts.get("at")
        if restarted is not None and time.monotonic() - restarted < 2 * think.WARM_UP_S:
            raise CheckFailed("the local bot processes broke and do not start again") from None
        # Started afresh, as a bot move would; it loads its kernels for a few seconds, as at a server's start.
        _pool_restarts["at"] = time.monotonic()
        think.start_in_background()
        return f"{think.worker_count()} local bot processes started afresh (the pool had broken), starting"
    return f"{think.worker_count()} local bot processes"


_pool_restarts: dict[str, float] = {}  # when the health check last started a broken pool afresh


def _holds_lease(worker_id: str) -> bool:
    from django.utils import timezone

    from games.live import workers
    from games.models import Worker

    try:
        fresh = timezone.now() - timedelta(seconds=workers.LEASE_SECONDS)
        return Worker.objects.filter(pk=worker_id, heartbeat_at__gte=fresh).exists()
    finally:
        connection.close()


CHECKS: dict[str, Callable[[], Awaitable[dict[str, Any]]]] = {
    "database": check_database,
    "channel_layer": check_channel_layer,
    "bot_workers": check_bot_workers,
}


async def _run(name: str, check: Callable[[], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        facts = await asyncio.wait_for(check(), TIMEOUT_S)
        outcome: dict[str, Any] = {"ok": True, **facts}
    except TimeoutError:
        outcome = {"ok": False, "error": f"no answer within {TIMEOUT_S:g} s"}
    except CheckFailed as exc:
        outcome = {"ok": False, "error": str(exc)}
    except Exception as exc:  # the part is down: say how, briefly (the operator reads it, not a user)
        outcome = {"ok": False, "error": f"{type(exc).__name__}: {str(exc).strip()[:200]}"}
    outcome["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return outcome


async def health() -> tuple[int, dict[str, Any]]:
    """Run every check concurrently; (HTTP status, report)."""
    results = await asyncio.gather(*(_run(name, check) for name, check in CHECKS.items()))
    checks = dict(zip(CHECKS, results, strict=True))
    failing = [name for name, outcome in checks.items() if not outcome["ok"]]
    report: dict[str, Any] = {"status": "fail" if failing else "ok"}
    if failing:
        report["failing"] = failing
    report["checks"] = checks
    return (503 if failing else 200), report


def _response(status: int, report: dict[str, Any]) -> HttpResponse:
    response = HttpResponse(json.dumps(report) + "\n", status=status, content_type="application/json")
    response["Cache-Control"] = "no-store"
    if status != 200:
        # One warning that names what fails, instead of Django's error line for every 503 a probe gets.
        failing = {name: report["checks"][name]["error"] for name in report["failing"]}
        log.warning("healthz: %s failing: %s", ", ".join(failing), failing, extra={"event": "healthz_failing"})
        response._has_been_logged = True  # type: ignore[attr-defined]  # Django's own flag: log_response() skips it
    return response


class AnswerFirstMiddleware:
    """Answer ``GET`` (and HEAD) of one path before the rest of the chain; pass everything else on.

    First in the chain: before host validation, the HTTPS redirect and sessions, as load balancers
    and Prometheus reach the servers by address over plain HTTP.
    """

    sync_capable = True
    async_capable = True
    path = ""

    def __init__(self, get_response: Callable) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    async def answer(self, request: HttpRequest) -> HttpResponse:
        raise NotImplementedError

    def __call__(self, request: HttpRequest):
        if self.is_async:
            return self._acall(request)
        if request.path == self.path:
            return async_to_sync(self.answer)(request)
        return self.get_response(request)

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        if request.path == self.path:
            return await self.answer(request)
        return await self.get_response(request)


class HealthMiddleware(AnswerFirstMiddleware):
    """Answer ``GET /healthz`` (and HEAD) with the checks."""

    path = PATH

    async def answer(self, request: HttpRequest) -> HttpResponse:
        return _response(*await health())
