"""The leaderboard and each player's profile: rating, games, results, rating history and accuracy.

A profile shows the games its player finished that the visitor may see
(``games.access``): a stranger sees the public ones; private games show only
to those who sat in them. Ratings come from rated games, which are never
private, so the rating history hides nothing.
"""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.db.models import Count, Prefetch, Q, Sum
from django.utils.formats import date_format
from django.utils.translation import gettext

from games import access
from games.models import Competitor, Game, GameSeat, Player, RatingChange, TeamMember
from games.pages import charts, stored_analyses
from games.pages.names import local_bot_label, local_player_name
from games.pages.stats import wilson
from games.summaries.ratings import SIGMAS_SHOWN

WHO = {"all": None, "people": (Competitor.PERSON,), "bots": (Competitor.BOT, Competitor.REMOTE)}
LEADERBOARD_SIZE = 100
PAGE_SIZE = 25
ACCURACY_GAMES = 100  # the profile's accuracy is the mean over the analysed ones of the last 100 games
HISTORY_POINTS = 200  # a longer rating history is thinned to about this many points


# -- accuracy from the card-by-card analysis (i13-analysis) ------------------------------------------


def seat_accuracies(game_ids: list[int]) -> dict[tuple[int, int], float]:
    """The accuracy (0..100) of each analysed seat of these games, by (game id, seat); others are left out.

    The one place the profiles ask the game analysis for numbers: a game without a
    finished analysis has no entry, and the page says "not analysed yet".
    """
    return stored_analyses.accuracies_by_seat(game_ids)


# -- the leaderboard --------------------------------------------------------------------------------


def rating_view(competitor: Competitor) -> dict[str, Any]:
    return {
        "mu": competitor.mu,
        "spread": SIGMAS_SHOWN * competitor.sigma,
        "ordinal": competitor.ordinal,
        "games": competitor.rated_games,
    }


def display_name(competitor: Competitor) -> str:
    """A person's current name, or a bot's name (a built-in one's in the page's language)."""
    if competitor.player_id and competitor.player:
        return competitor.player.name
    if competitor.kind == Competitor.BOT and competitor.bot:
        return local_bot_label(competitor.bot)
    return competitor.name


def leaderboard(who: str) -> list[dict[str, Any]]:
    """The rated competitors of a kind ("all", "people", "bots"), best first by mu - 3 sigma."""
    query = Competitor.objects.filter(rated_games__gt=0).select_related("player")
    if WHO.get(who):
        query = query.filter(kind__in=WHO[who])
    rows = []
    for rank, competitor in enumerate(query.order_by("-ordinal", "pk")[:LEADERBOARD_SIZE], start=1):
        rows.append(
            {"rank": rank, "competitor": competitor, "name": display_name(competitor), **rating_view(competitor)}
        )
    return rows


def competitor_of_player(player: Player | None) -> Competitor | None:
    return Competitor.objects.filter(player=player).first() if player is not None else None


# -- a profile ------------------------------------------------------------------------------------


def _history_chart(competitor: Competitor) -> tuple[Any, int]:
    changes = list(RatingChange.objects.filter(competitor=competitor).order_by("seq").values("mu", "sigma", "at"))
    step = max(1, len(changes) // HISTORY_POINTS)
    kept = changes[::step]
    if changes and kept[-1] is not changes[-1]:
        kept.append(changes[-1])
    points = [charts.Point(date_format(c["at"], "DATE_FORMAT"), c["mu"], SIGMAS_SHOWN * c["sigma"]) for c in kept]
    title = gettext("Rating of {name} after each rated game").format(name=display_name(competitor))
    return charts.line_with_band(points, title), len(changes)


def _game_rows(members: list[TeamMember], accuracy: dict[tuple[int, int], float]) -> list[dict[str, Any]]:
    rows = []
    for member in members:
        game = member.game
        seats = list(game.seats.all())
        mine = [s for s in seats if s.position % 2 == member.team]
        held = [s.position for s in mine if _holds(s, member)]
        scores = [accuracy[(game.pk, p)] for p in held if (game.pk, p) in accuracy]
        points = game.points or [0, 0]
        rows.append(
            {
                "game": game,
                "mode": game.mode,
                # No partner: it held both seats of its team (a bot can).
                "partner": ", ".join(local_player_name(s) for s in mine if s.position not in held),
                "opponents": ", ".join(local_player_name(s) for s in seats if s.position % 2 != member.team),
                "score": (points[member.team], points[1 - member.team]),
                "result": "draw" if member.drawn else ("won" if member.won else "lost"),
                "advantage": member.advantage,
                "accuracy": sum(scores) / len(scores) if scores else None,
                "date": member.finished_at,
                "private": member.private,
            }
        )
    return rows


def _holds(seat: GameSeat, member: TeamMember) -> bool:
    """Whether this seat was the member's (it held ``member.seats`` seats of its team from ``member.seat`` on)."""
    return seat.position == member.seat or (member.seats == 2 and seat.position % 2 == member.team)


def profile(competitor: Competitor, viewer: Player | None, page: str | None) -> dict[str, Any]:
    """Everything a profile page shows, as the viewer may see it."""
    visible = TeamMember.objects.filter(competitor=competitor, game__in=access.visible_games(viewer).values("pk"))
    totals = visible.aggregate(
        games=Count("pk"),
        won=Count("pk", filter=Q(won=True)),
        drawn=Count("pk", filter=Q(drawn=True)),
        advantage=Sum("advantage"),
    )
    games = totals["games"]
    members = Paginator(
        visible.select_related("game")
        .prefetch_related(Prefetch("game__seats", queryset=GameSeat.objects.order_by("position")))
        .order_by("-finished_at", "-pk"),
        PAGE_SIZE,
    ).get_page(page)
    recent = list(
        visible.order_by("-finished_at", "-pk").values_list("game_id", "team", "seat", "seats")[:ACCURACY_GAMES]
    )
    accuracy = seat_accuracies(sorted({m.game_id for m in members.object_list} | {r[0] for r in recent}))
    rows = _game_rows(list(members.object_list), accuracy)
    analysed = [
        accuracy[(game_id, p)]
        for game_id, team, seat, seats in recent
        for p in range(4)
        if (game_id, p) in accuracy and (p == seat or (seats == 2 and p % 2 == team))
    ]
    chart, history_length = _history_chart(competitor)
    rank = None
    if competitor.rated_games:
        rank = Competitor.objects.filter(rated_games__gt=0, ordinal__gt=competitor.ordinal).count() + 1
    low, high = wilson(totals["won"], games)
    return {
        "competitor": competitor,
        "name": display_name(competitor),
        "rating": rating_view(competitor),
        "rank": rank,
        "games": games,
        "won": totals["won"],
        "drawn": totals["drawn"],
        "lost": games - totals["won"] - totals["drawn"],
        "win_rate": totals["won"] / games if games else None,
        "win_interval": (low, high),
        "mean_advantage": (totals["advantage"] or 0) / games if games else None,
        "rows": rows,
        "page": members,
        "accuracy": sum(analysed) / len(analysed) if analysed else None,
        "accuracy_games": len({g for g, *_ in recent if any((g, p) in accuracy for p in range(4))}),
        "history_chart": chart,
        "history_length": history_length,
    }


def rating_changes(game: Game) -> list[dict[str, Any]]:
    """How a rated game moved its players' ratings, for its result page (empty for a casual game)."""
    changes = RatingChange.objects.filter(game=game).select_related("competitor__player").order_by("competitor__pk")
    return [
        {
            "competitor": change.competitor,
            "name": display_name(change.competitor),
            "before": change.mu_before,
            "after": change.mu,
            "delta": change.mu - change.mu_before,
            "spread": SIGMAS_SHOWN * change.sigma,
        }
        for change in changes
    ]
