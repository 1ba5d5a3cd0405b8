"""Pairings and standings as plain data: round robin, the Swiss system, match points and tie-breaks."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments import pairing
from tournaments.pairing import MatchResult, Pairing


@pytest.mark.parametrize("count", range(2, 17))
def test_a_round_robin_pairs_every_two_teams_exactly_once_and_nobody_twice_in_a_round(count):
    teams = list(range(1, count + 1))
    rounds = pairing.round_robin(teams)
    assert len(rounds) == pairing.round_robin_rounds(count) == (count - 1 if count % 2 == 0 else count)
    met = [frozenset((p.a, p.b)) for r in rounds for p in r]
    assert sorted(map(sorted, met)) == sorted(map(sorted, itertools.combinations(teams, 2)))
    for r in rounds:
        playing = [t for p in r for t in (p.a, p.b)]
        assert len(playing) == len(set(playing)) == count - count % 2  # one team rests when the count is odd
    if count % 2:
        resting = [next(t for t in teams if all(t not in (p.a, p.b) for p in r)) for r in rounds]
        assert sorted(resting) == teams  # every team rests exactly once


def test_a_round_robin_of_fewer_than_two_teams_has_no_rounds():
    assert pairing.round_robin([]) == [] and pairing.round_robin([7]) == []


def test_the_first_swiss_round_pairs_neighbours_of_a_seeded_order_and_the_last_one_rests():
    order = pairing.first_order([1, 2, 3, 4, 5], seed=11)
    assert order == pairing.first_order([1, 2, 3, 4, 5], seed=11) and sorted(order) == [1, 2, 3, 4, 5]
    pairs = pairing.swiss_round(order, set(), set())
    assert pairs == [Pairing(order[0], order[1]), Pairing(order[2], order[3]), Pairing(order[4], None)]


def test_the_swiss_bye_goes_to_the_lowest_ranked_team_that_has_not_had_one():
    pairs = pairing.swiss_round([1, 2, 3, 4, 5], set(), byes={5, 4})
    assert Pairing(3, None) in pairs
    assert pairing.swiss_round([1, 2, 3], set(), byes={1, 2, 3})[-1] == Pairing(3, None)  # all had one: the last


def test_swiss_avoids_a_rematch_by_pairing_further_down():
    met = {frozenset((1, 2))}
    assert pairing.swiss_round([1, 2, 3, 4], met, set()) == [Pairing(1, 3), Pairing(2, 4)]


def test_swiss_backtracks_when_the_greedy_choice_would_strand_a_pair_that_met():
    # 1-2 and 3-4 met already and so did 1-3: 1 must take 4 so that 2 and 3 can meet.
    met = {frozenset((1, 2)), frozenset((3, 4)), frozenset((1, 3))}
    assert pairing.swiss_round([1, 2, 3, 4], met, set()) == [Pairing(1, 4), Pairing(2, 3)]


def test_swiss_pairs_teams_again_only_when_every_pairing_has_a_rematch():
    everyone = {frozenset(p) for p in itertools.combinations([1, 2, 3, 4], 2)}
    assert pairing.swiss_round([1, 2, 3, 4], everyone, set()) == [Pairing(1, 2), Pairing(3, 4)]


@given(st.integers(2, 12), st.integers(0, 10_000), st.integers(1, 6))
def test_swiss_rounds_never_repeat_a_pairing_while_a_fresh_one_exists(count, seed, rounds):
    teams = list(range(count))
    order = pairing.first_order(teams, seed)
    met: set[frozenset[int]] = set()
    byes: set[int] = set()
    for _ in range(min(rounds, count - 1)):
        pairs = pairing.swiss_round(order, met, byes)
        playing = [t for p in pairs for t in (p.a, p.b) if t is not None]
        assert sorted(playing) == teams
        for p in pairs:
            if p.b is None:
                byes.add(p.a)
                continue
            assert frozenset((p.a, p.b)) not in met  # fewer rounds than count - 1: a fresh pairing exists
            met.add(frozenset((p.a, p.b)))
        order = order[1:] + order[:1]


def test_match_points_are_two_for_a_win_one_each_for_a_draw_and_the_advantage_is_the_point_difference():
    won = MatchResult(1, 2, points=(900, 600))
    assert (won.match_points(1), won.match_points(2)) == (2, 0)
    assert (won.advantage(1), won.advantage(2)) == (300, -300)
    drawn = MatchResult(1, 2, points=(157, 157))
    assert (drawn.match_points(1), drawn.match_points(2)) == (1, 1)


def test_a_bye_and_a_forfeit_win_without_points_and_a_double_forfeit_loses_both():
    assert (MatchResult(3, None).match_points(3), MatchResult(3, None).advantage(3)) == (2, 0)
    forfeit = MatchResult(1, 2, points=(10, 300), forfeited=frozenset({2}))
    assert (forfeit.match_points(1), forfeit.match_points(2), forfeit.advantage(1)) == (2, 0, 0)
    both = MatchResult(1, 2, forfeited=frozenset({1, 2}))
    assert (both.match_points(1), both.match_points(2)) == (0, 0)


def test_standings_rank_by_match_points_then_advantage_then_buchholz_then_registration():
    results = [
        MatchResult(1, 2, points=(500, 400)),  # 1 beats 2 by 100
        MatchResult(3, 4, points=(450, 350)),  # 3 beats 4 by 100
        MatchResult(1, 3, points=(300, 300)),  # draw
        MatchResult(2, 4, points=(600, 300)),  # 2 beats 4 by 300
    ]
    lines = pairing.standings([1, 2, 3, 4], results, buchholz=True)
    by_team = {line.team: line for line in lines}
    assert [(line.team, line.match_points, line.point_advantage) for line in lines] == [
        (1, 3, 100),
        (3, 3, 100),  # level with 1 on points and advantage: Buchholz decides
        (2, 2, 200),
        (4, 0, -400),
    ]
    assert by_team[1].buchholz == 2 + 3 and by_team[3].buchholz == 0 + 3
    assert by_team[1].opponents == [2, 3] and by_team[2].played == 2
    # Without Buchholz (round robin) the order of registration breaks the tie: 1 before 3 either way.
    assert [line.team for line in pairing.standings([3, 1, 2, 4], results, buchholz=False)][:2] == [3, 1]
