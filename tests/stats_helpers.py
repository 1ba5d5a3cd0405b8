"""Finished games for the statistics and ratings tests: people's moves through the service, bots by the runner."""

from __future__ import annotations

from bots.runner import play_bot_turns
from games.engine import GameState
from games.live import service
from games.models import Game, Player
from tests.table_helpers import actor, make_table, start


def play_out(game: Game, humans: dict[int, Player], stop_before_end: bool = False) -> Game:
    """Play a game to its end (or to its last move): people play their lowest legal move, bots their own."""
    while True:
        if not stop_before_end:
            play_bot_turns(game.pk)
        game.refresh_from_db()
        if game.status != Game.RUNNING:
            return game
        state = service.load_state(game)
        if stop_before_end and is_last_move(state):
            return game
        seat = state.player
        if seat in humans:
            move = min(state.current.legal_actions(), key=lambda a: (a.is_push, a.value))
            service.submit(game.pk, seat, move, actor=actor(humans[seat]), expected_seq=game.action_count)
        elif stop_before_end:
            move = state.current.legal_actions()[0]
            service.submit(game.pk, seat, move, actor=service.BOT_RUNNER, expected_seq=game.action_count)


def is_last_move(state: GameState) -> bool:
    """Whether the next move ends the game (the last card of a fair game's last round)."""
    return (
        state.config.mode == "fair"
        and state.round_index == state.config.round_count - 1
        and state.current.cards_played == 35
    )


def finished_game(owner: Player, seats: list[Player | str], *, seed: int = 1, **options) -> Game:
    """A game at a new table with these seats (people or built-in bot names, North first), played to its end."""
    options.setdefault("mode", "fair")
    if options["mode"] == "fair":
        options.setdefault("round_count", 4)
    else:
        options.setdefault("target", 300)
    table = make_table(owner, seats, **options)
    humans = {position: p for position, p in enumerate(seats) if isinstance(p, Player)}
    return play_out(start(table, owner, seed), humans)
