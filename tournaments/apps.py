from __future__ import annotations

from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        # games never imports tournaments: it tells of a game's end, a clock run out and a driver's heartbeat
        # by its signals, and the tournament service moves its tournaments on from there.
        from games import signals

        signals.game_ended.connect(_game_ended, dispatch_uid="tournaments.game_ended")
        signals.clock_ran_out.connect(_clock_ran_out, dispatch_uid="tournaments.clock_ran_out")
        signals.driver_beat.connect(_driver_beat, dispatch_uid="tournaments.driver_beat")


def _game_ended(sender: object, game, **kwargs: object) -> None:  # type: ignore[no-untyped-def]
    from tournaments import service

    service.game_ended(game)


def _clock_ran_out(sender: object, game, seat: int, **kwargs: object) -> None:  # type: ignore[no-untyped-def]
    from tournaments import service

    service.clock_ran_out(game, seat)


def _driver_beat(sender: object, **kwargs: object) -> None:
    from tournaments import service

    service.tick()
