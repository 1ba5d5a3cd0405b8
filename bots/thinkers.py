"""Bot thinking on other machines: Channels workers on the Redis channel layer.

With ``JASSWEB_THINKERS=channels`` a server does not think itself: the driver
sends each built-in bot's decision to the channel ``bots-think`` of the
``bots`` channel layer (Channels' classic Redis layer, a queue: each request
goes to exactly one worker) and awaits the answer on a reply channel of its
own. Any number of worker processes, on any machine that reaches the Redis,
serve that channel::

    DJANGO_SETTINGS_MODULE=jassweb.settings REDIS_URL=redis://host:6379/0 \\
        python manage.py runworker --layer bots bots-think

A request carries only the deciding seat's observation (never another hand),
the seed and the deadline. An answer that does not come within the deadline
(or a few seconds, for bots without one) is replaced by the rule bot's move,
decided here at once, so no table waits for a missing worker. A Redis restart
stops nobody: the workers wait for it to come back (``jassweb.layers``), and a
request that cannot be sent meanwhile is sent again until its deadline.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from typing import Any

from channels.consumer import SyncConsumer
from channels.layers import BaseChannelLayer, get_channel_layer

from bots import think
from games.engine import Action
from games.live import metrics
from jassweb.layers import REDIS_DOWN, RETRY_FIRST_S, RETRY_MAX_S

log = logging.getLogger(__name__)

LAYER = "bots"
CHANNEL = "bots-think"
GRACE_SECONDS = 1.0  # how long past its deadline an answer may still come
NO_DEADLINE_SECONDS = 5.0  # the wait for bots that have no time budget (random, rules)
FALLBACK_BOT = "rules"
# The prefix of a server's reply channels. Channels' classic Redis layer reads a process's channels of one
# prefix from one Redis list, one reader at a time: every reply channel of a process (the thinkers', the
# health check's) must share it, or one reader waits forever behind the other.
REPLY_PREFIX = "bot-replies."
CLOSE_WAIT_S = 0.2  # how long closing waits for the replies' reader to end (see ``close``)
ANSWER_S = 2.0  # how long a worker tries to send an answer while Redis is out of reach


class RemoteThinkers:
    """The driver's side: sends decisions to the workers and matches their answers."""

    def __init__(self) -> None:
        self.layer: BaseChannelLayer | None = None
        self.reply_channel: str | None = None
        self._pending: dict[int, asyncio.Future[Action]] = {}
        self._numbers = itertools.count(1)
        self._receiver: asyncio.Task[None] | None = None
        self.fallbacks = 0  # answers that did not come in time

    async def start(self) -> BaseChannelLayer:
        layer = self.layer = get_channel_layer(LAYER)
        if layer is None:
            raise RuntimeError("JASSWEB_THINKERS=channels needs the 'bots' channel layer (set REDIS_URL)")
        # channels-redis takes a prefix; the stubs know only the base layer's new_channel().
        reply_channel = self.reply_channel = await layer.new_channel(REPLY_PREFIX)  # type: ignore[call-arg]
        self._receiver = asyncio.get_running_loop().create_task(
            self._receive(layer, reply_channel), name="thinker-replies"
        )
        return layer

    async def close(self) -> None:
        if self._receiver is not None:
            # Cancelled inside its Redis BRPOP, the classic layer's receive waits for it to return (up to its
            # 5 s timeout, so that no message is lost): a stopping server stood that long for replies that
            # nobody would read. It ends by itself; the server need not wait for it.
            self._receiver.cancel()
            await asyncio.wait([self._receiver], timeout=CLOSE_WAIT_S)
        for future in self._pending.values():
            future.cancel()

    async def _receive(self, layer: BaseChannelLayer, reply_channel: str) -> None:
        while True:
            try:
                message = await layer.receive(reply_channel)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("receiving thinkers' answers failed; listening again")
                await asyncio.sleep(0.5)
                continue
            future = self._pending.pop(message.get("request", 0), None)  # requests count from 1
            if future is not None and not future.done():
                future.set_result(Action.from_code(message["code"]))

    async def think(self, turn: Any, deadline: float | None) -> Action:
        """The move of the built-in bot of ``turn`` (a ``BotTurn``), thought by a worker."""
        layer = self.layer if self.layer is not None else await self.start()
        number = next(self._numbers)
        future: asyncio.Future[Action] = asyncio.get_running_loop().create_future()
        self._pending[number] = future
        request = {
            "type": "bot.think",
            "request": number,
            "reply": self.reply_channel,
            "bot": turn.bot,
            "observation": think.observation_to_data(turn.observation),
            "seed": [turn.seed, turn.seq, turn.seat],
            "deadline": deadline,
        }
        wait = (deadline - time.time() + GRACE_SECONDS) if deadline else NO_DEADLINE_SECONDS
        ends = time.monotonic() + max(0.1, wait)
        try:
            await _send_until(layer, CHANNEL, request, ends)
            return await asyncio.wait_for(future, max(0.0, ends - time.monotonic()))
        except TimeoutError:
            self._pending.pop(number, None)
            self.fallbacks += 1
            metrics.THINKER_FALLBACKS.labels(turn.bot).inc()
            log.warning("no thinker answered for game %s move %s in time; the rule bot moves", turn.game_id, turn.seq)
            return think.think(FALLBACK_BOT, turn.observation, (turn.seed, turn.seq, turn.seat))


async def _send_until(layer: BaseChannelLayer, channel: str, message: dict[str, Any], ends: float) -> None:
    """Send ``message``; while Redis is out of reach, try again until ``ends`` (monotonic), then ``TimeoutError``."""
    delay = RETRY_FIRST_S
    while True:
        try:
            await layer.send(channel, message)
            return
        except REDIS_DOWN:
            if time.monotonic() + delay >= ends:
                raise TimeoutError from None
            await asyncio.sleep(delay)
            delay = min(RETRY_MAX_S, delay * 2)


class ThinkConsumer(SyncConsumer):
    """The worker's side (``runworker --layer bots bots-think``): one decision at a time, per process."""

    channel_layer_alias = LAYER

    def bot_think(self, message: dict[str, Any]) -> None:
        obs = think.observation_from_data(message["observation"])
        started = time.perf_counter()
        action = think.think(message["bot"], obs, tuple(message["seed"]), message.get("deadline"))
        metrics.THOUGHT.labels(message["bot"]).observe(time.perf_counter() - started)
        self._answer(message, {"type": "bot.thought", "request": message["request"], "code": action.code})

    def _answer(self, message: dict[str, Any], answer: dict[str, Any]) -> None:
        """Send ``answer`` to the server that asked: after a Redis restart each pooled connection fails once,
        so it is sent again for a moment; then the server plays the rule bot's move, and this worker goes on."""
        from asgiref.sync import async_to_sync

        try:
            async_to_sync(_send_until)(self.channel_layer, message["reply"], answer, time.monotonic() + ANSWER_S)
        except TimeoutError:
            log.warning("could not answer %s %s: Redis is out of reach", message["type"], message.get("request"))

    def bot_ping(self, message: dict[str, Any]) -> None:
        """A server's health check (``/healthz``): answer it, queued behind the decisions before it."""
        self._answer(message, {"type": "bot.pong", "nonce": message.get("nonce")})
