"""A production-mode server for the hostile-input suite (tests/test_hostile_*.py)."""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from pathlib import Path

from tests.server_helpers import ServerProcess, migrate
from tests.services import require_redis


def production_env(folder: Path, **extra: str) -> dict[str, str]:
    """A server as it is put online: DEBUG off, Redis for channels and the cache, its own SQLite database."""
    return {
        "JASSWEB_DEBUG": "0",
        "DJANGO_SECRET_KEY": f"hostile-suite-{uuid.uuid4().hex}",
        "JASSWEB_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "JASSWEB_SQLITE_PATH": str(folder / "db.sqlite3"),
        "REDIS_URL": require_redis(),
        "JASSWEB_CHANNEL_PREFIX": f"hostile-{uuid.uuid4().hex[:10]}",
        "JASSWEB_BOT_DELAY_MS": "0",
        # Plain HTTP on loopback stands for the TLS proxy in front (deploy/nginx): no redirect to
        # https and cookies a plain-HTTP client keeps; tests/test_production_smoke.py covers HTTPS.
        "JASSWEB_SSL_REDIRECT": "0",
        "JASSWEB_SECURE_COOKIES": "0",
        **extra,
    }


@contextmanager
def production_server(folder: Path, **extra: str):
    """Serve the project in production mode; yield (base URL, a function returning the server's log so far)."""
    env = production_env(folder, **extra)
    migrate(env)
    server = ServerProcess(env)
    try:
        yield server.url, server.output
    finally:
        server.stop()
