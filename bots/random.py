"""The random bot: a uniformly random legal action."""

from __future__ import annotations

import numpy as np

from bots.base import Bot
from games.engine import PUSH, TRUMPS, Observation, cards_of


class RandomBot(Bot):
    name = "random"

    def choose_trump(self, obs: Observation, rng: np.random.Generator) -> int:
        if obs.forehand == -1 and rng.random() < 0.5:
            return PUSH
        return int(rng.choice(TRUMPS))

    def choose_card(self, obs: Observation, rng: np.random.Generator) -> int:
        return int(rng.choice(cards_of(obs.legal_mask())))
