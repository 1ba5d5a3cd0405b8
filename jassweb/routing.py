"""Websocket URL routes."""

from __future__ import annotations

from django.urls import path

from games.live.consumers import LobbyConsumer, TableConsumer
from tournaments.consumers import TournamentConsumer

# Channels routes ASGI applications with Django's path(); django-stubs' path() takes views only.
websocket_urlpatterns = [
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),  # type: ignore[arg-type]
    path("ws/lobby/", LobbyConsumer.as_asgi()),  # type: ignore[arg-type]
    path("ws/tournaments/<int:tournament_id>/", TournamentConsumer.as_asgi()),  # type: ignore[arg-type]
]
