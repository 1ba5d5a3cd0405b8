"""Rows of the game lists ("My games", recent games): who played, the score, the result."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, QuerySet
from django.utils.translation import gettext, ngettext, pgettext

from games.models import Game, GameSeat, Player
from games.pages.names import local_player_name

PAGE_SIZE = 25


def with_seats(games: QuerySet[Game]) -> QuerySet[Game]:
    """The games with their table and seats in three queries, whatever the page size."""
    return games.select_related("table").prefetch_related(
        Prefetch("seats", queryset=GameSeat.objects.order_by("position"))
    )


def _result(game: Game, my_team: int | None) -> tuple[str, str]:
    """(code, words) of a game's outcome, from the viewer's side when they played."""
    if game.status == Game.RUNNING:
        return "running", gettext("In progress")
    if game.status == Game.ABANDONED:
        return "abandoned", pgettext("status", "Abandoned")
    if game.winner is None:
        return "draw", gettext("Draw")
    if my_team is None:
        return "finished", gettext("North & South won") if game.winner == 0 else gettext("East & West won")
    return ("won", gettext("Won")) if game.winner == my_team else ("lost", gettext("Lost"))


def game_row(game: Game, player: Player | None) -> dict[str, Any]:
    seats = list(game.seats.all())
    mine = next((s.position for s in seats if player is not None and s.player_id == player.pk), None)
    my_team = None if mine is None else mine % 2
    code, words = _result(game, my_team)
    teams = [[local_player_name(s) for s in seats if s.position % 2 == team] for team in (0, 1)]
    points = list(game.points) if game.points else [0, 0]
    row: dict[str, Any] = {
        "game": game,
        "id": game.pk,
        "table": game.table.name,
        "private": game.table.private,
        "imported": game.table.imported,
        "mode": game.mode,
        "length": (
            ngettext("{count} round", "{count} rounds", game.round_count or 0).format(count=game.round_count)
            if game.mode == "fair"
            else gettext("to {target}").format(target=game.target)
        ),
        "teams": teams,
        "points": points,
        "result": code,
        "result_words": words,
        "date": game.finished_at or game.created_at,
        "over": game.status != Game.RUNNING,
    }
    if my_team is None and game.table.imported and player is not None and game.table.created_by_id == player.pk:
        # A record you imported and did not sit in: both teams, North & South first, as on the result page.
        row["imported_by_me"] = True
        row["partner"] = "—"
        row["opponents"] = [
            gettext("{north_south} vs {east_west}").format(
                north_south=" & ".join(teams[0]), east_west=" & ".join(teams[1])
            )
        ]
        row["my_points"], row["their_points"] = points[0], points[1]
    if my_team is not None and mine is not None:
        row["seat"] = mine
        row["partner"] = next((s.name for s in seats if s.position == (mine + 2) % 4), "")
        row["opponents"] = teams[1 - my_team]
        row["my_points"], row["their_points"] = points[my_team], points[1 - my_team]
    return row


def series(game: Game, most: int = 50) -> list[Game]:
    """The games the same four played one after another (*Play again*) that ``game`` belongs to, in order."""
    first = game
    for _ in range(most):
        if first.previous_id is None:
            break
        first = Game.objects.only("pk", "previous_id").get(pk=first.previous_id)
    games = [first]
    while len(games) < most:
        following = Game.objects.filter(previous_id=games[-1].pk).only("pk", "previous_id").first()
        if following is None:
            break
        games.append(following)
    return games
