"""What a finished game leaves behind for statistics and ratings: its summary rows, written with its end.

At a game's end (``record_game_end``, called by the writer in the transaction
that ends the game, and by the arena's store) a few summary rows are written: the game (``GameSummary``:
mode, winner, the winner's margin), each player type's result per team
(``TypeResult``), each competitor's (``TeamMember``, for profiles and ratings)
and, in a fair game, the two rounds of its decisive pair (``DecisiveRound``).
The statistics page (``games.pages.stats``) is a handful of aggregate queries over those rows.
A rated game's rating update (``games.summaries.ratings``) is written in the same transaction.

Player types are "people" (every person, as the thesis' "Human Player"), each
built-in bot ("bot:<name>") and each remote bot by the name its inviter gave
it ("remote:<name>"). A person's seat whose moves a stand-in bot made for the
most part (they left, or closed the tab and never came back) counts as that
bot's: a game of stand-ins is no game of people. Games at private tables are summarized too (their
players' profiles show them to those who may see them) but never counted on
the public statistics page.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext

from games.catalogue import SeatKind
from games.engine import FAIR, PUSH, SUITS, GameState, team_of
from games.live.states import load as load_state
from games.models import Action as ActionRow
from games.models import (
    Competitor,
    DecisiveRound,
    Game,
    GameSeat,
    GameSummary,
    TeamMember,
    TypeResult,
    seat_kind,
)
from games.summaries.ratings import defaults, lock_ledger, rate_game

PEOPLE = "people"
TABLE, ARENA = GameSummary.TABLE, GameSummary.ARENA


# -- who played: player types and competitors ----------------------------------------------------


def player_type(seat: GameSeat) -> str:
    """The thesis' player type of a seat: "people", "bot:<name>" or "remote:<given name>"."""
    kind = seat_kind(seat)
    if kind == SeatKind.HUMAN:
        return PEOPLE
    if kind == SeatKind.BOT:
        return f"bot:{seat.bot}"
    if kind == SeatKind.REMOTE:
        return f"remote:{seat.name}"[:70]
    return "unknown"  # a person whose player row is gone


def type_label(key: str) -> str:
    """A player type in words: "People", "MCTS (strong) bot", "Mybot (remote)"."""
    from games.live.snapshot import bot_label

    if key == PEOPLE:
        return gettext("People")
    kind, _, name = key.partition(":")
    if kind == SeatKind.BOT:
        return bot_label(name)
    if kind == SeatKind.REMOTE:
        return gettext("{name} (remote)").format(name=name)
    return gettext("Unknown")


def stood_in_seats(game_id: int) -> set[int]:
    """The positions of people whose moves a stand-in bot made for the most part (more than half)."""
    counts = (
        ActionRow.objects.filter(game_id=game_id)
        .values("seat")
        .annotate(total=Count("pk"), standins=Count("pk", filter=Q(standin=True)))
    )
    return {row["seat"] for row in counts if 2 * row["standins"] > row["total"]}


def competitor_key(seat: GameSeat) -> str | None:
    """The competitor a seat's player is, as ``Competitor.key``; None for a seat nobody can be rated for."""
    kind = seat_kind(seat)
    if kind == SeatKind.HUMAN:
        return f"person:{seat.player_id}"
    if kind == SeatKind.BOT:
        return f"bot:{seat.bot}"
    if kind == SeatKind.REMOTE:
        digest = hashlib.sha256(f"{seat.remote_url}\n{seat.name}".encode()).hexdigest()[:40]
        return f"remote:{digest}"
    return None


def _new_competitor(seat: GameSeat, key: str) -> Competitor:
    from games.live.snapshot import bot_label

    kind = seat_kind(seat)
    fields: dict[str, Any] = {
        "kind": {SeatKind.HUMAN: Competitor.PERSON, SeatKind.BOT: Competitor.BOT}.get(kind, Competitor.REMOTE)
    }
    if kind == SeatKind.HUMAN:
        fields |= {"player_id": seat.player_id, "name": seat.name[:60]}
    elif kind == SeatKind.BOT:
        fields |= {"bot": seat.bot, "name": bot_label(seat.bot)[:60]}
    else:
        fields |= {"remote_url": seat.remote_url, "name": seat.name[:60]}
    competitor, _ = Competitor.objects.get_or_create(key=key, defaults=fields | defaults())
    return competitor


def competitors_of(seats: Sequence[GameSeat]) -> dict[int, Competitor]:
    """The competitor of each seat (by position), created on first sight; seats nobody can be rated for are left out."""
    keys = {s.position: key for s in seats if (key := competitor_key(s))}
    known = {c.key: c for c in Competitor.objects.filter(key__in=set(keys.values()))}
    result = {}
    for seat in seats:
        key = keys.get(seat.position)
        if key is None:
            continue
        competitor = known.get(key) or _new_competitor(seat, key)
        known[key] = competitor
        if competitor.kind == Competitor.PERSON and competitor.name != seat.name:
            competitor.name = seat.name[:60]  # the name they played under last
            Competitor.objects.filter(pk=competitor.pk).update(name=competitor.name)
        result[seat.position] = competitor
    return result


# -- the rows of one finished game ----------------------------------------------------------------


@dataclass
class SummaryRows:
    """What a finished game adds to the statistics (unsaved model instances)."""

    summary: GameSummary
    types: list[TypeResult] = field(default_factory=list)
    members: list[TeamMember] = field(default_factory=list)
    decisive: list[DecisiveRound] = field(default_factory=list)


def summary_rows(
    game: Game,
    state: GameState,
    seats: Sequence[GameSeat],
    competitors: dict[int, Competitor],
    *,
    private: bool,
    source: str,
    rated: bool,
    finished_at: datetime,
    stood_in: Collection[int] = (),
) -> SummaryRows:
    """The summary rows of a finished game, from its final state (nothing is written).

    ``stood_in``: the positions whose person a stand-in bot played for the most part (``stood_in_seats``);
    their player type is the game's stand-in bot. Competitors (profiles, ratings) stay the people.
    """

    def type_of(seat: GameSeat) -> str:
        if seat.position in stood_in and seat_kind(seat) == SeatKind.HUMAN:
            return f"bot:{game.standin_bot}"
        return player_type(seat)

    points = list(state.scores)
    winner = state.winner
    common = {"game_id": game.pk, "mode": game.mode, "private": private, "finished_at": finished_at}
    rows = SummaryRows(
        GameSummary(
            **common,
            source=source,
            points=points,
            winner=winner,
            margin=abs(points[0] - points[1]),
            rounds=len(state.rounds),
            rated=rated,
        )
    )
    by_position = {s.position: s for s in seats}
    for team in (0, 1):
        advantage = points[team] - points[1 - team]
        outcome = {"won": winner == team, "drawn": winner is None, "advantage": advantage}
        first, second = by_position[team], by_position[team + 2]
        types = [type_of(first), type_of(second)]
        for mine, partner in ((types[0], types[1]), (types[1], types[0]))[: 1 if types[0] == types[1] else 2]:
            rows.types.append(
                TypeResult(**common, **outcome, team=team, player_type=mine, partner_type=partner, source=source)
            )
        held: dict[int, TeamMember] = {}
        for seat in (first, second):
            competitor = competitors.get(seat.position)
            if competitor is None:
                continue
            if competitor.pk in held:
                held[competitor.pk].seats += 1
                continue
            held[competitor.pk] = TeamMember(
                **common,
                **outcome,
                team=team,
                competitor=competitor,
                seat=seat.position,
                seats=1,
            )
        rows.members.extend(held.values())
    if game.mode == FAIR:
        rows.decisive = decisive_rounds(state, {p: type_of(s) for p, s in by_position.items()}, common, source)
    return rows


def call_of(state: GameState, round_index: int) -> int:
    """The forehand's trump decision in a round: the trump it declared, or ``PUSH``."""
    rnd = state.rounds[round_index]
    return PUSH if rnd.pushed else rnd.trump


def decisive_rounds(
    state: GameState, types: dict[int, str], common: dict[str, Any], source: str
) -> list[DecisiveRound]:
    """The two rounds of a fair game's decisive pair (thesis def. 4.1), from each starting player.

    The decisive pair holds the round with the highest RPA; on a tie, the earliest such round.
    """
    rpas = state.round_point_advantages()
    if not rpas:
        return []
    top = max(sorted(rpas), key=lambda index: rpas[index])
    original, repeat = next(pair for pair in state.plan.pairs() if top in pair)
    calls = {original: call_of(state, original), repeat: call_of(state, repeat)}
    comparison = compare_calls(calls[original], calls[repeat], state.plan.deal(repeat).permutation, rpas[original])
    top_team = team_of(state.rounds[top].forehand_seat)
    rows = []
    for index in (original, repeat):
        primary = index == top
        rows.append(
            DecisiveRound(
                **common,
                source=source,
                round_index=index,
                starter_type=types[state.rounds[index].forehand_seat],
                rpa=rpas[index],
                call=calls[index],
                primary=primary,
                comparison=comparison if primary else "",
                pair_winner_won_game=(state.winner == top_team) if primary and rpas[top] > 0 else None,
            )
        )
    return rows


def compare_calls(original: int, repeat: int, permutation: Sequence[int], original_rpa: int) -> str:
    """Thesis Figure 4.1: the two starting players' calls of a pair, compared.

    *equal* (the same call; a suit read through the pair's suit permutation), *shoving*
    (only one pushed, and that one's team won the pair), *not shoving* (only one pushed,
    and the other won or tied) or *other* (two different trumps).
    """
    if original == PUSH and repeat == PUSH:
        return DecisiveRound.EQUAL
    if PUSH in (original, repeat):
        pusher_rpa = original_rpa if original == PUSH else -original_rpa
        return DecisiveRound.SHOVING if pusher_rpa > 0 else DecisiveRound.NOT_SHOVING
    same = permutation[original] if original in SUITS else original
    return DecisiveRound.EQUAL if repeat == same else DecisiveRound.OTHER


def save_rows(rows: SummaryRows) -> None:
    rows.summary.save(force_insert=True)
    TypeResult.objects.bulk_create(rows.types)
    TeamMember.objects.bulk_create(rows.members)
    DecisiveRound.objects.bulk_create(rows.decisive)


def record_game_end(game: Game, state: GameState, *, source: str = TABLE, rated: bool | None = None) -> None:
    """Write a finished game's summary rows and, if it is rated, its rating update.

    Called inside the transaction that ends the game (the service's last move, the
    arena's store), so the end, the statistics and the ratings commit together.
    ``rated`` None: as the game says.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("a game's summary belongs in the transaction that ends the game")
    facts = Game.objects.filter(pk=game.pk).values("rated", "table__private", "finished_at").get()
    rated = (facts["rated"] if rated is None else rated) and not facts["table__private"]
    # A rated end takes the ledger before it touches any competitor row (their names, their ratings),
    # so two game ends, or a game end and ``rerate``, never wait for each other in a circle.
    ledger = lock_ledger() if rated else None
    seats = list(GameSeat.objects.filter(game_id=game.pk).order_by("position"))
    competitors = competitors_of(seats)
    rated = rated and len(competitors) == 4
    rows = summary_rows(
        game,
        state,
        seats,
        competitors,
        private=facts["table__private"],
        source=source,
        rated=rated,
        finished_at=facts["finished_at"] or timezone.now(),
        stood_in=stood_in_seats(game.pk),
    )
    save_rows(rows)
    if rated and ledger is not None:
        rate_game(ledger, rows.summary, rows.members)


def rebuild_summaries() -> int:
    """Write the summary rows of finished games that have none (games that ended before statistics existed).

    Imported records are not this server's games and stay out; the games are not rated
    afterwards (they were played as casual games). Returns the number of games summarized.
    """
    done = 0
    games = Game.objects.filter(status=Game.FINISHED, summary__isnull=True, table__imported=False)
    for game in games.select_related("table").order_by("finished_at", "pk").iterator():
        with transaction.atomic():
            seats = list(game.seats.order_by("position"))
            rows = summary_rows(
                game,
                load_state(game),
                seats,
                competitors_of(seats),
                private=game.table.private,
                source=TABLE,
                rated=False,
                finished_at=game.finished_at or game.created_at,
                stood_in=stood_in_seats(game.pk),
            )
            save_rows(rows)
        done += 1
    return done
