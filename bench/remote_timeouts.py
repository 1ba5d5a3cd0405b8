"""How long a table waits for a remote bot that does not answer in time: the timeout against the wait.

A loopback HSLU bot that never answers (it reads the request and sleeps) is asked for a card through
``bots.remote.ask_bot``, the one outbound seam, as a live table does; printed are the bot timeout
(the reference) and the time until the random legal stand-in move was there, median and max.
The tests only pin that such a bot gets a ``timeout`` fault and a legal move; this is the figure.

    .venv/bin/python bench/remote_timeouts.py [--timeouts 0.5,1,2] [--asks 10]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jassweb.settings")

import django

django.setup()

import numpy as np  # noqa: E402
from django.conf import settings  # noqa: E402

from bots import remote  # noqa: E402
from games.engine import GameConfig, GameState  # noqa: E402


class _Silent(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        time.sleep(30)  # never in time

    def log_message(self, *args: object) -> None:
        pass


async def waits(url: str, timeout: float, asks: int) -> list[float]:
    state = GameState.new(GameConfig(seed=1))
    state = state.apply(state.player, state.observation(state.player).legal_actions()[0])
    obs = state.observation(state.player)
    result = []
    async with remote.new_client() as client:
        for index in range(asks):
            started = time.perf_counter()
            answer = await remote.ask_bot(
                client, url, remote.SPEC, obs, "SCHIEBER", timeout, np.random.default_rng(index)
            )
            result.append(time.perf_counter() - started)
            assert answer.fault is not None and answer.fault.kind == "timeout", answer.fault
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeouts", default="0.5,1,2", help="bot timeouts to try, in seconds")
    parser.add_argument("--asks", type=int, default=10, help="requests per timeout")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Silent)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    settings.JASS_BOT_URL_ALLOWLIST = [f"127.0.0.1:{port}"]  # a loopback bot, allowed for this run only
    url = f"http://127.0.0.1:{port}/bot"
    print(f"A bot that never answers, asked {args.asks} times per timeout (the stand-in move comes after):")
    print(f"  {'timeout':>8}  {'median wait':>12}  {'max wait':>9}  {'over the timeout (max)':>22}")
    for timeout in (float(t) for t in args.timeouts.split(",")):
        measured = asyncio.run(waits(url, timeout, args.asks))
        print(
            f"  {timeout:>7.2f}s  {statistics.median(measured):>11.3f}s  {max(measured):>8.3f}s"
            f"  {max(measured) - timeout:>21.3f}s"
        )
    server.shutdown()


if __name__ == "__main__":
    main()
