"""Analyse a game that is over at once, in this process (imported games and scripts)."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from bots.analysis_jobs import analyse_now
from games.engine import SEAT_NAMES
from games.models import Game
from games.pages.stored_analyses import accuracy_by_player


class Command(BaseCommand):
    help = "Analyse game ID (every card with open hands and from the player's view) and store it for the replay."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("game_id", type=int)
        parser.add_argument("--again", action="store_true", help="analyse it again even if it is done")

    def handle(self, *args: Any, **options: Any) -> None:
        game = Game.objects.filter(pk=options["game_id"]).first()
        if game is None:
            raise CommandError(f"there is no game {options['game_id']}")
        if game.status == Game.RUNNING:
            raise CommandError(f"game {game.pk} is still running: only games that are over are analysed")
        started = time.monotonic()

        def progress(done: int, total: int, seconds: float) -> None:
            self.stdout.write(f"round {done} of {total}: {seconds:.1f} s CPU")

        analyse_now(game, again=options["again"], progress=progress)
        game.refresh_from_db()
        accuracy = accuracy_by_player(game) or {}
        seats = ", ".join(f"{SEAT_NAMES[seat]} {value:.1f}%" for seat, value in sorted(accuracy.items()))
        self.stdout.write(
            f"game {game.pk} analysed: {game.analysis.rounds_done} rounds, {game.analysis.seconds:.1f} s CPU,"
            f" {time.monotonic() - started:.1f} s wall; accuracy {seats}"
        )
