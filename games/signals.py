"""Where apps above ``games`` hear of a game's life without ``games`` knowing them (Django signals).

``game_ended`` and ``clock_ran_out`` are sent by the service inside the
transaction that made the change, so a receiver's writes commit with it or not
at all; a receiver works in a savepoint of its own and logs its failures, so
it can never undo the move that ended a game. ``driver_beat`` is sent by every
process that drives games, once per heartbeat (``bots.runner``), from a
database thread: a place for periodic work that must go on in some live
process (a tournament whose start time came).
"""

from __future__ import annotations

import logging

from django.dispatch import Signal

log = logging.getLogger(__name__)

game_ended = Signal()  # game: the Game, finished or abandoned (inside the ending transaction)
clock_ran_out = Signal()  # game, seat: a person's turn clock ran out, a stand-in plays (inside the transaction)
driver_beat = Signal()  # a game-driving process is alive (no arguments; outside any transaction)


def send_in_transaction(signal: Signal, **kwargs: object) -> None:
    """Send ``signal``; a receiver that fails is logged, never raised into the writer's transaction."""
    for receiver, result in signal.send_robust(sender=None, **kwargs):
        if isinstance(result, Exception):
            log.error(
                "receiver %r of a game signal failed", receiver, exc_info=(type(result), result, result.__traceback__)
            )
