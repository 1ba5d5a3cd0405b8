"""Batched rollouts (bots/rollout.py) agree with the engine's checked path, card by card."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bots.rollout import (
    ROW_SIZE,
    encode_round,
    legal_mask,
    legal_masks,
    play_card,
    playouts,
    random_playouts,
    score,
)
from games.engine import (
    D8,
    DA,
    EAST,
    H6,
    H10,
    HEARTS,
    HJ,
    S7,
    S9,
    SPADES,
    WEST,
    Action,
    RoundState,
    iter_cards,
)
from games.engine.fair import random_deal
from tests.engine_helpers import hands_from_codes, random_card


def _random_start(rng: random.Random) -> RoundState:
    """A fresh deal with a random trump declared (pushing first half the time), through the checked path."""
    state = RoundState.deal(random_deal(rng), rng.randrange(4))
    if rng.random() < 0.5:
        state = state.apply(Action.push())
    return state.apply(Action.trump(rng.randrange(6)))


def _random_position(rng: random.Random) -> RoundState:
    """A position from a random round: 0..35 random legal cards after the trump."""
    state = _random_start(rng)
    for _ in range(rng.randrange(36)):
        state = state.play(random_card(state.legal_mask(), rng))
    return state


@pytest.mark.parametrize("seed", range(300))
def test_every_step_agrees_with_the_engine(seed):
    """Legal cards, trick winners, points and the match bonus, for every card of a random round."""
    rng = random.Random(seed)
    state = _random_start(rng)
    row = encode_round(state)
    while not state.is_over:
        assert legal_mask(row) == state.legal_mask(), state
        card = random_card(state.legal_mask(), rng)
        state = state.play(card)
        play_card(row, card)
        assert np.array_equal(row, encode_round(state)), state
    assert (score(row, 0), score(row, 1)) == state.score()


@pytest.mark.parametrize("randomness", [1.0, 0.2, 0.0])
def test_batched_playouts_replay_legally_through_the_engine(randomness):
    """Each playout's cards (random or rule-of-thumb), replayed through ``RoundState.apply``, give the same score."""
    rng = random.Random(7)
    positions = [_random_position(rng) for _ in range(400)]
    rows = np.array([encode_round(state) for state in positions])
    assert rows.shape == (400, ROW_SIZE)
    assert np.array_equal(legal_masks(rows), [state.legal_mask() for state in positions])
    trace = np.full((len(rows), 36), -1, dtype=np.int64)
    scores = playouts(rows, seed=3, randomness=randomness, trace=trace)
    for index, state in enumerate(positions):
        for card in trace[index, : 36 - state.cards_played]:
            state = state.apply(Action.card(int(card)), state.player)
        assert state.is_over
        assert tuple(scores[index]) == state.score()
    assert np.array_equal(legal_masks(rows), np.zeros(len(rows)))


def test_the_same_seed_plays_the_same_cards():
    rng = random.Random(11)
    rows = np.array([encode_round(_random_position(rng)) for _ in range(50)])
    traces = [np.full((50, 36), -1, dtype=np.int64) for _ in range(3)]
    first = random_playouts(rows.copy(), seed=5, trace=traces[0])
    assert np.array_equal(first, random_playouts(rows.copy(), seed=5, trace=traces[1]))
    assert np.array_equal(traces[0], traces[1])
    random_playouts(rows.copy(), seed=6, trace=traces[2])
    assert not np.array_equal(traces[0], traces[2])


def test_matches_score_257():
    """A team that takes all nine tricks scores 157 + 100; its opponents score nothing."""
    hands = hands_from_codes(
        "HJ H9 HA HK HQ H10 H8 H7 H6",
        "DA DK DQ DJ D10 D9 D8 D7 D6",
        "SA SK SQ SJ S10 S9 S8 S7 S6",
        "CA CK CQ CJ C10 C9 C8 C7 C6",
    )
    state = RoundState.deal(hands, WEST).apply(Action.trump(HEARTS))  # North leads and has every trump
    row = encode_round(state)
    while row[5] >= 0:
        play_card(row, max(iter_cards(legal_mask(row)), key=lambda c: c == HJ or -c))
    assert (score(row, 0), score(row, 1)) == (257, 0)


def test_no_undertrump_after_overtrump():
    """RULES.md: after D8 S7 S9 (spades trump), S8 S6 SA H6 DA may only play DA (SA is below S9)."""
    hands = hands_from_codes(
        "D8 DK DQ DJ D10 D9 D7 D6 H9",
        "S8 S6 SA H6 DA H7 H8 C6 C7",
        "S9 SJ SK SQ S10 CA CK CQ CJ",
        "S7 HA HK HQ HJ H10 C8 C9 C10",
    )
    state = RoundState.deal(hands, EAST).apply(Action.trump(SPADES))  # North leads
    for card in (D8, S7, S9):
        state = state.play(card)
    assert state.player == EAST
    assert legal_mask(encode_round(state)) == state.legal_mask() == 1 << DA


def test_puur_alone_need_not_follow_trump():
    """A hand whose only trump is the Jack may play anything when trump is led."""
    hands = hands_from_codes(
        "H6 DK DQ DJ D10 D9 D7 D6 D8",
        "HJ S6 SA DA C7 C6 S8 S7 C10",
        "S9 SJ SK SQ S10 CA CK CQ CJ",
        "HA HK HQ H9 H10 H8 H7 C8 C9",
    )
    state = RoundState.deal(hands, EAST).apply(Action.trump(HEARTS)).play(H6)  # North leads H6
    state = state.play(H10).play(S9)  # West follows, South has no heart
    assert state.player == EAST
    row = encode_round(state)
    assert legal_mask(row) == state.legal_mask() == state.hands[EAST]


def test_the_kernels_run_the_engines_own_legal_card_rule():
    """One source per rule: the compiled legal-card function is the engine's code object, not a port of it."""
    from bots import rollout, solver
    from games.engine import rules

    assert rollout.legal_mask_after.py_func.__code__ is rules.legal_mask_after.__code__
    assert solver.legal_mask_after is rollout.legal_mask_after
    # Its tables are the engine's values (as arrays), so a change in the engine reaches the kernels.
    assert list(rollout.legal_mask_after.py_func.__globals__["HIGHER_TRUMPS"]) == list(rules.HIGHER_TRUMPS)
