"""Server processes as workers that hold games: heartbeats, leases, and taking over from a dead worker.

Every process that drives games (a daphne server, ``playgame``) registers a
``Worker`` row and beats its heartbeat every ``HEARTBEAT_SECONDS``. A running
game names its driver; the driver's heartbeat is the lease of all its games at
once, so renewing costs one query per process, whatever the number of games.
A worker silent for ``LEASE_SECONDS`` is dead: the first live worker to notice
takes its running games over and drops its connections, so its people show as
offline. Nothing here scans the running games: a dead worker's games are found
by their driver column.
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from django.db import close_old_connections, connection, transaction
from django.utils import timezone

from games.live import metrics
from games.live.database import database_sync_to_async
from games.models import Connection, Game, Worker

HEARTBEAT_SECONDS = 2.0
LEASE_SECONDS = 10.0

_local_id: str | None = None
_registering = threading.Lock()


def local_worker_id() -> str | None:
    """The worker id of this process, if it drives games (``register`` was called)."""
    return _local_id


def driver_channel(worker_id: str) -> str:
    """The channel-layer name on which worker ``worker_id`` hears of changes to the games it drives."""
    return f"jassweb-driver.{worker_id}"


def register() -> str:
    """Register this process as a worker (once per process; again after ``unregister``); return its id."""
    global _local_id
    with _registering:  # two database threads' first calls must not register two workers
        if _local_id is None:
            worker_id = uuid.uuid4().hex[:20]
            Worker.objects.create(
                id=worker_id, host=socket.gethostname()[:100], pid=os.getpid(), heartbeat_at=timezone.now()
            )
            _local_id = worker_id
        return _local_id


def unregister() -> tuple[list[int], list[str]]:
    """Hand this process's games back at once (a clean shutdown): (those games, the live workers to tell, who
    may take them now)."""
    global _local_id
    worker_id, _local_id = _local_id, None
    if worker_id is None:
        return [], []
    with transaction.atomic():
        games = list(Game.objects.filter(driver=worker_id, status=Game.RUNNING).values_list("pk", flat=True))
        Game.objects.filter(pk__in=games, driver=worker_id).update(driver="")
        Worker.objects.filter(pk=worker_id).delete()
    return games, list(_alive_workers().values_list("id", flat=True))


def forget_local_id() -> None:
    """Forget this process's worker id without touching the database (others removed it already)."""
    global _local_id
    _local_id = None


def heartbeat() -> bool:
    """Renew this worker's lease on all its games; False if it had been declared dead meanwhile."""
    if _local_id is None:
        return False
    return Worker.objects.filter(pk=_local_id).update(heartbeat_at=timezone.now()) == 1


_lease_thread: ThreadPoolExecutor | None = None


async def renew() -> bool:
    """``heartbeat`` from the event loop, on a thread and database connection of its own on PostgreSQL.

    The consumers' and drivers' database work waits in one queue per process (``games/live/database.py``:
    a few threads on PostgreSQL, one call after the other on each). Queued behind a storm of websocket connects
    there, the heartbeat came late: ``bench/live_tables.py --front`` at 500 tables had a running
    server declared dead, its games taken over and its people shown offline. Its own thread renews
    the lease whatever that queue holds (a process whose games stall is slow, not dead). SQLite
    writes one thing at a time anyway, and a single embedded process has nobody who could take its
    games, so there the heartbeat keeps to the queue.
    """
    global _lease_thread
    if connection.vendor == "sqlite":
        return await database_sync_to_async(heartbeat)()
    if _lease_thread is None:
        _lease_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lease")
    return await asyncio.get_running_loop().run_in_executor(_lease_thread, _heartbeat_on_own_thread)


def _heartbeat_on_own_thread() -> bool:
    close_old_connections()  # as database_sync_to_async: a connection the database dropped is made anew
    try:
        return heartbeat()
    finally:
        close_old_connections()


def _alive_workers():
    return Worker.objects.filter(heartbeat_at__gte=timezone.now() - timedelta(seconds=LEASE_SECONDS)).values("id")


def claim(game_id: int) -> bool:
    """Make this worker the driver of a running game that has none alive; True if it drives it now."""
    return claim_many([game_id]) == [game_id]


def claim_many(game_ids: list[int]) -> list[int]:
    """``claim`` of several games in two statements (a stopping server's games, taken over at once): those
    that this worker drives now."""
    me = register()
    with transaction.atomic():
        updated = (
            Game.objects.filter(pk__in=game_ids, status=Game.RUNNING)
            .exclude(driver=me)
            .exclude(driver__in=_alive_workers())
            .update(driver=me)
        )
    metrics.leases_taken("claimed", updated)
    return sorted(Game.objects.filter(pk__in=game_ids, status=Game.RUNNING, driver=me).values_list("pk", flat=True))


def claim_orphans() -> list[int]:
    """At start: take over the running games whose driver is gone (an earlier run of this server)."""
    me = register()
    candidates = list(
        Game.objects.filter(status=Game.RUNNING).exclude(driver__in=_alive_workers()).values_list("pk", flat=True)
    )
    if candidates:
        Game.objects.filter(pk__in=candidates).exclude(driver__in=_alive_workers()).update(driver=me)
    taken = list(Game.objects.filter(pk__in=candidates, driver=me).values_list("pk", flat=True))
    metrics.leases_taken("restart", len(taken))
    return taken


def reap() -> tuple[list[int], list[int]]:
    """Take over the games of dead workers and drop their connections.

    Returns (games now driven by this worker, tables whose presence changed). Running games that
    have no driver at all are taken too. Two small queries when nobody died (the workers table has a
    row per process; running games are found by their indexed driver column).
    """
    me = register()
    lapsed = timezone.now() - timedelta(seconds=LEASE_SECONDS)
    dead = list(Worker.objects.filter(heartbeat_at__lt=lapsed).exclude(pk=me).values_list("pk", flat=True))
    # A game nobody drives: handed back by a server that stopped cleanly, or started by a process that
    # drives no games (a page's form). A lease's time after it was made, so that a headless command that
    # starts a game and then claims it is never raced.
    unclaimed = list(
        Game.objects.filter(status=Game.RUNNING, driver="", created_at__lt=lapsed).values_list("pk", flat=True)
    )
    taken: list[int] = []
    if unclaimed:
        Game.objects.filter(pk__in=unclaimed, driver="").update(driver=me)
        taken += list(Game.objects.filter(pk__in=unclaimed, driver=me).values_list("pk", flat=True))
        metrics.leases_taken("handed_back", len(taken))
    if not dead:
        return taken, []
    tables: set[int] = set()
    for worker_id in dead:
        with transaction.atomic():
            ids = list(Game.objects.filter(driver=worker_id, status=Game.RUNNING).values_list("pk", flat=True))
            if ids:
                Game.objects.filter(pk__in=ids, driver=worker_id).update(driver=me)
                theirs = list(Game.objects.filter(pk__in=ids, driver=me).values_list("pk", flat=True))
                metrics.leases_taken("dead", len(theirs))
                taken += theirs
            tables |= set(Connection.objects.filter(worker_id=worker_id).values_list("table_id", flat=True))
            Worker.objects.filter(pk=worker_id).delete()  # its connections go with it (cascade)
    return taken, sorted(tables)
