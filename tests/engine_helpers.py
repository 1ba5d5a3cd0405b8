"""Helpers for engine tests: literal deals and random play."""

from __future__ import annotations

import random

from games.engine import GameState, RoundState, four, hand_weis, iter_cards, mask_from_codes


def hands_from_codes(*hands: str) -> tuple[int, int, int, int]:
    """Four hands from space-separated codes, North first."""
    return four(mask_from_codes(hand.split()) for hand in hands)


def random_card(mask: int, rng: random.Random) -> int:
    return rng.choice(list(iter_cards(mask)))


def play_random_round(state: RoundState, rng: random.Random, trump: int | None = None) -> list[RoundState]:
    """Play a round to the end with random legal actions; return every state passed through."""
    states = [state]
    while not state.is_over:
        if state.in_trump_phase:
            action = rng.choice(state.legal_actions())
            if trump is not None and not action.is_push:
                action = type(action).trump(trump)
            state = state.apply(action)
        else:
            state = state.play(random_card(state.legal_mask(), rng))
        states.append(state)
    return states


def play_random_game(game: GameState, rng: random.Random) -> GameState:
    """Play a whole game with random legal actions through the checked API."""
    while not game.over:
        game = game.apply(game.player, rng.choice(game.current.legal_actions()))
    return game


def seat_of_action(state: RoundState, index: int) -> int:
    """The seat that took the ``index``-th action of ``state.actions()``."""
    return state.seated_actions()[index][0]


def held_weis(state: RoundState, seat: int) -> tuple[int, ...]:
    """Every Weis ``seat`` was dealt (declared or not)."""
    return hand_weis(state.starting_hands()[seat])
