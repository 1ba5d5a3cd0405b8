"""The front end's translations: Django's JavaScript catalogue, cached per language and per version.

``static/js/i18n.js`` reads the catalogue (``window.django``) that ``/jsi18n/`` defines. Building it
reads the compiled ``djangojs.mo`` files of every app, so the answer is cached on the server (per
language: the cache key carries the active language) and in the browser. The script's URL names the
language and a digest of the compiled catalogues, so that a browser never keeps the catalogue of
another language after a switch, nor an old one after a deploy with new translations.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import get_language
from django.views.decorators.cache import cache_page
from django.views.i18n import JavaScriptCatalog

CATALOGUE_SECONDS = 24 * 3600


def _digest() -> str:
    digest = hashlib.sha256()
    for folder in settings.LOCALE_PATHS:
        for path in sorted(Path(folder).glob("*/LC_MESSAGES/djangojs.mo")):
            digest.update(path.parent.parent.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


_cached_digest = cache(_digest)


def catalogue_version() -> str:
    """A short digest of every compiled ``djangojs.mo`` under LOCALE_PATHS (changes with the translations).

    Read once per process; in DEBUG at every page, so that a ``compilemessages`` shows at once.
    """
    return _digest() if settings.DEBUG else _cached_digest()


@cache
def _cached_catalogue(version: str):
    return cache_page(CATALOGUE_SECONDS, key_prefix=f"jsi18n-{version}")(JavaScriptCatalog.as_view())


def javascript_catalog(request: HttpRequest) -> HttpResponse:
    """``JavaScriptCatalog`` for the active language, cached for a day on the server and in the browser."""
    return _cached_catalogue(catalogue_version())(request)


def catalogue_script() -> SafeString:
    """The ``<script>`` that loads the catalogue of the active language (before any module reads it)."""
    url = f"{reverse('javascript-catalog')}?l={get_language() or settings.LANGUAGE_CODE}&v={catalogue_version()}"
    return format_html('<script src="{}"></script>', url)
