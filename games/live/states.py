"""Engine states of live games, kept in memory per process and rebuilt from the event log when missing.

A game's state is never stored: it is its deals plus its ``Action`` rows,
replayed by the engine. Replaying a whole game for every move would cost far
too much, so each process keeps the last few states of recent games and moves
them on with the moves it hears of (its own, or those the table's events carry
from other processes). Only when a state is missing or a move was not heard
does a process read the rows it has not seen.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from games.engine import Action, GameState
from games.models import Action as ActionRow
from games.models import Game

GAMES_KEPT = 2048  # games whose states a process keeps
STATES_PER_GAME = 6  # the latest states of each (a slow watcher may still render a recent one)

_Key = tuple[int, int]  # (game id, seed): a seed tells a game from an earlier one with the same id (tests)
_states: OrderedDict[_Key, dict[int, GameState]] = OrderedDict()
_lock = threading.Lock()


def peek(game_id: int, seed: int, seq: int) -> GameState | None:
    """The state of a game after exactly ``seq`` moves, if this process holds it."""
    with _lock:
        held = _states.get((game_id, seed))
        return held.get(seq) if held else None


def remember(game_id: int, seed: int, seq: int, state: GameState) -> None:
    """Keep the state of a game after ``seq`` moves (with a few earlier ones)."""
    key = (game_id, seed)
    with _lock:
        held = _states.get(key)
        if held is None:
            held = _states[key] = {}
        held[seq] = state
        while len(held) > STATES_PER_GAME:
            del held[min(held)]
        _states.move_to_end(key)
        while len(_states) > GAMES_KEPT:
            _states.popitem(last=False)


def advance(game_id: int, seed: int, seq: int, seat: int, code: int) -> GameState | None:
    """The state after move ``seq`` (0-based) of ``seat`` with action ``code``, from the one before it.

    ``None`` when this process does not hold the state before the move (read it
    from the database then).
    """
    after = peek(game_id, seed, seq + 1)
    if after is not None:
        return after
    before = peek(game_id, seed, seq)
    if before is None:
        return None
    after = before.apply(seat, Action.from_code(code))
    remember(game_id, seed, seq + 1, after)
    return after


def latest(game_id: int, seed: int) -> tuple[int, GameState] | None:
    """The newest state this process holds of a game: (moves, state)."""
    with _lock:
        held = _states.get((game_id, seed))
        if not held:
            return None
        seq = max(held)
        return seq, held[seq]


def load(game: Game, seq: int | None = None) -> GameState:
    """The state of ``game`` after ``seq`` moves (default: all its stored moves), reading only missing rows."""
    seq = game.action_count if seq is None else seq
    state = peek(game.pk, game.seed, seq)
    if state is not None:
        return state
    start, state = 0, None
    with _lock:
        held = _states.get((game.pk, game.seed))
        if held:
            earlier = [s for s in held if s <= seq]
            if earlier:
                start = max(earlier)
                state = held[start]
    if state is None:
        start, state = 0, GameState.new(game.config(), game.plan())
    at = start
    for row in ActionRow.objects.filter(game=game, seq__gte=start, seq__lt=seq).order_by("seq"):
        if row.seq != at:
            raise RuntimeError(f"game {game.pk} is missing action {at}")
        state = state.apply(row.seat, row.to_engine())
        at += 1
    if at != seq:
        raise RuntimeError(f"game {game.pk} has {at} actions stored, not {seq}")
    remember(game.pk, game.seed, seq, state)
    return state


def forget_all() -> None:
    """Drop every state (tests use it to prove the database alone suffices)."""
    with _lock:
        _states.clear()
