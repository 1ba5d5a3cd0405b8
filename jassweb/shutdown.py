"""A server's clean stop on SIGTERM: no move lost, no table waiting for a lease to run out.

Daphne (Twisted) stops at once on SIGTERM and drops its sockets, and the games this
process drove would wait out their lease (``games.live.workers.LEASE_SECONDS``) before
another server took them. Instead, once the server runs (its first HTTP request,
``jassweb/asgi.py``), SIGTERM starts ``drain``:

1. stop accepting: the listening sockets close, so a balancer sends new requests and
   websockets to the other servers;
2. hand the leases over: the driver stops, hands its games back in the database and
   tells the other drivers over the channel layer, who take them at once
   (``bots.runner.Driver.stop``);
3. ask every websocket to reconnect (close code 1012): the pages reconnect, through
   the balancer, to a server that runs, and resync there;
4. exit, once the sockets are closed (at most ``SOCKETS_GRACE_S``); a thread still blocked
   (a database call waiting for a connection to a database that is down) holds the exit up
   for at most ``EXIT_GRACE_S``.

A second SIGTERM (or SIGINT) while draining stops at once, as before.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from types import FrameType
from typing import Any

log = logging.getLogger(__name__)

SOCKETS_GRACE_S = 3.0  # how long the closing sockets may take to say goodbye
EXIT_GRACE_S = 2.0  # how long threads still blocked after the stop may hold the process up
_state = {"installed": False, "draining": False}


def _reactor() -> Any:
    """Daphne's Twisted reactor (the module stands for the reactor object; its stubs say otherwise)."""
    from twisted.internet import reactor

    return reactor


def install() -> None:
    """Catch SIGTERM in this daphne process (on its running event loop; elsewhere, e.g. in tests, nothing)."""
    if _state["installed"] or "twisted.internet.reactor" not in sys.modules:
        return
    if not _reactor().running:
        return
    loop = asyncio.get_running_loop()
    fallback = signal.getsignal(signal.SIGTERM)  # Twisted's: stop the reactor at once

    def on_term(number: int, frame: FrameType | None) -> None:
        if _state["draining"]:
            if callable(fallback):
                fallback(number, frame)
            return
        _state["draining"] = True
        schedule(loop, drain)

    signal.signal(signal.SIGTERM, on_term)
    _state["installed"] = True


def schedule(loop: asyncio.AbstractEventLoop, start: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run ``start()`` as a task of ``loop``, from a signal handler, in a fresh context.

    The signal lands in whatever task ran at that instant; a copy of that task's context may
    say it is inside a database call (asgiref's deadlock guard), which would then refuse the
    drain's own database calls ("Single thread executor already being used")."""
    loop.call_soon_threadsafe(lambda: loop.create_task(start(), name="drain"), context=contextvars.Context())


def draining() -> bool:
    """Whether this process is stopping."""
    return _state["draining"]


def stop_accepting() -> int:
    """Close the listening sockets of this daphne process; return how many."""
    from twisted.internet import tcp, unix

    ports = [r for r in _reactor().getReaders() if isinstance(r, (tcp.Port, unix.Port))]
    for port in ports:
        port.stopListening()
    return len(ports)


async def drain() -> None:
    """Stop this server without losing a move: stop accepting, hand the games over, send the sockets away, exit."""
    from bots.runner import runner
    from games.live import consumers, metrics

    started = time.monotonic()
    listening = stop_accepting()
    driven = len(runner.driving())
    consumers.refuse_new_sockets()  # before the lease goes: a socket noted now would need a driver
    try:
        await runner.hand_over(final=True)
    except Exception:
        log.exception("stopping: the driver did not hand its games over cleanly")
    handed = time.monotonic() - started
    asked = await consumers.ask_to_reconnect()
    deadline = time.monotonic() + SOCKETS_GRACE_S
    while consumers.open_sockets() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    try:
        await runner.stop()  # the bot clients, the last events
    except Exception:
        log.exception("stopping: the driver did not stop cleanly")
    log.info(
        "stopped cleanly: closed %s listening sockets, handed %s games over in %.2f s, asked %s websockets to"
        " reconnect (%s still open), %.2f s in all",
        listening,
        driven,
        handed,
        asked,
        consumers.open_sockets(),
        time.monotonic() - started,
        extra={"event": "server_stopped", "games": driven, "sockets": asked},
    )
    if metrics.MULTIPROCESS_DIR:
        from prometheus_client.multiprocess import mark_process_dead

        mark_process_dead(os.getpid(), metrics.MULTIPROCESS_DIR)  # its open sockets are no longer open
    # Python's exit waits for the threads of the database executor, and one blocked on a database that is down
    # waits for the pool's timeout (30 s): everything that mattered is done, so the exit waits at most a little.
    threading.Thread(target=_exit_after, args=(EXIT_GRACE_S,), daemon=True, name="exit-watch").start()
    _reactor().stop()


def _exit_after(seconds: float) -> None:
    time.sleep(seconds)
    log.warning("stopping: threads still blocked %.1f s after the stop (a database down?); exiting now", seconds)
    logging.shutdown()
    os._exit(0)
