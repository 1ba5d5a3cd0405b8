"""Many tables of search bots on one server: does every table keep moving, does the server stay responsive?

Starts a real daphne server (fresh SQLite, in-memory channel layer, bot delay
0), opens ``--tables`` tables with four ``--bot`` bots each, starts them all
at once and watches every table over its websocket for ``--seconds``. For each
move it records the time since the previous move at that table; a spectator
pings the server every 50 ms meanwhile. Printed side by side with the bot's
budget: move intervals (median, p95, max) and ping round trips.

    .venv/bin/python bench/tables.py [--tables 20] [--bot mcts-strong] [--seconds 60]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import django

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jassweb.settings")
django.setup()  # the websocket helpers of the test suite import Django models

from bots.registry import IMPLEMENTATIONS, move_budget  # noqa: E402
from tests.server_helpers import ServerProcess, migrate  # noqa: E402
from tests.ws_helpers import LiveClient, create_live_table, guest_cookies  # noqa: E402


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


async def watch(client: LiveClient, intervals: list[float], until: float, late: list[str], budget: float) -> None:
    """Record the time between consecutive moves at one table, and describe the late ones."""
    last_seq, last_time = None, time.monotonic()
    started = last_time
    while time.monotonic() < until:
        try:
            frame = await client.receive(max(0.1, until - time.monotonic()))
        except TimeoutError:
            break
        if frame["type"] != "state" or not frame["view"]["game"]:
            continue
        seq = frame["view"]["game"]["seq"]
        if last_seq is not None and seq > last_seq:
            now = time.monotonic()
            intervals.append((now - last_time) / (seq - last_seq))
            if budget and intervals[-1] > budget + 0.5:
                game = frame["view"]["game"]
                late.append(
                    f"{client.label} after {now - started:.1f} s: {intervals[-1]:.2f} s to move {seq}"
                    f" (trump {game.get('trump')})"
                )
            last_time = now
        if last_seq is None:  # the game has started: its first move is timed from here
            last_time = time.monotonic()
        last_seq = seq if last_seq is None or seq > last_seq else last_seq


async def pinger(client: LiveClient, rtts: list[float], until: float, slow: list[str]) -> None:
    """Ping every 50 ms; record round trips, and describe those over 100 ms."""
    number = 0
    begun = time.monotonic()
    while time.monotonic() < until:
        number += 1
        started = time.perf_counter()
        await client.send({"type": "ping", "id": number})
        while True:
            frame = await client.receive(10)
            if frame["type"] == "pong" and frame.get("id") == number:
                rtts.append(time.perf_counter() - started)
                if rtts[-1] > 0.1:
                    slow.append(f"ping after {time.monotonic() - begun:.1f} s: {rtts[-1] * 1000:.0f} ms")
                break
        await asyncio.sleep(0.05)


async def run(tables: int, bot: str, seconds: float) -> None:
    budget = move_budget(bot)
    with tempfile.TemporaryDirectory() as directory:
        # Many tables from one guest: past the limits on abuse (JASSWEB_LIMITS=0 lifts them).
        env = {
            "JASSWEB_SQLITE_PATH": str(Path(directory) / "db.sqlite3"),
            "JASSWEB_BOT_DELAY_MS": "0",
            "JASSWEB_LIMITS": "0",
        }
        migrate(env)
        server = ServerProcess(env)
        try:
            cookies = guest_cookies(server.url, "Bench")
            clients = []
            for index in range(tables):
                table = create_live_table(
                    server.url, cookies, name=f"Bench {index + 1}", mode="fair", round_count="12", seat="watch"
                )
                client = await LiveClient.open(server.url, table, cookies, f"table {index + 1}")
                for seat in range(4):
                    await client.send({"type": "add_bot", "seat": seat, "bot": bot})
                await client.state(lambda v: all(s["kind"] == "bot" for s in v["seats"]))
                clients.append(client)
            spectator = await LiveClient.open(server.url, table, None, "spectator")
            for client in clients:
                await client.send({"type": "start"})
            until = time.monotonic() + seconds
            intervals: list[float] = []
            rtts: list[float] = []
            late: list[str] = []
            slow: list[str] = []
            await asyncio.gather(
                *(watch(c, intervals, until, late, budget or 0.0) for c in clients),
                pinger(spectator, rtts, until, slow),
            )
        finally:
            server.stop()
    print(f"{tables} tables x 4 {bot} bots, {seconds:.0f} s, bot budget {budget} s per move")
    print(f"{'':<22}{'median':>10}{'p95':>10}{'max':>10}{'count':>8}")
    print(
        f"{'move interval (s)':<22}{statistics.median(intervals):>10.3f}{quantile(intervals, 0.95):>10.3f}"
        f"{max(intervals):>10.3f}{len(intervals):>8}"
    )
    print(
        f"{'ping round trip (ms)':<22}{statistics.median(rtts) * 1000:>10.1f}{quantile(rtts, 0.95) * 1000:>10.1f}"
        f"{max(rtts) * 1000:>10.1f}{len(rtts):>8}"
    )
    if budget:
        print(f"moves later than budget + 0.5 s: {len(late)} of {len(intervals)}")
        for line in late:
            print("  " + line)
    print(f"pings slower than 100 ms: {len(slow)} of {len(rtts)}")
    for line in slow:
        print("  " + line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--bot", default="mcts-strong", choices=sorted(IMPLEMENTATIONS))
    parser.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()
    asyncio.run(run(args.tables, args.bot, args.seconds))


if __name__ == "__main__":
    main()
