"""Property tests (hypothesis): invariants of every round and game the engine can produce."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from games.engine import (
    FAIR,
    FULL_DECK,
    PUSH,
    STANDARD,
    TRUMPS,
    Action,
    GameConfig,
    GameState,
    IllegalActionError,
    RoundState,
    iter_cards,
)

deals = st.permutations(range(36)).map(
    lambda deck: tuple(sum(1 << c for c in deck[9 * s : 9 * s + 9]) for s in range(4))
)
choices = st.lists(st.integers(0, 1000), min_size=40, max_size=40)
decisions = st.sampled_from([*TRUMPS, PUSH])


def play(hands, dealer, decision, picks, trump_after_push=0):
    """Play a round from a deal, choosing actions by the drawn indices; return all states."""
    state = RoundState.deal(hands, dealer)
    states = [state]
    state = state.choose_trump(decision)
    if decision == PUSH:
        state = state.choose_trump(trump_after_push)
    states.append(state)
    for pick in picks:
        if state.is_over:
            break
        legal = list(iter_cards(state.legal_mask()))
        state = state.play(legal[pick % len(legal)])
        states.append(state)
    return states


@given(deals, st.integers(0, 3), decisions, choices, st.sampled_from(TRUMPS))
def test_every_complete_round_scores_157_or_257(hands, dealer, decision, picks, second):
    final = play(hands, dealer, decision, picks, second)[-1]
    assert final.is_over
    assert sum(final.points) == 157
    assert sum(final.score()) in (157, 257)
    assert (sum(final.score()) == 257) == final.is_match


@given(deals, st.integers(0, 3), decisions, choices, st.sampled_from(TRUMPS))
def test_cards_are_conserved(hands, dealer, decision, picks, second):
    for state in play(hands, dealer, decision, picks, second):
        played = [c for t in state.tricks for c in t.cards] + list(state.trick)
        assert len(played) == len(set(played)) == state.cards_played
        held = 0
        for hand in state.hands:
            assert held & hand == 0
            held |= hand
        assert held | sum(1 << c for c in played) == FULL_DECK
        assert held & sum(1 << c for c in played) == 0
        assert state.starting_hands() == hands


@given(deals, st.integers(0, 3), decisions, choices, st.sampled_from(TRUMPS))
def test_the_player_to_move_is_always_determined(hands, dealer, decision, picks, second):
    for state in play(hands, dealer, decision, picks, second):
        if state.is_over:
            assert state.legal_actions() == []
            continue
        legal = state.legal_actions()
        assert legal, "the player to move always has a legal action"
        for seat in range(4):
            if seat != state.player:
                try:
                    state.apply(legal[0], seat=seat)
                except IllegalActionError:
                    continue
                raise AssertionError(f"seat {seat} acted out of turn")


@given(deals, st.integers(0, 3), decisions, choices, st.sampled_from(TRUMPS))
def test_replaying_the_action_list_reproduces_the_round(hands, dealer, decision, picks, second):
    for state in play(hands, dealer, decision, picks, second):
        rebuilt = RoundState.deal(hands, dealer)
        for action in state.actions():
            rebuilt = rebuilt.apply(action)
        assert rebuilt == state


@given(
    st.integers(0, 2**32),
    st.sampled_from([STANDARD, FAIR]),
    st.booleans(),
    st.lists(st.integers(0, 1000), min_size=1, max_size=400),
)
def test_replaying_a_games_actions_reproduces_it(seed, mode, multipliers, picks):
    config = GameConfig(
        mode=mode,
        target=300,
        round_count=4,
        seed=seed,
        multipliers=GameConfig.multipliers_from("classic" if multipliers else None),
    )
    game = GameState.new(config)
    for pick in picks:
        if game.over:
            break
        legal = game.current.legal_actions()
        game = game.apply(game.player, legal[pick % len(legal)])
    assert GameState.replay(config, game.actions()) == game
    for rnd, (a, b) in zip(game.rounds, game.round_scores(), strict=True):
        if rnd.is_over:
            assert a + b in (157 * config.multiplier(rnd.trump), 257 * config.multiplier(rnd.trump))
    assert tuple(sum(s[t] for s in game.round_scores()) for t in (0, 1)) == game.scores


@given(deals, st.integers(0, 3), choices)
def test_legal_cards_are_never_empty_and_always_held(hands, dealer, picks):
    for trump in TRUMPS:
        for state in play(hands, dealer, trump, picks)[1:]:
            if not state.is_over:
                mask = state.legal_mask()
                assert mask and mask & ~state.hands[state.player] == 0
                assert [Action.card(c) for c in iter_cards(mask)] == state.legal_actions()
