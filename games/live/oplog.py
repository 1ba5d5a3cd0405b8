"""One log line per game event an operator follows: a game's start, end and abandonment, and a bot's fault.

Each line names its table, game and players in its text (readable in
development) and carries them as fields (``event``, ``table``, ``game``,
``players``: the person's player id per seat, ``None`` for a bot), so that in
production, where a log line is one JSON object (``LOGGING`` in the settings),
a log collector can follow a game or a person. The service calls these inside
its transaction; the line is written once the change is committed.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from django.db import transaction

from games.engine import SEAT_NAMES

log = logging.getLogger("jassweb.events")

TEAMS = ("North & South", "East & West")


def _seat(seat: Any) -> str:
    """Who plays a seat (a ``Seat`` or ``GameSeat``), for the log: a person, a built-in bot or a bot URL."""
    if seat.player_id:
        return f"player {seat.player_id}"
    if seat.bot:
        return f"bot {seat.bot}"
    return f"bot {seat.remote_url}" if seat.remote_url else "nobody"


def _emit(event: str, message: str, **fields: Any) -> None:
    transaction.on_commit(lambda: log.info(message, extra={"event": event, **fields}))


def game_started(game: Any, seats: Sequence[Any]) -> None:
    who = ", ".join(f"{SEAT_NAMES[s.position]} {_seat(s)}" for s in seats)
    _emit(
        "game_started",
        f"game {game.pk} started at table {game.table_id} ({game.mode}): {who}",
        table=game.table_id,
        game=game.pk,
        players=[s.player_id for s in seats],
        seats=[_seat(s) for s in seats],
        mode=game.mode,
    )


def game_finished(game: Any, seats: Sequence[Any]) -> None:
    points = list(game.points)
    result = "a draw" if game.winner is None else f"{TEAMS[game.winner]} won"
    _emit(
        "game_finished",
        f"game {game.pk} finished at table {game.table_id}: {points[0]} to {points[1]}, {result}"
        f" ({game.action_count} moves)",
        table=game.table_id,
        game=game.pk,
        players=[s.player_id for s in seats],
        points=points,
        winner=game.winner,
        moves=game.action_count,
    )


def game_abandoned(game: Any, seats: Sequence[Any]) -> None:
    _emit(
        "game_abandoned",
        f"game {game.pk} abandoned at table {game.table_id} after {game.action_count} moves: {game.abandon_reason}",
        table=game.table_id,
        game=game.pk,
        players=[s.player_id for s in seats],
        reason=game.abandon_reason,
        moves=game.action_count,
    )


def bot_fault(game: Any, seat: Any, kind: str, detail: str, round_index: int, trick: int | None, latency_ms: int):
    """A remote bot's fault; ``detail`` is the public one (the hidden detail may show the bot's hand)."""
    where = "after the round" if trick is None else f"trick {trick + 1}"
    _emit(
        "bot_fault",
        f"bot fault in game {game.pk} at table {game.table_id}, {SEAT_NAMES[seat.position]} ({seat.remote_url}),"
        f" round {round_index + 1} {where}: {kind}: {detail}",
        table=game.table_id,
        game=game.pk,
        seat=seat.position,
        bot=seat.remote_url,
        kind=kind,
        detail=detail,
        round=round_index,
        trick=trick,
        latency_ms=latency_ms,
    )
