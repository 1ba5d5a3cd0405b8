"""After the channel layer was out of reach (a Redis restart): notice it, and publish again what it lost.

Events are sent once, after commit (``games.live.events``): a move committed while Redis
was down reached nobody, and a process whose subscriptions were down missed what
others sent. Nobody would have learned that it was their turn. So every server
process sends itself a probe over the layer every ``PROBE_EVERY_S``; a probe that
cannot be sent, or does not come back within ``PROBE_TIMEOUT_S`` and is lost (not
merely late on a busy process, with no broken connection), means this process lost
the layer from its last good probe on. Channels' pub/sub layer
reconnects and subscribes again by itself (a second or so after Redis returns);
once a probe comes back, this process publishes again every table changed while
it was out of reach (``service.redeliver``): its watchers, wherever they are, and
its game's driver hear the table as it is now, and a turn clock that began
meanwhile starts again. Every process does this for its own outage, so what one
process missed is made up by itself.

A server on the in-memory layer (one process, ``make run``) cannot lose it: no probes.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from datetime import datetime, timedelta

from channels.layers import BaseChannelLayer, InMemoryChannelLayer, get_channel_layer
from django.utils import timezone

from games.live import metrics, service
from games.live.database import database_sync_to_async
from games.live.events import REDIS_DOWN

log = logging.getLogger(__name__)

PROBE_EVERY_S = 0.5  # under the pub/sub layer's second between reconnects: no reconnect goes unnoticed
PROBE_TIMEOUT_S = 2.0  # a probe not back by then: the layer was lost (a busy loop may take a while)
RETRY_FIRST_S = 0.1  # while the layer is out of reach, probes go out this often, doubling up to
RETRY_MAX_S = 0.5
# Changes are timed by the clocks of the processes that made them, maybe on other machines: the outage's
# window is widened by this much on each side (a table published once more does no harm; one missed would).
CLOCK_SKEW = timedelta(seconds=2)


class _OutageNoise(logging.Filter):
    """Drops channels-redis's traceback a second while Redis is out of reach (the watch says it once, and its
    end), noting when its subscriptions' connection last broke."""

    def __init__(self) -> None:
        super().__init__()
        self.broke_at = 0.0  # monotonic

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], REDIS_DOWN):
            self.broke_at = time.monotonic()
            return False
        return True


_quiet = _OutageNoise()


class LayerWatch:
    """Probes this process's channel layer; when it comes back after an outage, republishes what changed."""

    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None
        self._numbers = itertools.count(1)
        self._heard = 0  # the highest probe number that came back
        self._got: set[int] = set()  # the probe numbers that came back lately
        self._arrived = asyncio.Event()
        self.outages = 0  # how many this process noticed (tests, and the log)

    def start(self) -> None:
        """Watch the layer from the running event loop (a server's), once per loop; not for in-memory layers."""
        loop = asyncio.get_running_loop()
        if self._task is not None and not self._task.done() and self._task.get_loop() is loop:
            return
        layer = get_channel_layer()
        if layer is None or isinstance(layer, InMemoryChannelLayer):
            return
        self._arrived = asyncio.Event()
        logging.getLogger("channels_redis.pubsub").addFilter(_quiet)  # once: a filter is added once
        self._task = loop.create_task(self._run(layer), name="layer-watch")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None and task.get_loop() is asyncio.get_running_loop():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def _run(self, layer: BaseChannelLayer) -> None:
        channel = await self._subscribe(layer)
        reader = asyncio.get_running_loop().create_task(self._read(layer, channel), name="layer-watch-read")
        try:
            last_good, good_since = timezone.now(), time.monotonic()
            while True:
                sent_at, sent_since = timezone.now(), time.monotonic()
                number = await self._probe(layer, channel, PROBE_TIMEOUT_S)
                if number is not None and number in self._got:
                    last_good, good_since = sent_at, sent_since
                    await asyncio.sleep(PROBE_EVERY_S)
                    continue
                back_at = await self._until_back(layer, channel, {number: sent_at} if number else {})
                if number in self._got and _quiet.broke_at < good_since:
                    # It came back late, and no connection broke: a busy process, not an outage. Nothing was lost.
                    log.info("a probe of the channel layer came back late (a busy process)")
                else:
                    self.outages += 1
                    metrics.LAYER_OUTAGES.inc()
                    log.warning(
                        "the channel layer was out of reach for about %.1f s; publishing again what changed meanwhile",
                        time.monotonic() - sent_since,
                        extra={"event": "layer_back"},
                    )
                    await self._recover(last_good, back_at)
                last_good, good_since = back_at, time.monotonic()
        finally:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)

    async def _subscribe(self, layer: BaseChannelLayer) -> str:
        delay = RETRY_FIRST_S
        while True:
            try:
                # channels-redis takes a prefix; the stubs know only the base layer's new_channel().
                return await layer.new_channel("layer-watch.")  # type: ignore[call-arg]
            except REDIS_DOWN:
                await asyncio.sleep(delay)
                delay = min(RETRY_MAX_S, delay * 2)

    async def _read(self, layer: BaseChannelLayer, channel: str) -> None:
        while True:
            message = await layer.receive(channel)  # never cancelled but at the end: pub/sub unsubscribes then
            number = int(message.get("number", 0))
            self._heard = max(self._heard, number)
            if len(self._got) > 100:
                self._got = {n for n in self._got if n > self._heard - 20}
            self._got.add(number)
            self._arrived.set()

    async def _send_probe(self, layer: BaseChannelLayer, channel: str) -> int | None:
        """Send a probe; its number, or None if it could not be sent."""
        number = next(self._numbers)
        try:
            await layer.send(channel, {"type": "layer.probe", "number": number})
        except REDIS_DOWN:
            return None
        return number

    async def _probe(self, layer: BaseChannelLayer, channel: str, timeout: float) -> int | None:
        """Send a probe and wait up to ``timeout`` for it; its number (None if it could not be sent)."""
        number = await self._send_probe(layer, channel)
        if number is None:
            log.warning("the channel layer is out of reach; events are published again once it is back")
            return None
        ends = time.monotonic() + timeout
        while self._heard < number:
            self._arrived.clear()
            left = ends - time.monotonic()
            if left <= 0:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), left)
        return number

    async def _until_back(self, layer: BaseChannelLayer, channel: str, sent: dict[int, datetime]) -> datetime:
        """Probe with back-off until one comes back; when the last probe that came back was sent (this process
        heard the layer from then on: messages come in order). ``sent``: the probe that did not come back."""
        sent = dict(sent)  # the probes of this outage, by number: when each was sent
        delay = RETRY_FIRST_S
        while True:
            at = timezone.now()
            number = await self._send_probe(layer, channel)
            if number is not None:
                sent[number] = at
            self._arrived.clear()
            back = [n for n in sent if n <= self._heard]
            if not back:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._arrived.wait(), delay)
                back = [n for n in sent if n <= self._heard]
            if back:
                return sent[max(back)]  # surely heard (a lower number may have been lost)
            delay = min(RETRY_MAX_S, delay * 2)

    async def _recover(self, since: datetime, until: datetime) -> None:
        """Publish again every table changed while this process was out of reach of the layer."""
        since, until = since - CLOCK_SKEW, until + CLOCK_SKEW
        try:
            tables = await database_sync_to_async(service.tables_changed_between)(since, until)
            published = 0
            for table_id in tables:
                published += await database_sync_to_async(service.redeliver)(table_id, since, until)
        except Exception:  # the database is out of reach too: the pages' pings still find what they missed
            log.exception("could not publish the tables changed while the channel layer was out of reach")
            return
        metrics.TABLES_REDELIVERED.inc(published)
        log.warning(
            "published %s tables again that changed while the channel layer was out of reach",
            published,
            extra={"event": "tables_redelivered", "tables": published},
        )


watch = LayerWatch()
