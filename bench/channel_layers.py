"""Table-broadcast rate of the two Redis channel layers, side by side in one run.

A table event is one ``group_send`` that every watcher of the table receives.
This puts N channels (watchers) in one group, sends M events, and measures how
fast all N x M deliveries arrive through the real Redis on 127.0.0.1:6379 —
``RedisPubSubChannelLayer`` (what Jassweb uses) against the classic
``RedisChannelLayer`` (the reference) — and how many never arrive.

    .venv/bin/python bench/channel_layers.py [--watchers 100 1000] [--events 50]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time
import uuid

from channels_redis.core import RedisChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer

REDIS = "redis://127.0.0.1:6379/0"
LAYERS = {
    "RedisChannelLayer (classic)": lambda prefix: RedisChannelLayer(
        hosts=[{"address": REDIS, "max_connections": 1000}], prefix=prefix
    ),
    "RedisPubSubChannelLayer": lambda prefix: RedisPubSubChannelLayer(
        hosts=[{"address": REDIS, "max_connections": 1000}], prefix=prefix
    ),
}


async def broadcast(make_layer, watchers: int, events: int, patience: float) -> tuple[float, int]:
    """Return (deliveries per second, deliveries lost) for one layer."""
    layer = make_layer(f"bench-{uuid.uuid4().hex[:8]}")
    channels = [await layer.new_channel() for _ in range(watchers)]
    for channel in channels:
        await layer.group_add("table.bench", channel)
    await asyncio.sleep(0.2)  # let subscriptions settle
    received = 0
    done = asyncio.Event()

    async def watch(channel: str) -> None:
        nonlocal received
        for _ in range(events):
            await layer.receive(channel)
            received += 1
            if received == watchers * events:
                done.set()

    readers = [asyncio.create_task(watch(c)) for c in channels]
    start = time.perf_counter()
    for number in range(events):
        await layer.group_send("table.bench", {"type": "table.event", "version": number})
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(done.wait(), patience)
    elapsed = time.perf_counter() - start
    for reader in readers:
        reader.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    await layer.flush()
    return received / elapsed, watchers * events - received


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--watchers", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--events", type=int, default=50)
    parser.add_argument("--patience", type=float, default=20.0, help="seconds to wait for stragglers")
    args = parser.parse_args()
    print(f"Table broadcasts through Redis: {args.events} group_send events to N watchers, deliveries per second")
    width = max(map(len, LAYERS))
    for watchers in args.watchers:
        results = {}
        for name, make_layer in LAYERS.items():
            results[name] = await broadcast(make_layer, watchers, args.events, args.patience)
        reference = results["RedisChannelLayer (classic)"][0]
        for name, (rate, lost) in results.items():
            print(f"  N={watchers:<5} {name:<{width}}  {rate:>9,.0f}/s  ({rate / reference:4.1f}x)  lost {lost}")


if __name__ == "__main__":
    asyncio.run(main())
