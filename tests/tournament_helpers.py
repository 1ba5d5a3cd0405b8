"""Tournaments for tests: made through the service, played out headless through the same code as live games."""

from __future__ import annotations

import json

from bots.runner import play_bot_turns
from games import records
from games.models import Game, Player
from tournaments import pairing, service
from tournaments.models import Tournament


def bot_tournament(teams: dict[str, str], owner: Player | None = None, **options: object) -> Tournament:
    """A tournament open for registration with a bot team per ``name: built-in bot or URL``."""
    options.setdefault("seed", 7)
    options.setdefault("round_count", 2)
    tournament = service.create(owner, service.Options(name="Test cup", **options))  # type: ignore[arg-type]
    for name, bot in teams.items():
        spec = service.bot_spec(bot)
        service.add_team(tournament.pk, None, name, (spec, spec))
    return tournament


def running_games(tournament_id: int) -> list[int]:
    return list(
        Game.objects.filter(tournament_game__match__tournament_id=tournament_id, status=Game.RUNNING)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def play_out(tournament_id: int, rounds: int = 500) -> Tournament:
    """Play every running game of a tournament to its end, and the games each end starts, until none runs."""
    for _ in range(rounds):
        games = running_games(tournament_id)
        if not games:
            break
        for game_id in games:
            play_bot_turns(game_id)
    return Tournament.objects.get(pk=tournament_id)


def standings_from_records(tournament: Tournament) -> list[tuple[str, int, int]]:
    """(team, match points, point advantage) in rank order, recomputed from the games' records: each game
    exported as JSON, read back and replayed by the import's checks (not the game rows' points)."""
    progress = service.load(tournament)
    order = {e.pk: e.order for e in progress.entrants}
    names = {e.order: e.name for e in progress.entrants}
    results = []
    for row in progress.matches:
        match = row.match
        if match.b_id is None:
            results.append(pairing.MatchResult(order[match.a_id], None))
            continue
        if match.forfeit:
            lost = frozenset(order[match.a_id if s == "a" else match.b_id] for s in match.forfeit)
            results.append(pairing.MatchResult(order[match.a_id], order[match.b_id], forfeited=lost))
            continue
        points = [0, 0]
        for g in row.games:
            assert g.game_id is not None
            text = json.dumps(records.game_record(Game.objects.get(pk=g.game_id)))
            totals = records.check_record(records.parse_record(text)).state.scores
            a_side = g.match_game.a_side
            points[0] += totals[a_side]
            points[1] += totals[1 - a_side]
        results.append(pairing.MatchResult(order[match.a_id], order[match.b_id], points=(points[0], points[1])))
    teams = [e.order for e in progress.entrants if e.status in ("ready", "withdrawn")]
    lines = pairing.standings(teams, results, buchholz=tournament.format == Tournament.SWISS)
    return [(names[line.team], line.match_points, line.point_advantage) for line in lines]
