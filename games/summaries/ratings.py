"""Ratings of people and bots after rated games, by OpenSkill (Plackett-Luce), never by hand.

Every competitor (``games.models.Competitor``: a person, a built-in bot, a
remote bot by its given name and URL) has a skill ``mu`` with an uncertainty
``sigma``; the leaderboard ranks by the conservative ``ordinal`` = mu - 3 sigma,
so that a newcomer with three lucky games does not top it.

A rated game's update is written in the transaction that ends the game
(``games.summaries.rows.record_game_end``), so a game's end and its rating rows commit
together or not at all. Every update first locks the one ``RatingLedger`` row
and takes the next number (``seq``): updates have one order, and ``rerate``
replays the rated games in that order from the default ratings and arrives at
the same numbers.

A team is its two seats. A competitor holding both seats of a team (a bot
playing with itself) counts twice in its team's strength and gets its update
once; one that plays on both teams (a bot against itself) learns nothing from
the game and keeps its rating.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from openskill.models import PlackettLuce

from games.models import Competitor, GameSummary, RatingChange, RatingLedger, TeamMember

MODEL = PlackettLuce()  # the library's defaults: mu 25, sigma 25/3, tau 25/300
DEFAULT_MU = MODEL.mu
DEFAULT_SIGMA = MODEL.sigma
SIGMAS_SHOWN = 2  # a rating is shown as mu ± 2 sigma (about a 95% interval)


def ordinal(mu: float, sigma: float) -> float:
    """The conservative rating the leaderboard ranks by: mu - 3 sigma."""
    return mu - 3 * sigma


def defaults() -> dict[str, float]:
    """The rating fields of a competitor that has played no rated game."""
    return {"mu": DEFAULT_MU, "sigma": DEFAULT_SIGMA, "ordinal": ordinal(DEFAULT_MU, DEFAULT_SIGMA)}


@dataclass(frozen=True)
class Update:
    """One competitor's rating before a game (the new one is on the competitor)."""

    competitor: Competitor
    mu_before: float
    sigma_before: float


def apply_result(teams: Sequence[Sequence[Competitor]], winner: int | None) -> list[Update]:
    """Move the ratings of two teams' competitors (in memory) after a game ``winner`` won (None: a draw)."""
    ratings = [[MODEL.rating(mu=c.mu, sigma=c.sigma) for c in team] for team in teams]
    ranks: list[float] = [0, 0] if winner is None else ([0, 1] if winner == 0 else [1, 0])
    result = MODEL.rate(ratings, ranks=ranks)
    on_both = {c.pk for c in teams[0]} & {c.pk for c in teams[1]}
    updates: dict[int, Update] = {}
    for team, new_ratings in zip(teams, result, strict=True):
        for competitor, new in zip(team, new_ratings, strict=True):
            if competitor.pk in on_both or competitor.pk in updates:
                continue
            updates[competitor.pk] = Update(competitor, competitor.mu, competitor.sigma)
            competitor.mu, competitor.sigma = new.mu, new.sigma
            competitor.ordinal = ordinal(new.mu, new.sigma)
            competitor.rated_games += 1
    return list(updates.values())


def teams_of(members: Iterable[TeamMember], competitors: dict[int, Competitor]) -> list[list[Competitor]]:
    """A game's two teams as seat lists (a competitor holding both seats of a team appears twice)."""
    teams: list[list[tuple[int, Competitor]]] = [[], []]
    for member in members:
        competitor = competitors[member.competitor_id]
        teams[member.team].extend([(member.seat, competitor)] * member.seats)
    return [[c for _, c in sorted(team, key=lambda entry: entry[0])] for team in teams]


def lock_ledger() -> RatingLedger:
    """Lock the one ledger row (every rating update holds it to its commit): updates happen one at a time."""
    ledger, _ = RatingLedger.objects.select_for_update().get_or_create(pk=1)
    return ledger


def _changes(game_id: int, seq: int, at: datetime, updates: list[Update]) -> list[RatingChange]:
    return [
        RatingChange(
            game_id=game_id,
            competitor=u.competitor,
            seq=seq,
            mu_before=u.mu_before,
            sigma_before=u.sigma_before,
            mu=u.competitor.mu,
            sigma=u.competitor.sigma,
            at=at,
        )
        for u in updates
    ]


_RATING_FIELDS = ["mu", "sigma", "ordinal", "rated_games", "rated_at"]


def rate_game(ledger: RatingLedger, summary: GameSummary, members: list[TeamMember]) -> None:
    """Update the ratings after one rated game; the caller's transaction holds the game's end and the ledger."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("a rating update belongs in the transaction that ends the game")
    ids = sorted({m.competitor_id for m in members})
    competitors = {c.pk: c for c in Competitor.objects.select_for_update().filter(pk__in=ids).order_by("pk")}
    ledger.last_seq += 1
    updates = apply_result(teams_of(members, competitors), summary.winner)
    for update in updates:
        update.competitor.rated_at = summary.finished_at
    Competitor.objects.bulk_update([u.competitor for u in updates], _RATING_FIELDS)
    RatingChange.objects.bulk_create(_changes(summary.game_id, ledger.last_seq, summary.finished_at, updates))
    GameSummary.objects.filter(pk=summary.game_id).update(rating_seq=ledger.last_seq)
    ledger.save(update_fields=["last_seq"])


def rerate() -> tuple[int, int]:
    """Recompute every rating from scratch: the rated games in their order, from the default ratings.

    Returns (rated games, competitors rated). One transaction: the ratings
    shown are the old ones or the new ones, never a mix.
    """
    with transaction.atomic():
        ledger = lock_ledger()
        competitors = {c.pk: c for c in Competitor.objects.select_for_update().order_by("pk")}
        for competitor in competitors.values():
            competitor.mu, competitor.sigma, competitor.ordinal = (
                DEFAULT_MU,
                DEFAULT_SIGMA,
                ordinal(DEFAULT_MU, DEFAULT_SIGMA),
            )
            competitor.rated_games, competitor.rated_at = 0, None
        RatingChange.objects.all().delete()
        summaries = list(
            GameSummary.objects.filter(rated=True, rating_seq__isnull=False)
            .order_by("rating_seq")
            .only("game_id", "winner", "finished_at", "rating_seq")
        )
        members: dict[int, list[TeamMember]] = {}
        for member in TeamMember.objects.filter(game__summary__rated=True).order_by("game_id", "team", "seat"):
            members.setdefault(member.game_id, []).append(member)
        changes: list[RatingChange] = []
        last_seq = ledger.last_seq
        for summary in summaries:
            seq = summary.rating_seq
            assert seq is not None, "the query keeps the sequenced games only"
            last_seq = max(last_seq, seq)
            updates = apply_result(teams_of(members.get(summary.game_id, []), competitors), summary.winner)
            for update in updates:
                update.competitor.rated_at = summary.finished_at
            changes += _changes(summary.game_id, seq, summary.finished_at, updates)
        Competitor.objects.bulk_update(list(competitors.values()), _RATING_FIELDS, batch_size=500)
        RatingChange.objects.bulk_create(changes, batch_size=1000)
        ledger.last_seq = last_seq
        ledger.save(update_fields=["last_seq"])
    return len(summaries), sum(1 for c in competitors.values() if c.rated_games)
