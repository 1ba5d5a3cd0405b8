"""The ``solver`` bot: legal, reproducible and timely moves from solved deals, and real strength."""

from __future__ import annotations

import random
import time

import numpy as np
import pytest

from bots.random import RandomBot
from bots.registry import get_bot, move_budget
from bots.rule_based import RuleBot
from bots.solver import Solver
from bots.solver_bot import SolverBot, position
from games.catalogue import bot_choices
from games.engine import CARD_CODES, GameConfig, GameState, RoundState
from games.engine.fair import random_deal
from games.hslu import encode_observation
from tests.bot_helpers import example_bot
from tests.server_helpers import HTTP


class _SmallSolverBot(SolverBot):
    """The solver bot with small budgets (fewer deals, a short search early): the same code, test-sized."""

    deals = 8
    deal_candidates = 40
    determinizations = 4
    iterations = 300
    inference_candidates = 40
    trump_determinizations = 2
    trump_iterations = 150


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    SolverBot.warm_up()


def _late_position(seed: int, cards_played: int, weis: bool = False) -> RoundState:
    """A round of rule-bot play, ``cards_played`` cards in (announcements made along the way)."""
    rng = np.random.default_rng(seed)
    state = RoundState.deal(random_deal(random.Random(seed)), seed % 4, weis)
    rules = RuleBot()
    while state.cards_played < cards_played:
        state = state.apply(rules.act(state.observation(state.player), rng))
    return state


def test_it_is_registered_as_the_solver_bot():
    assert isinstance(get_bot("solver"), SolverBot)
    assert {"name": "solver", "label": "Solver"}.items() <= next(
        c for c in bot_choices() if c["name"] == "solver"
    ).items()
    assert move_budget("solver") == move_budget("mcts-strong")


@pytest.mark.parametrize("weis", [False, True])
def test_every_move_is_legal_through_whole_games(weis):
    """Two fair rounds each way against the rule bot, at tables with and without Weis and Stöck."""
    game = GameState.new(GameConfig(mode="fair", round_count=2, seed=5, weis=weis))
    players = [_SmallSolverBot(), RuleBot(), _SmallSolverBot(), RuleBot()]
    rng = np.random.default_rng(5)
    solved = 0
    while not game.over:
        seat = game.player
        obs = game.observation(seat)
        action = players[seat].act(obs, rng)
        assert action in obs.legal_actions(), (action, obs)
        solved += isinstance(players[seat], SolverBot) and players[seat].last_deals > 0
        game = game.apply(seat, action)
    assert solved > 10  # most card decisions from the second trick on were solved, not searched


def test_the_card_is_the_best_mean_over_the_deals_not_a_vote():
    """The mean over deals decides; each deal's own best card does not (against strategy fusion)."""
    state = _late_position(3, 14)
    obs = state.observation(state.player)
    bot = _SmallSolverBot()
    means = bot.card_means(obs, np.random.default_rng(1))
    assert means is not None and set(means) == set(obs.legal_cards())
    assert bot.last_deals == bot.deals
    card = bot.choose_card(obs, np.random.default_rng(1))
    assert means[card] == max(means.values())


def test_a_deal_is_solved_as_the_engine_plays_it():
    """``position`` puts the sampled hands into the observed round: the solver's values are the true ones."""
    state = _late_position(4, 21, weis=True)
    obs = state.observation(state.player)
    cards_only = state._replace(declared=None, stoeck=-1)
    assert position(obs, state.hands) == cards_only
    assert Solver(bits=12).card_values(position(obs, state.hands)).values


def test_the_same_observation_and_seed_give_the_same_move():
    """Also from a bot that decided something else in between (its solver starts each decision afresh)."""
    bot = _SmallSolverBot()
    for cards in (0, 5, 9, 17, 26):
        state = _late_position(6, cards)
        obs = state.observation(state.player)
        first = _SmallSolverBot().act(obs, np.random.default_rng(11))
        bot.act(_late_position(10, 6).observation(_late_position(10, 6).player), np.random.default_rng(3))
        again = bot.act(obs, np.random.default_rng(11))
        assert first == again and first in obs.legal_actions()


def test_a_decision_keeps_to_its_time():
    state = _late_position(7, 13)
    obs = state.observation(state.player)
    bot = SolverBot()
    bot.time_cap = 0.3
    start = time.perf_counter()
    action = bot.act(obs, np.random.default_rng(2))
    assert time.perf_counter() - start < 0.3 + 0.2  # the deal being solved when the cap passes is finished
    assert action in obs.legal_actions() and bot.last_deals >= 1
    start = time.perf_counter()
    late = SolverBot().act_by(obs, np.random.default_rng(2), deadline=time.time() - 1)
    assert time.perf_counter() - start < 0.2
    assert late in obs.legal_actions()


def _advantage_over_random(seeds: tuple[int, ...], rounds: int) -> int:
    """The solver bot's team's points minus the random team's, over fair games with each team on each side."""
    advantage = 0
    for seed in seeds:
        for bot_team in (0, 1):
            game = GameState.new(GameConfig(mode="fair", round_count=rounds, seed=seed))
            players = [_SmallSolverBot() if seat % 2 == bot_team else RandomBot() for seat in range(4)]
            rng = np.random.default_rng(seed)
            while not game.over:
                seat = game.player
                game = game.apply(seat, players[seat].act(game.observation(seat), rng))
            advantage += game.scores[bot_team] - game.scores[1 - bot_team]
    return advantage


@pytest.mark.slow
def test_it_beats_random_clearly():
    """Fair games against random players, both sides of the table (the arena measures strength properly)."""
    assert _advantage_over_random((1, 2), rounds=2) > 300


@pytest.mark.services
def test_the_example_server_serves_it_as_an_hslu_bot():
    state = _late_position(9, 14)
    obs = state.observation(state.player)
    with example_bot("--bot", "solver") as url:
        reply = HTTP.post(f"{url}/play_card", json=encode_observation(obs), timeout=10).json()
    assert CARD_CODES.index(reply["card"]) in obs.legal_cards()
