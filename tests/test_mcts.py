"""The MCTS bots: determinizations that agree with the observation, legal and reproducible moves, real strength."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bots import mcts
from bots.base import Bot
from bots.determinize import Sampler, excluded_cards, possible_cards, unseen_cards
from bots.mcts import MCTSBot, MCTSStrongBot
from bots.random import RandomBot
from bots.registry import IMPLEMENTATIONS, bot_class, get_bot, move_budget
from bots.rule_based import RuleBot
from games.catalogue import bot_choices
from games.engine import (
    CLUBS,
    DIAMONDS,
    EAST,
    HEARTS,
    HJ,
    NORTH,
    SEATS,
    SOUTH,
    SUIT_MASKS,
    WEST,
    Action,
    GameConfig,
    GameState,
    RoundState,
    mask_from_codes,
)
from tests.engine_helpers import hands_from_codes


def _position(seed: int, moves: int) -> RoundState:
    """A position from a real game: rule-based and random players, ``moves`` actions into the first round."""
    game = GameState.new(GameConfig(mode="fair", round_count=2, seed=seed))
    players = [RuleBot(), RandomBot(), RandomBot(), RuleBot()] if seed % 2 else [RuleBot()] * 4
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if game.current.is_over or game.round_index:
            break
        seat = game.player
        game = game.apply(seat, players[seat].act(game.observation(seat), rng))
    return game.current if not game.current.is_over else game.rounds[0]


def _starting_hands(state: RoundState, hands: tuple[int, int, int, int]) -> tuple[int, ...]:
    """The deal that ``hands`` (held now) imply: add back every card each seat has played."""
    played = [0, 0, 0, 0]
    for trick in state.tricks:
        for index, card in enumerate(trick.cards):
            played[trick.seat_of(index)] |= 1 << card
    for index, card in enumerate(state.trick):
        played[(state.leader - index) % 4] |= 1 << card
    return tuple(h | p for h, p in zip(hands, played, strict=True))


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**6), moves=st.integers(0, 38), viewer=st.sampled_from(SEATS), draw=st.integers(0, 999))
def test_determinizations_agree_with_the_observation(seed, moves, viewer, draw):
    state = _position(seed, moves)
    if state.is_over:
        return
    obs = state.observation(viewer)
    possible = possible_cards(obs)
    # Sound: the true deal is always one of the deals the constraints allow.
    for seat in SEATS:
        assert state.hands[seat] & ~possible[seat] == 0, f"{seat} really holds a card ruled out"
    excluded = excluded_cards(obs)
    sampler = Sampler(obs)
    rng = np.random.default_rng(draw)
    for _ in range(3):
        hands = sampler.sample(rng)
        assert hands[viewer] == obs.hand
        assert [h.bit_count() for h in hands] == list(obs.hand_sizes)
        assert hands[0] | hands[1] | hands[2] | hands[3] == obs.hand | unseen_cards(obs)
        assert sum(h.bit_count() for h in hands) == (obs.hand | unseen_cards(obs)).bit_count()  # disjoint
        for seat in SEATS:
            assert hands[seat] & obs.played_mask == 0, "a card already played is dealt again"
            assert hands[seat] & excluded[seat] == 0, "a card of a suit the seat showed void in"
        # Consistent: with this deal, every card played so far was legal (checked replay).
        replay = RoundState.deal(_starting_hands(state, hands), state.dealer)
        for action in state.actions():
            replay = replay.apply(action)
        assert replay.hands == hands


def test_not_following_trump_leaves_the_puur_possible():
    hands = hands_from_codes(
        "H6 DK DQ DJ D10 D9 D7 D6 D8",
        "HJ S6 SA DA C7 C6 S8 S7 C10",
        "S9 SJ SK SQ S10 CA CK CQ CJ",
        "HA HK HQ H9 H10 H8 H7 C8 C9",
    )
    state = RoundState.deal(hands, EAST).apply(Action.trump(HEARTS))
    state = state.play("H6").play("H10").play("S9").play("S6")  # South and East do not follow trump
    possible = possible_cards(state.observation(NORTH))
    assert possible[EAST] & SUIT_MASKS[HEARTS] == 1 << HJ
    assert possible[SOUTH] & SUIT_MASKS[HEARTS] == 1 << HJ


def test_trumping_instead_of_following_shows_no_void():
    hands = hands_from_codes(
        "D6 DK DQ DJ D10 D9 D7 H6 D8",
        "DA S6 SA HJ C7 C6 S8 S7 C10",
        "S9 SJ SK SQ S10 CA CK CQ CJ",
        "HA HK HQ H9 H10 H8 H7 C8 C9",
    )
    state = RoundState.deal(hands, EAST).apply(Action.trump(HEARTS))
    state = state.play("D6").play("H7")  # West trumps a diamond lead: allowed with or without diamonds
    possible = possible_cards(state.observation(EAST))
    assert possible[WEST] & SUIT_MASKS[DIAMONDS] == SUIT_MASKS[DIAMONDS] & ~state.hands[EAST] & ~(1 << 8)
    state = state.play("S9")  # South neither follows nor trumps: void in diamonds
    possible = possible_cards(state.observation(EAST))
    assert possible[SOUTH] & SUIT_MASKS[DIAMONDS] == 0
    assert possible[SOUTH] & SUIT_MASKS[CLUBS] == mask_from_codes(["CA", "CK", "CQ", "CJ", "C8", "C9"])


def test_the_single_legal_card_is_played_at_once(monkeypatch):
    def no_search(*args):
        raise AssertionError("searched a forced move")

    monkeypatch.setattr(MCTSBot, "card_statistics", no_search)
    monkeypatch.setattr(MCTSBot, "trump_values", no_search)
    state = _position(5, 20)
    while state.legal_mask().bit_count() != 1:
        state = state.play(min(state.legal_cards()))
    obs = state.observation(state.player)
    rng = np.random.default_rng(0)
    assert MCTSBot().choose_card(obs, rng) == state.legal_cards()[0]
    assert MCTSStrongBot().act(obs, rng) == Action.card(state.legal_cards()[0])


class _CountedOnly(MCTSBot):
    """The fast bot with its count budget only: its wall-clock safety net would cut a search short on a
    busy machine, and a search cut by the clock is not repeatable."""

    time_cap = 1e9


def test_the_same_seed_gives_the_same_move():
    game = GameState.new(GameConfig(mode="fair", round_count=2, seed=21))
    moves = 0
    while not game.over and moves < 6:  # the trump choice (or a push and its choice) and the first cards
        obs = game.observation(game.player)
        action = _CountedOnly().act(obs, np.random.default_rng(99))
        assert _CountedOnly().act(obs, np.random.default_rng(99)) == action
        game = game.apply(game.player, action)
        moves += 1


def test_a_late_deadline_still_gives_a_searched_legal_move():
    bot = MCTSStrongBot()
    MCTSStrongBot.warm_up()
    state = _position(8, 6)
    obs = state.observation(state.player)
    action = bot.act_by(obs, np.random.default_rng(1), deadline=time.time() - 1)
    assert action in obs.legal_actions()
    assert bot.last_iterations == (bot.trump_iterations * 6 if obs.trump < 0 else bot.iterations)


def test_a_live_move_does_not_wait_for_the_compiler(monkeypatch):
    def no_search(*args):
        raise AssertionError("searched before the kernels were ready")

    monkeypatch.setattr(mcts, "_compiled", False)
    monkeypatch.setattr(MCTSBot, "card_statistics", no_search)
    monkeypatch.setattr(MCTSBot, "trump_values", no_search)
    state = _position(8, 6)
    obs = state.observation(state.player)
    action = MCTSStrongBot().act_by(obs, np.random.default_rng(1), deadline=time.time() + 1.2)
    assert action == RuleBot().act(obs, np.random.default_rng(1))


def test_both_levels_are_registered_and_instantiable():
    assert isinstance(get_bot("mcts-fast"), MCTSBot)
    assert isinstance(get_bot("mcts-strong"), MCTSStrongBot)
    assert {"random", "rules", "mcts-fast", "mcts-strong"} <= set(IMPLEMENTATIONS)
    assert {c["name"] for c in bot_choices()} >= {"mcts-fast", "mcts-strong"}


def test_every_registered_bot_is_the_class_of_its_name():
    for name, impl in IMPLEMENTATIONS.items():
        cls = bot_class(name)
        assert issubclass(cls, Bot) and cls.name == name == impl.info.name, impl.path
    assert move_budget("mcts-strong") > move_budget("mcts-fast") > 0
    assert move_budget("rules") is None and move_budget("nobody") is None
    with pytest.raises(KeyError, match="built-in bots: mcts-fast, mcts-strong, random, rules, solver"):
        bot_class("nobody")


def _play_fair(names: list[str], seed: int, rounds: int) -> tuple[int, int]:
    game = GameState.new(GameConfig(mode="fair", round_count=rounds, seed=seed))
    players = [_CountedOnly() if name == "mcts-fast" else get_bot(name) for name in names]
    rng = np.random.default_rng(seed)
    while not game.over:
        seat = game.player
        obs = game.observation(seat)
        action = players[seat].act(obs, rng)
        if action.is_card:
            assert obs.legal_mask() >> action.value & 1
        game = game.apply(seat, action)
    return game.scores


@pytest.mark.slow
@pytest.mark.parametrize(("opponent", "seeds", "margin"), [("random", (1, 2), 300), ("rules", (1,), 0)])
def test_mcts_fast_beats_random_and_rules(opponent, seeds, margin):
    """A quick sanity check on fixed seeds, both sides of the table (the arena measures strength properly)."""
    advantage = 0
    for seed in seeds:
        for mcts_team in (0, 1):
            names = ["mcts-fast", opponent] * 2 if mcts_team == 0 else [opponent, "mcts-fast"] * 2
            scores = _play_fair(names, seed, rounds=2)
            advantage += scores[mcts_team] - scores[1 - mcts_team]
    assert advantage > margin
