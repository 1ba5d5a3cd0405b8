"""What a tournament shows: its standings as JSON and CSV, and the parts of its page.

Everything is derived from the rows (``service.load``): the standings from the
matches' results, the results from the games' points and the recorded forfeits,
the faults from the games' ``Fault`` rows. The JSON below is the schema that
``manage.py tournament`` prints and ``/tournaments/<id>/standings.json`` serves
(docs/tournaments.md).
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass
from typing import Any

from games.models import Fault, Game
from tournaments import pairing
from tournaments.models import Entrant, Member, Tournament
from tournaments.service import MatchRow, Progress, load

CSV_COLUMNS = (
    "rank",
    "team",
    "played",
    "won",
    "drawn",
    "lost",
    "match_points",
    "point_advantage",
    "buchholz",
    "faults",
)


def _faults(progress: Progress) -> dict[int, Counter[str]]:
    """Per team (entrant id): its seats' bot faults in the tournament's games, by kind."""
    sides: dict[int, tuple[int, int, int]] = {}  # game id -> (a_side, a, b)
    for row in progress.matches:
        for g in row.games:
            if g.game_id is not None and row.match.b_id is not None:
                sides[g.game_id] = (g.match_game.a_side, row.match.a_id, row.match.b_id)
    counts: dict[int, Counter[str]] = {e.pk: Counter() for e in progress.entrants}
    if not sides:
        return counts
    for game_id, seat, kind in Fault.objects.filter(game_id__in=sides).values_list("game_id", "seat", "kind"):
        a_side, a, b = sides[game_id]
        counts[a if seat % 2 == a_side else b][kind] += 1
    return counts


def _match_entry(row: MatchRow, names: dict[int, str], order: dict[int, int]) -> dict[str, Any]:
    match = row.match
    result = row.result(order)
    a, b = match.a_id, match.b_id
    entry: dict[str, Any] = {
        "round": match.round_number,
        "teams": [names[a], names[b] if b is not None else None],
        "status": "done" if row.complete else "running" if row.running else "pending",
        "forfeit": [names[a if side == "a" else b] for side in match.forfeit] if b is not None else [],
        "match_points": None,
        "points": None,
        "games": [g.game_id for g in row.games if g.game_id is not None],
    }
    if result is not None:
        second = None if result.b is None else result.match_points(result.b)
        entry["match_points"] = [result.match_points(result.a), second]
        entry["points"] = list(result.points) if b is not None else None
    return entry


def summary(tournament: Tournament, progress: Progress | None = None) -> dict[str, Any]:
    """The tournament's standings, matches and games as plain data (the JSON schema of docs/tournaments.md)."""
    progress = progress or load(tournament)
    names = {e.pk: e.name for e in progress.entrants}
    by_order = {e.order: e for e in progress.entrants}
    order = progress.order
    faults = _faults(progress)
    swiss = tournament.format == Tournament.SWISS
    standings = []
    for rank, line in enumerate(progress.standings(), start=1):
        entrant = by_order[line.team]
        kinds = faults[entrant.pk]
        standings.append(
            {
                "rank": rank,
                "team": entrant.name,
                "played": line.played,
                "won": line.won,
                "drawn": line.drawn,
                "lost": line.lost,
                "match_points": line.match_points,
                "point_advantage": line.point_advantage,
                "buchholz": line.buchholz if swiss else None,
                "faults": sum(kinds.values()),
                "fault_kinds": dict(sorted(kinds.items())),
                "withdrawn": entrant.status == Entrant.WITHDRAWN,
            }
        )
    games = []
    for row in progress.matches:
        match = row.match
        for g in row.games:
            if g.game_id is None or match.b_id is None:
                continue
            a_name, b_name = names[match.a_id], names[match.b_id]
            teams = [a_name, b_name] if g.match_game.a_side == 0 else [b_name, a_name]
            points = list(g.points) if g.match_game.a_side == 0 else [g.points[1], g.points[0]]
            games.append(
                {"game": g.game_id, "round": match.round_number, "teams": teams, "points": points, "status": g.status}
            )
    return {
        "tournament": tournament.pk,
        "name": tournament.name,
        "status": tournament.status,
        "format": tournament.format,
        "match": tournament.match_mode,
        "rounds": tournament.rounds,
        "seed": tournament.seed,
        "standings": standings,
        "matches": [_match_entry(row, names, order) for row in progress.matches],
        "games": games,
    }


def csv_text(data: dict[str, Any]) -> str:
    """The standings as CSV (a header row, then one row per team; opens in a spreadsheet as it is)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for line in data["standings"]:
        writer.writerow(["" if line[c] is None else line[c] for c in CSV_COLUMNS])
    return out.getvalue()


# -- the page --------------------------------------------------------------------------------------


@dataclass
class Cell:
    """One cell of a round robin's crosstable: the row team's result against the column team."""

    text: str = ""
    title: str = ""
    href: str = ""
    kind: str = ""  # "self", "win", "draw", "loss", "forfeit", "running", "pending"


def crosstable(progress: Progress, ranked: list[int]) -> list[tuple[str, list[Cell]]]:
    """Rows in standings order (entrant ids in ``ranked``): each team's result against each other team."""
    names = {e.pk: e.name for e in progress.entrants}
    order = progress.order
    cells: dict[tuple[int, int], Cell] = {}
    for row in progress.matches:
        match = row.match
        if match.b_id is None:
            continue
        result = row.result(order)
        first = next((g.game_id for g in row.games if g.game_id), None)
        href = f"/games/{first}/" if first else ""
        for me, other in ((match.a_id, match.b_id), (match.b_id, match.a_id)):
            if result is None:
                kind = "running" if row.running else "pending"
                cells[(me, other)] = Cell("…" if row.running else "", "", href, kind)
                continue
            team = order[me]
            points = result.match_points(team)
            kind = {pairing.WIN: "win", pairing.DRAW: "draw", pairing.LOSS: "loss"}[points]
            if result.forfeited:
                kind = "forfeit" if team in result.forfeited else "win"
            cells[(me, other)] = Cell(f"{points}", f"{result.advantage(team):+d}", href, kind)
    return [
        (names[me], [Cell("—", "", "", "self") if me == other else cells.get((me, other), Cell()) for other in ranked])
        for me in ranked
    ]


def members_of(tournament: Tournament) -> dict[int, list[Member]]:
    """Each team's two seats (entrant id -> members, slot order)."""
    members: dict[int, list[Member]] = {}
    for member in Member.objects.filter(entrant__tournament=tournament).select_related("player").order_by("slot"):
        members.setdefault(member.entrant_id, []).append(member)
    return members


def running_tables(progress: Progress) -> dict[int, int]:
    """Game id -> table id of the tournament's running games."""
    return {
        g.game_id: g.table_id
        for m in progress.matches
        for g in m.games
        if g.status == Game.RUNNING and g.game_id is not None and g.table_id is not None
    }
