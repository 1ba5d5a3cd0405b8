"""``/healthz`` for a load balancer (issue 15): 200 when the database, the channel layer and the bot workers
answer, else 503 naming the failing part — with the real services up, and down (pointed at a closed port).

The live tests run production-mode daphne servers on PostgreSQL and Redis, as deployed.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
import uuid

import pytest
from django.test import Client

from bots import think
from jassweb.health import _pool_restarts
from tests.server_helpers import HTTP, ServerProcess, bot_worker, free_port, migrate, wait_for
from tests.services import postgres_database, require_redis
from tests.ws_helpers import LiveClient, create_live_table, guest_cookies

PRODUCTION = {"JASSWEB_DEBUG": "0", "DJANGO_SECRET_KEY": "healthz-test-" + "k" * 40, "JASSWEB_BOT_DELAY_MS": "0"}


def health(base: str) -> tuple[int, dict]:
    response = HTTP.get(base + "/healthz", timeout=15)
    return response.status_code, response.json()


def wait_for_health(base: str, status: int, seconds: float = 60) -> dict:
    """Poll until /healthz answers ``status``; return its report."""
    deadline = time.monotonic() + seconds
    while True:
        code, report = health(base)
        if code == status:
            return report
        assert time.monotonic() < deadline, f"/healthz stayed {code}: {report}"
        time.sleep(0.5)


# -- in process ---------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_healthz_is_ok_with_sqlite_and_the_in_memory_layer():
    think.shutdown()  # as in a fresh server (an earlier test may have left this process's pool running)
    response = Client().get("/healthz")
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    report = response.json()
    assert report["status"] == "ok" and set(report["checks"]) == {"database", "channel_layer", "bot_workers"}
    assert all(check["ok"] for check in report["checks"].values())
    assert report["checks"]["channel_layer"]["backend"] == "LocalChannelLayer"
    assert "start with the first table" in report["checks"]["bot_workers"]["workers"]


@pytest.mark.django_db(transaction=True)
def test_bot_processes_still_loading_their_kernels_are_starting_not_failing(monkeypatch):
    # A server's first request starts its driver and the bot pool: a load balancer's first /healthz may come
    # while the workers load their kernels, which takes seconds on a busy machine.
    think.shutdown()
    think.pool()  # made, its workers not yet up
    monkeypatch.setattr(think, "_warming_since", time.monotonic())
    try:
        report = Client().get("/healthz").json()
        assert report["status"] == "ok" and "are starting" in report["checks"]["bot_workers"]["workers"]
        # Past the window the check asks the processes, within its 3 s: let them finish loading first (on a
        # machine with a core kept busy they took longer than that, and the check rightly said no answer).
        think.pool().submit(think.ready).result(timeout=120)
        monkeypatch.setattr(think, "_warming_since", time.monotonic() - think.WARM_UP_S - 1)  # too long: asked
        report = Client().get("/healthz").json()
        assert "local bot processes" in report["checks"]["bot_workers"]["workers"]
        assert "are starting" not in report["checks"]["bot_workers"]["workers"]
    finally:
        think.shutdown()


@pytest.mark.django_db(transaction=True)
def test_load_balancers_probe_by_address_over_plain_http_in_production(settings):
    settings.SECURE_SSL_REDIRECT = True
    settings.ALLOWED_HOSTS = ["jass.example.org"]
    client = Client()
    assert client.get("/healthz", HTTP_HOST="10.0.0.7:8001").status_code == 200
    assert client.get("/", HTTP_HOST="10.0.0.7:8001").status_code == 400  # pages keep the host check
    assert client.get("/", HTTP_HOST="jass.example.org").status_code == 301  # and the HTTPS redirect


@pytest.mark.django_db(transaction=True)
@pytest.mark.services
def test_the_local_bot_processes_answer_and_a_broken_pool_is_started_afresh():
    think.shutdown()
    think.start()
    try:
        report = Client().get("/healthz").json()
        assert report["checks"]["bot_workers"]["workers"] == f"{think.worker_count()} local bot processes"
        for process in list(think.pool()._processes.values()):  # a worker killed (out of memory, an operator)
            os.kill(process.pid, signal.SIGKILL)
        response = Client().get("/healthz")
        assert response.status_code == 200, response.json()
        assert "started afresh" in response.json()["checks"]["bot_workers"]["workers"]
        # While the new processes load their kernels the server says so (and is healthy); then they answer.
        wait_for(
            lambda: Client().get("/healthz").json()["checks"]["bot_workers"]["workers"].endswith("local bot processes"),
            60,
            "the bot processes started afresh to answer",
        )
        assert Client().get("/healthz").status_code == 200
    finally:
        think.shutdown()
        _pool_restarts.clear()


@pytest.mark.django_db
def test_a_pool_that_breaks_again_right_after_its_restart_fails_the_check(monkeypatch):
    from concurrent.futures.process import BrokenProcessPool

    class Broken:
        def submit(self, *args, **kwargs):
            raise BrokenProcessPool("a worker died")

    monkeypatch.setattr(think, "started", lambda: True)
    monkeypatch.setattr(think, "pool", lambda: Broken())
    monkeypatch.setattr(think, "start_in_background", lambda: None)
    try:
        first = Client().get("/healthz")
        assert first.status_code == 200, first.json()
        assert "started afresh" in first.json()["checks"]["bot_workers"]["workers"]
        again = Client().get("/healthz")
        assert again.status_code == 503
        assert "do not start again" in again.json()["checks"]["bot_workers"]["error"]
    finally:
        _pool_restarts.clear()


# -- real servers, real services ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def database_url():
    with postgres_database() as url:
        migrate({"DATABASE_URL": url})
        yield url


@pytest.mark.services
def test_healthz_is_200_with_everything_up_and_names_the_bot_workers_when_none_answers(database_url):
    env = {
        **PRODUCTION,
        "DATABASE_URL": database_url,
        "REDIS_URL": require_redis(),
        "JASSWEB_CHANNEL_PREFIX": f"healthz-{uuid.uuid4().hex[:8]}",
        "JASSWEB_THINKERS": "channels",
        # Plain HTTP for the test's pages and websocket (a proxy would have ended TLS before daphne).
        "JASSWEB_SSL_REDIRECT": "0",
        "JASSWEB_SECURE_COOKIES": "0",
    }
    server = ServerProcess(env)
    worker = None
    try:
        code, report = health(server.url)  # no runworker process yet
        assert code == 503 and report["failing"] == ["bot_workers"], report
        assert "no runworker process answered on 'bots-think'" in report["checks"]["bot_workers"]["error"]
        assert report["checks"]["database"]["ok"] and report["checks"]["channel_layer"]["ok"]

        worker = bot_worker(env)
        report = wait_for_health(server.url, 200)
        assert report["status"] == "ok" and "failing" not in report
        assert report["checks"]["database"]["vendor"] == "postgresql"
        assert report["checks"]["channel_layer"]["backend"] == "RedisPubSubChannelLayer"
        assert report["checks"]["bot_workers"]["workers"] == "a runworker process answered on 'bots-think'"

        # A table's websocket starts the server's driver: its lease is checked from then on.
        cookies = guest_cookies(server.url, "Hanna")
        table = create_live_table(server.url, cookies, seat="watch")
        asyncio.run(_open_and_close(server.url, table, cookies))
        report = wait_for_health(server.url, 200)
        assert len(report["checks"]["bot_workers"]["driver"]) == 20

        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)
        report = wait_for_health(server.url, 503, seconds=30)
        assert report["failing"] == ["bot_workers"], report
        assert "healthz: bot_workers failing" in server.output()
    finally:
        if worker is not None and worker.poll() is None:
            worker.kill()
        server.stop()


async def _open_and_close(base: str, table: int, cookies: dict[str, str]) -> None:
    client = await LiveClient.open(base, table, cookies, "Hanna")
    await client.close()


@pytest.mark.services
def test_healthz_names_the_database_when_it_is_down():
    closed = free_port()  # nothing listens there: PostgreSQL is "down"
    env = {
        **PRODUCTION,
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:{closed}/jassweb?connect_timeout=1",
        "REDIS_URL": require_redis(),
        "JASSWEB_CHANNEL_PREFIX": f"healthz-{uuid.uuid4().hex[:8]}",
    }
    server = ServerProcess(env)
    try:
        code, report = health(server.url)
        assert code == 503, report
        assert report["status"] == "fail" and report["failing"] == ["database"], report
        assert not report["checks"]["database"]["ok"] and report["checks"]["database"]["error"]
        assert report["checks"]["channel_layer"]["ok"] and report["checks"]["bot_workers"]["ok"]
        # SIGTERM stops it cleanly all the same: a database call still waiting for a connection (the pool waits
        # 30 s) holds the exit up only briefly (jassweb/shutdown.py), and it exits by itself, not killed.
        server.process.terminate()
        assert server.process.wait(timeout=25) == 0
        log = server.output()
        assert "stopped cleanly" in log and "threads still blocked" in log, log[-3000:]
    finally:
        server.stop()


@pytest.mark.services
def test_healthz_names_the_channel_layer_when_redis_is_down(database_url):
    closed = free_port()  # nothing listens there: Redis is "down"
    env = {**PRODUCTION, "DATABASE_URL": database_url, "REDIS_URL": f"redis://127.0.0.1:{closed}/0"}
    server = ServerProcess(env)
    try:
        code, report = health(server.url)
        assert code == 503, report
        assert report["failing"] == ["channel_layer"], report
        assert "ConnectionError" in report["checks"]["channel_layer"]["error"]
        assert str(closed) in report["checks"]["channel_layer"]["error"]
        assert report["checks"]["database"]["ok"] and report["checks"]["bot_workers"]["ok"]
    finally:
        server.stop()
