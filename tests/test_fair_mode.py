"""Fair mode: schedules, suit permutations and seat rotation (thesis §3.1)."""

from __future__ import annotations

import random

import pytest

from games.engine import (
    FAIR,
    GameConfig,
    GameState,
    InvalidConfigError,
    check_schedule,
    next_seat,
    random_schedule,
    team_of,
)
from games.engine.cards import permute_mask
from games.engine.fair import IDENTITY


def test_thesis_example_schedule_is_valid():
    pairs = check_schedule([0, 0, 2, 0, 0, 5, 4, 0, 8, 1, 0, 11])
    assert pairs == [(0, 9), (1, 2), (3, 6), (4, 5), (7, 8), (10, 11)]


@pytest.mark.parametrize(
    ("schedule", "match"),
    [
        ([0, 0, 1, 2], "started by the same team"),
        ([0, 1, 1, 0], "repeats round 1, which|repeated twice"),
        ([0, 0, 0, 0], "exactly one pair"),
        ([0, 2, 0, 0], "earlier round"),
        ([0, 1, 0, 3], "start 2 and 0"),
        ([0, 1, 0], "even number"),
    ],
)
def test_invalid_schedules_are_refused(schedule, match):
    with pytest.raises(InvalidConfigError, match=match):
        check_schedule(schedule)


@pytest.mark.parametrize("round_count", range(2, 25, 2))
def test_random_schedules_are_valid_and_balanced(round_count):
    for seed in range(200):
        schedule = random_schedule(round_count, random.Random(seed))
        pairs = check_schedule(schedule)
        assert len(pairs) == round_count // 2
        originals = [first for first, _ in pairs]
        by_team = [sum(1 for i in originals if i % 2 == p) for p in (0, 1)]
        # Equal when round_count is a multiple of 4; otherwise the count of originals is odd.
        assert abs(by_team[0] - by_team[1]) == (round_count // 2) % 2
        for first, second in pairs:
            assert first < second and (second - first) % 2 == 1


def _position(seat: int, forehand: int) -> int:
    """How many places after forehand (in play order) ``seat`` sits."""
    position, current = 0, forehand
    while current != seat:
        current, position = next_seat(current), position + 1
    return position


@pytest.mark.parametrize("round_count", range(2, 25, 2))
def test_pair_deals_are_equal_up_to_permutation_and_rotation(round_count):
    for seed in range(25):
        game = GameState.new(GameConfig(mode=FAIR, round_count=round_count, seed=seed))
        for first, second in game.plan.pairs():
            original, repeat = game.deal(first), game.deal(second)
            assert repeat.repeats == first and original.repeats is None
            assert original.permutation == IDENTITY
            assert sorted(repeat.permutation) == [0, 1, 2, 3] and repeat.permutation != IDENTITY
            assert team_of(original.forehand) != team_of(repeat.forehand)
            for seat in range(4):
                same_place = [
                    s for s in range(4) if _position(s, original.forehand) == _position(seat, repeat.forehand)
                ]
                assert repeat.hands[seat] == permute_mask(original.hands[same_place[0]], repeat.permutation)
            # The team that did not start the original starts the repeat with forehand's hand.
            assert repeat.hands[repeat.forehand] == permute_mask(original.hands[original.forehand], repeat.permutation)


def test_everything_is_reproducible_from_one_seed():
    def snapshot(seed: int):
        game = GameState.new(GameConfig(mode=FAIR, round_count=12, seed=seed))
        return game.plan.first_dealer, game.plan.schedule, [game.deal(i) for i in range(12)]

    assert snapshot(123) == snapshot(123)
    assert snapshot(123) != snapshot(124)


def test_original_rounds_get_fresh_deals():
    game = GameState.new(GameConfig(mode=FAIR, round_count=12, seed=3))
    originals = [game.deal(i).hands for i, x in enumerate(game.plan.schedule) if x == 0]
    assert len(set(originals)) == 6
