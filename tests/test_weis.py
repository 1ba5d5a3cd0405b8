"""Named tests for Weis and Stöck (docs/rules.md, *Weis and Stöck*): kinds, values, ranking, Stöck, credits."""

from __future__ import annotations

import json
import random

import pytest

from games.engine import (
    CLUBS,
    EAST,
    HEARTS,
    NORTH,
    OBE_ABE,
    SOUTH,
    SPADES,
    STANDARD,
    UNE_UFE,
    WEST,
    Action,
    Deal,
    GameConfig,
    GamePlan,
    GameState,
    IllegalActionError,
    IllegalReason,
    InvalidActionError,
    RoundState,
    card_from_code,
    hand_weis,
    iter_cards,
    mask_from_codes,
    weis_cards,
    weis_name,
    weis_points,
)
from games.engine.rules import refusal, why_not
from games.engine.weis import rank_key, scoring_team
from tests.engine_helpers import hands_from_codes, held_weis

# Literal deals, hands North, East, South, West. Dealer East: North leads, play goes N, W, S, E.
BASIC = hands_from_codes(
    "HA HK HQ HJ D6 S6 C6 D7 S7",  # Vierblatt HA-HJ (and Stöck when hearts are trump)
    "DJ D10 D9 H7 SJ CQ CJ C9 C7",  # Dreiblatt DJ-D9
    "DA DK DQ CA CK H10 H9 S10 S9",  # Dreiblatt DA-DQ
    "SA SK SQ D8 H8 S8 C8 C10 H6",  # Dreiblatt SA-SQ, four 8s (worth nothing)
)
RANKS = hands_from_codes(
    "DA HA SA CA D7 H7 S7 C7 D9",  # four Aces, four 7s (worth nothing)
    "DK HK SK CK D6 H6 S6 C6 H9",  # four Kings
    "DJ D8 HQ H10 SQ SJ S10 S9 S8",  # Fünfblatt SQ-S8
    "CQ CJ C10 C9 C8 DQ D10 HJ H8",  # Fünfblatt CQ-C8
)
SUM = hands_from_codes(
    "HA HK HQ HJ D6 S6 C6 D8 S8",  # Vierblatt HA-HJ
    "DA DK DQ H10 S10 C10 H7 S7 C9",  # Dreiblatt DA-DQ
    "DJ D9 D7 H9 SJ S9 CJ C7 C8",  # nothing
    "SA SK SQ CA CK CQ D10 H8 H6",  # two Dreiblatts
)
VIERBLATT_HA, DREI_DA, DREI_DJ, DREI_SA, DREI_CA = 409, 300, 303, 318, 327
FOUR_ACES, FOUR_KINGS, FUENF_SQ, FUENF_CQ = 1000, 1001, 520, 529


def cards(codes: str) -> int:
    return mask_from_codes(codes.split())


def weis_of(codes: str) -> list[str]:
    return [weis_name(code) for code in hand_weis(cards(codes))]


def started(hands, trump: int, dealer: int = EAST) -> RoundState:
    return RoundState.deal(hands, dealer, weis=True).choose_trump(trump)


def first_legal(state: RoundState, keep: str = "") -> RoundState:
    """Play the player's lowest legal card, keeping the cards in ``keep`` while another is legal."""
    legal = state.legal_cards()
    kept = {card_from_code(code) for code in keep.split()}
    choice = next((c for c in legal if c not in kept), legal[0])
    return state.play(choice)


def declare_and_finish_trick(state: RoundState, declarations: dict[int, list[int]], keep: str = "") -> RoundState:
    """Play the first trick: each seat declares its listed Weis before its card."""
    while not state.tricks:
        for code in declarations.get(state.player, []):
            state = state.apply(Action.weis(code))
        state = first_legal(state, keep)
    return state


# -- kinds and values ----------------------------------------------------------------


def test_dreiblatt_is_worth_20():
    assert weis_of("H8 H7 H6 DA") == ["Dreiblatt H8-H6"]
    assert weis_points(hand_weis(cards("H8 H7 H6"))[0]) == 20


def test_vierblatt_is_worth_50():
    (code,) = hand_weis(cards("SJ S10 S9 S8 DA"))
    assert (weis_name(code), weis_points(code)) == ("Vierblatt SJ-S8", 50)


def test_fuenfblatt_is_worth_100():
    (code,) = hand_weis(cards("CA CK CQ CJ C10"))
    assert (weis_name(code), weis_points(code)) == ("Fünfblatt CA-C10", 100)


@pytest.mark.parametrize(
    ("run", "name", "points"),
    [
        ("DA DK DQ DJ D10 D9", "Sechsblatt DA-D9", 150),
        ("DK DQ DJ D10 D9 D8 D7", "Siebenblatt DK-D7", 200),
        ("DA DK DQ DJ D10 D9 D8 D7", "Achtblatt DA-D7", 250),
        ("DA DK DQ DJ D10 D9 D8 D7 D6", "Neunblatt DA-D6", 300),
    ],
    ids=["sechsblatt_150", "siebenblatt_200", "achtblatt_250", "neunblatt_300"],
)
def test_six_to_nine_in_sequence_are_worth_150_to_300(run, name, points):
    (code,) = hand_weis(cards(run))
    assert (weis_name(code), weis_points(code)) == (name, points)


def test_four_jacks_are_worth_200():
    (code,) = hand_weis(cards("DJ HJ SJ CJ"))
    assert (weis_name(code), weis_points(code)) == ("four Jacks", 200)


def test_four_nines_are_worth_150():
    (code,) = hand_weis(cards("D9 H9 S9 C9"))
    assert (weis_name(code), weis_points(code)) == ("four Nines", 150)


@pytest.mark.parametrize(("rank", "name"), [("A", "Aces"), ("K", "Kings"), ("Q", "Queens"), ("10", "Tens")])
def test_four_aces_kings_queens_or_tens_are_worth_100(rank, name):
    (code,) = hand_weis(cards(" ".join(suit + rank for suit in "DHSC")))
    assert (weis_name(code), weis_points(code)) == (f"four {name}", 100)


@pytest.mark.parametrize("rank", ["8", "7", "6"])
def test_four_sixes_sevens_or_eights_count_nothing(rank):
    assert hand_weis(cards(" ".join(suit + rank for suit in "DHSC"))) == ()


def test_seven_in_sequence_are_one_siebenblatt_not_two_weis():
    assert weis_of("HA HK HQ HJ H10 H9 H8 C6 D6") == ["Siebenblatt HA-H8"]


def test_runs_follow_the_natural_order_whatever_the_trump():
    # J-10-9 of the trump suit is a run although the Jack and Nine rank highest as trumps.
    assert weis_of("HQ HJ H10 H9") == ["Vierblatt HQ-H9"]
    assert weis_of("HA HQ HJ") == []  # a gap breaks a run


def test_a_card_may_be_in_a_run_and_in_four_of_a_kind():
    codes = hand_weis(cards("DA HA SA CA CK CQ D6 H6 S6"))
    assert [weis_name(c) for c in codes] == ["Dreiblatt CA-CQ", "four Aces"]
    assert weis_cards(codes[0]) & weis_cards(codes[1]) == cards("CA")


def test_a_hand_may_hold_several_weis():
    assert weis_of("SA SK SQ CA CK CQ D10 H8 H6") == ["Dreiblatt SA-SQ", "Dreiblatt CA-CQ"]


def test_weis_codes_are_checked():
    with pytest.raises(InvalidActionError, match="not a Weis code"):
        Action.weis(1006)  # four 8s
    with pytest.raises(InvalidActionError, match="not a Weis code"):
        Action.weis(308)  # a run past the six


# -- declaring -----------------------------------------------------------------------


def test_the_table_offers_the_weis_a_hand_holds_before_the_first_card():
    state = started(SUM, HEARTS)
    assert state.player == NORTH
    assert state.announcements() == [Action.weis(VIERBLATT_HA)]
    assert state.legal_actions()[0] == Action.weis(VIERBLATT_HA)
    west = first_legal(state)
    assert west.player == WEST
    assert west.announcements() == [Action.weis(DREI_SA), Action.weis(DREI_CA)]


def test_declaring_does_not_pass_the_turn_and_a_player_may_declare_several():
    state = first_legal(started(SUM, HEARTS))
    state = state.apply(Action.weis(DREI_CA), seat=WEST)
    assert state.player == WEST
    assert state.announcements() == [Action.weis(DREI_SA)]
    state = state.apply(Action.weis(DREI_SA), seat=WEST)
    assert state.announcements() == []
    assert state.declared[WEST] == (DREI_CA, DREI_SA)


def test_declaring_is_optional():
    state = declare_and_finish_trick(started(SUM, HEARTS), {})
    assert state.declared == ((), (), (), ())
    assert state.weis_team == -1
    assert state.score() == state.points


def test_a_weis_the_hand_does_not_hold_is_refused():
    with pytest.raises(IllegalActionError, match="North does not hold Dreiblatt SA-SQ"):
        started(SUM, HEARTS).apply(Action.weis(DREI_SA))


def test_a_weis_declared_twice_is_refused():
    state = started(SUM, HEARTS).apply(Action.weis(VIERBLATT_HA))
    with pytest.raises(IllegalActionError, match="already declared"):
        state.apply(Action.weis(VIERBLATT_HA))


def test_weis_are_declared_in_the_first_trick_only():
    state = declare_and_finish_trick(started(BASIC, HEARTS), {}, keep="HA HK HQ HJ")
    (held,) = held_weis(state, state.player)  # every hand of BASIC holds one
    assert state.announcements() == []
    with pytest.raises(IllegalActionError, match="first trick only"):
        state.apply(Action.weis(held))


def test_weis_are_refused_at_a_table_without_them():
    state = RoundState.deal(SUM, EAST).choose_trump(HEARTS)
    assert state.announcements() == []
    assert Action.weis(VIERBLATT_HA) not in state.legal_actions()
    with pytest.raises(IllegalActionError, match="without Weis and Stöck"):
        state.apply(Action.weis(VIERBLATT_HA))


def test_only_the_player_to_move_may_declare():
    with pytest.raises(IllegalActionError, match="North's turn"):
        started(SUM, HEARTS).apply(Action.weis(DREI_SA), seat=WEST)


# -- who scores ----------------------------------------------------------------------


def test_only_the_team_with_the_single_best_weis_scores_and_it_scores_all_weis_of_both_players():
    # East/West declare 60 in three Dreiblatts, North/South only a Vierblatt of 50: the Vierblatt is
    # the best single Weis, so North/South score it and East/West score nothing.
    state = declare_and_finish_trick(
        started(SUM, HEARTS), {NORTH: [VIERBLATT_HA], WEST: [DREI_SA, DREI_CA], EAST: [DREI_DA]}
    )
    assert state.weis_team == 0
    assert state.weis_points() == (50, 0)


def test_the_scoring_team_scores_its_partners_weis_too():
    state = declare_and_finish_trick(
        started(BASIC, CLUBS), {NORTH: [VIERBLATT_HA], SOUTH: [DREI_DA], WEST: [DREI_SA], EAST: [DREI_DJ]}
    )
    assert state.weis_team == 0
    assert state.weis_points() == (70, 0)
    assert state.score() == (state.points[0] + 70, state.points[1])


def test_weis_are_decided_only_with_the_first_trick():
    state = started(BASIC, CLUBS).apply(Action.weis(VIERBLATT_HA))
    assert state.weis_team == -1 and state.score() == (0, 0)


# -- ranking two Weis ----------------------------------------------------------------


def test_ranking_1_more_points_win():
    # East's Dreiblatt comes first in play order (East leads), North's Vierblatt is worth more.
    state = declare_and_finish_trick(started(BASIC, CLUBS, dealer=SOUTH), {EAST: [DREI_DJ], NORTH: [VIERBLATT_HA]})
    assert state.weis_team == 0


def test_ranking_2_at_equal_points_more_cards_win():
    # North's four Aces (100, four cards) are declared first; West's Fünfblatt (100, five cards) wins.
    state = declare_and_finish_trick(started(RANKS, HEARTS), {NORTH: [FOUR_ACES], WEST: [FUENF_CQ]})
    assert state.weis_team == 1
    assert state.weis_points() == (0, 100)


def test_ranking_3_at_equal_points_and_length_the_higher_top_card_wins():
    # Dealer South: East leads with DJ-D9, South's later DA-DQ is higher.
    state = declare_and_finish_trick(started(BASIC, HEARTS, dealer=SOUTH), {EAST: [DREI_DJ], SOUTH: [DREI_DA]})
    assert state.weis_team == 0


def test_ranking_3_in_une_ufe_the_lower_run_wins():
    # North leads; South's DA-DQ is declared before East's DJ-D9, which is lower and wins in Une-Ufe.
    state = declare_and_finish_trick(started(BASIC, UNE_UFE), {SOUTH: [DREI_DA], EAST: [DREI_DJ]})
    assert state.weis_team == 1
    obe = declare_and_finish_trick(started(BASIC, OBE_ABE), {SOUTH: [DREI_DA], EAST: [DREI_DJ]})
    assert obe.weis_team == 0


def test_ranking_3_four_of_a_kind_rank_by_their_rank():
    # Dealer North: West leads, so East's four Kings come before North's four Aces; the Aces win.
    state = declare_and_finish_trick(started(RANKS, HEARTS, dealer=NORTH), {EAST: [FOUR_KINGS], NORTH: [FOUR_ACES]})
    assert state.weis_team == 0
    # In Une-Ufe the lower rank is higher: the Kings win.
    une = declare_and_finish_trick(started(RANKS, UNE_UFE, dealer=NORTH), {EAST: [FOUR_KINGS], NORTH: [FOUR_ACES]})
    assert une.weis_team == 1


def test_ranking_4_a_run_in_the_trump_suit_beats_an_equal_run():
    # West (before South) holds CQ-C8, South SQ-S8: with spades trump South's wins.
    state = declare_and_finish_trick(started(RANKS, SPADES), {WEST: [FUENF_CQ], SOUTH: [FUENF_SQ]})
    assert state.weis_team == 0
    clubs = declare_and_finish_trick(started(RANKS, CLUBS), {WEST: [FUENF_CQ], SOUTH: [FUENF_SQ]})
    assert clubs.weis_team == 1


def test_ranking_5_still_equal_the_weis_declared_first_in_play_order_wins():
    # Hearts trump: neither run is trump; West plays before South.
    state = declare_and_finish_trick(started(RANKS, HEARTS), {WEST: [FUENF_CQ], SOUTH: [FUENF_SQ]})
    assert state.weis_team == 1
    # With South leading (dealer West), South plays before West.
    later = declare_and_finish_trick(started(RANKS, HEARTS, dealer=WEST), {WEST: [FUENF_CQ], SOUTH: [FUENF_SQ]})
    assert later.weis_team == 0


def test_rank_keys_follow_the_five_steps_in_order():
    assert rank_key(FUENF_SQ, HEARTS, 3) > rank_key(FOUR_ACES, HEARTS, 0)  # length beats order
    assert rank_key(FOUR_ACES, HEARTS, 3) > rank_key(FOUR_KINGS, HEARTS, 0)  # height beats order
    assert rank_key(FUENF_SQ, SPADES, 3) > rank_key(FUENF_CQ, SPADES, 0)  # trump beats order
    assert scoring_team(((), (), (), ()), HEARTS, NORTH) == -1


# -- Stöck ---------------------------------------------------------------------------


def stoeck_trick(hands=BASIC, trump: int = HEARTS, weis: dict[int, list[int]] | None = None) -> RoundState:
    """North leads HK in the first trick (and wins it), so it leads HQ, the second of its Stöck, next."""
    state = started(hands, trump)
    for code in (weis or {}).get(NORTH, []):
        state = state.apply(Action.weis(code))
    state = state.play("HK")
    while not state.tricks:
        for code in (weis or {}).get(state.player, []):
            state = state.apply(Action.weis(code))
        state = first_legal(state, keep="H9 HJ")
    return state


def test_stoeck_are_announced_with_the_second_of_king_and_queen():
    state = stoeck_trick()
    assert state.player == NORTH
    assert Action.stoeck("HQ") in state.announcements()
    after = state.apply(Action.stoeck("HQ"))
    assert after.stoeck == NORTH and after.player == NORTH
    assert after.stoeck_points() == (20, 0)
    assert after.legal_cards() == [card_from_code("HQ")]  # the announcement comes with that card
    played = after.play("HQ")
    assert played.stoeck == NORTH and played.score()[0] >= 20


def test_stoeck_are_not_announced_with_the_first_of_the_two():
    state = started(BASIC, HEARTS)
    assert state.announcements() == [Action.weis(VIERBLATT_HA)]
    with pytest.raises(IllegalActionError, match="second of them"):
        state.apply(Action.stoeck("HK"))


def test_stoeck_count_only_when_announced():
    state = stoeck_trick().play("HQ")
    assert state.stoeck == -1 and state.stoeck_points() == (0, 0)
    assert state.announcements() == []


@pytest.mark.parametrize("trump", [OBE_ABE, UNE_UFE])
def test_there_are_no_stoeck_in_obe_abe_or_une_ufe(trump):
    state = started(BASIC, trump).play("HK")
    while state.player != NORTH or not state.tricks:
        state = first_legal(state, keep="HQ")
    assert all(a.kind != Action.STOECK for a in state.announcements())
    with pytest.raises(IllegalActionError):
        state.apply(Action.stoeck("HQ"))


def test_stoeck_are_never_compared_and_count_when_the_other_team_scores_the_weis():
    # North/South declare nothing; West's two Dreiblatts score. North still has its Stöck.
    hands = hands_from_codes(
        "HA HK HQ HJ D6 S6 C6 D8 S8",
        "DA DK DQ H10 S10 C10 H7 S7 C9",
        "DJ D9 D7 H8 SJ S9 CJ C7 C8",
        "SA SK SQ CA CK CQ D10 H9 H6",
    )
    state = stoeck_trick(hands, HEARTS, weis={WEST: [DREI_SA, DREI_CA]})
    assert state.weis_team == 1
    state = state.apply(Action.stoeck("HQ")).play("HQ")
    assert state.weis_points() == (0, 40)
    assert state.stoeck_points() == (20, 0)
    assert state.score() == (state.points[0] + 20, state.points[1] + 40)


def test_stoeck_need_king_and_queen_in_one_hand():
    # The Queen of trump is South's, the King North's: nobody may announce Stöck.
    hands = hands_from_codes(
        "HA HK SQ HJ D6 S6 C6 D8 S8",
        "DA DK DQ H10 S10 C10 H7 S7 C9",
        "DJ D9 D7 H9 SJ S9 CJ C7 HQ",
        "SA SK C8 CA CK CQ D10 H8 H6",
    )
    state = started(hands, HEARTS)
    for _ in range(36):
        if state.is_over:
            break
        assert all(a.kind != Action.STOECK for a in state.announcements())
        state = first_legal(state)


def test_stoeck_announced_once():
    state = stoeck_trick().apply(Action.stoeck("HQ"))
    with pytest.raises(IllegalActionError):
        state.apply(Action.stoeck("HQ"))


# -- multipliers, replay, observation ----------------------------------------------


def game_with(hands, dealer: int = EAST, **options) -> GameState:
    config = GameConfig(mode=STANDARD, target=options.pop("target", 1000), weis=True, **options)
    return GameState.new(config, GamePlan(config, known_deals=[Deal(0, dealer, hands)]))


def play_game_round(game: GameState, trump: int, moves: list[Action | str]) -> GameState:
    """Choose the trump, then apply ``moves`` (actions, or card codes) in turn; finish the round with first
    legal cards."""
    game = game.apply(game.player, Action.trump(trump))
    for move in moves:
        if game.over:
            return game
        game = game.apply(game.player, move if isinstance(move, Action) else Action.card(move))
    while not game.over and game.round_index == 0:
        game = game.apply(game.player, Action.card(game.current.legal_cards()[0]))
    return game


def replayed_in_a_game(state: RoundState, **options) -> GameState:
    """The game whose first round was played as ``state`` (dealt by East from BASIC)."""
    game = game_with(BASIC, **options)
    for seat, action in state.seated_actions():
        game = game.apply(seat, action)
    return game


def whole_round_with_weis_and_stoeck() -> RoundState:
    state = stoeck_trick(BASIC, HEARTS, weis={NORTH: [VIERBLATT_HA], SOUTH: [DREI_DA]}).apply(Action.stoeck("HQ"))
    while not state.is_over:
        state = first_legal(state)
    return state


def test_multipliers_apply_to_weis_and_stoeck():
    state = whole_round_with_weis_and_stoeck()
    plain = replayed_in_a_game(state)
    tripled = replayed_in_a_game(state, multipliers=(1, 3, 1, 1, 1, 1))  # hearts count three times
    assert state.weis_points() == (70, 0) and state.stoeck_points() == (20, 0)
    assert plain.scores == state.score()
    assert tripled.scores == (state.score()[0] * 3, state.score()[1] * 3)
    assert tripled.round_scores()[0] == tripled.scores


def test_a_match_with_weis_and_stoeck_totals_257_plus_them():
    state = whole_round_with_weis_and_stoeck()
    assert state.is_match  # North/South take every trick of this deal
    assert state.score() == (257 + 70 + 20, 0)


def test_standard_game_ends_on_weis_before_the_first_tricks_points():
    # North/South's Weis (Vierblatt 50 + Dreiblatt 20) reach a target of 70 at the end of the first
    # trick: the game ends there, before that trick's card points are credited.
    game = game_with(BASIC, target=70)
    game = game.apply(NORTH, Action.trump(HEARTS))
    game = game.apply(NORTH, Action.weis(VIERBLATT_HA)).apply(NORTH, Action.card(card_from_code("HA")))
    while not game.over:
        if game.player == SOUTH and not game.current.declared[SOUTH]:
            game = game.apply(SOUTH, Action.weis(DREI_DA))
        game = game.apply(game.player, Action.card(game.current.legal_cards()[0]))
    assert len(game.current.tricks) == 1
    assert game.current.points[0] > 0  # North's HA won the trick, but its points came too late
    assert game.scores == (70, 0) and game.winner == 0
    assert game.round_scores() == [(70, 0)]


def test_standard_game_ends_on_stoeck_before_the_tricks_points():
    def to_stoeck(target: int) -> GameState:
        game = game_with(BASIC, target=target)
        game = game.apply(NORTH, Action.trump(HEARTS)).apply(NORTH, Action.card(card_from_code("HK")))
        while len(game.current.tricks) < 1:
            legal = game.current.legal_cards()
            kept = {card_from_code("H9"), card_from_code("HJ")}
            game = game.apply(game.player, Action.card(next((c for c in legal if c not in kept), legal[0])))
        return game.apply(NORTH, Action.stoeck("HQ"))

    going_on = to_stoeck(1000)
    assert not going_on.over and going_on.scores[0] == going_on.current.points[0] + 20
    game = to_stoeck(going_on.scores[0])
    assert game.over and game.winner == 0
    assert game.scores == going_on.scores
    assert game.actions()[-1] == (NORTH, Action.stoeck("HQ"))  # the Queen was never played


def test_weis_are_credited_before_the_trick_even_if_the_other_team_would_reach_the_target_with_it():
    # West wins the first trick (its SA in a spades lead) and East/West would pass 20 with its points,
    # but North/South's Weis are credited first and reach the target of 20.
    hands = BASIC
    game = game_with(hands, target=20)
    game = game.apply(NORTH, Action.trump(CLUBS))
    game = game.apply(NORTH, Action.weis(VIERBLATT_HA)).apply(NORTH, Action.card(card_from_code("S7")))
    game = game.apply(WEST, Action.card(card_from_code("SA")))
    game = game.apply(SOUTH, Action.card(card_from_code("S10")))
    game = game.apply(EAST, Action.card(card_from_code("SJ")))
    assert game.over
    assert game.current.tricks[0].winner == WEST and game.current.tricks[0].points >= 20
    assert game.scores == (50, 0) and game.winner == 0


def test_actions_replay_rebuilds_a_round_with_weis_and_stoeck():
    state = stoeck_trick(BASIC, HEARTS, weis={NORTH: [VIERBLATT_HA], WEST: [DREI_SA]}).apply(Action.stoeck("HQ"))
    rebuilt = RoundState.deal(BASIC, EAST, weis=True)
    for seat, action in state.seated_actions():
        rebuilt = rebuilt.apply(action, seat=seat)
    assert rebuilt == state
    while not state.is_over:
        state = first_legal(state)
    rebuilt = RoundState.deal(BASIC, EAST, weis=True)
    for seat, action in state.seated_actions():
        rebuilt = rebuilt.apply(action, seat=seat)
    assert rebuilt == state
    assert [str(a) for a in state.actions()[:3]] == ["Hearts", "Weis Vierblatt HA-HJ", "HK"]


def test_action_codes_round_trip():
    for action in (Action.weis(VIERBLATT_HA), Action.weis(FOUR_KINGS), Action.stoeck("HQ"), Action.card("HQ")):
        assert Action.from_code(action.code) == action
    assert repr(Action.stoeck("HQ")) == "Action.stoeck('HQ')"
    assert repr(Action.weis(409)) == "Action.weis(409)"


def test_declared_weis_stay_hidden_until_the_first_trick_shows_the_scoring_teams():
    state = started(BASIC, CLUBS).apply(Action.weis(VIERBLATT_HA))
    state = first_legal(state).apply(Action.weis(DREI_SA))  # West
    west = state.observation(WEST)
    assert west.shown_weis == ((), (), (), (DREI_SA,))  # its own only: North's cards are not shown
    assert west.announced_weis == ((50,), (), (), (20,))  # North said "fifty"
    assert state.observation(None).shown_weis == ((), (), (), ())
    state = declare_and_finish_trick(state, {})
    public = state.observation(None)
    assert public.weis_team == 0
    assert public.shown_weis == ((VIERBLATT_HA,), (), (), ())  # West's Weis did not score: still hidden
    assert public.weis_points() == (50, 0)
    assert state.observation(WEST).shown_cards(NORTH) == weis_cards(VIERBLATT_HA) & state.hands[NORTH]


def test_a_table_without_weis_has_no_weis_in_its_observation():
    state = RoundState.deal(BASIC, EAST).choose_trump(HEARTS)
    obs = state.observation(NORTH)
    assert obs.shown_weis is None and obs.announced_weis is None and not obs.weis_on
    assert obs.legal_actions() == [Action.card(c) for c in state.legal_cards()]
    assert len(state) == 12 and state.declared is None


def test_the_observation_offers_the_viewers_announcements():
    state = stoeck_trick()
    assert state.observation(NORTH).announcements() == state.announcements() == [Action.stoeck("HQ")]
    assert state.observation(SOUTH).announcements() == []
    first = started(BASIC, HEARTS)
    assert first.observation(NORTH).legal_actions() == first.legal_actions()


def test_in_fair_mode_the_round_point_advantage_counts_weis_and_stoeck():
    config = GameConfig(mode="fair", round_count=4, seed=11, weis=True)
    game = GameState.new(config)
    rng = random.Random(4)
    while not game.over:
        state = game.current
        offers = state.announcements()
        if offers:  # everyone declares every Weis and announces Stöck
            game = game.apply(game.player, offers[0])
            continue
        game = game.apply(game.player, rng.choice(state.legal_actions()))
    scores = game.round_scores()
    extras = [sum(r.weis_points()) + sum(r.stoeck_points()) for r in game.rounds]
    assert any(extras), "the seed deals Weis or Stöck"
    rpa = game.round_point_advantages()
    for first, second in game.plan.pairs():
        start1, start2 = game.rounds[first].forehand_seat % 2, game.rounds[second].forehand_seat % 2
        assert rpa[first] == scores[first][start1] - scores[second][start2] == -rpa[second]
        for index in (first, second):
            rnd = game.rounds[index]
            assert sum(scores[index]) == (257 if rnd.is_match else 157) + extras[index]


# -- a card refused because Stöck were announced -------------------------------------


def test_a_card_other_than_the_announced_stoeck_is_refused_and_the_reason_names_the_stoeck():
    # North announced Stöck and leads the next trick (an empty one): only the Queen may come.
    state = stoeck_trick().apply(Action.stoeck("HQ"))
    queen = card_from_code("HQ")
    assert not state.trick and state.stoeck_due() == queen
    assert state.observation(NORTH).stoeck_due() == queen and state.observation(SOUTH).stoeck_due() == -1
    other = next(c for c in iter_cards(state.hands[NORTH]) if c != queen)
    with pytest.raises(IllegalActionError) as refused:
        state.apply(Action.card(other))
    assert refused.value.reason == IllegalReason.STOECK_CARD and "HQ" in refused.value.why
    assert refusal(state.hands[NORTH], state.trick, HEARTS, other, queen) == ("stoeck_card", queen)
    assert why_not(state.hands[NORTH], state.trick, HEARTS, other, queen) == "You announced Stöck: play the ♥Q now"


def test_the_table_view_of_a_player_who_announced_stoeck_gives_the_reason_for_every_other_card():
    from games.live import snapshot

    played = stoeck_trick().tricks[0]
    game = game_with(BASIC)
    game = game.apply(NORTH, Action.trump(HEARTS))
    for card in played.cards:
        game = game.apply(game.player, Action.card(card))
    game = game.apply(NORTH, Action.stoeck("HQ"))
    view = json.loads("{" + snapshot.private_part(game, NORTH)[1:] + "}")
    assert view["legal"] == ["HQ"]
    assert set(view["why_not"]) == set(view["hand"]) - {"HQ"}
    assert all(why == {"rule": "stoeck_card", "card": "HQ"} for why in view["why_not"].values())
