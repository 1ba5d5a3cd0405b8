"""The embedded default's channel layer: Channels' in-memory layer, without its costs that grow with sockets.

Channels' ``InMemoryChannelLayer`` walks every channel and every group
membership to expire old messages on each ``receive`` and ``group_send`` — with
a thousand sockets, a thousand steps for every message — and starts a task per
member and copies the message once per member for each ``group_send``. This
layer expires at most once a second, and sends a group's message to its members
directly, as one copy that they share (consumers only read messages). The
semantics are Channels': capacity per channel, expiry, groups.
"""

from __future__ import annotations

import asyncio
import logging
import time
from copy import deepcopy

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer

log = logging.getLogger(__name__)

CLEAN_EVERY_SECONDS = 1.0


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
