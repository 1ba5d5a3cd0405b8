"""Bot tournaments from the command line, run by the same code as the web's.

    manage.py tournament run --format round-robin --team rules --team NAME=http://127.0.0.1:5001 … --seed 7
    manage.py tournament create …same options…      # {"tournament": id}
    manage.py tournament run ID                      # start (if need be) and play a stored tournament to its end
    manage.py tournament standings ID                # the standings JSON line

``run`` drives the tournament's games in this process, as a server does (a
worker with a lease on each game, bots thinking in the bot worker processes),
shows a progress bar on stderr and prints the standings as one JSON line last.
Stopped (Ctrl-C, a kill), it loses nothing: ``run ID`` or any server takes the
games over and plays on.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any

from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.catalogue import DIALECTS, Dialect
from games.models import Game
from tournaments import report, service
from tournaments.models import MatchGame, Tournament


def team_spec(text: str, dialect: str) -> tuple[str, service.SeatSpec]:
    """``NAME=SPEC`` or ``SPEC``: a team's name (empty: from the bot) and the bot that plays both its seats."""
    name, sep, spec = text.partition("=")
    if not sep or name.startswith(("http://", "https://")):
        name, spec = "", text
    return name.strip(), service.bot_spec(spec, dialect)


class Command(BaseCommand):
    help = "Create, run and report bot tournaments (round robin or Swiss system) with the web's own code."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=("run", "create", "standings"))
        parser.add_argument("id", nargs="?", type=int, help="a stored tournament (run, standings)")
        parser.add_argument("--name", default="")
        parser.add_argument("--format", choices=(Tournament.ROUND_ROBIN, Tournament.SWISS), default="round-robin")
        parser.add_argument(
            "--team",
            action="append",
            default=[],
            metavar="SPEC",
            help="a built-in bot's name or an HSLU bot URL, NAME=SPEC to name the team; once per team",
        )
        parser.add_argument("--rounds", type=int, default=3, help="Swiss: number of rounds")
        parser.add_argument("--match", choices=("fair", "standard"), default="fair", help="one fair game, or two")
        parser.add_argument("--match-rounds", type=int, default=4, help="a fair match's rounds (even)")
        parser.add_argument("--target", type=int, default=1000, help="a standard match's games are played to this")
        parser.add_argument("--weis", action="store_true", help="play with Weis and Stöck")
        parser.add_argument("--rated", action="store_true", help="the games move the bots' OpenSkill ratings")
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument("--max-games", type=int, default=8, help="games at once")
        parser.add_argument("--max-per-url", type=int, default=2, help="games at once per HSLU bot URL")
        parser.add_argument("--timeout", type=int, default=5, help="HSLU bots: seconds per answer")
        parser.add_argument("--dialect", choices=DIALECTS, default=Dialect.AUTO, help="HSLU bots' paths")
        parser.add_argument("--analyse", action="store_true", help="analyse every game as it ends (slow)")

    def handle(self, *args: Any, **options: Any) -> None:
        action, tournament_id = options["action"], options["id"]
        if action == "standings":
            self._print(self._stored(tournament_id))
            return
        if tournament_id is None:
            tournament = self._create(options)
            if action == "create":
                self.stdout.write(json.dumps({"tournament": tournament.pk}))
                return
        elif action == "create":
            raise CommandError("create makes a new tournament: give --team options, no ID")
        else:
            tournament = self._stored(tournament_id)
        if not options["analyse"]:
            settings.JASSWEB_ANALYSIS = False  # a command's tournament is not analysed game by game
        try:
            # async_to_sync: the database work of the driver runs on this thread (as in ``playgame``).
            async_to_sync(self._run)(tournament.pk)
        except KeyboardInterrupt:
            raise CommandError(f"stopped; `manage.py tournament run {tournament.pk}` plays on") from None
        self._print(Tournament.objects.get(pk=tournament.pk))

    def _stored(self, tournament_id: int | None) -> Tournament:
        if tournament_id is None:
            raise CommandError("give the tournament's ID")
        tournament = Tournament.objects.filter(pk=tournament_id).first()
        if tournament is None:
            raise CommandError(f"there is no tournament {tournament_id}")
        return tournament

    def _create(self, options: dict[str, Any]) -> Tournament:
        if len(options["team"]) < 2:
            raise CommandError("give two --team options at least")
        try:
            teams = [team_spec(text, options["dialect"]) for text in options["team"]]
            tournament = service.create(
                None,
                service.Options(
                    name=options["name"] or f"{options['format']} of {len(teams)} teams",
                    format=options["format"],
                    rounds=options["rounds"],
                    match_mode=options["match"],
                    round_count=options["match_rounds"],
                    target=options["target"],
                    weis=options["weis"],
                    rated=options["rated"],
                    seed=options["seed"],
                    max_games=options["max_games"],
                    max_games_per_url=options["max_per_url"],
                    turn_clock_s=0,
                    bot_timeout_s=options["timeout"],
                ),
            )
            for name, spec in teams:
                service.add_team(tournament.pk, None, name, (spec, spec))
        except service.TournamentError as exc:
            raise CommandError(exc.message) from None
        return tournament

    async def _run(self, tournament_id: int) -> None:
        from bots.runner import runner
        from games.live import workers

        # This process drives the games it starts (a worker with a lease on each), as a server would.
        await sync_to_async(workers.register)()
        runner.ensure_started()
        try:
            status = await sync_to_async(_status)(tournament_id)
            if status == Tournament.REGISTRATION:
                try:
                    await sync_to_async(service.start)(tournament_id, None)
                except service.TournamentError as exc:
                    raise CommandError(exc.message) from None
            started = time.monotonic()
            first_done: int | None = None
            shown = -1
            while True:
                status, done, total = await sync_to_async(_progress)(tournament_id)
                if first_done is None:
                    first_done = done
                if sys.stderr.isatty() or done != shown:  # a log file gets a line per game
                    self._bar(done, total, done - first_done, time.monotonic() - started)
                    shown = done
                if status in (Tournament.FINISHED, Tournament.CANCELLED):
                    break
                await asyncio.sleep(0.5)
            sys.stderr.write("\n")
        finally:
            await runner.stop()

    def _bar(self, done: int, total: int, here: int, elapsed: float) -> None:
        width = 30
        filled = round(width * done / total) if total else 0
        rate = here / elapsed * 60 if elapsed > 0 else 0.0
        left = f", {(total - done) / rate * 60:.0f} s left" if rate > 0 else ""
        bar = "█" * filled + "░" * (width - filled)
        line = f"[{bar}] {done}/{total} games · {rate:.1f} games/min · {elapsed:.0f} s{left}"
        sys.stderr.write(("\r" if sys.stderr.isatty() else "") + line + ("" if sys.stderr.isatty() else "\n"))
        sys.stderr.flush()

    def _print(self, tournament: Tournament) -> None:
        data = report.summary(tournament)
        self.stdout.write(
            json.dumps({"tournament": data["tournament"], "standings": data["standings"], "games": data["games"]})
        )


def _status(tournament_id: int) -> str:
    return Tournament.objects.values_list("status", flat=True).get(pk=tournament_id)


def _progress(tournament_id: int) -> tuple[str, int, int]:
    """(status, games over, games in all: the known ones, or for a Swiss tournament still pairing, an estimate)."""
    tournament = Tournament.objects.get(pk=tournament_id)
    rows = MatchGame.objects.filter(match__tournament=tournament)
    done = rows.filter(game__status__in=(Game.FINISHED, Game.ABANDONED)).count()
    total = rows.count()
    if tournament.format == Tournament.SWISS and tournament.current_round < tournament.rounds:
        teams = tournament.entrants.filter(status="ready").count()
        per_round = (teams // 2) * (2 if tournament.match_mode == Tournament.STANDARD_MATCH else 1)
        total += per_round * (tournament.rounds - tournament.current_round)
    return tournament.status, done, max(total, done)
