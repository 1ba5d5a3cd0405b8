"""Channel layers: the embedded default's in-memory one, and the bots' Redis one that outlives a Redis restart.

Channels' ``InMemoryChannelLayer`` walks every channel and every group
membership to expire old messages on each ``receive`` and ``group_send`` — with
a thousand sockets, a thousand steps for every message — and starts a task per
member and copies the message once per member for each ``group_send``. This
layer expires at most once a second, and sends a group's message to its members
directly, as one copy that they share (consumers only read messages). The
semantics are Channels': capacity per channel, expiry, groups.

``ReconnectingRedisChannelLayer`` is Channels' classic Redis layer (the bots'
queue, ``JASSWEB_THINKERS=channels``) whose ``receive`` waits for Redis to come
back instead of raising: ``runworker`` ends when its layer's ``receive`` raises,
so a Redis restart used to stop every bot worker.
"""

from __future__ import annotations

import asyncio
import logging
import time
from copy import deepcopy

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer
from channels_redis.core import RedisChannelLayer

from games.live.events import REDIS_DOWN

log = logging.getLogger(__name__)

CLEAN_EVERY_SECONDS = 1.0
RETRY_FIRST_S = 0.1  # the first wait before receiving again from a Redis that went away; doubled each time
RETRY_MAX_S = 1.0  # at most this: a Redis that is back is used again within a second


class LocalChannelLayer(InMemoryChannelLayer):
    """In-memory layer for one process (``make run``): expiry amortised, group sends without a task per member."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._cleaned = 0.0

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._cleaned < CLEAN_EVERY_SECONDS:
            return
        self._cleaned = now
        super()._clean_expired()  # type: ignore[misc]  # private in channels, so not in its stubs

    def _put(self, channel: str, message: dict) -> None:
        queue = self.channels.get(channel)
        if queue is None:
            queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
        try:
            queue.put_nowait((time.time() + self.expiry, message))
        except asyncio.QueueFull:
            raise ChannelFull(channel) from None

    async def send(self, channel: str, message: dict) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_channel_name(channel)
        assert "__asgi_channel__" not in message
        self._put(channel, deepcopy(message))

    async def group_send(self, group: str, message: dict) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        members = self.groups.get(group)
        if not members:
            return
        shared = deepcopy(message)
        for channel in list(members):
            try:
                self._put(channel, shared)
            except ChannelFull:
                log.warning("channel %s is full: a %s to group %s was dropped", channel, message.get("type"), group)


class ReconnectingRedisChannelLayer(RedisChannelLayer):
    """Channels' classic Redis layer whose ``receive`` outlives a Redis restart: it waits and receives again.

    Nothing is lost by trying again: a message is taken from Redis in one command, so a ``receive`` that
    failed took none. Sends still raise (their callers decide: a thinker falls back to the rule bot, a
    worker's answer is given up).
    """

    async def receive(self, channel: str) -> dict:
        delay = 0.0
        while True:
            try:
                message = await super().receive(channel)
            except REDIS_DOWN as exc:
                if not delay:
                    log.warning("Redis is out of reach (%s); receiving on %s again once it is back", exc, channel)
                delay = min(RETRY_MAX_S, delay * 2 or RETRY_FIRST_S)
                await asyncio.sleep(delay)
                continue
            if delay:
                log.warning("Redis is back; receiving on %s again", channel)
            return message
