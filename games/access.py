"""Who may see which game: the one rule behind history, replay, records and live views.

A game at a public table is everyone's to watch, replay and download once it
is over. A game at a private table is visible only to those who sat in it,
and to whoever opened the table (or imported the record) — everyone else gets
a 404, as if the game did not exist. Hands stay secret while a game runs:
replays and records of running games open when they are over.
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q, QuerySet

from games.models import Game, GameSeat, Player


def may_see(game: Game, player: Player | None) -> bool:
    """True when ``player`` (``None``: an anonymous visitor) may see ``game`` at all."""
    if not game.table.private:
        return True
    if player is None:
        return False
    return game.table.created_by_id == player.pk or game.seats.filter(player=player).exists()


def visible_games(player: Player | None) -> QuerySet[Game]:
    """Every game ``player`` may see, as one query."""
    public = Q(table__private=False)
    if player is None:
        return Game.objects.filter(public)
    sat = Exists(GameSeat.objects.filter(game=OuterRef("pk"), player=player))
    return Game.objects.filter(public | Q(table__created_by=player) | Q(sat))


def my_games(player: Player) -> QuerySet[Game]:
    """The games ``player`` sat in or imported (as a record), newest first."""
    sat = Exists(GameSeat.objects.filter(game=OuterRef("pk"), player=player))
    imported = Q(table__imported=True, table__created_by=player)
    return Game.objects.filter(Q(sat) | imported).order_by("-created_at", "-pk")


def recent_games() -> QuerySet[Game]:
    """Finished and abandoned games at public tables, newest first: the public history."""
    return (
        Game.objects.filter(table__private=False)
        .exclude(status=Game.RUNNING)
        .order_by("-finished_at", "-created_at", "-pk")
    )
