"""Storing a checked record: a new imported table with its game, seats, actions and faults, in one transaction."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from games.models import Action, Fault, Game, GameSeat, Player, new_game, new_table
from games.records.check import CheckedRecord, check_record
from games.records.schema import RecordCode, RecordError

MAX_TABLE_NAME = 60


def import_record(data: object, *, importer: Player | None = None, private: bool = False, name: str = "") -> Game:
    """Check a record (see ``check_record``) and store it as a replayable game at a new imported table.

    Nothing is written unless every check passes; then the table, its game,
    seats, actions and faults are written in one transaction.
    """
    return store_record(check_record(data), importer=importer, private=private, name=name)


def store_record(
    record: CheckedRecord, *, importer: Player | None = None, private: bool = False, name: str = ""
) -> Game:
    """Store a checked record as a game at a new table (``imported=True``), in one transaction."""
    table_name = " ".join((name or "").split()) or _default_name(record)
    if len(table_name) > MAX_TABLE_NAME:
        raise RecordError(
            gettext("a table name has at most {count} characters").format(count=MAX_TABLE_NAME),
            code=RecordCode.TOO_LONG,
            place="name",
        )
    config, state = record.config, record.state
    with transaction.atomic():
        table = new_table(
            table_name,
            config,
            created_by=importer,
            private=bool(private),
            imported=True,
        )  # its seats stay empty: it never plays
        game = new_game(
            table,
            config,
            record.deals,
            [
                {
                    "position": seat.position,
                    "name": seat.name,
                    "bot": seat.bot,
                    "remote_url": seat.remote_url,
                    "remote_dialect": seat.remote_dialect,
                    "standin": GameSeat.LEFT if seat.left else "",
                    "fault_count": sum(1 for f in record.faults if f.seat == seat.position),
                }
                for seat in record.seats
            ],
            record.schedule,
            status=record.status,
            abandon_reason=record.abandon_reason,
            standin_bot=record.standin_bot,
            action_count=len(record.moves),
            points=list(state.scores),
            winner=state.winner,
            finished_at=record.finished_at or timezone.now(),
        )
        Action.objects.bulk_create(
            [
                Action(
                    game=game,
                    seq=seq,
                    seat=move.seat,
                    kind=move.action.kind,
                    value=move.action.value,
                    standin=seq in record.standin_moves,
                )
                for seq, move in enumerate(record.moves)
            ],
            batch_size=500,
        )
        Fault.objects.bulk_create(
            [
                Fault(
                    game=game,
                    seat=fault.seat,
                    seq=fault.move,
                    round=fault.round,
                    trick=fault.trick,
                    kind=fault.kind,
                    detail=fault.detail,
                    latency_ms=fault.latency_ms,
                )
                for fault in record.faults
            ]
        )
    return game


def _default_name(record: CheckedRecord) -> str:
    if record.source_id is not None:
        return gettext("Imported game (was #{number})").format(number=record.source_id)
    return ngettext("Imported game ({count} round)", "Imported game ({count} rounds)", record.rounds).format(
        count=record.rounds
    )
