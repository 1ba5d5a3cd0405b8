"""Two teams of bots play many games; print who is better, with intervals."""

from __future__ import annotations

import multiprocessing
import os
import shlex
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from bots.arena import ArenaGame, GameOutcome, Summary, is_url, p95, play_game, schedule, wilson
from bots.registry import IMPLEMENTATIONS
from games.engine import FAIR, STANDARD, InvalidConfigError


class Command(BaseCommand):
    help = (
        "Play --games games between two teams (built-in bot names or HSLU bot URLs), fair mode by default, "
        "and print won/drawn/lost, the win rate and the mean point advantage per round with 95% intervals."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--team", action="append", required=True, metavar="BOT", help="give exactly two")
        parser.add_argument("--games", type=int, default=20)
        parser.add_argument("--mode", choices=(FAIR, STANDARD), default=FAIR)
        parser.add_argument("--rounds", type=int, default=12, help="fair mode: rounds per game (even)")
        parser.add_argument("--target", type=int, default=1000, help="standard mode: points to win")
        parser.add_argument("--weis", action="store_true", help="play with Weis and Stöck (docs/rules.md)")
        parser.add_argument(
            "--time-per-move",
            type=float,
            default=None,
            metavar="S",
            help="built-in bots' time cap per move; remote bots' answer timeout (default 5 s)",
        )
        parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--dialect", choices=("auto", "spec", "jass-kit"), default="auto")
        parser.add_argument("--store", action="store_true", default=False, help="store every game (history and replay)")
        parser.add_argument("--no-store", dest="store", action="store_false")
        parser.add_argument(
            "--rated",
            action="store_true",
            help="the games move the bots' ratings (implies --store: ratings are replayable)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        teams = options["team"]
        if len(teams) != 2:
            raise CommandError(f"give exactly two --team options, got {len(teams)}")
        for team in teams:
            if not is_url(team) and team not in IMPLEMENTATIONS:
                raise CommandError(
                    f"unknown team {team!r}; give a built-in bot ({', '.join(sorted(IMPLEMENTATIONS))}) or a bot URL"
                )
        if options["games"] < 1 or options["workers"] < 1:
            raise CommandError("--games and --workers must be at least 1")
        if options["time_per_move"] is not None and not 0.01 <= options["time_per_move"] <= 60:
            raise CommandError("--time-per-move is 0.01 to 60 seconds")
        try:
            games = schedule(
                teams[0],
                teams[1],
                options["games"],
                mode=options["mode"],
                rounds=options["rounds"],
                target=options["target"],
                weis=options["weis"],
                seed=options["seed"],
                time_per_move=options["time_per_move"],
                dialect=options["dialect"],
            )
        except InvalidConfigError as exc:
            raise CommandError(str(exc)) from None

        if options["rated"]:
            options["store"] = True
        summary = Summary(teams[0], teams[1])
        started = time.monotonic()
        self._progress(summary, len(games), started)
        workers = min(options["workers"], len(games))
        if workers == 1:
            for game in games:
                self._record(summary, play_game(game), game, options, len(games), started)
        else:
            context = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
                futures = {pool.submit(play_game, game): game for game in games}
                for future in as_completed(futures):
                    self._record(summary, future.result(), futures[future], options, len(games), started)
        if sys.stdout.isatty():
            self.stdout.write("")
        self._report(summary, options, time.monotonic() - started)

    # -- output ------------------------------------------------------------------------------

    def _record(
        self,
        summary: Summary,
        outcome: GameOutcome,
        game: ArenaGame,
        options: dict[str, Any],
        total: int,
        started: float,
    ) -> None:
        summary.add(outcome)
        if options["store"]:
            from bots.arena_store import store_outcome

            store_outcome(outcome, game, rated=options["rated"])
        self._progress(summary, total, started)

    def _progress(self, summary: Summary, total: int, started: float) -> None:
        done = summary.games
        width = 30
        filled = round(width * done / total)
        bar = "█" * filled + "░" * (width - filled)
        elapsed = time.monotonic() - started
        eta = f", {elapsed / done * (total - done):.0f} s left" if done else ""
        line = f"[{bar}] {done}/{total} · {summary.running_line()} · {elapsed:.0f} s{eta}"
        if sys.stdout.isatty():
            self.stdout.write("\r" + line, ending="")
            self.stdout.flush()
        elif done == total or done % max(1, total // 20) == 0:
            self.stdout.write(line)

    def _report(self, summary: Summary, options: dict[str, Any], elapsed: float) -> None:
        a, b = summary.team_a, summary.team_b
        n = summary.games
        wins, draws, losses = summary.count("win"), summary.count("draw"), summary.count("loss")
        mean, low, high = summary.advantage()
        unit = "deal pairs" if options["mode"] == FAIR else "rounds"
        rows = []
        for name, is_a in ((a, True), (b, False)):
            won = wins if is_a else losses
            w_low, w_high = wilson(won, n)
            times = summary.times(is_a)
            rows.append(
                (
                    name,
                    f"{won}",
                    f"{draws}",
                    f"{losses if is_a else wins}",
                    f"{won / n:.1%}",
                    f"[{w_low:.1%}, {w_high:.1%}]",
                    f"{statistics_mean(times):.1f}",
                    f"{p95(times):.1f}",
                    f"{summary.faults(is_a)}",
                )
            )
        header = ("team", "won", "drawn", "lost", "win rate", "95% CI", "ms/move", "p95 ms", "faults")
        widths = [max(len(str(r[i])) for r in (header, *rows)) for i in range(len(header))]
        self.stdout.write("")
        for row in (header, *rows):
            self.stdout.write(
                "  ".join(
                    str(cell).ljust(width) if i == 0 else str(cell).rjust(width)
                    for i, (cell, width) in enumerate(zip(row, widths, strict=True))
                )
            )
        length = f"{options['rounds']} rounds" if options["mode"] == FAIR else f"to {options['target']}"
        length += ", Weis and Stöck" if options["weis"] else ""
        self.stdout.write(
            f"{n} {options['mode']} games ({length}), {summary.rounds()} rounds played in {elapsed:.0f} s "
            f"with {options['workers']} workers"
        )
        self.stdout.write(
            f"mean point advantage of {a}: {mean:+.1f} per round, 95% CI [{low:+.1f}, {high:+.1f}] "
            f"(over {len(summary.units())} {unit})"
        )
        command = [
            "python",
            "manage.py",
            "arena",
            "--team",
            a,
            "--team",
            b,
            "--games",
            str(n),
            "--mode",
            options["mode"],
        ]
        command += ["--weis"] if options["weis"] else []
        command += (
            ["--rounds", str(options["rounds"])] if options["mode"] == FAIR else ["--target", str(options["target"])]
        )
        if options["time_per_move"] is not None:
            command += ["--time-per-move", str(options["time_per_move"])]
        command += ["--seed", str(options["seed"]), "--workers", str(options["workers"])]
        if options["rated"]:
            command.append("--rated")
        self.stdout.write("reproduce: " + shlex.join(command))
        self.stdout.write(summary.final_line())


def statistics_mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0
