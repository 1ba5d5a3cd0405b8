"""Dump the PostgreSQL database with ``pg_dump`` (custom format) into a folder, and drop dumps past their time."""

from __future__ import annotations

import os
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

PREFIX, SUFFIX = "jassweb-", ".dump"


def dumps_in(folder: Path) -> list[Path]:
    """The finished dumps in ``folder``, oldest first (their names carry the time they were taken)."""
    return sorted(p for p in folder.glob(f"{PREFIX}*{SUFFIX}") if p.is_file())


def expired(folder: Path, keep_days: float, keep_last: int, now: float | None = None) -> list[Path]:
    """The dumps to delete: older than ``keep_days``, but never one of the newest ``keep_last``."""
    now = time.time() if now is None else now
    candidates = dumps_in(folder)[: -keep_last or None] if keep_last else dumps_in(folder)
    return [p for p in candidates if now - p.stat().st_mtime > keep_days * 86400]


def pg_dump_command(target: Path) -> tuple[list[str], dict[str, str]]:
    """``pg_dump`` of this project's database in the custom format, with the connection of ``DATABASE_URL``."""
    args, env = connection.client.settings_to_cmd_args_env(connection.settings_dict, [])
    # Django builds psql's arguments: the same connection for pg_dump, with the database name last.
    return ["pg_dump", "--format=custom", "--compress=6", f"--file={target}", *args[1:]], {**os.environ, **(env or {})}


class Command(BaseCommand):
    help = (
        "Dump the PostgreSQL database (pg_dump, custom format) to DIR/jassweb-<UTC time>.dump, then delete the "
        "dumps there older than --keep-days, always keeping the newest --keep-last. scripts/restore-drill.sh "
        "restores the latest into a fresh database and checks it."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--dir", default=os.environ.get("JASSWEB_BACKUP_DIR", "/var/lib/jassweb/backups"))
        parser.add_argument("--keep-days", type=float, default=14.0, help="delete dumps older than this (days)")
        parser.add_argument("--keep-last", type=int, default=7, help="but always keep this many newest dumps")

    def handle(self, *args: Any, **options: Any) -> None:
        if connection.vendor != "postgresql":
            raise CommandError(f"backups are of PostgreSQL (DATABASE_URL); this database is {connection.vendor}")
        if options["keep_days"] < 0 or options["keep_last"] < 1:
            raise CommandError("--keep-days is 0 or more and --keep-last at least 1 (the dump just taken)")
        folder = Path(options["dir"])
        folder.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        target = folder / f"{PREFIX}{stamp}{SUFFIX}"
        partial = target.with_suffix(".partial")  # a dump cut off halfway never looks finished
        command, env = pg_dump_command(partial)
        started = time.monotonic()
        result = subprocess.run(command, env=env, capture_output=True, text=True)
        if result.returncode != 0:
            partial.unlink(missing_ok=True)
            raise CommandError(f"pg_dump failed ({result.returncode}): {result.stderr.strip()[:500]}")
        os.replace(partial, target)
        removed = expired(folder, options["keep_days"], options["keep_last"])
        for old in removed:
            old.unlink()
        kept = len(dumps_in(folder))
        self.stdout.write(
            f"backup: {target} ({target.stat().st_size / 1e6:.1f} MB in {time.monotonic() - started:.1f} s);"
            f" removed {len(removed)} older than {options['keep_days']:g} days, {kept} kept"
        )
