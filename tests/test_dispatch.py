"""A socket's two sources (its frames, its channel's events) handled in turn (games.live.consumers.dispatch_in_turn).

What Channels' own loop promised stays: one handler at a time, a source's next message taken only once its last
one is handled, the first exception (``StopConsumer`` at a socket's end) ends the loop, and the other source's
waiting receive is cancelled (how the pub/sub layer unsubscribes a channel). The loop runs with real sockets
in tests/test_consumers.py and every test that opens one.
"""

from __future__ import annotations

import asyncio

import pytest
from channels.exceptions import StopConsumer

from games.live.consumers import dispatch_in_turn

pytestmark = pytest.mark.asyncio


async def settled() -> None:
    """Let every task that can run now run until it waits (no clock involved)."""
    for _ in range(20):
        await asyncio.sleep(0)


class Source:
    """A receive callable over a queue that notes when a waiting receive was cancelled."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[dict[str, object]] = asyncio.Queue()
        self.cancelled = 0

    async def __call__(self) -> dict[str, object]:
        try:
            return await self.queue.get()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise


async def test_one_handler_at_a_time_and_a_sources_next_message_only_once_its_last_is_handled():
    frames, events = Source(), Source()
    running, handled, release = [], [], asyncio.Event()

    async def handle(message: dict[str, object]) -> None:
        running.append(message)
        assert len(running) == 1, running  # never two at once
        if message["n"] == 1:
            await release.wait()
        handled.append(message["n"])
        running.remove(message)
        if message["n"] == "end":
            raise StopConsumer

    loop = asyncio.create_task(dispatch_in_turn([frames, events], handle))
    for n in (1, 2, 3):
        frames.queue.put_nowait({"n": n})
    events.queue.put_nowait({"n": 10})
    await settled()  # the first frame's handler waits; nothing else may run meanwhile
    assert running == [{"n": 1}]
    assert handled == [] and frames.queue.qsize() == 2  # frames 2 and 3 not taken while 1 is handled
    release.set()
    frames.queue.put_nowait({"n": "end"})
    with pytest.raises(StopConsumer):
        await asyncio.wait_for(loop, 5)
    assert sorted(handled[:4], key=str) == [1, 10, 2, 3] and handled[0] == 1 and handled[-1] == "end"
    assert [n for n in handled if n != 10] == [1, 2, 3, "end"]  # a source's messages in their order
    assert events.cancelled == 1 and frames.cancelled == 0  # the events' waiting receive ended with the loop


async def test_a_handlers_error_ends_the_loop_with_it_and_a_cancellation_cancels_both_receives():
    frames, events = Source(), Source()

    async def handle(message: dict[str, object]) -> None:
        raise ValueError(f"no handler for {message['type']}")

    loop = asyncio.create_task(dispatch_in_turn([frames, events], handle))
    events.queue.put_nowait({"type": "table.nothing"})
    with pytest.raises(ValueError, match=r"no handler for table\.nothing"):
        await asyncio.wait_for(loop, 5)
    assert frames.cancelled == 1

    frames, events = Source(), Source()
    loop = asyncio.create_task(dispatch_in_turn([frames, events], handle))
    await settled()  # both receives wait
    loop.cancel()  # daphne giving up on a consumer
    with pytest.raises(asyncio.CancelledError):
        await loop
    assert frames.cancelled == 1 and events.cancelled == 1
