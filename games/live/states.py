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
from collections.abc import Iterable

from django.db import models

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
    start, state = _nearest(game, seq)
    rows = ActionRow.objects.filter(game=game, seq__gte=start, seq__lt=seq).order_by("seq")
    return _replay(game, seq, start, state, rows)


def load_many(games: list[Game]) -> dict[int, GameState]:
    """``load`` of several games at their stored moves, with one query for all the rows they miss (a server
    that takes over a stopping one's games reads them at once, not one after the other)."""
    loaded: dict[int, GameState] = {}
    starts: dict[int, tuple[int, GameState]] = {}
    missing = models.Q(pk__in=[])
    for game in games:
        state = peek(game.pk, game.seed, game.action_count)
        if state is not None:
            loaded[game.pk] = state
            continue
        starts[game.pk] = nearest = _nearest(game, game.action_count)
        missing |= models.Q(game_id=game.pk, seq__gte=nearest[0], seq__lt=game.action_count)
    rows: dict[int, list[ActionRow]] = {game_id: [] for game_id in starts}
    if starts:
        for row in ActionRow.objects.filter(missing).order_by("game_id", "seq"):
            rows[row.game_id].append(row)
    for game in games:
        if game.pk in starts:
            at, held = starts[game.pk]
            loaded[game.pk] = _replay(game, game.action_count, at, held, rows[game.pk])
    return loaded


def _nearest(game: Game, seq: int) -> tuple[int, GameState]:
    """The latest state held of ``game`` at or before ``seq`` moves (the new game's if none): (moves, state)."""
    with _lock:
        held = _states.get((game.pk, game.seed))
        earlier = [s for s in held if s <= seq] if held else []
        if earlier:
            start = max(earlier)
            return start, held[start]  # type: ignore[index]
    return 0, GameState.new(game.config(), game.plan())


def _replay(game: Game, seq: int, start: int, state: GameState, rows: Iterable[ActionRow]) -> GameState:
    """``state`` after ``start`` moves, moved on by the stored ``rows`` to ``seq`` moves (and kept)."""
    at = start
    for row in rows:
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
