"""Real services for tests: Redis and PostgreSQL on loopback.

A test that needs one fails when ``CI`` is set and the service is down (CI must
not go green by skipping); on a developer machine it is skipped with the reason.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import uuid
from contextlib import contextmanager

import psycopg
import pytest
import redis

from tests import tiers

REDIS_URL = os.environ.get("JASSWEB_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
POSTGRES_DSN = os.environ.get("JASSWEB_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
START_HINTS = {
    "Redis": 'redis-server --daemonize yes --port 6379 --save "" --appendonly no',
    "PostgreSQL": "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start",
}


def unavailable(service: str, error: Exception) -> None:
    message = f"{service} is not reachable ({error}); start it with: {START_HINTS[service]}"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def require_redis() -> str:
    tiers.require("services", "Redis")
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        unavailable("Redis", exc)
    return REDIS_URL


def redis_channel_layers(prefix: str | None = None) -> dict:
    """CHANNEL_LAYERS for the real Redis pub/sub layer, isolated by a fresh prefix."""
    return {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {
                "hosts": [{"address": require_redis(), "max_connections": 200}],
                "prefix": prefix or f"test-{uuid.uuid4().hex[:12]}",
            },
        }
    }


def fetch_one(database_url: str, sql: str, *params: object) -> tuple:
    """One row of a query, straight from PostgreSQL (what a server process stored); fails when there is none."""
    with psycopg.connect(database_url) as db:
        row = db.execute(sql, params).fetchone()
    assert row is not None, f"no row for {sql!r} {params}"
    return tuple(row)


@contextmanager
def postgres_database():
    """Create a fresh PostgreSQL database, yield its URL, and drop it afterwards."""
    tiers.require("services", "PostgreSQL")
    name = f"jassweb_test_{uuid.uuid4().hex[:12]}"
    try:
        admin = psycopg.connect(POSTGRES_DSN, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        unavailable("PostgreSQL", exc)
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield database_url(name)
    finally:
        drop_database(name)


def database_url(name: str) -> str:
    """The URL of the database ``name`` on the tests' PostgreSQL server."""
    return f"{POSTGRES_DSN.rsplit('/', 1)[0]}/{name}"


def create_database(name: str, template: str | None = None) -> None:
    """``CREATE DATABASE name`` on the tests' PostgreSQL server, as a copy of ``template`` if given."""
    copy = f' TEMPLATE "{template}"' if template else ""
    with psycopg.connect(POSTGRES_DSN, autocommit=True, connect_timeout=5) as admin:
        admin.execute(f'CREATE DATABASE "{name}"{copy}')


def drop_database(name: str) -> None:
    """Drop the database ``name`` (if it is there), closing whatever is connected to it."""
    with psycopg.connect(POSTGRES_DSN, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def scale_out(name: str, **settings: str):
    """The scale-out set-up for servers of one test: a fresh PostgreSQL database and the Redis channel layer
    under a prefix of its own. Yields (the servers' environment with ``settings`` added, the database URL)."""
    redis_url = require_redis()
    with postgres_database() as url:
        env = {
            "DATABASE_URL": url,
            "REDIS_URL": redis_url,
            "JASSWEB_CHANNEL_PREFIX": f"{name}-{uuid.uuid4().hex[:8]}",
            **settings,
        }
        yield env, url


class OwnRedis:
    """A ``redis-server`` of one test's own on a free port, to stop and start again (a Redis restart) while
    the shared one, which other tests use, stays up. Nothing is saved: a restart starts it empty."""

    def __init__(self) -> None:
        tiers.require("services", "Redis")
        binary = shutil.which("redis-server")
        if binary is None:
            unavailable("Redis", FileNotFoundError("no redis-server on PATH"))
        self.binary = str(binary)
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None
        self.start()

    def start(self, timeout: float = 10.0) -> None:
        """Start it (again, on the same port) and return once it answers."""
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while True:
            try:
                redis.Redis.from_url(self.url, socket_connect_timeout=1).ping()
                return
            except redis.RedisError:
                assert self.process.poll() is None, f"redis-server on port {self.port} exited"
                assert time.monotonic() < deadline, f"redis-server on port {self.port} did not answer"
                time.sleep(0.05)

    def stop(self) -> None:
        """Stop it (SIGTERM), as a restart does."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
