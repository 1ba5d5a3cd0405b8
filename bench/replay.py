"""Server time of a 12-round fair game's replay page, beside the game result page and the 300 ms budget.

Plays one fair game of 12 rounds with four built-in bots into a fresh SQLite
database (or the PostgreSQL of ``DATABASE_URL``), then requests
``/games/<id>/replay`` through Django's full stack (middleware, templates)
many times and prints the median and 95th percentile — with the state cache
cold (every request rebuilds the game from its event log, as after a server
restart) and warm. ``record.json`` and the result page are measured the same
way for comparison.

    .venv/bin/python bench/replay.py [--requests 50] [--rounds 12]
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

BUDGET_MS = 300.0


def setup(database: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jassweb.settings")
    if "DATABASE_URL" not in os.environ:
        os.environ["JASSWEB_SQLITE_PATH"] = str(database)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def measure(client, url: str, requests: int, cold: bool) -> list[float]:
    from games.live.service import forget_cached_states

    times = []
    for _ in range(requests):
        if cold:
            forget_cached_states()
        started = time.perf_counter()
        response = client.get(url)
        elapsed = (time.perf_counter() - started) * 1000
        if response.status_code != 200:
            raise SystemExit(f"{url} answered {response.status_code}")
        times.append(elapsed)
    return times


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=12)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        setup(Path(directory) / "bench.sqlite3")
        from django.core.management import call_command
        from django.test import Client

        from games.models import Game

        out = io.StringIO()
        seats = ["--seat", "rules", "--seat", "random", "--seat", "rules", "--seat", "random"]
        call_command("playgame", *seats, "--mode", "fair", "--rounds", str(args.rounds), "--seed", "12", stdout=out)
        game = Game.objects.latest("pk")
        client = Client(HTTP_HOST="127.0.0.1")
        print(f"game {game.pk}: fair, {args.rounds} rounds, {game.action_count} actions, {args.requests} requests each")
        print(f"{'page':<34}{'cache':>6}{'median ms':>12}{'p95 ms':>10}{'budget ms':>11}")
        replay_p95 = 0.0
        for label, url in (
            ("replay  /games/ID/replay", f"/games/{game.pk}/replay"),
            ("record  /games/ID/record.json", f"/games/{game.pk}/record.json"),
            ("result  /games/ID/", f"/games/{game.pk}/"),
        ):
            for cold in (True, False):
                times = measure(client, url, args.requests, cold)
                if url.endswith("replay") and cold:
                    replay_p95 = p95(times)
                print(
                    f"{label:<34}{'cold' if cold else 'warm':>6}{statistics.median(times):>12.1f}"
                    f"{p95(times):>10.1f}{BUDGET_MS if url.endswith('replay') else '':>11}"
                )
        print(f"replay page, 12-round fair game, cold p95: {replay_p95:.1f} ms (budget {BUDGET_MS:.0f} ms)")


if __name__ == "__main__":
    main()
