"""The rule-based bot: a hand-scoring trump choice and card play by Jass rules of thumb.

The bot keeps no state between calls. For each card it reads from the
observation which cards are still out, which seat cannot hold which of them (a
seat that did not follow suit is void in it) and, from that, how likely each
other seat is to beat a card. It then leads by rules (draw trumps, cash Bocks,
lead low towards partner) and follows by expected points: the trick's points
it wins or loses, weighed against the later tricks a high card could still win.
"""

from __future__ import annotations

import numpy as np

from bots.base import Bot
from games.engine import (
    CARD_POINTS,
    FULL_DECK,
    JACK,
    NINE,
    PUSH,
    SEATS,
    STOECK_POINTS,
    SUIT_MASKS,
    SUITS,
    TRUMPS,
    Observation,
    iter_cards,
    partner_of,
    stoeck_cards,
)
from games.engine.rules import LAST_TRICK_BONUS, WIN_RANK

# -- trump choice --------------------------------------------------------------

# A hand is scored for each trump on the scale of the HSLU exercise heuristic (per-card
# scores by rank offset A K Q J 10 9 8 7 6), with corrections fitted on self-play: the
# score is roughly proportional to the points the declaring team makes.
TRUMP_CARD_SCORE = (15, 10, 7, 25, 6, 19, 5, 5, 5)
SIDE_CARD_SCORE = (9, 7, 5, 2, 1, 0, 0, 0, 0)
TRUMP_LENGTH_BONUS = 14  # per trump beyond the third: length draws the opponents' trumps
PUUR_AND_NELL_BONUS = 3  # Jack and Nine of trumps together: the two top trumps, full control
MISSING_PUUR_PENALTY = 9  # without the Jack an opponent holds the one unbeatable trump
VOID_BONUS_PER_SUIT = 7  # a void side suit can be ruffed (scaled by trump length up to four)
# Obe-Abe and Une-Ufe: only the cards from the top (bottom) of a suit down win tricks.
OBE_CARD_SCORE = (21, 7, 2, 1, 0, 0, 0, 0, 0)
UNE_CARD_SCORE = (0, 0, 0, 0, 0, 0, 2, 5, 17)
RUN_BONUS = 7  # per card after the first of an unbroken run from the top (bottom) of a suit
NO_TRUMP_VOID_BONUS = 6  # a void suit holds no card that the opponents' higher ones could beat
OBE_ABE_OFFSET = 3
UNE_UFE_OFFSET = 10  # Une-Ufe hands make a little more than Obe-Abe hands of the same score
PUSH_THRESHOLD = 70  # forehand pushes when no trump scores this much


def trump_scores(hand: int) -> tuple[float, ...]:
    """Score a hand (a mask) for each trump 0..5; higher means a better trump to declare."""
    ranks_by_suit = [[c % 9 for c in iter_cards(hand & SUIT_MASKS[suit])] for suit in SUITS]
    side = [sum(SIDE_CARD_SCORE[r] for r in ranks) for ranks in ranks_by_suit]
    voids = [not ranks for ranks in ranks_by_suit]
    scores: list[float] = []
    for trump in SUITS:
        ranks = ranks_by_suit[trump]
        length = len(ranks)
        score: float = sum(TRUMP_CARD_SCORE[r] for r in ranks) + sum(side) - side[trump]
        score += TRUMP_LENGTH_BONUS * max(0, length - 3)
        if JACK not in ranks:
            score -= MISSING_PUUR_PENALTY
        elif NINE in ranks:
            score += PUUR_AND_NELL_BONUS
        side_voids = sum(voids) - voids[trump]
        score += VOID_BONUS_PER_SUIT * side_voids * min(length, 4) / 4
        scores.append(score)
    for card_score, order, offset in (
        (OBE_CARD_SCORE, range(9), OBE_ABE_OFFSET),
        (UNE_CARD_SCORE, range(8, -1, -1), UNE_UFE_OFFSET),
    ):
        score = offset + NO_TRUMP_VOID_BONUS * sum(voids)
        for ranks in ranks_by_suit:
            score += sum(card_score[r] for r in ranks)
            run = 0
            for rank in order:
                if rank not in ranks:
                    break
                run += 1
            score += RUN_BONUS * max(0, run - 1)
        scores.append(score)
    return tuple(scores)


# -- tables for card play --------------------------------------------------------


def _beaters(trump: int, led: int, card: int) -> int:
    """Return the mask of cards that beat ``card`` in a trick led with suit ``led``."""
    ranks = WIN_RANK[trump][led]
    return sum(1 << other for other in range(36) if ranks[other] > ranks[card])


# BEATERS[trump][led][card]: the cards that beat ``card`` in a trick led with suit ``led``.
BEATERS = tuple(tuple(tuple(_beaters(t, led, c) for c in range(36)) for led in SUITS) for t in TRUMPS)
# HIGHER[trump][card]: the cards of the same suit that beat ``card`` when its suit is led.
HIGHER = tuple(tuple(BEATERS[t][c // 9][c] & SUIT_MASKS[c // 9] for c in range(36)) for t in TRUMPS)
TRUMP_MASKS = tuple(SUIT_MASKS[t] if t < 4 else 0 for t in TRUMPS)
_ACES_KINGS = sum(0b11 << (9 * s) for s in SUITS)
_SIXES_SEVENS = sum(0b110000000 << (9 * s) for s in SUITS)
# DECLARER_CARDS[trump]: the cards a declarer of that trump tends to hold.
DECLARER_CARDS = (*TRUMP_MASKS[:4], _ACES_KINGS, _SIXES_SEVENS)
DECLARER_WEIGHT = 2.0  # how much likelier the declarer is than another seat to hold such a card

# Card play weights, tuned in self-play over fair games (points are card points).
EXPECTED_OTHER_CARDS = 10  # points the other three cards bring to a trick a strong card wins later
EXPECTED_LATER_CARD = 3  # points each seat still to play is expected to add to the current trick
LEAD_STAKE = 9  # points the other three cards are expected to bring to a trick we lead
RUFF_WILLINGNESS = 0.3  # how often a seat that could follow suit trumps instead
OVERTAKE_AFTER_RAISE = 0.6  # partner's chance to beat a trick an opponent may already have raised
# A trump wins a later trick by ruffing even when higher trumps are out: its chance to win
# falls by TRUMP_KEEP_STEP per higher trump still out, but never below TRUMP_KEEP_FLOOR,
# and the trick it wins is worth TRUMP_KEEP_EXTRA more (trumps take the valuable tricks).
TRUMP_KEEP_STEP = 0.15
TRUMP_KEEP_FLOOR = 0.35
TRUMP_KEEP_EXTRA = 10
GUARDED_SECOND_CHANCE = 0.45  # e.g. a King with a small card beside it while the Ace is out
GUARDED_THIRD_CHANCE = 0.2  # e.g. a Queen with two small cards while the Ace and King are out
LOW_TRUMP_LEAD_MIN = 3  # a declarer without the master trump still draws trumps with this many
TRUMP_LEAD_PENALTY = 3  # trumps are worth more for ruffing than for leading
VOID_BONUS = 2  # leading a singleton side suit makes a void to ruff later
BOCK_RISK_WEIGHT = 50  # points a Bock lead loses per unit of chance that an opponent ruffs it
MATCH_STAKE = 40  # extra stake of a late trick while one team has won them all (match bonus)


class _Knowledge:
    """What the seat to move can infer about the unseen cards from its observation."""

    __slots__ = (
        "_any_cache",
        "capacity",
        "declarer",
        "favoured",
        "hand",
        "me",
        "partner",
        "possible",
        "remaining",
        "sizes",
        "trump",
        "trump_mask",
    )

    def __init__(self, obs: Observation) -> None:
        self.trump = obs.trump
        self.trump_mask = TRUMP_MASKS[obs.trump]
        self.me = obs.viewer
        self.partner = partner_of(obs.viewer)
        self.hand = obs.hand
        self.sizes = obs.hand_sizes
        self.remaining = FULL_DECK & ~obs.played_mask & ~obs.hand
        excluded = excluded_cards(obs)
        possible = [self.remaining & ~excluded[seat] if seat != self.me and self.sizes[seat] else 0 for seat in SEATS]
        place_shown_weis(obs, possible)
        # A seat whose possible cards just fill its hand holds exactly those: nobody else can.
        for _ in range(2):
            for seat in SEATS:
                if seat != self.me and possible[seat].bit_count() == self.sizes[seat]:
                    for other in SEATS:
                        if other != seat:
                            possible[other] &= ~possible[seat]
        self.possible = possible
        # The declarer is likelier than the others to hold the cards its trump wants.
        self.declarer = obs.declarer
        self.favoured = DECLARER_CARDS[obs.trump] if obs.declarer != self.me else 0
        # Per card: the weighted number of unseen cards held by the seats that may hold it.
        self.capacity = [
            sum(self.share(s, card) for s in SEATS if possible[s] >> card & 1) if self.remaining >> card & 1 else 0
            for card in range(36)
        ]
        self._any_cache: dict[tuple[int, int], float] = {}

    def share(self, seat: int, card: int) -> float:
        """The weight of ``seat`` in holding ``card``: its hand size, more for the declarer's cards."""
        if seat == self.declarer and self.favoured >> card & 1:
            return self.sizes[seat] * DECLARER_WEIGHT
        return self.sizes[seat]

    def holds_any_chance(self, seat: int, mask: int) -> float:
        """Estimate the probability that ``seat`` holds at least one card of ``mask``."""
        mask &= self.possible[seat]
        key = (seat, mask)
        chance = self._any_cache.get(key)
        if chance is None:
            miss = 1.0
            for card in iter_cards(mask):
                miss *= 1.0 - self.share(seat, card) / self.capacity[card]
            chance = self._any_cache[key] = 1.0 - miss
        return chance

    def beat_chance(self, seat: int, led: int, top: int) -> float:
        """Estimate the chance that ``seat``, still to play, beats ``top`` in a trick led with ``led``."""
        beaters = BEATERS[self.trump][led][top] & self.possible[seat]
        if not beaters:
            return 0.0
        trump_mask = self.trump_mask
        if not trump_mask or led == self.trump:
            return self.holds_any_chance(seat, beaters)
        # A seat that can follow suit may trump all the same, but often keeps its trumps.
        void = 1.0 - self.holds_any_chance(seat, SUIT_MASKS[led])
        ruff = self.holds_any_chance(seat, beaters & trump_mask) * (void + (1.0 - void) * RUFF_WILLINGNESS)
        if top // 9 == self.trump:
            return ruff
        higher = self.holds_any_chance(seat, beaters & SUIT_MASKS[led])
        return higher + (1.0 - higher) * ruff

    def is_bock(self, card: int) -> bool:
        """Whether no unseen card of the same suit beats ``card``."""
        return not HIGHER[self.trump][card] & self.remaining

    def opponents(self) -> tuple[int, int]:
        """The two seats of the other team."""
        return ((self.me + 1) % 4, (self.me + 3) % 4)

    def ruff_risk(self, suit: int) -> float:
        """Estimate the chance that an opponent trumps a lead of ``suit`` (suit trumps only)."""
        if not self.trump_mask or suit == self.trump:
            return 0.0
        risk = 0.0
        out_in_suit = (self.remaining & SUIT_MASKS[suit]).bit_count()
        for seat in self.opponents():
            if not self.possible[seat] & self.trump_mask:
                continue
            if not self.possible[seat] & SUIT_MASKS[suit]:
                risk = max(risk, self.holds_any_chance(seat, self.trump_mask))
            elif out_in_suit <= 2:
                # Few cards of the suit are out: the seat may well be void already.
                risk = max(risk, 0.3 * self.holds_any_chance(seat, self.trump_mask))
        return risk

    def lead_beaten_chance(self, card: int) -> float:
        """Estimate the chance that an opponent beats ``card`` if we led it now."""
        keep = 1.0
        for seat in self.opponents():
            keep *= 1.0 - self.beat_chance(seat, card // 9, card)
        return 1.0 - keep

    def future_win_chance(self, card: int) -> float:
        """Estimate the chance that ``card``, kept, wins a later trick on its own."""
        higher = (HIGHER[self.trump][card] & self.remaining).bit_count()
        if card // 9 == self.trump:
            return max(TRUMP_KEEP_FLOOR, 1.0 - TRUMP_KEEP_STEP * higher)
        if higher == 0:
            # A Bock is lost when an opponent ruffs it, later as likely as now.
            return 1.0 - max(self.ruff_risk(card // 9), self.lead_beaten_chance(card))
        length = (self.hand & SUIT_MASKS[card // 9]).bit_count()
        if higher == 1 and length >= 2:
            return GUARDED_SECOND_CHANCE
        if higher == 2 and length >= 3:
            return GUARDED_THIRD_CHANCE
        return 0.0

    def keep_value(self, card: int) -> float:
        """The points ``card`` is expected to win later if kept: the cost of playing it now."""
        chance = self.future_win_chance(card)
        if not chance:
            return 0.0
        others = EXPECTED_OTHER_CARDS + (TRUMP_KEEP_EXTRA if card // 9 == self.trump else 0)
        return chance * (CARD_POINTS[self.trump][card] + others)


def place_shown_weis(obs: Observation, possible: list[int]) -> None:
    """Give each seat the unplayed cards of its shown Weis (``possible``: per seat, the cards it may hold).

    At a table with Weis the scoring team's Weis are shown after the first trick: those cards are
    known to be in their holder's hand, and in nobody else's.
    """
    if obs.shown_weis is None:
        return
    for seat in SEATS:
        if seat == obs.viewer:
            continue
        known = obs.shown_cards(seat)
        if known:
            for other in SEATS:
                if other != seat:
                    possible[other] &= ~known
            possible[seat] |= known


def stoeck_bonus(obs: Observation) -> tuple[float, ...]:
    """Per trump, what Stöck in the hand add to its score (at a table with Weis and Stöck)."""
    if obs.shown_weis is None:
        return (0.0,) * len(TRUMPS)
    return tuple(
        float(STOECK_POINTS) if t in SUITS and obs.hand & stoeck_cards(t) == stoeck_cards(t) else 0.0 for t in TRUMPS
    )


def excluded_cards(obs: Observation) -> list[int]:
    """Return, per seat, the cards it cannot hold, judged from how it followed suit."""
    trump = obs.trump
    trump_mask = TRUMP_MASKS[trump]
    excluded = [0, 0, 0, 0]
    tricks: list[tuple[int, tuple[int, ...]]] = [(t.first, t.cards) for t in obs.tricks]
    if obs.trick:
        tricks.append((obs.leader, obs.trick))
    for first, cards in tricks:
        led = cards[0] // 9
        ranks = WIN_RANK[trump][led]
        top = cards[0]
        for index in range(1, len(cards)):
            card = cards[index]
            seat = (first - index) % 4
            suit = card // 9
            if suit != led:
                if not trump_mask:
                    excluded[seat] |= SUIT_MASKS[led]
                elif led == trump:
                    # Not following trump proves no trump except, perhaps, the protected Jack.
                    excluded[seat] |= SUIT_MASKS[led] & ~(1 << (trump * 9 + JACK))
                elif suit != trump:
                    excluded[seat] |= SUIT_MASKS[led]
                elif top // 9 == trump and ranks[card] < ranks[top]:
                    # Under-trumping is only allowed with nothing but trumps in hand.
                    excluded[seat] |= FULL_DECK & ~trump_mask
            if ranks[card] > ranks[top]:
                top = card
    return excluded


# -- card play -------------------------------------------------------------------


def _team_keeps_chance(know: _Knowledge, led: int, top: int, ours: bool, later: list[int]) -> float:
    """Estimate the chance that our team wins the trick with ``top`` winning it after our card."""
    chance = 1.0 if ours else 0.0
    raised = False  # an opponent may have raised the top card before partner plays
    for seat in later:
        beat = know.beat_chance(seat, led, top)
        if seat == know.partner:
            if raised:
                beat *= OVERTAKE_AFTER_RAISE
            chance += (1.0 - chance) * beat
        else:
            chance *= 1.0 - beat
            raised = raised or beat > 0
    return chance


def _follow(know: _Knowledge, obs: Observation, legal: int) -> int:
    """Pick the card with the best expected points when the trick is already started."""
    trump = know.trump
    points = CARD_POINTS[trump]
    led = obs.trick[0] // 9
    ranks = WIN_RANK[trump][led]
    top = obs.top
    top_seat = (obs.leader - obs.trick.index(top)) % 4
    we_win_now = top_seat == know.partner
    later = [(know.me - k) % 4 for k in range(1, 4 - len(obs.trick))]
    at_stake = sum(points[c] for c in obs.trick) + EXPECTED_LATER_CARD * len(later)
    if len(obs.tricks) == 8:
        at_stake += LAST_TRICK_BONUS
    if len(obs.tricks) >= 5 and len({t.winner % 2 for t in obs.tricks}) == 1:
        # One team has won every trick so far: this one may decide the 100-point match bonus.
        at_stake += MATCH_STAKE
    best_card, best_value = -1, float("-inf")
    for card in iter_cards(legal):
        if ranks[card] > ranks[top]:
            chance = _team_keeps_chance(know, led, card, True, later)
        else:
            chance = _team_keeps_chance(know, led, top, we_win_now, later)
        value = (2.0 * chance - 1.0) * (at_stake + points[card]) - know.keep_value(card)
        # Ties: discard from a long suit, and the lowest card of it.
        length = (know.hand & SUIT_MASKS[card // 9]).bit_count()
        value += 0.01 * length - 0.001 * WIN_RANK[trump][card // 9][card]
        if value > best_value:
            best_card, best_value = card, value
    return best_card


def _lead(know: _Knowledge, obs: Observation) -> int:
    """Pick the card to lead a trick."""
    trump = know.trump
    hand = know.hand
    points = CARD_POINTS[trump]
    trumps = hand & know.trump_mask
    side = hand & ~know.trump_mask
    opponents = know.opponents()
    opponent_trumps = (know.possible[opponents[0]] | know.possible[opponents[1]]) & know.trump_mask
    strength = WIN_RANK[trump]
    our_trump = obs.declarer in (know.me, know.partner)

    if trumps and (opponent_trumps or not side):
        best_trump = max(iter_cards(trumps), key=lambda c: strength[trump][c])
        # Draw trumps with the master trump: the opponents' trumps would ruff our Bocks.
        if know.is_bock(best_trump) and (our_trump or not side):
            return best_trump
        if opponent_trumps and (
            (obs.declarer == know.me and trumps.bit_count() >= LOW_TRUMP_LEAD_MIN)
            # Forehand pushed and leads the first trick: a trump helps the partner draw.
            or (obs.declarer == know.partner and not obs.tricks)
        ):
            return _cheapest_lead(know, trumps)

    # Cash a Bock (the highest card still out in its suit) unless an opponent may ruff it.
    best_card, best_value = -1, float("-inf")
    for card in iter_cards(side):
        if not know.is_bock(card):
            continue
        suit = card // 9
        out = (know.remaining & SUIT_MASKS[suit]).bit_count()
        risk = max(know.ruff_risk(suit), know.lead_beaten_chance(card))
        if not out and not opponent_trumps:
            risk = 0.0
        value = points[card] + 2 * min(out, 3) - BOCK_RISK_WEIGHT * risk
        if not out:
            value -= 5  # nobody must follow: keep it as a sure last trick rather than cash it now
        if value > best_value:
            best_card, best_value = card, value
    if best_card >= 0 and best_value > 0:
        return best_card

    # Lead low: the card with the best expected points, where partner may win or ruff and
    # away from the opponents' voids (the beat chances see both).
    return _cheapest_lead(know, hand)


def _cheapest_lead(know: _Knowledge, cards: int) -> int:
    """Pick the lead among ``cards`` with the best expected points for our team."""
    trump = know.trump
    points = CARD_POINTS[trump]
    strength = WIN_RANK[trump]
    has_trumps = know.hand & know.trump_mask
    later = [(know.me - k) % 4 for k in range(1, 4)]
    best_card, best_value = -1, float("-inf")
    for card in iter_cards(cards):
        suit = card // 9
        chance = _team_keeps_chance(know, suit, card, True, later)
        value = (2.0 * chance - 1.0) * (points[card] + LEAD_STAKE) - know.keep_value(card)
        if suit == trump:
            value -= TRUMP_LEAD_PENALTY  # trumps are worth more for ruffing than for leading
        elif has_trumps and (know.hand & SUIT_MASKS[suit]).bit_count() == 1:
            value += VOID_BONUS  # a void in this suit lets us ruff it later
        value -= 0.01 * strength[suit][card]
        if value > best_value:
            best_card, best_value = card, value
    return best_card


class RuleBot(Bot):
    name = "rules"

    # The rule bot never draws a random number, so ``rng`` may be None (bots/inference.py models players with it).
    def choose_trump(self, obs: Observation, rng: np.random.Generator | None) -> int:
        # Stöck are 20 points for the team with King and Queen of trump (the score is on a points scale).
        scores = [score + bonus for score, bonus in zip(trump_scores(obs.hand), stoeck_bonus(obs), strict=True)]
        best = max(TRUMPS, key=lambda t: scores[t])
        if obs.forehand == -1 and scores[best] < PUSH_THRESHOLD:
            return PUSH
        return best

    def choose_card(self, obs: Observation, rng: np.random.Generator | None) -> int:
        legal = obs.legal_mask()
        know = _Knowledge(obs)
        if not obs.trick:
            return _lead(know, obs)
        return _follow(know, obs, legal)
