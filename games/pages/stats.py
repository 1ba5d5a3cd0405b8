"""The statistics page: the thesis' Table 4.1 and Figures 4.1-4.3 over this server's finished games, live.

The rows it counts are written when a game ends (``games.summaries.rows``); the page is a handful of
aggregate queries over them, however many games there are (``page_data``). Games at private tables
are never counted here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from django.db.models import Count, F, Q, Sum
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from games.catalogue import SeatKind, builtin_bots
from games.engine import FAIR, OBE_ABE, PUSH, STANDARD, SUITS
from games.models import (
    DecisiveRound,
    GameSummary,
    TypeResult,
)
from games.pages.names import local_bot_label
from games.summaries.rows import ARENA, PEOPLE, TABLE, type_label

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


def _type_label(key: str) -> str:
    """A player type in the page's language: a built-in bot by its translated name ("Bot «Regelbasiert»")."""
    kind, _, name = key.partition(":")
    if kind == SeatKind.BOT:
        return local_bot_label(name)
    return type_label(key)


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
            {"key": key, "label": _type_label(key), "cell": cells[part]}
            for key, cells in sorted(types.items(), key=lambda item: _type_order(item[0]))
            if cells[part].games
        ]
        parts.append({"key": part, "title": str(title), "note": str(note), "rows": rows})
    decisive_rows = [
        {"key": key, "label": _type_label(key), "cell": cell}
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
                    _type_label(key),
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
