"""Play a whole game headless through the service and print its result as one JSON line."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from bots.registry import IMPLEMENTATIONS
from bots.runner import play_bot_turns
from games.catalogue import DIALECTS, Dialect
from games.engine import FAIR, STANDARD
from games.live import service
from games.models import Game


class Command(BaseCommand):
    help = "Play a game with four bots, seats in order North, East, South, West."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--seat",
            action="append",
            required=True,
            help=f"a built-in bot ({', '.join(IMPLEMENTATIONS)}) or an HSLU bot URL; four times (N, E, S, W)",
        )
        parser.add_argument("--mode", choices=[STANDARD, FAIR], default=STANDARD)
        parser.add_argument("--target", type=int, default=1000, help="standard mode: points to win")
        parser.add_argument("--rounds", type=int, default=12, help="fair mode: number of rounds (even)")
        parser.add_argument("--multipliers", action="store_true", help="classic trump multipliers")
        parser.add_argument("--weis", action="store_true", help="play with Weis and Stöck (docs/rules.md)")
        parser.add_argument("--seed", type=int, default=None, help="seed of the deals and the bots")
        parser.add_argument(
            "--dialect",
            choices=DIALECTS,
            default=Dialect.AUTO,
            help="HSLU bots' paths: spec, jass-kit or auto (default)",
        )
        parser.add_argument("--timeout", type=int, default=5, help="HSLU bots: seconds per answer (1-30)")

    def handle(self, *args: Any, **options: Any) -> None:
        seats = options["seat"]
        if len(seats) != 4:
            raise CommandError(f"give exactly four --seat options (North, East, South, West), got {len(seats)}")
        for seat in seats:
            if seat not in IMPLEMENTATIONS and not seat.startswith(("http://", "https://")):
                raise CommandError(
                    f"unknown seat {seat!r}; give a built-in bot ({', '.join(sorted(IMPLEMENTATIONS))}) or a bot URL"
                )
        try:
            table = service.create_table(
                None,
                name="Headless game",
                mode=options["mode"],
                target=options["target"],
                round_count=options["rounds"],
                multipliers=options["multipliers"],
                weis=options["weis"],
                bot_delay_ms=0,
                bot_timeout_s=options["timeout"],
            )
            for position, seat in enumerate(seats):
                if seat in IMPLEMENTATIONS:
                    service.set_bot(table.pk, position, seat, service.SYSTEM)
                else:
                    service.set_remote_bot(table.pk, position, seat, "", options["dialect"], service.SYSTEM)
            game = service.start_game(table.pk, service.SYSTEM, seed=options["seed"])
            play_bot_turns(game.pk)
        except service.ServiceError as exc:
            raise CommandError(exc.message) from None
        game = Game.objects.get(pk=game.pk)
        if game.status != Game.FINISHED:
            raise CommandError(f"game {game.pk} stopped unfinished ({game.status})")
        faults = game.faults.count()
        if faults:
            self.stderr.write(f"{faults} remote-bot fault(s) recorded; see the game record")
        self.stdout.write(json.dumps({"game": game.pk, "points": game.points, "winner": game.winner}))
