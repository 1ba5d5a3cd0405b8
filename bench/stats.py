"""Server time of the statistics page with 10,000 stored games, beside the lobby and the other new pages.

Fills a fresh SQLite database (or the PostgreSQL of ``DATABASE_URL``) with
``--games`` finished games: a few hundred distinct games are played on the
engine by the built-in bots (fair 12-round and standard 1000-point games,
every move checked), then stored again and again under other seeds, dates
and players (people, built-in bots, remote bots; a few at private tables)
with their full action logs and the summary rows a real game end writes
(``games.summaries.rows.summary_rows``), in bulk. The ratings are computed from
scratch (``rerate``, timed). Then each page is requested through Django's
full stack (middleware, templates) and the median and 95th percentile of
its time are printed, the bare lobby page first as the reference.

    .venv/bin/python bench/stats.py [--games 10000] [--distinct 300] [--requests 30]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.replay import p95, setup  # the same fresh database and percentile as the replay bench

BUDGET_MS = 300.0
BATCH = 250


def play(seed: int, fair: bool, bots: list[str]):
    """One game played on the engine by four built-in bots: (config, final state, moves)."""
    import numpy as np

    from bots.registry import get_bot
    from games.engine import FAIR, STANDARD, GameConfig, GameState

    config = GameConfig(mode=FAIR if fair else STANDARD, round_count=12, target=1000, seed=seed)
    players = [get_bot(name) for name in bots]
    rng = np.random.default_rng(seed)
    state = GameState.new(config)
    moves = []
    while not state.over:
        seat = state.player
        action = players[seat].act(state.observation(seat), rng)
        moves.append((seat, action))
        state = state.apply(seat, action)
    return config, state, moves


def fill(games: int, distinct: int) -> None:
    from django.db import connection, transaction
    from django.utils import timezone

    from games.live.snapshot import bot_label
    from games.models import Competitor, Game, GameSeat, GameSummary, Player, Seat, Table, deal_to_json
    from games.summaries import rows as summaries
    from games.summaries.ratings import defaults

    started = time.perf_counter()
    rng = random.Random(2026)
    templates = []
    for index in range(distinct):
        fair = index % 5 < 3  # three fair games in five, as on a server that rates fair games
        templates.append(play(index, fair, [rng.choice(["rules", "random"]) for _ in range(4)]))
    actions = sum(len(t[2]) for t in templates) / len(templates)
    print(
        f"played {distinct} distinct games on the engine in {time.perf_counter() - started:.1f} s "
        f"({actions:.0f} moves a game)"
    )

    people = Player.objects.bulk_create([Player(name=f"Player {i}") for i in range(60)])
    remote = [("http://10.0.0.5:5000/jassbot", "Jassbot"), ("http://10.0.0.6/hslu", "HSLU team 3")]
    occupants: list[dict] = [{"player": p, "name": p.name} for p in people]
    occupants += [{"bot": b, "name": bot_label(b)} for b in ("random", "rules", "mcts-fast", "mcts-strong")] * 6
    occupants += [{"remote_url": url, "remote_dialect": "spec", "name": name} for url, name in remote] * 3
    competitors: dict[str, Competitor] = {}

    def competitor(seat: GameSeat) -> Competitor:
        key = summaries.competitor_key(seat)
        assert key is not None, "every seat of the generated games is played"
        if key not in competitors:
            kind = {"human": Competitor.PERSON, "bot": Competitor.BOT}.get(seat.kind, Competitor.REMOTE)
            competitors[key] = Competitor.objects.create(
                key=key,
                kind=kind,
                player_id=seat.player_id,
                bot=seat.bot,
                remote_url=seat.remote_url,
                name=seat.name,
                **defaults(),
            )
        return competitors[key]

    now = timezone.now()
    seq = 0
    started = time.perf_counter()
    for first in range(0, games, BATCH):
        count = min(BATCH, games - first)
        picks = [templates[(first + i) % distinct] for i in range(count)]
        with transaction.atomic():
            private = [rng.random() < 0.05 for _ in picks]
            tables = Table.objects.bulk_create(
                [
                    Table(
                        name=f"Bench {first + i}",
                        mode=c.mode,
                        round_count=c.round_count,
                        target=c.target,
                        private=private[i],
                        rated=c.mode == "fair" and not private[i],
                    )
                    for i, (c, _, _) in enumerate(picks)
                ]
            )
            Seat.objects.bulk_create([Seat(table=t, position=p) for t in tables for p in range(4)])
            ended = [now - timedelta(minutes=rng.randrange(365 * 24 * 60)) for _ in picks]
            stored = Game.objects.bulk_create(
                [
                    Game(
                        table=t,
                        mode=c.mode,
                        target=c.target if c.mode == "standard" else None,
                        round_count=c.round_count if c.mode == "fair" else None,
                        seed=c.seed,
                        fair_schedule=list(s.plan.schedule) if s.plan.schedule else None,
                        deals=[deal_to_json(s.deal(r)) for r in range(len(s.rounds))],
                        status=Game.FINISHED,
                        action_count=len(m),
                        points=list(s.scores),
                        winner=s.winner,
                        finished_at=ended[i],
                        rated=t.rated,
                    )
                    for i, (t, (c, s, m)) in enumerate(zip(tables, picks, strict=True))
                ]
            )
            seats = [GameSeat(game=g, position=p, **rng.choice(occupants)) for g in stored for p in range(4)]
            GameSeat.objects.bulk_create(seats)
            with connection.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO games_action (game_id, seq, seat, kind, value, latency_ms, standin, created_at)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                    [
                        (g.pk, n, seat, action.kind, action.value, rng.randrange(5, 900), False, ended[i])
                        for i, (g, (_, _, moves)) in enumerate(zip(stored, picks, strict=True))
                        for n, (seat, action) in enumerate(moves)
                    ],
                )
            rows = []
            for i, (game, (_, state, _)) in enumerate(zip(stored, picks, strict=True)):
                game_seats = seats[4 * i : 4 * i + 4]
                by_position = {s.position: competitor(s) for s in game_seats}
                rows.append(
                    summaries.summary_rows(
                        game,
                        state,
                        game_seats,
                        by_position,
                        private=private[i],
                        source=summaries.TABLE,
                        rated=game.rated,
                        finished_at=ended[i],
                    )
                )
            for row in sorted(rows, key=lambda r: r.summary.finished_at):
                if row.summary.rated:
                    seq += 1
                    row.summary.rating_seq = seq
            GameSummary.objects.bulk_create([r.summary for r in rows])
            summaries.TypeResult.objects.bulk_create([t for r in rows for t in r.types])
            summaries.TeamMember.objects.bulk_create([m for r in rows for m in r.members])
            summaries.DecisiveRound.objects.bulk_create([d for r in rows for d in r.decisive])
        done = first + count
        print(f"\rstored {done}/{games} games ({time.perf_counter() - started:.0f} s)", end="", flush=True)
    print()
    # A table was last active when its game ended (the lobby hides tables quiet for ten minutes).
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE games_table SET updated_at = (SELECT max(finished_at) FROM games_game"
            " WHERE games_game.table_id = games_table.id)"
        )
    # Rating numbers follow the games' end times; the summaries were numbered per batch, so renumber.
    ordered = GameSummary.objects.filter(rated=True).order_by("finished_at", "pk").values_list("pk", flat=True)
    with transaction.atomic():
        GameSummary.objects.filter(rated=True).update(rating_seq=None)
        for number, pk in enumerate(ordered, start=1):
            GameSummary.objects.filter(pk=pk).update(rating_seq=number)


def measure(client, url: str, requests: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU milliseconds of each request (SQLite runs in this process: its work is CPU here).

    On a shared machine the wall clock also counts the time other processes had the cores;
    the CPU time is what the request costs, and what it takes on an idle core.
    """
    wall, cpu = [], []
    for _ in range(requests):
        started, started_cpu = time.perf_counter(), time.process_time()
        response = client.get(url)
        cpu.append((time.process_time() - started_cpu) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"{url} answered {response.status_code}")
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--distinct", type=int, default=300)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--keep", metavar="FILE", help="fill this SQLite file (kept) instead of a temporary one")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        if args.keep and os.path.exists(args.keep):
            raise SystemExit(f"{args.keep} exists; give a new file")
        setup(Path(args.keep or Path(directory) / "bench.sqlite3"))
        from django.db import connection
        from django.test import Client

        from games.models import Action, Competitor, DecisiveRound, TypeResult
        from games.summaries.ratings import rerate

        fill(args.games, args.distinct)
        started = time.perf_counter()
        rated_games, rated = rerate()
        print(f"rerate: {rated_games} rated games, {rated} competitors in {time.perf_counter() - started:.1f} s")
        print(
            f"database ({connection.vendor}): {Action.objects.count()} actions, {TypeResult.objects.count()} "
            f"type rows, {DecisiveRound.objects.count()} decisive rounds"
        )
        bot = Competitor.objects.get(key="bot:rules")
        person = Competitor.objects.filter(kind=Competitor.PERSON).order_by("-rated_games")[0]
        client = Client(HTTP_HOST="127.0.0.1")
        pages = [
            ("lobby (reference)  /", "/"),
            ("games list (reference)  /games/", "/games/"),
            ("stats  /stats/", "/stats/"),
            ("stats, fair, one year  /stats/?mode=fair&from=…", "/stats/?mode=fair&from=2000-01-01&source=table"),
            ("leaderboard  /ratings/", "/ratings/"),
            ("bot profile  /players/ID/", f"/players/{bot.pk}/"),
            ("person profile  /players/ID/", f"/players/{person.pk}/"),
        ]
        print(
            f"{args.games} games, {args.requests} requests each (after one warm-up); "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        print(f"{'page':<50}{'median ms':>10}{'p95 ms':>9}{'CPU median ms':>15}")
        stats_wall = stats_cpu = 0.0
        for label, url in pages:
            client.get(url)
            wall, cpu = measure(client, url, args.requests)
            if url == "/stats/":
                stats_wall, stats_cpu = statistics.median(wall), statistics.median(cpu)
            print(f"{label:<50}{statistics.median(wall):>10.1f}{p95(wall):>9.1f}{statistics.median(cpu):>15.1f}")
        print(
            f"stats page with {args.games} games: median {stats_wall:.1f} ms, CPU {stats_cpu:.1f} ms "
            f"(budget {BUDGET_MS:.0f} ms)"
        )


if __name__ == "__main__":
    main()
