"""Named players and ready tables for service and consumer tests."""

from __future__ import annotations

from collections.abc import Sequence

from games.live import service
from games.models import Game, Player, Table

SEAT_PLAYERS = ("Nora", "Emil", "Sara", "Wim")  # North, East, South, West


def make_players(names: tuple[str, ...] = SEAT_PLAYERS) -> list[Player]:
    return [Player.objects.create(name=name) for name in names]


def make_table(owner: Player, seats: Sequence[Player | str | None], **options) -> Table:
    """A table whose seats hold the given players or built-in bot names (in seat order).

    Bots move at once and the next deal follows a round at once (a test of the pause sets its own),
    also for tables a module-scoped fixture makes before the settings fixtures apply.
    """
    options.setdefault("bot_delay_ms", 0)
    options.setdefault("round_pause_s", 0)
    table = service.create_table(owner, name=options.pop("name", "Test table"), **options)
    for position, occupant in enumerate(seats):
        if isinstance(occupant, Player):
            service.take_seat(table.pk, position, occupant)
        elif occupant:
            service.set_bot(table.pk, position, occupant, service.Actor(player_id=owner.pk))
    return table


def start(table: Table, owner: Player, seed: int = 1) -> Game:
    return service.start_game(table.pk, service.Actor(player_id=owner.pk), seed=seed)


def actor(player: Player) -> service.Actor:
    return service.Actor(player_id=player.pk)
