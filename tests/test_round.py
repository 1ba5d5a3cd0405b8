"""The round state: trump phase, checked and unchecked actions, scoring, observations."""

from __future__ import annotations

import random

import pytest

from games.engine import (
    CARD_POINTS,
    EAST,
    HEARTS,
    NORTH,
    OBE_ABE,
    PUSH,
    SOUTH,
    SPADES,
    WEST,
    Action,
    IllegalActionError,
    IllegalReason,
    InvalidActionError,
    RoundState,
    card_from_code,
    codes_of,
)
from games.engine.fair import random_deal
from tests.engine_helpers import hands_from_codes, play_random_round, seat_of_action

# North holds every heart: with hearts trump, leading trumps takes all nine tricks.
ALL_HEARTS = hands_from_codes(
    "HA HK HQ HJ H10 H9 H8 H7 H6",
    "DA DK DQ DJ D10 D9 D8 D7 D6",
    "SA SK SQ SJ S10 S9 S8 S7 S6",
    "CA CK CQ CJ C10 C9 C8 C7 C6",
)


def test_forehand_is_the_seat_after_the_dealer_and_declares():
    state = RoundState.deal(ALL_HEARTS, dealer=EAST)
    assert state.forehand_seat == NORTH
    assert state.player == NORTH
    assert state.in_trump_phase
    assert len(state.legal_actions()) == 7  # six trumps and push


def test_push_passes_the_choice_to_the_partner_once():
    state = RoundState.deal(ALL_HEARTS, dealer=EAST).apply(Action.push(), seat=NORTH)
    assert state.player == SOUTH
    assert state.forehand == 0
    assert Action.push() not in state.legal_actions()
    with pytest.raises(IllegalActionError, match="only forehand may push"):
        state.apply(Action.push(), seat=SOUTH)
    state = state.apply(Action.trump(SPADES), seat=SOUTH)
    assert state.declarer == SOUTH
    assert state.player == NORTH  # forehand still leads
    assert state.leader == NORTH


def test_cards_cannot_be_played_before_trump():
    state = RoundState.deal(ALL_HEARTS, dealer=EAST)
    with pytest.raises(IllegalActionError, match="trump must be declared first"):
        state.play("HA")


def test_trump_cannot_be_declared_twice():
    state = RoundState.deal(ALL_HEARTS, dealer=EAST).choose_trump(HEARTS)
    with pytest.raises(IllegalActionError, match="already declared"):
        state.choose_trump(SPADES)


def test_out_of_turn_is_refused_naming_both_seats():
    state = RoundState.deal(ALL_HEARTS, dealer=EAST).choose_trump(HEARTS)
    with pytest.raises(IllegalActionError, match="North's turn, not East's"):
        state.play("DA", seat=EAST)


def test_illegal_card_error_names_the_action_reason_and_state():
    state = RoundState.deal(ALL_HEARTS, dealer=EAST).choose_trump(OBE_ABE).play("HA")
    with pytest.raises(IllegalActionError) as excinfo:
        state.play("D6")  # West is to move and holds only clubs
    message = str(excinfo.value)
    assert "Action.card('D6')" in message
    assert "not in the hand" in message
    assert "trick=[HA] led by North" in message


def test_illegal_card_error_explains_following_suit():
    hands = hands_from_codes(
        "HA HK HQ HJ H10 H9 H8 H7 D6",
        "DA DK DQ DJ D10 D9 D8 D7 H6",
        "SA SK SQ SJ S10 S9 S8 S7 S6",
        "CA CK CQ CJ C10 C9 C8 C7 C6",
    )
    # Dealer East: North leads, then West, South, East.
    state = RoundState.deal(hands, dealer=EAST).choose_trump(SPADES).play("HA").play("CA").play("SA")
    assert state.player == EAST
    with pytest.raises(IllegalActionError, match="by East: must follow Hearts") as excinfo:
        state.play("DA", seat=EAST)
    assert state.legal_cards() == [card_from_code("H6")]
    refused = excinfo.value
    assert (refused.reason, refused.seat, refused.card) == (IllegalReason.FOLLOW, EAST, card_from_code("DA"))
    assert refused.why == "must follow Hearts" and refused.state is state


def test_a_refusal_carries_its_reason_and_seat():
    state = RoundState.deal(ALL_HEARTS, dealer=EAST)
    cases = [
        (lambda: state.play("HA"), IllegalReason.TRUMP_FIRST, NORTH),
        (lambda: state.choose_trump(PUSH).choose_trump(PUSH), IllegalReason.PUSH, SOUTH),
        (lambda: state.choose_trump(HEARTS).choose_trump(SPADES), IllegalReason.TRUMP_DECLARED, NORTH),
        (lambda: state.choose_trump(HEARTS).play("DA", seat=EAST), IllegalReason.NOT_YOUR_TURN, EAST),
        (lambda: state.choose_trump(HEARTS).play("DA"), IllegalReason.ABSENT, NORTH),
    ]
    for attempt, reason, seat in cases:
        with pytest.raises(IllegalActionError) as excinfo:
            attempt()
        assert (excinfo.value.reason, excinfo.value.seat) == (reason, seat), str(excinfo.value)


def test_malformed_actions_are_invalid_not_illegal():
    with pytest.raises(InvalidActionError, match="not a card id"):
        Action.card(36)
    with pytest.raises(InvalidActionError, match="unknown card code"):
        Action.card("X9")
    with pytest.raises(InvalidActionError, match="not a trump code"):
        Action.trump(6)
    with pytest.raises(InvalidActionError, match="unknown action kind"):
        Action("bid", 1)
    state = RoundState.deal(ALL_HEARTS, dealer=EAST)
    with pytest.raises(InvalidActionError, match="not a seat"):
        state.apply(Action.trump(HEARTS), seat=7)
    with pytest.raises(InvalidActionError, match="not an action"):
        state.apply("HA")


def test_action_codes_round_trip_and_repr_reads_like_code():
    for code in range(43):
        assert Action.from_code(code).code == code
    assert repr(Action.card("HJ")) == "Action.card('HJ')"
    assert repr(Action.trump(HEARTS)) == "Action.trump(HEARTS)"
    assert repr(Action.push()) == "Action.push()"
    assert Action.trump(PUSH) == Action.push()


def test_deal_must_be_four_disjoint_hands_of_nine():
    with pytest.raises(InvalidActionError, match="nine cards"):
        RoundState.deal((0b111, 0, 0, 0), dealer=0)
    twice = (ALL_HEARTS[0], ALL_HEARTS[0], ALL_HEARTS[2], ALL_HEARTS[3])
    with pytest.raises(InvalidActionError, match="dealt twice"):
        RoundState.deal(twice, dealer=0)


def test_match_scores_257():
    state = RoundState.deal(ALL_HEARTS, dealer=EAST).choose_trump(HEARTS)
    while not state.is_over:
        state = state.play(max(state.legal_cards(), key=lambda c: (state.player == NORTH, -c)))
    assert all(t.winner == NORTH for t in state.tricks)
    assert state.points == (157, 0)
    assert state.is_match
    assert state.score() == (257, 0)


def test_last_trick_earns_five():
    state = play_random_round(RoundState.deal(random_deal(random.Random(3)), 0), random.Random(4))[-1]
    last = state.tricks[-1]
    assert last.points == sum(CARD_POINTS[state.trump][c] for c in last.cards) + 5


def test_unchecked_path_matches_checked_path():
    rng = random.Random(11)
    for _ in range(50):
        start = RoundState.deal(random_deal(rng), rng.randrange(4))
        checked = play_random_round(start, random.Random(rng.random()))
        fast = start
        for action in checked[-1].actions():
            fast = fast.apply_unchecked(Action.from_code(action.code))
        assert fast == checked[-1]


def test_observation_shows_only_the_viewers_hand():
    state = RoundState.deal(ALL_HEARTS, dealer=EAST).choose_trump(HEARTS).play("HA")
    obs = state.observation(WEST)
    assert codes_of(obs.hand) == codes_of(ALL_HEARTS[WEST])
    assert obs.trick == state.trick
    assert obs.hand_sizes == (8, 9, 9, 9)
    assert obs.legal_mask() == state.legal_mask()
    public = state.observation(None)
    assert public.hand == 0 and public.viewer == -1
    assert public.legal_actions() == []
    assert "HK" not in repr(public)


def test_starting_hands_and_actions_rebuild_the_round():
    rng = random.Random(5)
    start = RoundState.deal(random_deal(rng), 2)
    for state in play_random_round(start, rng):
        assert state.starting_hands() == start.hands
        rebuilt = start
        for index, action in enumerate(state.actions()):
            rebuilt = rebuilt.apply(action, seat=seat_of_action(state, index))
        assert rebuilt == state
