"""Differential test against jass-kit 2.0.5, the reference peer.

Legal cards, trick winners and trick points must agree on every position
except where jass-kit's known under-trump bug applies (jass-kit-py issue 10):
a trump game, a non-trump suit led, and the second and third cards of the
trick both trumps. There jass-kit picks the "lower" trump by comparing card
ids and so allows under-trumps that the rules forbid.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from jass.game.rule_schieber import RuleSchieber

from games.engine import RoundState, iter_cards, legal_mask, trick_points, trick_winner
from games.engine.fair import random_deal

POSITIONS = 120_000
RULE = RuleSchieber()


def jasskit_legal(hand: int, trick: tuple[int, ...], trump: int) -> int:
    one_hot = np.zeros(36, dtype=np.int32)
    one_hot[list(iter_cards(hand))] = 1
    current = np.full(4, -1, dtype=np.int32)
    current[: len(trick)] = trick
    valid = RULE.get_valid_cards(one_hot, current, len(trick), trump)
    return sum(1 << int(c) for c in np.flatnonzero(valid))


def is_jasskit_undertrump_bug(trick: tuple[int, ...], trump: int) -> bool:
    return (
        trump < 4 and len(trick) == 3 and trick[0] // 9 != trump and trick[1] // 9 == trump and trick[2] // 9 == trump
    )


def reachable_positions(rng: random.Random):
    """Positions met in random legal play under our rules (hand, trick, trump), plus finished tricks."""
    while True:
        state = RoundState.deal(random_deal(rng), rng.randrange(4)).choose_trump_unchecked(rng.randrange(6))
        while not state.is_over:
            yield ("position", state.hands[state.player], state.trick, state.trump)
            cards = list(iter_cards(state.legal_mask()))
            before = state
            state = state.play_unchecked(rng.choice(cards))
            if len(state.tricks) > len(before.tricks):
                yield ("trick", state.tricks[-1], state.trump, len(state.tricks) == 9)


def synthetic_position(rng: random.Random):
    """A random hand of 1..9 cards against a random partial trick: corner cases play rarely reaches."""
    deck = rng.sample(range(36), 12)
    trick = tuple(deck[: rng.randrange(4)])
    hand = sum(1 << c for c in deck[len(trick) : len(trick) + rng.randint(1, 9)])
    return hand, trick, rng.randrange(6)


@pytest.mark.slow
def test_legal_cards_winners_and_points_agree_with_jasskit_except_its_undertrump_bug():
    rng = random.Random(20261122)
    compared = disagreements = tricks_compared = 0
    bug_positions = 0
    played = reachable_positions(rng)
    while compared < POSITIONS:
        if compared % 2:
            hand, trick, trump = synthetic_position(rng)
        else:
            item = next(played)
            while item[0] == "trick":
                _, t, trump, last = item
                cards = np.array(t.cards, dtype=np.int32)
                assert RULE.calc_winner(cards, t.first, trump) == t.winner == trick_winner(t.cards, t.first, trump)
                assert RULE.calc_points(cards, last, trump) == t.points == trick_points(t.cards, trump, last)
                tricks_compared += 1
                item = next(played)
            _, hand, trick, trump = item
        ours = legal_mask(hand, trick, trump)
        theirs = jasskit_legal(hand, trick, trump)
        compared += 1
        bug_positions += is_jasskit_undertrump_bug(trick, trump)
        if ours != theirs:
            disagreements += 1
            assert is_jasskit_undertrump_bug(trick, trump), (hand, trick, trump, ours, theirs)
            assert ours & ~theirs == 0, "jass-kit's bug only ever allows more cards"
    print(
        f"\ncompared {compared} positions and {tricks_compared} tricks with jass-kit 2.0.5: "
        f"{disagreements} disagreements, all of them the under-trump bug "
        f"(of {bug_positions} positions where it can apply)"
    )
    assert tricks_compared > 10_000
    assert disagreements > 0, "the known bug should show up in this many positions"


def test_known_bug_position_from_rules_md():
    # Hearts trump, clubs led, H10 then HJ: jass-kit allows HA and H9, which under-trump the Jack.
    from games.engine import CA, CK, H9, H10, HA, HEARTS, HJ

    hand = (1 << HA) | (1 << H9) | (1 << CA)
    trick = (CK, H10, HJ)
    assert legal_mask(hand, trick, HEARTS) == 1 << CA
    assert jasskit_legal(hand, trick, HEARTS) == hand
