"""The site as an app on a phone: its web app manifest and its service worker (``static/js/sw.js``).

The service worker is served from the site's root so that it may look after every page
(a worker's scope is its own folder and below); it caches the static files only.
"""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.templatetags.static import static
from django.utils.translation import gettext


@cache
def _worker() -> bytes:
    return (settings.BASE_DIR / "static" / "js" / "sw.js").read_bytes()


def service_worker(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(_worker(), content_type="text/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    response["Cache-Control"] = "no-cache"  # browsers look for a new worker on every visit
    return response


def manifest(request: HttpRequest) -> HttpResponse:
    data = {
        "name": "Jassweb",
        "short_name": "Jassweb",
        "description": gettext("Schieber Jass with people and bots"),
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#f5f2ea",
        "theme_color": "#153f28",
        "icons": [
            {"src": static(f"icons/app-{size}.png"), "sizes": f"{size}x{size}", "type": "image/png", "purpose": "any"}
            for size in (192, 512)
        ],
    }
    return JsonResponse(data, content_type="application/manifest+json", json_dumps_params={"ensure_ascii": False})
