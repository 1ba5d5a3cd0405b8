from __future__ import annotations

from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        # A guest who signs up or logs in keeps what they did (a user_logged_in receiver).
        from games import signals

        # Play-now tables whose wait is over start on a game-driving server's heartbeat.
        signals.driver_beat.connect(_play_now_due, dispatch_uid="games.play_now_due")


def _play_now_due(sender: object, **kwargs: object) -> None:
    from games.live import service

    service.play_now_due()
