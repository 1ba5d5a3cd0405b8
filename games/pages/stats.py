"""Statistics of this server's finished games: the thesis' Table 4.1 and Figures 4.1-4.3, live.

At a game's end (``record_game_end``, called by the service in the transaction
that ends the game) a few summary rows are written: the game (``GameSummary``:
mode, winner, the winner's margin), each player type's result per team
(``TypeResult``), each competitor's (``TeamMember``, for profiles and ratings)
and, in a fair game, the two rounds of its decisive pair (``DecisiveRound``).
The statistics page is then a handful of aggregate queries over those rows,
however many games there are (``page_data``). A rated game's rating update
(``games.pages.ratings``) is written in the same transaction.

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
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Count, F, Q, Sum
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from games.catalogue import SeatKind, builtin_bots
from games.engine import FAIR, OBE_ABE, PUSH, STANDARD, SUITS, GameState, team_of
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
from games.pages.ratings import defaults, lock_ledger, rate_game

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


# -- the statistics page ---------------------------------------------------------------------------

MODES = ("all", FAIR, STANDARD)
SOURCES = ("all", TABLE, ARENA)
Z95 = 1.959964


@dataclass(frozen=True)
class Filters:
    """What the statistics page counts: finished public games in a date range, of a mode and a source."""

    date_from: date | None = None
    date_to: date | None = None
    mode: str = "all"
    source: str = "all"

    @classmethod
    def from_query(cls, query: Any) -> Filters:
        """Read the page's GET parameters; anything malformed is ignored (the filter is off)."""
        return cls(
            _date(query.get("from")),
            _date(query.get("to")),
            query.get("mode") if query.get("mode") in MODES else "all",
            query.get("source") if query.get("source") in SOURCES else "all",
        )

    def q(self) -> Q:
        """The filter as a condition on any summary row (they all carry these columns)."""
        condition = Q(private=False)
        zone = timezone.get_current_timezone()
        if self.date_from:
            condition &= Q(finished_at__gte=datetime.combine(self.date_from, time.min, zone))
        if self.date_to:
            condition &= Q(finished_at__lt=datetime.combine(self.date_to + timedelta(days=1), time.min, zone))
        if self.mode != "all":
            condition &= Q(mode=self.mode)
        if self.source != "all":
            condition &= Q(source=self.source)
        return condition


def _date(value: object) -> date | None:
    try:
        return date.fromisoformat(value) if isinstance(value, str) and value else None
    except ValueError:
        return None


def wilson(successes: int, n: int) -> tuple[float, float]:
    """The Wilson score 95% interval of a proportion (0, 0 for no trials)."""
    if n == 0:
        return 0.0, 0.0
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Cell:
    """One player type's line in one part of Table 4.1."""

    games: int
    wins: int
    total: int  # the sum of the point advantages (or RPAs)
    squares: int  # the sum of their squares (for the interval of the mean)

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.games if self.games else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    @property
    def mean(self) -> float | None:
        return self.total / self.games if self.games else None

    @property
    def mean_half_width(self) -> float | None:
        """Half the width of a normal 95% interval of the mean (None below two games)."""
        n = self.games
        if n < 2:
            return None
        variance = max(0.0, (self.squares - self.total * self.total / n) / (n - 1))
        return Z95 * math.sqrt(variance / n)


PARTS = (
    ("overall", gettext_lazy("All games"), gettext_lazy("Each player type's team, whoever its partner.")),
    (
        "team",
        gettext_lazy("As a team"),
        gettext_lazy("Both seats of the team held by the same type (two people, or one bot twice)."),
    ),
    ("with_person", gettext_lazy("With a person"), gettext_lazy("A bot whose partner is a person.")),
    ("fair", gettext_lazy("Fair games"), gettext_lazy("Only fair games: every deal played by both teams.")),
)


def _part_filters() -> dict[str, Q]:
    return {
        "overall": Q(),
        "team": Q(partner_type=F("player_type")),
        "with_person": Q(partner_type=PEOPLE) & ~Q(player_type=PEOPLE),
        "fair": Q(mode=FAIR),
    }


def _aggregates(prefix: str, condition: Q, won: Q, value: str) -> dict[str, Any]:
    return {
        f"{prefix}_n": Count("pk", filter=condition),
        f"{prefix}_won": Count("pk", filter=condition & won),
        f"{prefix}_sum": Sum(value, filter=condition),
        f"{prefix}_sq": Sum(F(value) * F(value), filter=condition),
    }


def _cell(row: dict[str, Any], prefix: str) -> Cell:
    return Cell(row[f"{prefix}_n"], row[f"{prefix}_won"], row[f"{prefix}_sum"] or 0, row[f"{prefix}_sq"] or 0)


def type_table(filters: Filters) -> dict[str, dict[str, Cell]]:
    """Table 4.1's first four parts: per player type, per part, the games, wins and point advantages (one query)."""
    aggregates: dict[str, Any] = {}
    for part, condition in _part_filters().items():
        aggregates |= _aggregates(part, condition, Q(won=True), "advantage")
    rows = TypeResult.objects.filter(filters.q()).values("player_type").annotate(**aggregates).order_by()
    return {row["player_type"]: {part: _cell(row, part) for part, *_ in PARTS} for row in rows}


CALL_GROUPS = (
    ("push", pgettext_lazy("trump", "Push")),
    ("suit", gettext_lazy("Trump suit")),
    ("obe", "Obe-Abe"),
    ("une", "Une-Ufe"),
)
OUTCOMES = {"won": gettext_lazy("won"), "lost": gettext_lazy("lost")}


def call_group(call: int) -> str:
    if call == PUSH:
        return "push"
    if call in SUITS:
        return "suit"
    return "obe" if call == OBE_ABE else "une"


def decisive_table(filters: Filters) -> tuple[dict[str, Cell], dict[str, dict[str, dict[str, int]]]]:
    """Per starting player type: its decisive rounds (Table 4.1's last part) and its calls won and lost (Fig. 4.2)."""
    rows = (
        DecisiveRound.objects.filter(filters.q())
        .values("starter_type", "call")
        .annotate(**_aggregates("all", Q(), Q(rpa__gt=0), "rpa"), lost=Count("pk", filter=Q(rpa__lt=0)))
        .order_by()
    )
    cells: dict[str, Cell] = {}
    calls: dict[str, dict[str, dict[str, int]]] = {}
    for row in rows:
        kind = row["starter_type"]
        cell = _cell(row, "all")
        before = cells.get(kind, Cell(0, 0, 0, 0))
        cells[kind] = Cell(
            before.games + cell.games, before.wins + cell.wins, before.total + cell.total, before.squares + cell.squares
        )
        outcome = calls.setdefault(kind, {"won": {}, "lost": {}})
        group = call_group(row["call"])
        outcome["won"][group] = outcome["won"].get(group, 0) + row["all_won"]
        outcome["lost"][group] = outcome["lost"].get(group, 0) + row["lost"]
    return cells, calls


def pair_comparisons(filters: Filters) -> tuple[dict[str, int], tuple[int, int]]:
    """Figure 4.1: how the two calls of each decisive pair compare; and (pairs won that won the game, pairs won)."""
    rows = (
        DecisiveRound.objects.filter(filters.q(), primary=True)
        .values("comparison", "pair_winner_won_game")
        .annotate(n=Count("pk"))
        .order_by()
    )
    counts: dict[str, int] = {}
    won_game = decided = 0
    for row in rows:
        counts[row["comparison"]] = counts.get(row["comparison"], 0) + row["n"]
        if row["pair_winner_won_game"] is not None:
            decided += row["n"]
            won_game += row["n"] if row["pair_winner_won_game"] else 0
    return counts, (won_game, decided)


def margins(filters: Filters) -> dict[str, dict[int, int]]:
    """Figure 4.3: per mode, how many games were won by each margin (draws under the key -1)."""
    rows = GameSummary.objects.filter(filters.q()).values("mode", "margin", "winner").annotate(n=Count("pk")).order_by()
    result: dict[str, dict[int, int]] = {FAIR: {}, STANDARD: {}}
    for row in rows:
        key = -1 if row["winner"] is None else row["margin"]
        by_margin = result.setdefault(row["mode"], {})
        by_margin[key] = by_margin.get(key, 0) + row["n"]
    return result


def median_of_counts(counts: dict[int, int]) -> float | None:
    """The median of values given as {value: how often} (draws, -1, left out)."""
    values = sorted((v, n) for v, n in counts.items() if v >= 0)
    total = sum(n for _, n in values)
    if not total:
        return None
    middle = [(total - 1) // 2, total // 2]
    found: list[int] = []
    seen = 0
    for value, n in values:
        while len(found) < 2 and middle[len(found)] < seen + n:
            found.append(value)
        seen += n
    return (found[0] + found[1]) / 2


def _type_order(key: str) -> tuple[int, int, str]:
    if key == PEOPLE:
        return (0, 0, "")
    kind, _, name = key.partition(":")
    if kind == SeatKind.BOT:
        names = list(builtin_bots())
        return (1, names.index(name) if name in names else len(names), name)
    return (2, 0, name.lower())


COMPARISONS = (
    (DecisiveRound.EQUAL, gettext_lazy("Equal call")),
    (DecisiveRound.SHOVING, gettext_lazy("Shoving")),
    (DecisiveRound.NOT_SHOVING, gettext_lazy("Not shoving")),
    (DecisiveRound.OTHER, gettext_lazy("Other trump")),
)
MARGIN_BINS = 10  # bins of equal width, then one for the rest
MARGIN_STEPS = (10, 20, 25, 50, 100, 200, 250, 500)


def margin_step(by_mode: dict[str, dict[int, int]]) -> int:
    """The bin width of Figure 4.3: ten bins hold at least 90% of the decided games of every mode."""
    step = MARGIN_STEPS[0]
    for counts in by_mode.values():
        ordered = sorted((m, n) for m, n in counts.items() if m >= 0)
        total = sum(n for _, n in ordered)
        seen = 0
        for margin, n in ordered:
            seen += n
            if seen >= 0.9 * total:
                step = max(step, next((s for s in MARGIN_STEPS if s * MARGIN_BINS > margin), MARGIN_STEPS[-1]))
                break
    return step


def _margin_shares(counts: dict[int, int], step: int) -> tuple[list[float], int]:
    """A mode's winning margins as the percentage of its decided games in each bin, and how many there were."""
    shares = [0] * (MARGIN_BINS + 1)
    for margin, n in counts.items():
        if margin >= 0:
            shares[min(margin // step, MARGIN_BINS)] += n
    total = sum(shares)
    return [100 * n / total if total else 0.0 for n in shares], total


def page_data(filters: Filters) -> dict[str, Any]:
    """Everything the statistics page shows, from five aggregate queries (none per game or per type)."""
    from games.pages import charts

    types = type_table(filters)
    decisive, calls = decisive_table(filters)
    comparisons, (pairs_won_game, pairs_decided) = pair_comparisons(filters)
    by_margin = margins(filters)

    parts = []
    for part, title, note in PARTS:
        rows = [
            {"key": key, "label": type_label(key), "cell": cells[part]}
            for key, cells in sorted(types.items(), key=lambda item: _type_order(item[0]))
            if cells[part].games
        ]
        parts.append({"key": part, "title": str(title), "note": str(note), "rows": rows})
    decisive_rows = [
        {"key": key, "label": type_label(key), "cell": cell}
        for key, cell in sorted(decisive.items(), key=lambda item: _type_order(item[0]))
    ]

    pair_total = sum(comparisons.values())
    comparison_bars = [
        charts.Bar(
            str(label),
            100 * comparisons.get(key, 0) / pair_total if pair_total else 0,
            f"{comparisons.get(key, 0)} ({100 * comparisons.get(key, 0) / pair_total:.0f}%)" if pair_total else "0",
        )
        for key, label in COMPARISONS
    ]
    legend = [str(name) for _, name in CALL_GROUPS]
    call_rows = []
    for key in sorted(calls, key=_type_order):
        for outcome in ("won", "lost"):
            counts = calls[key][outcome]
            call_rows.append(
                charts.StackedRow(
                    type_label(key),
                    str(OUTCOMES[outcome]),
                    [(str(name), counts.get(group, 0)) for group, name in CALL_GROUPS],
                )
            )

    step = margin_step(by_margin)
    fair_shares, fair_n = _margin_shares(by_margin.get(FAIR, {}), step)
    standard_shares, standard_n = _margin_shares(by_margin.get(STANDARD, {}), step)
    bins = [f"{i * step}" for i in range(MARGIN_BINS)] + [f"{MARGIN_BINS * step}+"]
    series = []
    if fair_n:
        series.append(charts.Series(gettext("Fair ({count})").format(count=fair_n), fair_shares))
    if standard_n:
        series.append(
            charts.Series(gettext("Standard ({count})").format(count=standard_n), standard_shares, pattern=True)
        )
    games = {mode: sum(counts.values()) for mode, counts in by_margin.items()}
    return {
        "filters": filters,
        "games": sum(games.values()),
        "games_by_mode": games,
        "draws": sum(counts.get(-1, 0) for counts in by_margin.values()),
        "parts": parts,
        "decisive_rows": decisive_rows,
        "pairs": pair_total,
        "pairs_won_game": pairs_won_game,
        "pairs_decided": pairs_decided,
        "comparisons": [(str(label), comparisons.get(key, 0)) for key, label in COMPARISONS],
        "comparison_chart": charts.bars(
            comparison_bars, gettext("Trump calls of the two starting players in decisive pairs"), maximum=100
        )
        if pair_total
        else None,
        "call_legend": legend,
        "call_rows": call_rows,
        "call_chart": charts.stacked(
            call_rows, legend, gettext("Trump calls of each player type in decisive rounds won and lost")
        )
        if call_rows
        else None,
        "margin_chart": charts.columns(
            bins, series, gettext("Winner's point advantage, share of games per {step} points").format(step=step)
        )
        if series
        else None,
        "margin_bins": [{"bin": b, "fair": fair_shares[i], "standard": standard_shares[i]} for i, b in enumerate(bins)],
        "medians": {
            FAIR: median_of_counts(by_margin.get(FAIR, {})),
            STANDARD: median_of_counts(by_margin.get(STANDARD, {})),
        },
        "decided": {FAIR: fair_n, STANDARD: standard_n},
        "margin_step": step,
    }
