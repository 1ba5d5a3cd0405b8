from __future__ import annotations

from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        # A guest who signs up or logs in keeps what they did (a user_logged_in receiver).
        from games import identity  # noqa: F401
