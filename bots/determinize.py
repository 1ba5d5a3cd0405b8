"""Determinizations: hidden hands sampled so that they agree with everything a seat has seen.

A seat sees its own hand and every card played. How the others followed suit
tells it more: a player who did not follow a plain suit holds none of it, a
player who did not follow trump holds no trump except perhaps the Jack (the
Puur may be kept back), and a player who under-trumped held nothing but trumps.
A player who trumped instead of following has shown nothing: that is allowed
with cards of the led suit in hand. ``possible_cards`` turns this into one mask
per seat; ``sample_hands`` deals the unseen cards within those masks.
"""

from __future__ import annotations

import numpy as np

from bots.rule_based import DECLARER_CARDS, place_shown_weis
from bots.rule_based import excluded_cards as rules_excluded_cards
from games.engine import FULL_DECK, SEATS, Observation, cards_of

DECLARER_WEIGHT = 2.0  # after the trump is declared, the declarer is likelier to hold the cards it wants
RANDOM_ATTEMPTS = 30  # greedy sampling rarely fails; after this many failures search exhaustively


def excluded_cards(obs: Observation) -> list[int]:
    """Return, per seat, the cards it has shown it cannot hold (judged from how it followed suit).

    The rule bot reads the table the same way; there is one implementation, in ``bots.rule_based``.
    """
    if obs.trump < 0:
        return [0, 0, 0, 0]
    return rules_excluded_cards(obs)


def unseen_cards(obs: Observation) -> int:
    """Return the cards the viewer has not seen: neither in its hand nor played."""
    return FULL_DECK & ~obs.played_mask & ~obs.hand


def possible_cards(obs: Observation) -> list[int]:
    """Return, per seat, the unseen cards it may hold (the viewer: its own hand)."""
    unseen = unseen_cards(obs)
    excluded = excluded_cards(obs)
    possible = [unseen & ~excluded[seat] if obs.hand_sizes[seat] else 0 for seat in SEATS]
    place_shown_weis(obs, possible)
    possible[obs.viewer] = obs.hand
    return possible


class Sampler:
    """Deals the viewer's unseen cards to the other seats, consistent with the observation.

    Each card goes to a seat that may hold it with a chance proportional to the
    cards that seat still lacks (more for the declarer's kind of cards), most
    constrained cards first. A deal that gets stuck is redrawn; after
    ``RANDOM_ATTEMPTS`` failures a randomized exhaustive search finds one (the
    true deal always satisfies the constraints, so one exists).
    """

    def __init__(self, obs: Observation) -> None:
        self.viewer = obs.viewer
        self.possible = possible_cards(obs)
        self.sizes = obs.hand_sizes
        self.others = [seat for seat in SEATS if seat != obs.viewer and obs.hand_sizes[seat]]
        cards = cards_of(unseen_cards(obs))
        self.holders = {card: [seat for seat in self.others if self.possible[seat] >> card & 1] for card in cards}
        # Cards with fewer possible holders go first: they are the ones a greedy deal could strand.
        self.cards = sorted(cards, key=lambda card: len(self.holders[card]))
        favoured = DECLARER_CARDS[obs.trump] if obs.trump >= 0 and obs.declarer != obs.viewer else 0
        self.declarer = obs.declarer
        self.favoured = favoured
        self.hand = obs.hand

    def sample(self, rng: np.random.Generator) -> tuple[int, int, int, int]:
        """Return four hands (masks): the viewer's own and a random consistent deal of the rest."""
        for _ in range(RANDOM_ATTEMPTS):
            hands = self._greedy(rng)
            if hands is not None:
                return hands
        return self._exhaustive(rng)

    def _greedy(self, rng: np.random.Generator) -> tuple[int, int, int, int] | None:
        need = list(self.sizes)
        hands = [0, 0, 0, 0]
        hands[self.viewer] = self.hand
        draws = rng.random(len(self.cards))
        for card, draw in zip(self.cards, draws, strict=True):
            seats = [seat for seat in self.holders[card] if need[seat]]
            if not seats:
                return None
            if len(seats) == 1:
                seat = seats[0]
            else:
                weights = [self._weight(seat, card, need[seat]) for seat in seats]
                threshold = draw * sum(weights)
                seat = seats[-1]
                for candidate, weight in zip(seats, weights, strict=True):
                    threshold -= weight
                    if threshold < 0:
                        seat = candidate
                        break
            hands[seat] |= 1 << card
            need[seat] -= 1
        return (hands[0], hands[1], hands[2], hands[3])

    def _weight(self, seat: int, card: int, need: int) -> float:
        if seat == self.declarer and self.favoured >> card & 1:
            return need * DECLARER_WEIGHT
        return float(need)

    def _exhaustive(self, rng: np.random.Generator) -> tuple[int, int, int, int]:
        need = list(self.sizes)
        hands = [0, 0, 0, 0]
        hands[self.viewer] = self.hand
        cards = self.cards

        def place(index: int) -> bool:
            if index == len(cards):
                return True
            card = cards[index]
            seats = [seat for seat in self.holders[card] if need[seat]]
            for seat in rng.permutation(seats) if len(seats) > 1 else seats:
                seat = int(seat)
                hands[seat] |= 1 << card
                need[seat] -= 1
                if place(index + 1):
                    return True
                hands[seat] ^= 1 << card
                need[seat] += 1
            return False

        if not place(0):
            raise ValueError("no deal of the unseen cards agrees with this observation")
        return (hands[0], hands[1], hands[2], hands[3])
