"""The bot interface: a bot sees only an ``Observation`` and answers with an action."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

from games.engine import Action, Observation


class Bot(ABC):
    """A built-in player. Subclasses implement ``choose_trump`` and ``choose_card``.

    Bots are stateless between calls: everything they may know is in the
    observation, and all randomness comes from the injected generator, so the
    same observation and seed give the same move.
    """

    name: ClassVar[str]  # registry key, e.g. "rules"
    label: ClassVar[str]  # shown in the UI, e.g. "Rule-based"
    description: ClassVar[str] = ""

    @abstractmethod
    def choose_trump(self, obs: Observation, rng: np.random.Generator) -> int:
        """Return a trump 0..5, or PUSH (10) when ``obs.forehand == -1`` (forehand may push)."""

    @abstractmethod
    def choose_card(self, obs: Observation, rng: np.random.Generator) -> int:
        """Return a card id from ``obs.legal_mask()``."""

    def act(self, obs: Observation, rng: np.random.Generator) -> Action:
        """Return this bot's action for the seat to move; the only legal one at once."""
        legal = obs.legal_actions()
        if not legal:
            raise ValueError(f"{self.name} asked to act but it is not its turn: {obs!r}")
        if len(legal) == 1:
            return legal[0]
        if obs.trump < 0:
            return Action.trump(self.choose_trump(obs, rng))
        return Action.card(self.choose_card(obs, rng))
