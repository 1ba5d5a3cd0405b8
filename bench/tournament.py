"""A bot tournament on the live engine beside the same games played one after another by the arena.

A round robin of ``--teams`` bot teams, as many of each kind: the example HSLU
bot served on loopback (each server serving two teams: "a student's laptop"),
``mcts-fast``, ``rules`` and ``random``; fair matches of ``--rounds`` rounds. The same games (pairings and deals)
are played three ways, in one run:

- **arena, one after another**: ``bots.arena.play_game`` for every match in turn, in this process,
  straight on the engine (no database, no server);
- **tournament** with 1 and with 2 bot worker processes (``JASSWEB_BOT_WORKERS``): ``manage.py
  tournament run`` on a fresh SQLite database, the web's code: leased drivers, the service, the bot
  workers, games in parallel within the tournament's limits.

Printed: wall time, games per minute, CPU seconds per game (this process for the arena; the command and
its bot workers for the tournament) and the wall time's ratio to the arena's.

    .venv/bin/python bench/tournament.py [--teams 16] [--rounds 4] [--servers 2] [--seed 1]

The last line is ``tournament: 2 workers take <r>x the time of the games one after another``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jassweb.settings")

import django  # noqa: E402

django.setup()

from bots.arena import ArenaGame, play_game  # noqa: E402
from games.engine import FAIR, GameConfig  # noqa: E402
from tests.bot_helpers import example_bot  # noqa: E402
from tournaments import pairing  # noqa: E402
from tournaments.service import game_seed  # noqa: E402


def teams(count: int, urls: list[str]) -> list[tuple[str, str]]:
    """(name, spec) of each team: as many of each kind, the example HSLU bot (two teams per server),
    mcts-fast, rules and random, in turn."""
    kinds = ["hslu", "mcts-fast", "rules", "random"]
    chosen: list[tuple[str, str]] = []
    for index in range(count):
        kind = kinds[index % 4]
        number = index // 4 + 1
        if kind == "hslu":
            chosen.append((f"HSLU {number}", urls[(number - 1) // 2 % len(urls)]))
        else:
            chosen.append((f"{kind} {number}", kind))
    return chosen


def arena(chosen: list[tuple[str, str]], rounds: int, seed: int) -> tuple[float, float, int]:
    """The tournament's games (same pairings, same deals) one after another on the engine: (wall, CPU, games)."""
    schedule = pairing.round_robin(list(range(len(chosen))))
    games = [
        ArenaGame(
            index=index,
            team_a=chosen[pair.a][1],
            team_b=chosen[pair.b][1],
            a_side=0,
            config=GameConfig(mode=FAIR, round_count=rounds, seed=game_seed(seed, number, index)),
            time_per_move=None,
        )
        for number, pairs in enumerate(schedule, start=1)
        for index, pair in enumerate(pairs)
        if pair.b is not None
    ]
    wall, cpu = time.perf_counter(), time.process_time()
    for game in games:
        play_game(game)
    return time.perf_counter() - wall, time.process_time() - cpu, len(games)


def tournament(chosen: list[tuple[str, str]], rounds: int, seed: int, workers: int) -> tuple[float, float, int]:
    """The same round robin through ``manage.py tournament run`` with ``workers`` bot processes: (wall, CPU, games)."""
    with tempfile.TemporaryDirectory() as folder:
        env = {
            **os.environ,
            "JASSWEB_SQLITE_PATH": str(Path(folder) / "bench.sqlite3"),
            "JASSWEB_BOT_WORKERS": str(workers),
            "JASSWEB_ANALYSIS": "0",
            "JASS_ALLOW_PRIVATE_BOT_URLS": "1",
        }
        env.pop("DJANGO_SETTINGS_MODULE", None)
        subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
        args = [sys.executable, "manage.py", "tournament", "run", "--seed", str(seed), "--match-rounds", str(rounds)]
        args += ["--max-games", "8", "--max-per-url", "2"]
        for name, spec in chosen:
            args += ["--team", f"{name}={spec}"]
        wall = time.perf_counter()
        command = subprocess.Popen(
            args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        cpu = DescendantsCPU(command.pid)
        while command.poll() is None:
            cpu.sample()
            time.sleep(0.25)
        wall = time.perf_counter() - wall
        output = command.stdout.read() if command.stdout else ""
    if command.returncode:
        raise SystemExit(f"manage.py tournament run failed ({command.returncode})")
    data = json.loads(output.strip().splitlines()[-1])
    return wall, cpu.seconds, len(data["games"])


class DescendantsCPU:
    """CPU seconds of a process and every process below it (its bot workers), read from /proc as they run."""

    TICK = os.sysconf("SC_CLK_TCK")

    def __init__(self, root: int) -> None:
        self.root = root
        self.seen: dict[int, float] = {}

    def sample(self) -> None:
        parents: dict[int, int] = {}
        used: dict[int, float] = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry.name)] = int(fields[1])
            used[int(entry.name)] = (int(fields[11]) + int(fields[12])) / self.TICK
        for pid, seconds in used.items():
            ancestor = pid
            while ancestor not in (self.root, 0, 1) and ancestor in parents:
                ancestor = parents[ancestor]
            if ancestor == self.root:
                self.seen[pid] = max(self.seen.get(pid, 0.0), seconds)

    @property
    def seconds(self) -> float:
        return sum(self.seen.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--teams", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=4, help="rounds of each fair match")
    parser.add_argument("--servers", type=int, default=2, help="example HSLU bot servers (two teams each)")
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    with ExitStack() as stack:
        urls = [stack.enter_context(example_bot()) for _ in range(options.servers)]
        chosen = teams(options.teams, urls)
        print(f"{len(chosen)} teams: " + ", ".join(f"{name} ({spec})" for name, spec in chosen), flush=True)
        rows = [("arena, one after another", 1, *arena(chosen, options.rounds, options.seed))]
        print(f"arena: {rows[0][2]:.1f} s", flush=True)
        for workers in (1, 2):
            rows.append((f"tournament, {workers} worker{'s' if workers > 1 else ''}", workers,
                         *tournament(chosen, options.rounds, options.seed, workers)))  # fmt: skip
            print(f"tournament with {workers}: {rows[-1][2]:.1f} s", flush=True)
    base = rows[0][2]
    print()
    print(f"{'how':<28} {'wall s':>8} {'games/min':>10} {'CPU s/game':>11} {'ratio':>6}")
    for how, _, wall, cpu, games in rows:
        print(f"{how:<28} {wall:>8.1f} {games / wall * 60:>10.1f} {cpu / games:>11.2f} {wall / base:>6.2f}")
    print(f"tournament: 2 workers take {rows[-1][2] / base:.2f}x the time of the games one after another")


if __name__ == "__main__":
    main()
