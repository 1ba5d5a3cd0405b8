"""URL configuration."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path(settings.JASSWEB_ADMIN_PATH, admin.site.urls),  # the operator's view (games/admin.py)
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the header's language switch
    path("", include("games.urls")),
]
