"""URL configuration."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path

from games import admin as games_admin
from jassweb import pwa
from jassweb.jsi18n import javascript_catalog


def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``, which browsers ask for where a page names no icon (JSON, a download): the static one."""
    return HttpResponsePermanentRedirect(static("icons/favicon.ico"))


# 404.html and 500.html (templates/) are Django's error pages: in the site's look and the visitor's language.
urlpatterns = [
    path("favicon.ico", favicon),
    # The admin's log-in, limited like the site's (games/admin.py), before the admin's own.
    path(f"{settings.JASSWEB_ADMIN_PATH}login/", games_admin.admin_login),
    path(settings.JASSWEB_ADMIN_PATH, admin.site.urls),  # the operator's view (games/admin.py)
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the header's language switch
    path("jsi18n/", javascript_catalog, name="javascript-catalog"),  # static/js/i18n.js reads it
    path("sw.js", pwa.service_worker, name="service_worker"),  # the app's worker, for every page (jassweb/pwa.py)
    path("manifest.webmanifest", pwa.manifest, name="manifest"),
    path("", include("tournaments.urls")),
    path("", include("games.urls")),
]
