"""The open-hand solver (bots/solver.py) against a brute force, and its lines replayed through the engine."""

from __future__ import annotations

import random

import numpy as np
import pytest
from numba import njit

from bots.rollout import PLAYER, TRICKS_DONE, encode_round, legal_mask, nth_card, play_card, score
from bots.solver import (
    _HANDS,
    _LEFT,
    Solver,
    _keeps_master,
    _partner_keeps,
    _state_array,
    _sure_points,
    _three_tricks,
)
from games.engine import Action, RoundState
from games.engine.fair import random_deal
from games.engine.rules import LAST_TRICK_BONUS, ROUND_POINTS
from tests.engine_helpers import random_card


@njit(cache=True)
def _brute_force(row: np.ndarray, team: int) -> int:
    """Minimax over every legal card (no pruning, no table) on the rollout kernels: ``team``'s final points."""
    if row[PLAYER] < 0:
        return score(row, team)
    maximizing = row[PLAYER] % 2 == team
    best = -1 if maximizing else 1 << 20
    mask = legal_mask(row)
    while mask:
        card = nth_card(mask, 0)
        mask &= mask - 1
        child = row.copy()
        play_card(child, card)
        value = _brute_force(child, team)
        if (maximizing and value > best) or (not maximizing and value < best):
            best = value
    return best


def brute_force_values(state: RoundState) -> dict[int, int]:
    """Every legal card's value for the mover's team, by brute force."""
    team = state.player % 2
    values = {}
    for card in state.legal_cards():
        after = state.play(card)
        values[card] = after.score()[team] if after.is_over else _brute_force(encode_round(after), team)
    return values


def _late_position(rng: random.Random, trump: int, cards_left: int) -> RoundState:
    """A random round of ``trump`` played at random (checked path) until ``cards_left`` cards are left."""
    state = RoundState.deal(random_deal(rng), rng.randrange(4)).apply(Action.trump(trump))
    while 36 - state.cards_played > cards_left:
        state = state.play(random_card(state.legal_mask(), rng))
    return state


@pytest.fixture(scope="module")
def solver():
    return Solver(bits=16)


@pytest.mark.parametrize("trump", range(6))
def test_values_equal_a_brute_force_on_late_positions(solver, trump):
    """2,000 positions in all (this trump's share), 1 to 12 cards left, every legal card's value exact."""
    rng = random.Random(1000 + trump)
    count = 2000 // 6 + (1 if trump < 2000 % 6 else 0)
    for _ in range(count):
        state = _late_position(rng, trump, rng.randrange(1, 13))
        assert solver.card_values(state).values == brute_force_values(state), state


@pytest.mark.parametrize("trump", range(6))
def test_value_agrees_with_a_brute_force_and_with_the_best_card(trump):
    """``value`` (guessed by solves along the rule-of-thumb line first) equals a brute force up to 12 cards left,
    and the best of ``card_values`` (other guesses, other null windows) from 24 cards left, for both teams."""
    rng = random.Random(2000 + trump)
    solver = Solver(bits=16)
    for _ in range(40):
        state = _late_position(rng, trump, rng.randrange(1, 13))
        for team in (0, 1):
            solver.table.clear()
            assert solver.value(state, team) == _brute_force(encode_round(state), team), (state, team)
    for _ in range(4):
        state = _late_position(rng, trump, 24)
        solver.table.clear()
        value = solver.value(state)
        solver.table.clear()
        assert value == solver.card_values(state).best, state


@pytest.mark.parametrize("trump", range(6))
def test_the_sure_points_are_a_floor_on_what_a_team_gets(trump):
    """At trick starts 4, 8 and 12 cards from the end, each team's sure points (``_sure_points``: its top
    trumps, the leader's cashable tops and the partner's after a low card to them, the last trick when its
    highest trump or any trump against none is kept to the end with a side-suit card the partner keeps for
    it, a ruff of the other side's lead) never exceed what it gets by a brute force, and the other team's
    points never exceed the rest (no Match once the team surely takes a trick)."""
    rng = random.Random(3000 + trump)
    kept = partner_kept = 0
    for _ in range(400):
        state = _late_position(rng, trump, 4 * rng.randrange(1, 4))
        st = _state_array(state)
        left = int(st[_LEFT]) + LAST_TRICK_BONUS
        futures = [_brute_force(encode_round(state), team) - state.points[team] for team in (0, 1)]
        for team in (0, 1):
            floor, tricks = _sure_points(st, state.leader, team, trump)
            assert floor <= futures[team], (state, team, floor)
            if tricks > 0:
                assert futures[1 - team] <= left - floor, (state, team, floor)
            if trump < 4 and tricks > 0:
                trumps = (st[_HANDS + 1 - team] | st[_HANDS + 3 - team]) & (511 << (9 * trump))
                if _keeps_master(st, team, trump, trumps):
                    kept += 1
                    partner_kept += _partner_keeps(st, state.leader, team, trump, trumps) > 0
    assert trump >= 4 or (kept > 20 and partner_kept > 5)  # the last trick's rules are exercised


@pytest.mark.parametrize("trump", range(6))
def test_the_last_three_tricks_search_is_exact_inside_its_window_and_a_bound_outside(trump):
    """``_three_tricks`` (the last three tricks without the table, ``_two_tricks`` for the last two) against a
    brute force, for both teams and windows below, around and above the value: inside the window it is the
    value, at or below alpha an upper bound, at or above beta a lower bound (fail-soft); the state is restored."""
    rng = random.Random(4000 + trump)
    outside = inside = 0
    for _ in range(150):
        state = _late_position(rng, trump, 12)
        st = _state_array(state)
        before = st.copy()
        for team in (0, 1):
            true = _brute_force(encode_round(state), team) - state.points[team]
            for alpha, beta in (
                (true - 1, true + 1),
                (true, true + 1),
                (true - 1, true),
                (-1, 400),
                (true + 3, true + 9),
                (true - 9, true - 3),
            ):
                value = _three_tricks(st, alpha, beta, team, trump)
                assert np.array_equal(st, before)
                if alpha < value < beta:
                    assert value == true, (state, team, alpha, beta)
                    inside += 1
                elif value <= alpha:
                    assert true <= value, (state, team, alpha, beta, value)
                    outside += 1
                else:
                    assert true >= value, (state, team, alpha, beta, value)
                    outside += 1
    assert inside > 150 and outside > 150


def test_the_match_bonus_counts_for_the_team_that_can_still_make_it():
    """Both teams' values in a literal endgame where North-South can still make a Match (+100)."""
    rng = random.Random(3)
    # Find a late position where one team has taken every trick so far: the Match is still on.
    for _ in range(500):
        state = _late_position(rng, rng.randrange(6), 8)
        winners = {trick.winner % 2 for trick in state.tricks}
        if len(winners) == 1:
            break
    else:
        pytest.fail("no position with the Match still on")
    team = winners.pop()
    solver = Solver(bits=12)
    value = solver.value(state, team)
    row = encode_round(state)
    assert row[TRICKS_DONE] == 7
    assert value == _brute_force(row, team)
    assert solver.value(state, 1 - team) == _brute_force(encode_round(state), 1 - team)


@pytest.mark.parametrize("trump", range(6))
def test_one_table_serves_both_teams_once_no_match_is_left(trump):
    """As the analysis does: every position of a round from the last card back, both teams, in one table.
    Each value equals the one a cleared table finds; and once both teams have taken a trick (no Match left)
    the entries one team's search stored answer the other team's (their points still to come add up to
    what is left), so the second team's solve of a position searches a fraction of the first's nodes."""
    rng = random.Random(5000 + trump)
    shared = Solver(bits=16)
    fresh = Solver(bits=16)
    for _ in range(3):
        state = _late_position(rng, trump, 36)
        positions = [state]
        while positions[-1].cards_played < 35:
            positions.append(positions[-1].play(random_card(positions[-1].legal_mask(), rng)))
        shared.table.clear()
        for position in reversed(positions[-20:]):
            for team in (position.player % 2, 1 - position.player % 2):
                fresh.table.clear()
                assert shared.value(position, team) == fresh.value(position, team), (position, team)
    # Trick starts with no Match left (and worth a search): the other team's solve finds the first one's entries.
    checked = 0
    for _ in range(300):
        state = _late_position(rng, trump, 24)
        if {trick.winner % 2 for trick in state.tricks} != {0, 1}:
            continue
        shared.table.clear()
        first = shared.value(state, 0)
        first_nodes = shared.nodes
        if first_nodes < 2000:
            continue
        second = shared.value(state, 1)
        assert first + second == ROUND_POINTS, state
        assert shared.nodes * 10 < first_nodes, (state, first_nodes, shared.nodes)
        checked += 1
        if checked == 3:
            break
    else:
        pytest.fail("fewer than three positions where both teams have taken a trick and the solve is not tiny")


def _rules_positions(trump: int, count: int, cards_left: int) -> list[RoundState]:
    """Positions from rounds the rule bot plays on every seat (the trump fixed), ``cards_left`` cards from the end."""
    from bots.rule_based import RuleBot

    bot = RuleBot()
    rng = random.Random(trump)
    generator = np.random.default_rng(trump)
    positions = []
    for _ in range(count):
        state = RoundState.deal(random_deal(rng), rng.randrange(4)).apply(Action.trump(trump))
        while 36 - state.cards_played > cards_left:
            action = bot.act(state.observation(state.player), generator)
            state = state.apply(action, state.player)
        positions.append(state)
    return positions


def principal_variation(solver: Solver, state: RoundState) -> list[int]:
    """The cards of one perfect line from ``state`` to the end of the round (best card each time)."""
    line = []
    while not state.is_over:
        card = solver.card_values(state).best_cards[0]
        line.append(card)
        state = state.play_unchecked(card)
    return line


@pytest.mark.parametrize("trump", range(6))
def test_the_principal_variation_scores_its_value_through_the_checked_path(trump):
    """From positions of rule-bot rounds, the solver's line played with ``RoundState.apply`` ends at its value."""
    solver = Solver(bits=18)
    for state in _rules_positions(trump, 6, 20):
        team = state.player % 2
        value = solver.card_values(state).best
        for card in principal_variation(solver, state):
            state = state.apply(Action.card(card), state.player)
        assert state.is_over
        assert state.score()[team] == value


def test_it_solves_a_whole_deal_from_the_first_card():
    """Obe-Abe from the deal: every card of the leader valued, the best one agrees with ``value``."""
    rng = random.Random(8)
    state = RoundState.deal(random_deal(rng), 0).apply(Action.trump(4))
    solver = Solver()
    solution = solver.card_values(state)
    assert set(solution.values) == set(state.legal_cards())
    assert all(0 <= value <= 257 for value in solution.values.values())
    assert solution.best == solver.value(state)
