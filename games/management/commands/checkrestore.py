"""Check a restored database (scripts/restore-drill.sh): every finished game's record, and the ratings."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from games.engine import JassError
from games.live.states import load
from games.models import Competitor, Game, RatingChange
from games.records import RecordError, check_record, game_record
from games.summaries.ratings import rerate


def game_problem(game: Game) -> str | None:
    """Why a finished game's stored moves and record do not hold together, or None.

    The record is exported as ``exportgame`` writes it, read back as a file would be,
    and checked by the engine (``check_record``: deals, every move, points, winner);
    the stored moves replayed alone must reach the same end.
    """
    try:
        record = json.loads(json.dumps(game_record(game)))
        replayed = load(game)
    except JassError as exc:  # the engine refuses a stored move
        return f"its stored moves do not replay: {exc}"
    try:
        checked = check_record(record)
    except RecordError as exc:
        return f"its record is refused: {exc}"
    if replayed != checked.state:
        return "its stored moves and its record replay to different games"
    if list(replayed.scores) != list(game.points) or replayed.winner != game.winner:
        return f"its moves give {list(replayed.scores)}, winner {replayed.winner}; stored {game.points}, {game.winner}"
    return None


def ratings_snapshot() -> tuple[dict[str, tuple[Any, ...]], dict[tuple[int, str], tuple[Any, ...]]]:
    """Every competitor's rating and every rating change, exactly as stored."""
    competitors = {
        c.key: (c.mu, c.sigma, c.ordinal, c.rated_games, c.rated_at) for c in Competitor.objects.order_by("pk")
    }
    changes = {
        (r.game_id, r.competitor.key): (r.seq, r.mu_before, r.sigma_before, r.mu, r.sigma, r.at)
        for r in RatingChange.objects.select_related("competitor")
    }
    return competitors, changes


class Command(BaseCommand):
    help = (
        "Check a restored database: every finished game's record verifies and replays to its stored result, "
        "and rerate recomputes every rating to the numbers stored. Rewrites the ratings (run it on a copy: "
        "scripts/restore-drill.sh does)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        finished = Game.objects.filter(status=Game.FINISHED).order_by("pk")
        problems = []
        count = 0
        weis = 0
        for game in finished.iterator(chunk_size=200):
            count += 1
            weis += game.weis
            problem = game_problem(game)
            if problem is not None:
                problems.append(f"game {game.pk}: {problem}")
        before = ratings_snapshot()
        rated, competitors = rerate()
        after = ratings_snapshot()
        differ = sorted(k for k in before[0].keys() | after[0].keys() if before[0].get(k) != after[0].get(k))
        if differ:
            problems.append(f"rerate gives other ratings for {len(differ)} competitors: {', '.join(differ[:10])}")
        if before[1] != after[1]:
            problems.append("rerate gives another rating history")
        if problems:
            raise CommandError(f"{len(problems)} problems:\n" + "\n".join(problems[:50]))
        self.stdout.write(
            f"checkrestore: {count} finished games ({weis} with Weis) verify and replay to their stored results;"
            f" rerate recomputes {competitors} competitors' ratings from {rated} rated games to the same numbers"
            f" ({len(after[1])} rating changes)"
        )
