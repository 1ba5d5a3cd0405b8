"""The bot interface: a bot sees only an ``Observation`` and answers with an action."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

from games.engine import Action, Observation, stoeck_cards


def server_move(obs: Observation) -> Action | None:
    """The move every bot makes at a table with Weis and Stöck without deciding anything, or None.

    In the first trick a bot declares each Weis it holds (all of them, one action each, before its
    card): built-in bots, stand-ins and HSLU bots alike — HSLU bots cannot declare, so the server does
    it for them. After Stöck were announced, the card they were announced with.
    """
    if obs.shown_weis is None or obs.viewer != obs.player or obs.trump < 0:
        return None
    for action in obs.announcements():
        if action.kind == Action.WEIS:
            return action
    pending = obs.hand & stoeck_cards(obs.trump) if obs.stoeck == obs.viewer else 0
    return Action.card(pending.bit_length() - 1) if pending else None


def with_stoeck(obs: Observation, action: Action) -> Action:
    """The chosen card as a Stöck announcement when it is the second of King and Queen of trump.

    Stöck are never worth hiding, so every bot announces them; the card follows as its next move
    (``server_move``).
    """
    if action.is_card and obs.shown_weis is not None and Action.stoeck(action.value) in obs.announcements():
        return Action.stoeck(action.value)
    return action


class Bot(ABC):
    """A built-in player. Subclasses implement ``choose_trump`` and ``choose_card``.

    Bots are stateless between calls: everything they may know is in the
    observation, and all randomness comes from the injected generator, so the
    same observation and seed give the same move.
    """

    name: ClassVar[str]  # registry key, e.g. "rules" (label and description: bots.registry)

    @abstractmethod
    def choose_trump(self, obs: Observation, rng: np.random.Generator) -> int:
        """Return a trump 0..5, or PUSH (10) when ``obs.forehand == -1`` (forehand may push)."""

    @abstractmethod
    def choose_card(self, obs: Observation, rng: np.random.Generator) -> int:
        """Return a card id from ``obs.legal_mask()``."""

    def act(self, obs: Observation, rng: np.random.Generator) -> Action:
        """Return this bot's action for the seat to move; the only legal one at once.

        At a table with Weis and Stöck the bot declares every Weis it holds and announces its Stöck.
        """
        move = server_move(obs)
        if move is not None:
            return move
        legal = [action for action in obs.legal_actions() if not action.is_announcement]
        if not legal:
            raise ValueError(f"{self.name} asked to act but it is not its turn: {obs!r}")
        if len(legal) == 1:
            return with_stoeck(obs, legal[0])
        if obs.trump < 0:
            return Action.trump(self.choose_trump(obs, rng))
        return with_stoeck(obs, Action.card(self.choose_card(obs, rng)))
