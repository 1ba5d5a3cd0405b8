"""Reading hands from play: deals in which the others played as the model player would weigh the most."""

from __future__ import annotations

import numpy as np

from bots.determinize import Sampler
from bots.inference import (
    OPEN_MARGIN,
    OPEN_PLAYOUTS,
    card_play_start,
    likelihood,
    open_misses,
    pick_deals,
    round_history,
)
from bots.rollout import seed_state
from bots.rule_based import RuleBot
from games.engine import GameConfig, GameState, RoundState, next_seat

RULES = RuleBot()


def position(seed: int, moves: int) -> GameState:
    """A game of four rule bots after ``moves`` moves."""
    rng = np.random.default_rng(seed)
    state = GameState.new(GameConfig(seed=seed))
    for _ in range(moves):
        state = state.apply(state.player, RULES.act(state.observation(state.player), rng))
    return state


def test_the_true_deal_of_rule_bots_fits_perfectly_and_random_deals_rarely_do():
    fitted = 0
    for seed in range(12):
        state = position(seed, 20)
        obs = state.observation(state.player)
        history = round_history(obs)
        assert len(history) == obs.played_mask.bit_count()
        assert likelihood(obs, state.current.hands, 0.25, history) == 1.0
        sampler = Sampler(obs)
        rng = np.random.default_rng(seed)
        weights = [likelihood(obs, sampler.sample(rng), 0.25, history) for _ in range(30)]
        assert all(0 < w <= 1 for w in weights)
        fitted += sum(w == 1.0 for w in weights)
    assert fitted < 12 * 30 / 4, "most random deals contradict some decision the others made"


def test_picked_deals_come_from_the_candidates_by_weight():
    state = position(3, 22)
    obs = state.observation(state.player)
    rng = np.random.default_rng(0)
    sampler = Sampler(obs)
    candidates = [sampler.sample(rng) for _ in range(40)] + [state.current.hands]
    supply = iter(candidates)
    picked = pick_deals(obs, lambda: next(supply), len(candidates), 200, 0.01, rng)
    assert len(picked) == 200 and all(deal in candidates for deal in picked)
    history = round_history(obs)
    best = max(likelihood(obs, deal, 0.01, history) for deal in candidates)
    share = sum(likelihood(obs, deal, 0.01, history) == best for deal in picked) / len(picked)
    assert share > 0.5, "the best-fitting deals dominate the draw"
    # Own hand and every played card are never given to anyone else.
    for deal in picked:
        assert deal[obs.viewer] == obs.hand
        assert all(not (hand & obs.played_mask) for hand in deal)


def test_a_late_move_reads_no_deals_and_a_timely_one_reads_some():
    state = position(4, 21)
    obs = state.observation(state.player)
    sampler = Sampler(obs)
    rng = np.random.default_rng(2)
    assert pick_deals(obs, lambda: sampler.sample(rng), 50, 8, 0.25, rng, until=0.0) is None
    deals = pick_deals(obs, lambda: sampler.sample(rng), 50, 8, 0.25, rng, until=None)
    assert deals is not None and len(deals) == 8
    deals = pick_deals(obs, lambda: sampler.sample(rng), 50, 8, 0.25, rng, until=None, open_noise=0.5)
    assert deals is not None and len(deals) == 8


def final_advantage(state: RoundState, card: int) -> int:
    """Points of the mover's team minus the others' after ``card``, when every later card is forced."""
    team = state.player % 2
    after = state.play(card)
    while not after.is_over:
        (forced,) = after.legal_cards()
        after = after.play(forced)
    return after.score()[team] - after.score()[1 - team]


def misses_on_true_deal(state: RoundState, card: int, viewer: int) -> int:
    """The open-card kernel's miss count on the true deal after ``card`` is played, as ``viewer`` sees it."""
    after = state.play(card)
    history = round_history(after.observation(viewer))
    starts = np.array([card_play_start(state.starting_hands(), state.trump, next_seat(state.dealer))])
    seats = np.array([seat for seat, _ in history], dtype=np.int64)
    cards = np.array([c for _, c in history], dtype=np.int64)
    # The same kernel seed both times: earlier decisions draw the same playouts and count the same.
    return int(open_misses(starts, viewer, seats, cards, OPEN_PLAYOUTS, OPEN_MARGIN, seed_state(7))[0])


def test_the_open_card_factor_counts_a_card_far_below_the_best_on_the_deal():
    """Last to play in the eighth trick, everything after is forced: the playouts value both cards exactly."""
    checked = 0
    for seed in range(300):
        rng = np.random.default_rng(seed)
        game = GameState.new(GameConfig(seed=seed))
        state = game.current
        while not (len(state.tricks) == 7 and len(state.trick) == 3):
            state = state.apply(RULES.act(state.observation(state.player), rng))
        options = state.legal_cards()
        if len(options) != 2:
            continue
        values = {card: final_advantage(state, card) for card in options}
        worse, better = sorted(options, key=values.get)
        if values[better] - values[worse] <= OPEN_MARGIN:
            continue
        viewer = next_seat(state.player)
        assert misses_on_true_deal(state, worse, viewer) == misses_on_true_deal(state, better, viewer) + 1
        # The viewer's own cards are never judged.
        assert misses_on_true_deal(state, worse, state.player) == misses_on_true_deal(state, better, state.player)
        checked += 1
        if checked == 5:
            break
    assert checked == 5
