"""Print a game's record as one JSON document."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from games.models import Game
from games.records import game_record, round_logs


class Command(BaseCommand):
    help = "Print the record of game ID: options, result and one HSLU full-state log per round."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("game_id", type=int)
        parser.add_argument("--indent", type=int, default=None, help="pretty-print with this indent")
        parser.add_argument(
            "--round-logs",
            action="store_true",
            help="only the bare jass-kit round logs (a list of GameState.to_json documents)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        game = Game.objects.filter(pk=options["game_id"]).first()
        if game is None:
            raise CommandError(f"there is no game {options['game_id']}")
        if options["round_logs"]:
            logs, note = round_logs(game)
            if note:
                self.stderr.write(note)
            self.stdout.write(json.dumps(logs, indent=options["indent"]))
            return
        self.stdout.write(json.dumps(game_record(game), indent=options["indent"]))
