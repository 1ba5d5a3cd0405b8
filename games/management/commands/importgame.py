"""Import a game record (exportgame's document, or HSLU round logs) and print the new game as one JSON line."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from games.records import MAX_RECORD_BYTES, RecordError, check_record, parse_record, store_record


class Command(BaseCommand):
    help = (
        "Import a game record as a replayable game at a new table: the document exportgame writes, "
        "or a list of HSLU full-state round logs (e.g. jass-kit's GameState.to_json). Every card is checked."
    )
    stealth_options = ("stdin",)  # tests hand the command a stream instead of sys.stdin

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", help="the record's JSON file, or - to read standard input")
        parser.add_argument("--private", action="store_true", help="only its importer and players may see it")
        parser.add_argument("--name", default="", help="the table's name (default: Imported game …)")

    def handle(self, *args: Any, **options: Any) -> None:
        text = self._read(options["file"], options.get("stdin"))
        try:
            record = check_record(parse_record(text))
            game = store_record(record, private=options["private"], name=options["name"])
        except RecordError as exc:
            raise CommandError(str(exc)) from None
        result = {
            "game": game.pk,
            "mode": game.mode,
            "points": game.points,
            "winner": game.winner,
            "rounds": record.rounds,
        }
        self.stdout.write(json.dumps(result))

    @staticmethod
    def _read(path: str, stdin: Any) -> bytes | str:
        """Read at most one byte more than a record may have (the parser refuses the rest)."""
        if path == "-":
            stream = stdin if stdin is not None else sys.stdin
            stream = getattr(stream, "buffer", stream)
            return stream.read(MAX_RECORD_BYTES + 1)
        try:
            with open(path, "rb") as file:
                return file.read(MAX_RECORD_BYTES + 1)
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from None
