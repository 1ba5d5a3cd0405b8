"""Errors raised by the rules engine and the HSLU codec."""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class JassError(ValueError):
    """Base class of every error about cards, actions, states and messages."""


class InvalidActionError(JassError):
    """An action or input that is malformed: no such card, trump code or seat."""


class IllegalReason(StrEnum):
    """Which rule refused an action (``IllegalActionError.reason``)."""

    GAME_OVER = "game_over"
    ROUND_OVER = "round_over"
    NOT_YOUR_TURN = "not_your_turn"
    TRUMP_FIRST = "trump_first"  # a card or announcement before the trump is declared
    PUSH = "push"  # only forehand may push, and only once
    TRUMP_DECLARED = "trump_declared"
    NO_WEIS = "no_weis"  # the table plays without Weis and Stöck
    WEIS_AFTER_FIRST_TRICK = "weis_after_first_trick"
    WEIS_DECLARED = "weis_declared"
    WEIS_NOT_HELD = "weis_not_held"
    STOECK = "stoeck"
    # a card the player may not play (``rules.refusal`` names them the same)
    ABSENT = "absent"
    FOLLOW = "follow"
    FOLLOW_TRUMP = "follow_trump"
    UNDER_TRUMP = "under_trump"
    STOECK_CARD = "stoeck_card"  # Stöck announced: the second of King and Queen of trump comes now


CARD_REFUSALS = frozenset(
    {
        IllegalReason.ABSENT,
        IllegalReason.FOLLOW,
        IllegalReason.FOLLOW_TRUMP,
        IllegalReason.UNDER_TRUMP,
        IllegalReason.STOECK_CARD,
    }
)


class IllegalActionError(JassError):
    """A well-formed action that the rules do not allow in the current state.

    Besides the message, the facts for callers that word it their own way: ``reason`` (which
    rule), ``seat`` (who tried), ``card`` (the card refused, for a card), ``why`` (the reason in
    words) and ``state`` (the round it was refused in).
    """

    def __init__(
        self,
        message: str,
        *,
        reason: IllegalReason | None = None,
        seat: int | None = None,
        card: int | None = None,
        why: str = "",
        state: Any = None,
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.seat = seat
        self.card = card
        self.why = why
        self.state = state


class InvalidConfigError(JassError):
    """Game options or a fair schedule that cannot be played."""
