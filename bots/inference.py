"""Reading the other hands from how they were played: weigh sampled deals by a model of sensible play.

A deal of the unseen cards that agrees with the voids can still be unlikely: a
player who held the trump Ace would have played it there, a forehand with
that hand would not have pushed. ``likelihood`` replays the round so far under
a sampled deal and asks a model player (the rule bot) what each other seat
would have done in its place; every decision the model would have made
differently multiplies the deal's weight by ``noise``. Deals in which the
others played as sensible players play come out heavy, and the search spends
its iterations on them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from bots.rules import RuleBot
from games.engine import PUSH, Action, Observation, RoundState, next_seat

_MODEL = RuleBot()


def round_history(obs: Observation) -> list[tuple[int, int]]:
    """``(seat, card)`` of every card played so far this round, in order."""
    played = [(trick.seat_of(i), card) for trick in obs.tricks for i, card in enumerate(trick.cards)]
    played += [((obs.leader - i) % 4, card) for i, card in enumerate(obs.trick)]
    return played


def likelihood(obs: Observation, hands: Sequence[int], noise: float, history: list[tuple[int, int]]) -> float:
    """How well the others' decisions so far fit ``hands`` (the current hands of a sampled deal)."""
    starting = list(hands)
    for seat, card in history:
        starting[seat] |= 1 << card
    state = RoundState.deal(starting, obs.dealer)
    viewer = obs.viewer
    weight = 1.0
    forehand = next_seat(obs.dealer)
    if obs.forehand == 0:  # forehand pushed
        if forehand != viewer and _MODEL.choose_trump(state.observation(forehand), None) != PUSH:
            weight *= noise
        state = state.apply_unchecked(Action.push())
    declarer = state.player
    if declarer != viewer and _MODEL.choose_trump(state.observation(declarer), None) != obs.trump:
        weight *= noise
    state = state.apply_unchecked(Action.trump(obs.trump))
    for seat, card in history:
        if seat != viewer:
            seen = state.observation(seat)
            legal = seen.legal_mask()
            if legal & (legal - 1) and _MODEL.choose_card(seen, None) != card:
                weight *= noise
        state = state.play_unchecked(card)
    return weight


def pick_deals(
    obs: Observation,
    sample: Callable[[], tuple[int, int, int, int]],
    candidates: int,
    count: int,
    noise: float,
    rng: np.random.Generator,
    until: float | None = None,
) -> list[tuple[int, int, int, int]] | None:
    """Draw ``count`` deals in proportion to their likelihood from up to ``candidates`` sampled ones.

    With ``until`` (a ``time.time()``), weighing stops then: a move that is short of
    time reads fewer deals, and none at all (``None``: sample plainly) when already late.
    """
    history = round_history(obs)
    deals: list[tuple[int, int, int, int]] = []
    weights: list[float] = []
    while len(deals) < candidates and (until is None or time.time() < until):
        hands = sample()
        deals.append(hands)
        weights.append(likelihood(obs, hands, noise, history))
    if not deals:
        return None
    p = np.array(weights, dtype=np.float64)
    total = p.sum()
    p = p / total if total > 0 else np.full(len(deals), 1.0 / len(deals))
    chosen = rng.choice(len(deals), size=count, replace=True, p=p)
    return [deals[int(i)] for i in chosen]
