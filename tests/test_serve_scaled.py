"""scripts/serve-scaled.sh (issue 27): the scale-out behind one port, ready when it says so, gone on SIGTERM.

The script starts nginx before two daphne processes, a Redis and a fresh PostgreSQL database of its own;
bench/live_tables.py --front measures through it. Here a person opens tables through the front: a table's
four sockets reach it through nginx and all land on one server (nginx hashes the table's path), other
tables land on the other server, and SIGTERM leaves no process, no database and no listener behind.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
from typing import Any

import psycopg
import pytest
import websockets

from tests.server_helpers import HTTP, ROOT, free_port, wait_for
from tests.services import POSTGRES_DSN, postgres_database, require_redis
from tests.test_metrics import scrape, total
from tests.ws_helpers import create_live_table, guest_cookies

pytestmark = pytest.mark.services


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _servers_holding(database: str, table: int) -> list[int]:
    """The pid of the server process that holds each socket at ``table`` (as the servers record them)."""
    with psycopg.connect(database, connect_timeout=5) as conn:
        rows = conn.execute(
            "SELECT w.pid FROM games_connection c JOIN games_worker w ON w.id = c.worker_id WHERE c.table_id = %s",
            [table],
        ).fetchall()
    return sorted(row[0] for row in rows)


def _all_noted(database: str, table: int, count: int) -> list[int]:
    """``_servers_holding`` once the servers have noted ``count`` sockets at ``table`` (each as it opened)."""

    def noted() -> list[int] | None:
        held = _servers_holding(database, table)
        return held if len(held) >= count else None

    return wait_for(noted, 30, f"{count} sockets noted at table {table}")


async def _open_sockets(base: str, cookies: dict[str, str], table: int, count: int) -> list[Any]:
    """``count`` sockets of the same person at the table through the front, each past its first frame."""
    headers = {"Origin": base, "Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}
    url = base.replace("http://", "ws://") + f"/ws/tables/{table}/"
    sockets = [
        await websockets.connect(url, additional_headers=headers, open_timeout=30, ping_interval=None)
        for _ in range(count)
    ]
    for ws in sockets:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
        assert frame["type"] == "state", frame
    return sockets


async def _close(sockets: list[Any]) -> None:
    await asyncio.gather(*(ws.close() for ws in sockets))


def test_the_scaled_set_serves_through_one_port_and_stops_everything_on_sigterm():
    require_redis()
    with postgres_database():  # fails (CI) or skips here if PostgreSQL is down, with the reason
        pass
    port = free_port()
    env = {**os.environ, "JASSWEB_LIMITS": "0"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    script = subprocess.Popen(
        ["bash", "scripts/serve-scaled.sh", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert script.stdout is not None
        ready = script.stdout.readline().strip()  # the script's first line on stdout, once all of it answers
        assert ready.startswith(f"ready: http://127.0.0.1:{port} servers "), ready or script.stderr.read()
        words = ready.split()
        base, servers, front, redis = words[1], [int(p) for p in words[3].split(",")], int(words[5]), int(words[7])
        database = f"{POSTGRES_DSN.rsplit('/', 1)[0]}/{words[9]}"
        assert len(servers) == 2 and all(_alive(pid) for pid in [*servers, front, redis])

        cookies = guest_cookies(base, "Front")  # pages through nginx
        table = create_live_table(base, cookies)
        loop = asyncio.new_event_loop()
        held = loop.run_until_complete(_open_sockets(base, cookies, table, 4))  # open until the script stops
        first = _all_noted(database, table, 4)
        assert len(set(first)) == 1 and first[0] in servers, (first, servers)  # all four on one server
        # Other tables hash to the other server too (twelve tables on one of two servers: one in 2,048).
        used = set(first)
        for _ in range(12):
            other = create_live_table(base, cookies)
            held += loop.run_until_complete(_open_sockets(base, cookies, other, 2))
            pair = _all_noted(database, other, 2)
            assert len(set(pair)) == 1, pair
            used |= set(pair)
            if used == set(servers):
                break
        assert used == set(servers), (used, servers)

        # /metrics through the front: both servers' series summed, to the set's token only; with the
        # collector's pauses (a server makes young collections from its first page on).
        assert HTTP.get(base + "/metrics", timeout=10).status_code == 401
        for _ in range(2):  # whichever server the front asks answers for both
            samples = scrape(base, token=words[11])
            assert total(samples, "jassweb_open_sockets", kind="table") == len(held), samples
            assert total(samples, "jassweb_gc_pause_seconds_count", generation="0") > 0, samples
    finally:
        script.send_signal(signal.SIGTERM)
        try:
            script.wait(timeout=60)
        except subprocess.TimeoutExpired:
            script.kill()
            raise
    stopped = script.stderr.read() if script.stderr else ""
    assert "stopped 4 processes, dropped database" in stopped, stopped
    assert not [pid for pid in [*servers, front, redis] if _alive(pid)]
    with psycopg.connect(POSTGRES_DSN, connect_timeout=5) as admin:
        assert not admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [words[9]]).fetchall()
    with socket.socket() as probe, pytest.raises(ConnectionRefusedError):
        probe.connect(("127.0.0.1", port))
    assert len(held) >= 6
    loop.run_until_complete(_close(held))
    loop.close()
