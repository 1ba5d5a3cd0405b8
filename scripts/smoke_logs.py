"""The log check of scripts/production-smoke.sh: every line of the servers' and workers' logs is one JSON
object, none is an error, and the game's start and end are there with their table, game and player ids."""

from __future__ import annotations

import json
import sys

WARNINGS_MODULE = ("UserWarning", "DeprecationWarning", "  return ", "  mw_instance")


def main(paths: list[str]) -> None:
    events, errors, fallbacks, lines = [], [], 0, 0
    for path in paths:
        with open(path) as log:
            for line in log:
                if any(mark in line for mark in WARNINGS_MODULE):
                    continue  # Python's warnings module writes plain text to stderr (a library's warning)
                lines += 1
                try:
                    entry = json.loads(line)
                except ValueError:
                    sys.exit(f"smoke: FAILED: a log line is not JSON: {path}: {line[:200]!r}")
                if entry.get("event", "").startswith("game_"):
                    events.append(entry)
                if entry["level"] in ("ERROR", "CRITICAL"):
                    errors.append(entry)
                fallbacks += "the rule bot moves" in entry["message"]
    if errors:
        sys.exit(f"smoke: FAILED: {len(errors)} error lines, the first: {errors[0]}")
    kinds = sorted({e["event"] for e in events})
    if kinds != ["game_finished", "game_started"] or any(None in (e["table"], e["game"]) for e in events):
        sys.exit(f"smoke: FAILED: the game's start and end are not logged with their ids: {events}")
    people = {p for e in events for p in e["players"] if p is not None}
    print(
        f"smoke: {lines} log lines, each one JSON object, none an error; {', '.join(kinds)} logged with table"
        f" {events[0]['table']}, game {events[0]['game']}, players {sorted(people)};"
        f" {fallbacks} bot moves left to the rule bot for want of a worker's answer"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
