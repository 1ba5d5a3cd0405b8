"""The framework's ceiling for bench/live_tables.py: the least a Channels table broadcast can cost.

One ``AsyncWebsocketConsumer`` at ``/ws/tables/<id>/`` joins the group ``t<id>``
and relays every text frame it receives to the whole group (each member sends
it on to its socket). No database, no sessions, no rendering: only daphne, the
ASGI router and the channel layer the real server would use: ``CHANNEL_LAYERS``
is taken from jassweb/settings.py under the same environment (``REDIS_URL`` set:
the Redis pub/sub layer with ``JASSWEB_CHANNEL_PREFIX``; unset: the in-memory
layer), so the ceiling follows whatever the project configures.

    .venv/bin/python -m daphne -b 127.0.0.1 -p 8100 bench.ceiling_app:application
"""

from __future__ import annotations

from typing import Any

import django
from django.conf import settings

if not settings.configured:
    # The project's settings module read as plain data: its layer configuration, nothing else.
    from jassweb import settings as project

    settings.configure(
        DEBUG=False,
        SECRET_KEY="ceiling-benchmark-only",
        ALLOWED_HOSTS=["*"],
        INSTALLED_APPS=["channels"],
        CHANNEL_LAYERS=project.CHANNEL_LAYERS,
        USE_TZ=True,
    )
    django.setup()

from channels.generic.websocket import AsyncWebsocketConsumer
from channels.routing import ProtocolTypeRouter, URLRouter
from django.urls import path


class RelayConsumer(AsyncWebsocketConsumer):
    """One socket at one table: whatever any member sends, every member receives."""

    async def connect(self) -> None:
        self.group = f"t{self.scope['url_route']['kwargs']['table_id']}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if text_data is not None:
            await self.channel_layer.group_send(self.group, {"type": "relay", "text": text_data})

    async def relay(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])


async def http_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answer every HTTP request with 200, so a start-up probe can see the server is up."""
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"ceiling\n"})


application = ProtocolTypeRouter(
    {
        "http": http_app,
        # Channels routes ASGI applications with Django's path(); the stubs take views only.
        "websocket": URLRouter([path("ws/tables/<int:table_id>/", RelayConsumer.as_asgi())]),  # type: ignore[list-item, arg-type]
    }
)
