"""The rule-based bot: always legal, deterministic, sensible in named positions, far stronger than random."""

from __future__ import annotations

import numpy as np
import pytest

from bots.random import RandomBot
from bots.registry import get_bot
from bots.rule_based import RuleBot
from games.catalogue import builtin_bots
from games.engine import (
    CARD_CODES,
    EAST,
    HEARTS,
    NORTH,
    OBE_ABE,
    PUSH,
    SOUTH,
    SPADES,
    TRUMPS,
    WEST,
    Action,
    GameConfig,
    GameState,
    RoundState,
)
from tests.engine_helpers import hands_from_codes

WEAK_HAND = "DK D9 D7 HQ H9 H8 SJ S10 C9"
STRONG_HEARTS = "HJ H9 HA HK H6 DA SA CA C6"


def _move(state: RoundState, seed: int = 0) -> Action:
    return RuleBot().act(state.observation(state.player), np.random.default_rng(seed))


def _winning_seat(state: RoundState) -> int:
    """The seat whose card wins the current trick so far."""
    return (state.leader - state.trick.index(state.top)) % 4


def _play_game(bots: list, seed: int) -> GameState:
    """Play a fair game of four rounds through the checked API (an illegal move raises)."""
    game = GameState.new(GameConfig(mode="fair", round_count=4, seed=seed))
    rng = np.random.default_rng(seed)
    while not game.over:
        seat = game.player
        obs = game.observation(seat)
        action = bots[seat].act(obs, rng)
        if action.is_card:
            assert obs.legal_mask() >> action.value & 1
        game = game.apply(seat, action)
    return game


def test_it_is_registered_as_rules():
    bot = get_bot("rules")
    assert isinstance(bot, RuleBot)
    assert builtin_bots()["rules"].label == "Rule-based"


@pytest.mark.parametrize("seed", range(12))
def test_it_always_plays_legal_actions_through_whole_games(seed):
    rule, rand = RuleBot(), RandomBot()
    bots = [rule, rule, rule, rule] if seed % 2 else [rule, rand, rule, rand]
    game = _play_game(bots, seed)
    assert game.over
    assert sum(game.scores) >= 4 * 157


def test_same_observation_and_seed_give_the_same_move():
    game = GameState.new(GameConfig(mode="fair", round_count=2, seed=3))
    bot = RuleBot()
    while not game.over:
        obs = game.observation(game.player)
        first = bot.act(obs, np.random.default_rng(11))
        assert RuleBot().act(obs, np.random.default_rng(11)) == first
        game = game.apply(game.player, first)


# -- trump choice ------------------------------------------------------------------


def _deal(north: str, *, dealer: int = EAST) -> RoundState:
    """A deal where North holds ``north`` and the other seats share the rest of the deck."""
    rest = [code for code in CARD_CODES if code not in north.split()]
    others = [" ".join(rest[i : i + 9]) for i in range(0, 27, 9)]
    return RoundState.deal(hands_from_codes(north, *others), dealer=dealer)


def test_it_pushes_a_weak_hand_as_forehand():
    state = _deal(WEAK_HAND)
    assert state.player == NORTH
    assert _move(state) == Action.push()


def test_it_declares_the_obvious_trump_for_a_strong_suit_hand():
    assert _move(_deal(STRONG_HEARTS)) == Action.trump(HEARTS)


def test_it_never_pushes_after_a_push():
    # South is forehand and pushes; North, holding the weak hand, must choose.
    state = _deal(WEAK_HAND, dealer=WEST).choose_trump(PUSH)
    assert state.player == NORTH
    action = _move(state)
    assert not action.is_push
    assert action.value in TRUMPS


def test_declarer_draws_trumps_with_the_jack():
    state = _deal(STRONG_HEARTS).choose_trump(HEARTS)
    assert _move(state) == Action.card("HJ")


# -- card play -----------------------------------------------------------------------
# East deals, so North leads and play goes North, West, South, East: East plays last
# and West is East's partner.

SMEAR_DEAL = hands_from_codes(
    "D7 DK SA SK SQ SJ HA HK CA",
    "D10 D6 S6 S7 H7 H8 C6 C7 C8",
    "D8 DQ S9 S10 HQ HJ H10 CQ CK",
    "DA DJ D9 H6 H9 S8 C9 C10 CJ",
)


def test_last_player_gives_points_to_partner_winning_the_trick():
    state = RoundState.deal(SMEAR_DEAL, dealer=EAST).choose_trump(SPADES)
    state = state.play("D7").play("DA").play("D8")
    assert state.player == EAST
    assert _move(state) == Action.card("D10")


WORTHLESS_TRICK_DEAL = hands_from_codes(
    "C6 CA CK DA DK SA SK HK HQ",
    "HJ H9 HA D6 D7 D8 S6 S7 S8",
    "C8 C9 C10 D9 D10 S9 S10 H7 H6",
    "C7 CQ CJ DQ DJ SQ SJ H10 H8",
)


def test_it_does_not_waste_a_high_trump_on_a_worthless_trick():
    state = RoundState.deal(WORTHLESS_TRICK_DEAL, dealer=EAST).choose_trump(HEARTS)
    state = state.play("C6").play("C7").play("C8")
    assert state.player == EAST
    assert _winning_seat(state) == SOUTH
    # East cannot follow clubs; ruffing a trick worth nothing would spend a trump for nothing.
    assert _move(state) in [Action.card(code) for code in ("D6", "D7", "D8", "S6", "S7", "S8")]


VALUABLE_TRICK_DEAL = hands_from_codes(
    "H10 SA SK SQ SJ DA DK CA CK",
    "HA HQ H7 S6 D6 D7 C6 C7 C8",
    "HJ HK S9 S10 D10 D9 D8 C10 C9",
    "H6 H8 H9 S7 S8 DQ DJ CQ CJ",
)


def test_last_player_wins_a_valuable_trick_with_the_cheapest_winning_card():
    # Obe-Abe: East's Queen beats the Jack and keeps the Ace, still the highest heart.
    state = RoundState.deal(VALUABLE_TRICK_DEAL, dealer=EAST).choose_trump(OBE_ABE)
    state = state.play("H10").play("H6").play("HJ")
    assert _winning_seat(state) == SOUTH
    assert _move(state) == Action.card("HQ")


RUFF_DEAL = hands_from_codes(
    "HA HK HQ SA SK SQ DA DK CA",
    "SJ S9 S6 D6 D7 D8 C6 C7 C8",
    "H10 H9 HJ S10 D10 D9 CK C10 C9",
    "H6 H7 H8 S7 S8 DQ DJ CQ CJ",
)


def test_it_ruffs_a_valuable_trick_with_its_lowest_trump():
    state = RoundState.deal(RUFF_DEAL, dealer=EAST).choose_trump(SPADES)
    state = state.play("HA").play("H6").play("H10")
    assert _winning_seat(state) == NORTH
    assert _move(state) == Action.card("S6")


def test_it_cashes_aces_under_obe_abe():
    state = RoundState.deal(VALUABLE_TRICK_DEAL, dealer=EAST).choose_trump(OBE_ABE)
    assert _move(state) in [Action.card(code) for code in ("SA", "DA", "CA")]


# -- strength ------------------------------------------------------------------------


def test_it_beats_random_players_by_a_wide_margin():
    rule, rand = RuleBot(), RandomBot()
    wins = decided = 0
    margins = []
    for seed in range(40):
        game = _play_game([rule, rand, rule, rand], seed)
        margin = game.scores[0] - game.scores[1]
        margins.append(margin)
        if margin:
            decided += 1
            wins += margin > 0
    assert wins / decided >= 0.85
    assert np.mean(margins) >= 150  # per game of four rounds, 628 card points in all
