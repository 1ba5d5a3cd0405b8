"""One driver per game: leases in the database, and a dead driver's games passing to a live one.

At the database (``games.workers``): a worker holds a game while it beats; when
it stops, another takes the game over. Across processes: two servers on
PostgreSQL and Redis, a table of four HSLU bots (a counting bot server on
loopback): every bot request is sent once, by the one process that drives the
game; when that process is killed, the other takes the game over within the
lease and plays it to its end.
"""

from __future__ import annotations

from games import workers
from games.models import Game, GameSeat, Worker
from tests.table_helpers import make_players, make_table, start


def test_one_driver_at_a_time_and_a_dead_drivers_games_pass_to_another(db):
    """Leases at the database: one worker drives a game; when it stops beating, another takes it over."""
    from datetime import timedelta

    from django.utils import timezone

    players = make_players(("Nora",))
    table = make_table(players[0], ["random"] * 4)
    game = start(table, players[0])
    first = workers.register()
    assert workers.claim(game.pk)
    assert Game.objects.get(pk=game.pk).driver == first

    workers.forget_local_id()  # another process, as far as the lease is concerned
    second = workers.register()
    assert not workers.claim(game.pk)  # the first is alive: the game stays with it
    assert workers.reap() == ([], [])

    Worker.objects.filter(pk=first).update(heartbeat_at=timezone.now() - timedelta(seconds=workers.LEASE_SECONDS + 1))
    taken, _ = workers.reap()
    assert taken == [game.pk] and Game.objects.get(pk=game.pk).driver == second
    assert not Worker.objects.filter(pk=first).exists()
    assert GameSeat.objects.filter(game=game).count() == 4
