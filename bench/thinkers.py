"""Where bots think: the local process pool beside Channels workers and Celery workers, in one run.

Every built-in bot's decision leaves the server's event loop. The embedded
default sends it to a process pool on the same machine; to think on other
machines a server sends it over a broker. This measures what each way costs a
decision, with a bot that costs nothing itself (``random``), so that only the
transport shows:

- ``local pool``: ``bots.think.pool()``, as a server uses it (``JASSWEB_THINKERS=local``);
- ``channels``: ``bots.thinkers.RemoteThinkers`` and ``--workers`` processes of
  ``manage.py runworker --layer bots bots-think`` on the Redis channel layer
  (``JASSWEB_THINKERS=channels``);
- ``celery/redis`` and ``celery/rabbitmq``: ``bench/celery_thinkers.py`` with
  ``--workers`` prefork processes, the result awaited in a thread (Celery's
  result API blocks), broker Redis or RabbitMQ (127.0.0.1:5672, guest).

Printed per way: the round trip of one decision at a time (median, p99) and,
with ``--concurrency`` decisions in flight (as many tables whose bots wait at
once), decisions per second and the p99 round trip.

    .venv/bin/python bench/thinkers.py [--decisions 300] [--concurrency 50] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
PREFIX = f"bench-thinkers-{uuid.uuid4().hex[:8]}"
os.environ.update(
    {"DJANGO_SETTINGS_MODULE": "jassweb.settings", "JASSWEB_THINKERS": "channels", "REDIS_URL": REDIS_URL}
)
os.environ["JASSWEB_CHANNEL_PREFIX"] = PREFIX

import django  # noqa: E402

django.setup()

from bots import think  # noqa: E402
from bots.runner import BotTurn  # noqa: E402
from bots.thinkers import RemoteThinkers  # noqa: E402
from games.engine import GameConfig, GamePlan, GameState  # noqa: E402


def turns(count: int) -> list[BotTurn]:
    """Decisions of real positions: the observations of a game of random play."""
    rng = np.random.default_rng(7)
    result: list[BotTurn] = []
    seed = 1
    while len(result) < count:
        state = GameState.new(GameConfig(seed=seed), GamePlan(GameConfig(seed=seed)))
        while not state.over and len(result) < count:
            obs = state.observation(state.player)
            result.append(BotTurn(0, len(result), state.player, state.round_index, obs, seed, 0.0, bot="random"))
            actions = obs.legal_actions()
            state = state.apply(state.player, actions[int(rng.integers(len(actions)))])
        seed += 1
    return result


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def measure(decide, decisions: list[BotTurn], concurrency: int) -> tuple[float, float, float, float]:
    """(median ms, p99 ms) one at a time, then (decisions/s, p99 ms) with ``concurrency`` in flight."""
    for turn in decisions[:20]:  # warm-up: workers loaded, connections open
        await decide(turn)
    one: list[float] = []
    for turn in decisions:
        started = time.perf_counter()
        await decide(turn)
        one.append((time.perf_counter() - started) * 1000)
    many: list[float] = []
    queue = list(decisions)

    async def lane() -> None:
        while queue:
            turn = queue.pop()
            started = time.perf_counter()
            await decide(turn)
            many.append((time.perf_counter() - started) * 1000)

    started = time.perf_counter()
    await asyncio.gather(*(lane() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    return statistics.median(one), quantile(one, 0.99), len(decisions) / elapsed, quantile(many, 0.99)


def start_processes(command: list[str], count: int, env: dict[str, str]) -> list[subprocess.Popen]:
    merged = {**os.environ, **env}
    return [
        subprocess.Popen(command, cwd=ROOT, env=merged, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(count)
    ]


def stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


async def local_pool(decisions: list[BotTurn], concurrency: int, workers: int):
    os.environ["JASSWEB_BOT_WORKERS"] = str(workers)
    await asyncio.to_thread(think.start)

    async def decide(turn: BotTurn):
        future = think.pool().submit(think.think, turn.bot, turn.observation, (turn.seed, turn.seq, turn.seat), None)
        return await asyncio.wrap_future(future)

    try:
        return await measure(decide, decisions, concurrency)
    finally:
        think.shutdown()


async def channels(decisions: list[BotTurn], concurrency: int, workers: int):
    command = [sys.executable, "manage.py", "runworker", "--layer", "bots", "bots-think"]
    processes = start_processes(command, workers, {})
    thinkers = RemoteThinkers()
    await thinkers.start()
    try:
        await asyncio.sleep(3)  # the workers start and subscribe
        return await measure(lambda turn: thinkers.think(turn, time.time() + 10), decisions, concurrency)
    finally:
        await thinkers.close()
        stop(processes)


async def celery(decisions: list[BotTurn], concurrency: int, workers: int, broker: str, backend: str):
    from celery import Celery

    env = {"CELERY_BROKER_URL": broker, "CELERY_RESULT_BACKEND": backend}
    client = Celery("jassweb-bench-client", broker=broker, backend=backend)  # an app per broker: none is reused
    client.conf.update(task_serializer="json", result_serializer="json", accept_content=["json"])
    name = f"bench-{uuid.uuid4().hex[:6]}@%h"
    command = [
        sys.executable, "-m", "celery", "-A", "bench.celery_thinkers", "worker",
        "--concurrency", str(workers), "--pool", "prefork", "--loglevel", "WARNING", "-n", name,
    ]  # fmt: skip
    processes = start_processes(command, 1, env)
    threads = ThreadPoolExecutor(max_workers=concurrency)
    loop = asyncio.get_running_loop()

    def blocking(turn: BotTurn) -> int:
        data = think.observation_to_data(turn.observation)
        result = client.send_task("think", args=[turn.bot, data, [turn.seed, turn.seq, turn.seat], None])
        return result.get(timeout=10)

    try:
        deadline = time.monotonic() + 30
        while True:  # the worker is up when it answers
            try:
                await loop.run_in_executor(threads, blocking, decisions[0])
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
        return await measure(lambda turn: loop.run_in_executor(threads, blocking, turn), decisions, concurrency)
    finally:
        threads.shutdown(wait=False)
        stop(processes)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--skip", default="", help="comma-separated ways to leave out (e.g. celery/rabbitmq)")
    args = parser.parse_args()
    decisions = turns(args.decisions)
    redis_db1 = REDIS_URL.rsplit("/", 1)[0] + "/1"
    ways = {
        "local pool": lambda: local_pool(decisions, args.concurrency, args.workers),
        "channels": lambda: channels(decisions, args.concurrency, args.workers),
        "celery/redis": lambda: celery(decisions, args.concurrency, args.workers, redis_db1, redis_db1),
        "celery/rabbitmq": lambda: celery(
            decisions, args.concurrency, args.workers, "amqp://guest:guest@127.0.0.1:5672//", "rpc://"
        ),
    }
    skipped = {s.strip() for s in args.skip.split(",") if s.strip()}
    print(f"{args.decisions} decisions of the random bot, {args.workers} worker processes, {os.cpu_count()} cores")
    print(f"{'':<18}{'one at a time':>26}{f'{args.concurrency} in flight':>28}")
    print(f"{'way':<18}{'median ms':>13}{'p99 ms':>13}{'decisions/s':>15}{'p99 ms':>13}")
    for name, run in ways.items():
        if name in skipped:
            continue
        try:
            median, p99, rate, p99_many = await run()
        except Exception as exc:  # a broker that is not there: say so, measure the others
            print(f"{name:<18}  failed: {type(exc).__name__}: {exc}")
            continue
        print(f"{name:<18}{median:>13.2f}{p99:>13.2f}{rate:>15.0f}{p99_many:>13.2f}")


if __name__ == "__main__":
    asyncio.run(main())
