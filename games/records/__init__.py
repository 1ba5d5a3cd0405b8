"""Game records: one JSON document per game, exported (``game_record``) and imported (``import_record``).

A record holds the game's options, result, seats and faults, and one HSLU
full-state log per round (exactly what jass-kit's ``GameState.to_json``
writes). Importing reads it once with a schema (``schema.parse``: typed
fields, each refusal with its code and JSON place), then checks it completely
with the engine (``check.check_record``) before anything is stored
(``store.store_record``): every card, every trick's winner and points, the
dealer rotation, the fair pairs' deals, where the game ends and its result. A
refused record raises ``RecordError`` whose message names the round, trick
and card (all 1-based) and the reason.
"""

from __future__ import annotations

from games.records.check import CheckedRecord, Move, check_record
from games.records.export import ROUND_LOGS_NOTE, game_record, round_logs, weis_record
from games.records.schema import (
    MAX_FAULTS,
    MAX_RECORD_BYTES,
    MAX_ROUNDS,
    TRUMP_KEYS,
    FaultEntry,
    RecordCode,
    RecordError,
    SeatEntry,
    parse_record,
)
from games.records.store import MAX_TABLE_NAME, import_record, store_record

__all__ = [
    "MAX_FAULTS",
    "MAX_RECORD_BYTES",
    "MAX_ROUNDS",
    "MAX_TABLE_NAME",
    "ROUND_LOGS_NOTE",
    "TRUMP_KEYS",
    "CheckedRecord",
    "FaultEntry",
    "Move",
    "RecordCode",
    "RecordError",
    "SeatEntry",
    "check_record",
    "game_record",
    "import_record",
    "parse_record",
    "round_logs",
    "store_record",
    "weis_record",
]
