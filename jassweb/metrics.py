"""``/metrics`` for Prometheus: every process's series, and the database's view of the games.

The series each process records (``games/live/metrics.py``) come from the files of
``PROMETHEUS_MULTIPROC_DIR``, summed over every process of the machine (servers,
bot workers), so any server of the machine answers for all of them; scrape one
target per machine (e.g. through nginx). A live gauge (open sockets) of a process
that died without saying so is dropped at the next scrape. Without the directory,
the series are this process's alone.

A scrape also reads the database once (these are the same from every machine):
running games, the leases each registered server holds and the age of its
heartbeat, and the analysis jobs waiting or running.

Who may read it: with ``JASSWEB_METRICS_TOKEN`` set, a request that sends
``Authorization: Bearer <token>``; without a token only in development (DEBUG),
never in production.
"""

from __future__ import annotations

import glob
import hmac
import os
import re
from collections.abc import Iterator

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connection
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

from games.live import metrics
from jassweb.health import AnswerFirstMiddleware

PATH = "/metrics"
_LIVE_FILE = re.compile(r"gauge_live[a-z]*_(\d+)\.db$")


class DatabaseCollector:
    """Gauges read from the database at each scrape (what no single process knows)."""

    def collect(self) -> Iterator[Metric]:
        from games.models import Game, GameAnalysis, Worker

        running = GaugeMetricFamily("jassweb_running_games", "Games running now (all servers)")
        running.add_metric([], Game.objects.filter(status=Game.RUNNING).count())
        yield running

        held = GaugeMetricFamily(
            "jassweb_leases_held",
            "Running games each server process drives (worker: its id; none: games no live server holds yet)",
            labels=["worker", "host", "pid"],
        )
        age = GaugeMetricFamily(
            "jassweb_worker_heartbeat_age_seconds",
            "Seconds since each registered server process renewed its lease (dead past 10)",
            labels=["worker", "host", "pid"],
        )
        counts = dict(Game.objects.filter(status=Game.RUNNING).values_list("driver").annotate(n=Count("pk")).order_by())
        now = timezone.now()
        for worker in Worker.objects.all():
            labels = [worker.pk, worker.host, str(worker.pid)]
            held.add_metric(labels, counts.pop(worker.pk, 0))
            age.add_metric(labels, max(0.0, (now - worker.heartbeat_at).total_seconds()))
        held.add_metric(["none", "", ""], sum(counts.values()))  # no driver, or one that is gone
        yield held
        yield age

        jobs = GaugeMetricFamily("jassweb_analysis_jobs", "Game analyses waiting or running", labels=["status"])
        by_status = dict(
            GameAnalysis.objects.filter(status__in=[GameAnalysis.QUEUED, GameAnalysis.RUNNING])
            .values_list("status")
            .annotate(n=Count("pk"))
            .order_by()
        )
        for status in (GameAnalysis.QUEUED, GameAnalysis.RUNNING):
            jobs.add_metric([status], by_status.get(status, 0))
        yield jobs


def forget_dead_processes(directory: str) -> list[int]:
    """Drop the live gauges of processes that are gone (killed without a word); return their pids."""
    gone = set()
    for path in glob.glob(os.path.join(directory, "gauge_live*_*.db")):
        match = _LIVE_FILE.search(os.path.basename(path))
        if match is None:
            continue
        pid = int(match.group(1))
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            gone.add(pid)
        except PermissionError:  # alive, another user's
            pass
    for pid in gone:
        mark_process_dead(pid, directory)
    return sorted(gone)


def exposition() -> bytes:
    """The text every scrape gets (blocking: files and the database; run it off the event loop)."""
    registry = CollectorRegistry()
    if metrics.MULTIPROCESS_DIR:
        forget_dead_processes(metrics.MULTIPROCESS_DIR)
        MultiProcessCollector(registry, metrics.MULTIPROCESS_DIR)
        text = b""
    else:
        text = generate_latest(REGISTRY)  # this process's series, and its own CPU and memory
    registry.register(DatabaseCollector())
    try:
        return text + generate_latest(registry)
    finally:
        connection.close()  # a helper thread of its own: give the connection back to the pool now


def refusal(request: HttpRequest) -> HttpResponse | None:
    """Why this request may not read the metrics (a response), or None."""
    token = settings.JASSWEB_METRICS_TOKEN
    if not token:
        if settings.DEBUG:
            return None
        return HttpResponse(
            "metrics are off: set JASSWEB_METRICS_TOKEN and send it as a bearer token\n",
            status=403,
            content_type="text/plain",
        )
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode()):
        return None
    response = HttpResponse("send the metrics token: Authorization: Bearer <token>\n", status=401)
    response["WWW-Authenticate"] = 'Bearer realm="metrics"'
    response["Content-Type"] = "text/plain"
    return response


class MetricsMiddleware(AnswerFirstMiddleware):
    """Answer ``GET /metrics`` with the Prometheus text format, to those who may read it."""

    path = PATH

    async def answer(self, request: HttpRequest) -> HttpResponse:
        refused = refusal(request)
        if refused is not None:
            return refused
        # Not thread-sensitive: a slow database must not hold the thread the requests' other work uses.
        body = await sync_to_async(exposition, thread_sensitive=False)()
        response = HttpResponse(body, content_type=CONTENT_TYPE_PLAIN_0_0_4)  # every Prometheus reads it
        response["Cache-Control"] = "no-store"
        return response
