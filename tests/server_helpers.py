"""Start the real ASGI server (daphne) as a subprocess for tests."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import socket
import sqlite3
import ssl
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import httpx
import psycopg

from tests import services, tiers

ROOT = Path(__file__).resolve().parent.parent

# Every HTTP client of the tests shares one TLS context (``verify=TLS``), and plain looks go through one client
# (``HTTP.get``, ``HTTP.post``): ``httpx.get`` and a bare ``httpx.Client()`` load the CA bundle anew, 35 ms of
# CPU each, and a server's start is polled every 0.1 s (over a minute of the workers' CPU in a whole run).
# No keep-alive: each look is a new connection, as with ``httpx.get`` (servers stop and start under the tests).
TLS = ssl.create_default_context()
HTTP = httpx.Client(verify=TLS, limits=httpx.Limits(max_keepalive_connections=0))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def migrate(env: dict[str, str]) -> None:
    """Create or update the database named by ``env``.

    A new SQLite file, or a new (empty) PostgreSQL database, is a copy of one migrated once per test
    process (``manage.py migrate`` takes over 2 s of CPU, and dozens of servers start in a run); anything
    else is migrated."""
    tiers.require("services", "a server's database")
    merged = _server_env(env)
    path = merged.get("JASSWEB_SQLITE_PATH")
    url = merged.get("DATABASE_URL", "")
    if path and not url and not Path(path).exists():
        with sqlite3.connect(_migrated_sqlite()) as source, sqlite3.connect(path) as copy:
            source.backup(copy)
        return
    if url.startswith(("postgres://", "postgresql://")) and _empty_postgres(url):
        _copy_migrated_postgres(url, merged)
        return
    _run_migrate(merged)


def _run_migrate(merged_env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT,
        env=merged_env,
        check=True,
        capture_output=True,
    )


_TEMPLATE: dict[str, str] = {}


def _migrated_sqlite() -> str:
    """An SQLite file this process migrated (once): the pattern of every new test database."""
    if "path" not in _TEMPLATE:
        path = str(Path(tempfile.mkdtemp(prefix="jassweb-migrated-")) / "db.sqlite3")
        merged = {k: v for k, v in _server_env({"JASSWEB_SQLITE_PATH": path}).items() if k != "DATABASE_URL"}
        _run_migrate(merged)
        _TEMPLATE["path"] = path
    return _TEMPLATE["path"]


def _empty_postgres(url: str) -> bool:
    """Whether the PostgreSQL database at ``url`` has no tables yet (as ``postgres_database`` makes it)."""
    with psycopg.connect(url.split("?", 1)[0], connect_timeout=5) as db:  # without Django's options (pool=…)
        row = db.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()
    return row is not None and row[0] == 0


def _copy_migrated_postgres(url: str, merged: dict[str, str]) -> None:
    """Make the empty database at ``url`` anew as a copy of a database this process migrated (once)."""
    name = url.split("?", 1)[0].rsplit("/", 1)[1]
    if "postgres" not in _TEMPLATE:
        template = f"jassweb_test_template_{uuid.uuid4().hex[:12]}"
        services.create_database(template)
        atexit.register(_drop_quietly, template)
        _run_migrate({**merged, "DATABASE_URL": services.database_url(template)})
        _TEMPLATE["postgres"] = template
    services.drop_database(name)
    services.create_database(name, template=_TEMPLATE["postgres"])


def _drop_quietly(name: str) -> None:
    with contextlib.suppress(psycopg.Error):
        services.drop_database(name)


def _server_env(env: dict[str, str]) -> dict[str, str]:
    # Tests play many rounds: no summary pause unless a test asks for one, and no analysis of every
    # game that ends (minutes of CPU each) unless a test is about it. One bot process per server unless a
    # test asks for more (over 60 servers start in a run, and their bots, random and rule bots mostly, never
    # keep one process busy), and it prepares a bot the first time that bot is asked to move
    # (JASSWEB_BOT_WARM_UP=lazy): a server whose tables seat only simple bots never loads the search kernels
    # (1.5 s of CPU each).
    merged = {
        "JASSWEB_ROUND_PAUSE_S": "0",
        "JASSWEB_ANALYSIS": "0",
        "JASSWEB_BOT_WORKERS": "1",
        "JASSWEB_BOT_WARM_UP": "lazy",
        **os.environ,
        **env,
    }
    merged.pop("DJANGO_SETTINGS_MODULE", None)
    return merged


def server_command(port: int, app: str, server: str = "daphne") -> list[str]:
    """The command serving ``app`` on ``port``: daphne, as deployed; or uvicorn, which bench/live_tables.py
    measures beside it (``--server uvicorn``; a dev dependency, without the clean stop of jassweb/shutdown.py;
    scripts/serve-scaled.sh has the same flags behind the front, with the proxy headers)."""
    if server == "uvicorn":
        return [
            sys.executable, "-m", "uvicorn", "--host", "127.0.0.1", "--port", str(port), "--no-access-log",
            "--log-level", "warning", "--ws", "websockets", "--ws-per-message-deflate", "false",
            "--lifespan", "off", "--backlog", "4096", app,
        ]  # fmt: skip
    return [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), app]


class ServerProcess:
    """One server process serving the project (or another ASGI ``app``) on a free port: daphne, or the
    ``server`` of ``server_command``."""

    def __init__(
        self, env: dict[str, str], timeout: float = 30.0, app: str = "jassweb.asgi:application", server: str = "daphne"
    ) -> None:
        tiers.require("services", "a server process")
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        # A file, not a pipe: daphne logs every request, and an unread pipe would block it.
        self.log = tempfile.NamedTemporaryFile(prefix=f"{server}-{port}-", suffix=".log", delete=False)  # noqa: SIM115
        self.process = subprocess.Popen(
            server_command(port, app, server),
            cwd=ROOT,
            env=_server_env(env),
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"{server} exited: {self.output()}")
            try:
                HTTP.get(self.url + "/", timeout=1.0)
                return
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    self.kill()
                    raise
                time.sleep(0.1)

    def output(self) -> str:
        """What the server has logged so far."""
        return Path(self.log.name).read_text(errors="replace")

    def stop(self) -> None:
        """Stop gracefully (SIGTERM), as an operator would."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def kill(self) -> None:
        """Stop at once (SIGKILL), as a crash would: only what was committed survives."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)


def bot_worker(env: dict[str, str]) -> subprocess.Popen:
    """A bot worker process (``runworker --layer bots bots-think``), as deploy/systemd/jassweb-worker@ runs it."""
    tiers.require("services", "a bot worker process")
    log = tempfile.NamedTemporaryFile(prefix="runworker-", suffix=".log", delete=False)  # noqa: SIM115
    return subprocess.Popen(
        [sys.executable, "manage.py", "runworker", "--layer", "bots", "bots-think"],
        cwd=ROOT,
        env=_server_env(env),
        stdout=log,
        stderr=subprocess.STDOUT,
    )


@contextmanager
def running_server(env: dict[str, str], timeout: float = 30.0):
    """Migrate the database named by ``env`` and serve the project with daphne; yield the base URL."""
    migrate(env)
    server = ServerProcess(env, timeout)
    try:
        yield server.url
    finally:
        server.stop()


def wait_for(condition, timeout: float, what: str):
    """Poll ``condition`` every 0.1 s until it returns something true (returned), or fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def probe_on_postgresql(probe: str, settings: dict[str, str] | None = None, timeout: float = 120) -> dict:
    """Run ``probe`` (Python for ``manage.py shell -c``) in a process of its own on a fresh, migrated PostgreSQL
    database with ``settings`` in its environment; the JSON object its last line printed."""
    with services.postgres_database() as database_url:
        env = {"DATABASE_URL": f"{database_url}?pool=off", **(settings or {})}
        migrate(env)
        result = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", probe],
            cwd=ROOT,
            env=_server_env(env),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])
