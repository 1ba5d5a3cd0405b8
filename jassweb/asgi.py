"""ASGI entry point: HTTP through Django (static files included), websockets through Channels."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jassweb.settings")

from django.core.asgi import get_asgi_application

django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ChannelNameRouter, ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

from bots.thinkers import CHANNEL as THINK_CHANNEL  # noqa: E402
from bots.thinkers import ThinkConsumer  # noqa: E402
from jassweb.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        # Daphne serves /static/ itself, so `make run` needs no separate web server.
        "http": ASGIStaticFilesHandler(django_asgi_app),
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
        # Bot thinkers on other machines: `manage.py runworker --layer bots bots-think` (JASSWEB_THINKERS=channels).
        "channel": ChannelNameRouter({THINK_CHANNEL: ThinkConsumer.as_asgi()}),
    }
)
