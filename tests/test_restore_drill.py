"""Backups and the restore drill: ``manage.py backup`` dumps PostgreSQL, ``scripts/restore-drill.sh`` restores the
newest dump into a fresh database and checks every finished game and the ratings there.

On a small real database (finished fair and Weis games of rated bots, a standard one): the drill passes, leaves
no database behind and never touches the source; a database whose stored result or rating was changed by hand
fails it, naming what does not hold. Retention keeps the newest dumps whatever their age.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
from django.core.management import CommandError, call_command

from games.management.commands.backup import dumps_in, expired
from tests.server_helpers import ROOT, migrate
from tests.services import POSTGRES_DSN, fetch_one, postgres_database

GAMES = [  # (options of manage.py playgame): two rated fair games, one with Weis, and a casual standard one
    ["--mode", "fair", "--rounds", "2", "--seed", "1"],
    ["--mode", "fair", "--rounds", "2", "--weis", "--seed", "2"],
    ["--mode", "standard", "--target", "500", "--weis", "--seed", "3"],
]


def run(env: dict[str, str], *command: str) -> subprocess.CompletedProcess[str]:
    merged = {**os.environ, "JASSWEB_ANALYSIS": "0", **env}
    merged.pop("DJANGO_SETTINGS_MODULE", None)
    return subprocess.run(command, cwd=ROOT, env=merged, capture_output=True, text=True, timeout=600)


def manage(env: dict[str, str], *args: str) -> str:
    result = run(env, sys.executable, "manage.py", *args)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def drill_databases() -> set[str]:
    with psycopg.connect(POSTGRES_DSN, autocommit=True) as db:
        return {r[0] for r in db.execute("SELECT datname FROM pg_database WHERE datname LIKE 'jassweb_drill_%'")}


@pytest.mark.services
def test_the_drill_restores_the_latest_dump_and_checks_games_and_ratings_and_fails_on_a_changed_one(tmp_path):
    folder = tmp_path / "backups"
    with postgres_database() as database_url:
        env = {"DATABASE_URL": database_url}
        migrate(env)
        for options in GAMES:
            manage(env, "playgame", *[a for bot in ("random", "rules") * 2 for a in ("--seat", bot)], *options)
        rated = fetch_one(database_url, "SELECT count(*) FROM games_ratingchange")[0]
        assert rated == 4  # the two fair games moved the two bots' ratings
        assert "jassweb-" in manage(env, "backup", "--dir", str(folder))
        drill_env = {"JASSWEB_DRILL_ADMIN_URL": POSTGRES_DSN, "DATABASE_URL": "postgres://nowhere.invalid/none"}
        before = drill_databases()

        passed = run(drill_env, "bash", "scripts/restore-drill.sh", str(folder))
        assert passed.returncode == 0, passed.stdout + passed.stderr
        assert "3 finished games (2 with Weis) verify and replay" in passed.stdout
        assert "ratings from 2 rated games to the same numbers (4 rating changes)" in passed.stdout
        assert drill_databases() == before

        # By hand, in the source: a finished game's points, a card of another, and a bot's rating. The next
        # dump fails the drill.
        first, second = fetch_one(database_url, "SELECT min(id), max(id) FROM games_game")
        card, seat = fetch_one(
            database_url,
            "SELECT id, seat FROM games_action WHERE game_id = %s AND kind = 'card' ORDER BY seq LIMIT 1",
            second,
        )
        with psycopg.connect(database_url, autocommit=True) as db:
            db.execute("UPDATE games_game SET points = '[1, 2]' WHERE id = %s", (first,))
            db.execute(  # the first card played becomes the next player's card: not in the hand
                "UPDATE games_action SET value = (SELECT value FROM games_action WHERE game_id = %s AND kind = 'card'"
                " AND seat <> %s ORDER BY seq LIMIT 1) WHERE id = %s",
                (second, seat, card),
            )
            db.execute("UPDATE games_competitor SET mu = mu + 1 WHERE key = 'bot:rules'")
        time.sleep(1.1)  # the next dump's name (its second) sorts after the first
        manage(env, "backup", "--dir", str(folder))
        assert len(dumps_in(folder)) == 2
        failed = run(drill_env, "bash", "scripts/restore-drill.sh", str(folder))
        assert failed.returncode != 0
        report = failed.stdout + failed.stderr
        assert f"game {first}: its moves give " in report and "; stored [1, 2]" in report
        assert f"game {second}: its stored moves do not replay: illegal" in report
        assert "rerate gives other ratings for 1 competitors: bot:rules" in report
        assert drill_databases() == before
        # The source is as it was: the drill rerated its copy only.
        assert fetch_one(database_url, "SELECT points::text FROM games_game WHERE id = %s", first) == ("[1, 2]",)


@pytest.mark.django_db
def test_backups_are_of_postgresql_only():
    with pytest.raises(CommandError, match="backups are of PostgreSQL"):
        call_command("backup", "--dir", "/nonexistent")


def test_retention_deletes_old_dumps_but_keeps_the_newest(tmp_path: Path):
    now = time.time()
    for day in range(10):  # one dump a day, the newest today
        dump = tmp_path / f"jassweb-202612{20 + day:02d}T031500Z.dump"
        dump.write_bytes(b"")
        os.utime(dump, (now - (9 - day) * 86400, now - (9 - day) * 86400))
    (tmp_path / "jassweb-20261201T031500Z.partial").write_bytes(b"")  # a dump cut off: not counted
    (tmp_path / "notes.txt").write_bytes(b"")
    old = [p.name for p in expired(tmp_path, keep_days=3.5, keep_last=2, now=now)]
    assert old == [f"jassweb-202612{20 + day:02d}T031500Z.dump" for day in range(6)]
    # Kept whatever their age: the newest ``keep_last`` (a server that was off for weeks keeps its last dumps).
    assert [p.name for p in expired(tmp_path, keep_days=0, keep_last=3, now=now + 100 * 86400)] == old + [
        "jassweb-20261226T031500Z.dump"
    ]
