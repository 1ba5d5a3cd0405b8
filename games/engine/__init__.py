"""The Schieber rules engine: pure Python, no Django, no I/O (spec: ``docs/rules.md``).

Public API::

    legal_cards(hand, trick, trump) -> list[int]
    trick_winner(cards, first, trump) -> int
    trick_points(cards, trump, last=False) -> int
    RoundState.deal(hands, dealer).apply(Action.trump(HEARTS)).play("HJ")
    GameState.new(GameConfig(mode="fair", round_count=12, seed=7))
"""

from __future__ import annotations

from .cards import *  # noqa: F403 - card, seat and trump constants are the vocabulary
from .cards import __all__ as _cards_all
from .errors import CARD_REFUSALS, IllegalActionError, IllegalReason, InvalidActionError, InvalidConfigError, JassError
from .fair import check_schedule, random_schedule, repeat_hands
from .game import FAIR, STANDARD, Deal, GameConfig, GamePlan, GameState
from .round import PUSH_CODE, TRUMP_ACTION_OFFSET, Action, Observation, RoundState, Trick
from .rules import (
    CARD_POINTS,
    LAST_TRICK_BONUS,
    MATCH_BONUS,
    MULTIPLIER_PRESETS,
    ROUND_POINTS,
    legal_cards,
    legal_mask,
    refusal,
    trick_points,
    trick_winner,
    why_not,
)
from .weis import (
    STOECK_POINTS,
    check_weis,
    hand_weis,
    stoeck_cards,
    weis_cards,
    weis_name,
    weis_points,
)

__all__ = [
    *_cards_all,
    "Action",
    "CARD_POINTS",
    "Deal",
    "FAIR",
    "GameConfig",
    "GamePlan",
    "GameState",
    "CARD_REFUSALS",
    "IllegalActionError",
    "IllegalReason",
    "InvalidActionError",
    "InvalidConfigError",
    "JassError",
    "LAST_TRICK_BONUS",
    "MATCH_BONUS",
    "MULTIPLIER_PRESETS",
    "Observation",
    "PUSH_CODE",
    "ROUND_POINTS",
    "STOECK_POINTS",
    "RoundState",
    "STANDARD",
    "TRUMP_ACTION_OFFSET",
    "Trick",
    "check_schedule",
    "check_weis",
    "hand_weis",
    "stoeck_cards",
    "weis_cards",
    "weis_name",
    "weis_points",
    "legal_cards",
    "legal_mask",
    "refusal",
    "why_not",
    "random_schedule",
    "repeat_hands",
    "trick_points",
    "trick_winner",
]
