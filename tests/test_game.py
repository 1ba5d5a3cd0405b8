"""A game (match): standard mode to a target, fair mode rounds, multipliers, replay."""

from __future__ import annotations

import random

import pytest

from games.engine import (
    FAIR,
    STANDARD,
    Action,
    GameConfig,
    GamePlan,
    GameState,
    IllegalActionError,
    InvalidConfigError,
    team_of,
)
from tests.engine_helpers import play_random_game


def test_dealer_rotates_to_the_next_seat_every_round():
    game = play_random_game(GameState.new(GameConfig(mode=FAIR, round_count=8, seed=1)), random.Random(1))
    dealers = [r.dealer for r in game.rounds]
    assert all(dealers[i + 1] == (dealers[i] + 3) % 4 for i in range(len(dealers) - 1))
    assert len(game.rounds) == 8


def test_standard_game_ends_mid_round_when_the_target_is_reached():
    for seed in range(40):
        game = GameState.new(GameConfig(mode=STANDARD, target=120, seed=seed))
        rng = random.Random(seed)
        while not game.over:
            before = game
            game = game.apply(game.player, rng.choice(game.current.legal_actions()))
        last = game.current
        if last.is_over:
            continue  # this seed ended exactly on a ninth trick; look for one that ends mid-round
        winner = game.winner
        assert game.scores[winner] >= 120
        assert game.scores[1 - winner] < 120
        assert before.scores[winner] < 120  # reached with the trick just taken
        assert team_of(last.tricks[-1].winner) == winner
        assert len(last.tricks) < 9
        assert game.player == -1
        with pytest.raises(IllegalActionError, match="the game is over"):
            game.apply(last.player, last.legal_actions()[0])
        return
    pytest.fail("no seed ended mid-round")


def test_standard_game_to_1000_plays_several_rounds():
    game = play_random_game(GameState.new(GameConfig(seed=3)), random.Random(3))
    assert game.over and game.winner in (0, 1)
    assert max(game.scores) >= 1000 > min(game.scores)
    assert len(game.rounds) >= 5


def test_fair_game_plays_the_round_count_and_credits_every_round():
    game = play_random_game(GameState.new(GameConfig(mode=FAIR, round_count=6, seed=9)), random.Random(2))
    assert len(game.rounds) == 6 and all(r.is_over for r in game.rounds)
    totals = [sum(s[team] for s in game.round_scores()) for team in (0, 1)]
    assert tuple(totals) == game.scores


def _mirror(action: Action, permutation: tuple[int, ...]) -> Action:
    if action.is_card:
        return Action.card(permutation[action.value // 9] * 9 + action.value % 9)
    if action.is_push or action.value >= 4:
        return action
    return Action.trump(permutation[action.value])


def test_fair_mode_draw_when_both_teams_play_the_pair_alike():
    # Every pair's repeat is played as the exact mirror of its original, so each team
    # scores in the repeat what the other scored in the original: a draw, winner None.
    config = GameConfig(mode=FAIR, round_count=4, seed=21)
    game = GameState.new(config)
    rng = random.Random(21)
    played: dict[int, list[Action]] = {}
    while not game.over:
        index = game.round_index
        deal = game.deal(index)
        if deal.repeats is None:
            action = rng.choice(game.current.legal_actions())
        else:
            action = _mirror(played[deal.repeats][len(played.get(index, []))], deal.permutation)
        played.setdefault(index, []).append(action)
        game = game.apply(game.player, action)
    assert game.over
    assert game.scores[0] == game.scores[1]
    assert game.winner is None
    assert all(rpa == 0 for rpa in game.round_point_advantages().values())


def test_round_point_advantage_is_antisymmetric():
    game = play_random_game(GameState.new(GameConfig(mode=FAIR, round_count=12, seed=4)), random.Random(8))
    rpa = game.round_point_advantages()
    assert len(rpa) == 12
    for first, second in game.plan.pairs():
        assert rpa[first] == -rpa[second]
        scores = game.round_scores()
        start1 = team_of(game.rounds[first].forehand_seat)
        start2 = team_of(game.rounds[second].forehand_seat)
        assert start1 != start2
        assert rpa[first] == scores[first][start1] - scores[second][start2]


def test_multipliers_scale_round_points_and_match_bonus():
    config = GameConfig(mode=FAIR, round_count=4, seed=5, multipliers=GameConfig.multipliers_from("classic"))
    game = play_random_game(GameState.new(config), random.Random(6))
    for rnd, (a, b) in zip(game.rounds, game.round_scores(), strict=True):
        factor = (1, 1, 2, 2, 3, 3)[rnd.trump]
        assert a + b in (157 * factor, 257 * factor)
    assert GameConfig.multipliers_from({"0": 1, "2": 2, "4": 3}) == (1, 1, 2, 1, 3, 1)


def test_replaying_the_action_list_rebuilds_the_game():
    config = GameConfig(mode=STANDARD, target=500, seed=13)
    game = play_random_game(GameState.new(config), random.Random(13))
    assert GameState.replay(config, game.actions()) == game


def test_same_seed_same_deals():
    a = GameState.new(GameConfig(mode=FAIR, seed=77))
    b = GameState.new(GameConfig(mode=FAIR, seed=77))
    c = GameState.new(GameConfig(mode=FAIR, seed=78))
    assert a.plan.schedule == b.plan.schedule
    assert [a.deal(i) for i in range(12)] == [b.deal(i) for i in range(12)]
    assert [a.deal(i).hands for i in range(12)] != [c.deal(i).hands for i in range(12)]


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"mode": "duel"}, "mode must be"),
        ({"target": 0}, "target must be"),
        ({"mode": FAIR, "round_count": 7}, "even number of rounds"),
        ({"mode": FAIR, "round_count": 0}, "even number of rounds"),
        ({"multipliers": (1, 2)}, "six integers"),
        ({"seed": -1}, "seed must be"),
    ],
)
def test_bad_options_are_refused(options, match):
    with pytest.raises(InvalidConfigError, match=match):
        GameConfig(**options)


def test_wrong_seat_cannot_act_in_a_game():
    game = GameState.new(GameConfig(seed=1))
    other = (game.player + 1) % 4
    with pytest.raises(IllegalActionError, match="turn"):
        game.apply(other, game.current.legal_actions()[0])


def test_stored_deals_not_the_seed_decide_a_replay():
    config = GameConfig(mode=FAIR, round_count=4, seed=8)
    game = play_random_game(GameState.new(config), random.Random(8))
    stored = GameConfig(mode=FAIR, round_count=4, seed=999)  # a seed that would deal differently
    plan = GamePlan(stored, schedule=game.plan.schedule, known_deals=[game.deal(i) for i in range(4)])
    assert GameState.replay(stored, game.actions(), plan).rounds == game.rounds
    with pytest.raises(InvalidConfigError, match="wrong dealer"):
        GamePlan(stored, schedule=game.plan.schedule, known_deals=[game.deal(1)])
