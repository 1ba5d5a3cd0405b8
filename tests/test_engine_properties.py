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
    GamePlan,
    GameState,
    IllegalActionError,
    RoundState,
    hand_weis,
    iter_cards,
    permute_mask,
    weis_cards,
    weis_points,
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


@given(deals, st.integers(0, 3), choices)
def test_legal_cards_are_never_empty_and_always_held(hands, dealer, picks):
    for trump in TRUMPS:
        for state in play(hands, dealer, trump, picks)[1:]:
            if not state.is_over:
                mask = state.legal_mask()
                assert mask and mask & ~state.hands[state.player] == 0
                assert [Action.card(c) for c in iter_cards(mask)] == state.legal_actions()


# -- whole games, with and without Weis and Stöck ------------------------------------------


@given(
    st.integers(0, 2**32),
    st.sampled_from([STANDARD, FAIR]),
    st.booleans(),
    st.booleans(),
    st.lists(st.integers(0, 1000), min_size=1, max_size=500),
)
def test_replaying_a_games_actions_reproduces_it_and_round_totals_are_157_or_257_with_weis_and_stoeck(
    seed, mode, multipliers, weis, picks
):
    # With Weis, random legal actions include random Weis declarations and Stöck announcements (or none).
    config = GameConfig(
        mode=mode,
        target=800 if weis else 300,
        round_count=4,
        seed=seed,
        multipliers=GameConfig.multipliers_from("classic" if multipliers else None),
        weis=weis,
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
            factor = config.multiplier(rnd.trump)
            base = 257 if rnd.is_match else 157
            assert a + b == (base + sum(rnd.weis_points()) + sum(rnd.stoeck_points())) * factor
            weis_team = rnd.weis_team
            assert weis_team == -1 or rnd.weis_points()[1 - weis_team] == 0
    assert tuple(sum(s[t] for s in game.round_scores()) for t in (0, 1)) == game.scores


@given(st.integers(0, 2**32), st.sampled_from([2, 4, 12]))
def test_the_repeat_of_a_fair_deal_holds_the_same_weis(seed, round_count):
    plan = GamePlan(GameConfig(mode=FAIR, round_count=round_count, seed=seed, weis=True))
    for first, second in plan.pairs():
        original, repeat = plan.deal(first), plan.deal(second)
        for k in range(4):
            # The player k places after forehand holds the same Weis in both, suits permuted.
            before = hand_weis(original.hands[(original.forehand - k) % 4])
            after = hand_weis(repeat.hands[(repeat.forehand - k) % 4])
            assert sorted(map(weis_points, before)) == sorted(map(weis_points, after))
            assert sorted(weis_cards(c) for c in after) == sorted(
                permute_mask(weis_cards(c), repeat.permutation) for c in before
            )
