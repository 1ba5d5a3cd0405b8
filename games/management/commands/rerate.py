"""Recompute every rating from scratch, replaying the rated games in the order they were rated."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from games.summaries.ratings import rerate
from games.summaries.rows import rebuild_summaries


class Command(BaseCommand):
    help = (
        "Recompute every rating from the default ratings by replaying the rated games in their order "
        "(the numbers equal the ones the game ends wrote). --summaries first writes the statistics rows "
        "of finished games that have none (games from before the statistics existed; they count as casual)."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--summaries", action="store_true", help="first summarize finished games that lack it")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["summaries"]:
            self.stdout.write(f"summarized {rebuild_summaries()} finished games that had no statistics rows")
        games, competitors = rerate()
        self.stdout.write(f"rerated {competitors} players from {games} rated games")
