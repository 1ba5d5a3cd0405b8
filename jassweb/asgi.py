"""ASGI entry point: HTTP through Django (static files included), websockets through Channels."""

from __future__ import annotations

import gc
import os
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jassweb.settings")

from django.core.asgi import get_asgi_application

django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ChannelNameRouter, ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.urls import get_resolver  # noqa: E402

from bots.thinkers import CHANNEL as THINK_CHANNEL  # noqa: E402
from bots.thinkers import ThinkConsumer  # noqa: E402
from games.live.protocol import MAX_FRAME  # noqa: E402
from jassweb import shutdown  # noqa: E402
from jassweb.http_threads import RequestThreads  # noqa: E402
from jassweb.routing import websocket_urlpatterns  # noqa: E402
from jassweb.websocket_transport import limit_daphne_messages  # noqa: E402

# The transport refuses what the consumers would refuse anyway, with a clean 1009 close.
limit_daphne_messages(MAX_FRAME)

from games.live import bothooks, metrics  # noqa: E402

request_threads = RequestThreads(django_asgi_app, int(os.environ.get("JASSWEB_HTTP_THREADS", "8")))


async def http_application(scope: Any, receive: Any, send: Any) -> None:
    """Django, for every HTTP request; the first one also starts this process's game driver.

    Daphne has no start-up hook, and a server must drive games (take over a dead server's, start a
    tournament at its time) before anyone opens a websocket: a load balancer's /healthz is enough.
    """
    bothooks.driver().ensure_started()
    shutdown.install()  # SIGTERM: stop accepting, hand the games over, send the sockets elsewhere, exit
    await request_threads.serve(scope, receive, send)


application = ProtocolTypeRouter(
    {
        # /static/ is served by WhiteNoise's middleware, so `make run` needs no separate web server.
        "http": http_application,
        # (types-channels wants its own kind of URL pattern, which Django's path() is at run time.)
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),  # type: ignore[arg-type]
        # Bot thinkers on other machines: `manage.py runworker --layer bots bots-think` (JASSWEB_THINKERS=channels).
        "channel": ChannelNameRouter({THINK_CHANNEL: ThinkConsumer.as_asgi()}),
    }
)

# Everything loaded by now lives as long as the server: Django, Channels, the views (not the bots' numba
# kernels: they load where a bot or an analysis first needs them). Python's full garbage collections walked
# all of it again and again, stopping every table for 200-500 ms under load (and a quarter of the server's
# time at stress pace); frozen, they walk only what the server made since, and the older generations are
# collected half as often.
get_resolver().url_patterns  # noqa: B018  (import the views before the freeze)
gc.collect()
gc.freeze()
gc.set_threshold(*settings.JASSWEB_GC_THRESHOLDS)
metrics.time_garbage_collections()  # jassweb_gc_pause_seconds: what the tables waited for the collector
