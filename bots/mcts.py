"""Determinized Monte Carlo tree search bots: ``mcts-fast`` and ``mcts-strong``.

At each decision the bot deals the cards it has not seen to the other seats
in many ways that agree with its observation (``bots.determinize``), searches
each such deal with UCT as a game of open cards, and sums the root statistics
over the deals: the card that the searches visited most is played. The search
runs in one numba-compiled kernel on the rollout rows of ``bots.rollout``
(random playouts from each new leaf), which is what makes thousands of
iterations per decision affordable.

A leaf is worth the round's point difference from the mover's team's view,
scaled to [0, 1] (match bonus included), so the bot plays for points, not for
tricks. The trump is chosen the same way: every trump is searched from the
first lead over deals of the other three hands, and pushing is worth what the
partner's likely choice (the rule bot's hand score, a cheap stand-in for the
partner's own search) makes in those deals. Open-card searches misjudge some
hands (everyone plays as if they saw all cards), so the rule bot's hand score
is added as a prior with ``trump_prior_weight``: in self-play against the rule
bot the search alone chose worse trumps than the hand score, the blend less so.

Budgets are counts (deals x iterations), so the same observation and seed give
the same move; a wall-clock cap only guards against a slow machine. The
kernels release the GIL, so a server thinking for a bot stays responsive.
"""

from __future__ import annotations

import time
from typing import ClassVar

import numpy as np
from numba import njit

from bots import inference
from bots.base import Bot, server_move, with_stoeck
from bots.determinize import Sampler
from bots.inference import pick_deals
from bots.rollout import (
    PLAYER,
    ROW_SIZE,
    encode_parts,
    finish_greedily,
    finish_randomly,
    legal_mask,
    play_card,
    random_below,
    random_rounds,
    score,
    seed_state,
)
from bots.rule_based import PUSH_THRESHOLD, RuleBot, trump_scores
from games.engine import (
    PUSH,
    STOECK_POINTS,
    TRUMPS,
    Action,
    Observation,
    hand_weis,
    iter_cards,
    next_seat,
    partner_of,
    stoeck_cards,
)
from games.engine.rules import MATCH_BONUS, ROUND_POINTS
from games.engine.weis import scoring_team, team_weis_points

VALUE_SCALE = ROUND_POINTS + MATCH_BONUS  # a point difference of +-257 maps to 1 and 0
DELIVERY_RESERVE_S = 0.1  # a live search stops this long before its deadline, for storing and sending the move


@njit(cache=True, nogil=True)
def uct_search(
    root: np.ndarray,
    iterations: int,
    exploration: float,
    randomness: float,
    rng: np.ndarray,
    visits: np.ndarray,
    values: np.ndarray,
) -> None:
    """Search one open-card round from ``root`` and add the root's per-card statistics to ``visits``/``values``.

    ``values[card]`` gets the summed results (in [0, 1], for the root player's
    team) of the iterations that began with ``card``. Unchecked fast path:
    ``root`` must be a consistent row with the trump declared and not over.
    """
    capacity = 1 + 9 * (iterations + 1)
    first_child = np.full(capacity, -1, dtype=np.int64)  # -1: not expanded yet
    child_count = np.zeros(capacity, dtype=np.int64)
    node_card = np.zeros(capacity, dtype=np.int64)
    node_team = np.zeros(capacity, dtype=np.int64)  # team of the player who played node_card
    node_visits = np.zeros(capacity, dtype=np.float64)
    node_value = np.zeros(capacity, dtype=np.float64)  # summed results for node_team
    path = np.zeros(40, dtype=np.int64)
    row = np.empty(ROW_SIZE, dtype=np.int64)
    nodes = 1
    root_team = root[PLAYER] % 2
    for _ in range(iterations):
        row[:] = root
        node = 0
        depth = 0
        path[0] = 0
        while row[PLAYER] >= 0:
            if first_child[node] < 0:
                mask = legal_mask(row)
                first_child[node] = nodes
                team = row[PLAYER] % 2
                for card in range(36):
                    if mask >> card & 1:
                        node_card[nodes] = card
                        node_team[nodes] = team
                        nodes += 1
                child_count[node] = nodes - first_child[node]
            start = first_child[node]
            count = child_count[node]
            unvisited = 0
            for k in range(count):
                if node_visits[start + k] == 0:
                    unvisited += 1
            if unvisited:
                # Try every move once, in random order, before trusting the averages.
                pick = random_below(rng, unvisited)
                chosen = start
                for k in range(count):
                    if node_visits[start + k] == 0:
                        if pick == 0:
                            chosen = start + k
                            break
                        pick -= 1
                play_card(row, node_card[chosen])
                depth += 1
                path[depth] = chosen
                break
            log_parent = np.log(node_visits[node])
            best = start
            best_score = -1.0
            for k in range(count):
                child = start + k
                n = node_visits[child]
                ucb = node_value[child] / n + exploration * np.sqrt(log_parent / n)
                if ucb > best_score:
                    best_score = ucb
                    best = child
            play_card(row, node_card[best])
            depth += 1
            path[depth] = best
            node = best
        if randomness >= 1.0:
            finish_randomly(row, rng)
        else:
            finish_greedily(row, rng, randomness)
        result = 0.5 + (score(row, 0) - score(row, 1)) / (2.0 * VALUE_SCALE)  # for team 0
        node_visits[0] += 1
        for level in range(1, depth + 1):
            node = path[level]
            node_visits[node] += 1
            node_value[node] += result if node_team[node] == 0 else 1.0 - result
    start = first_child[0]
    for k in range(child_count[0]):
        child = start + k
        card = node_card[child]
        visits[card] += node_visits[child]
        values[card] += node_value[child] if node_team[child] == root_team else node_visits[child] - node_value[child]


_compiled = False
_STAND_IN = RuleBot()


def _compile() -> None:
    """Compile (or load from numba's cache) the search kernels, so that no time budget pays for it."""
    global _compiled
    if not _compiled:
        visits, values = np.zeros(36), np.zeros(36)
        for randomness in (1.0, 0.5):
            uct_search(random_rounds(1, 0)[0], 2, 0.5, randomness, seed_state(0), visits, values)
        inference.warm_up()
        _compiled = True


def _best_child_value(visits: np.ndarray, values: np.ndarray) -> float:
    """The mean result of the most visited root move: the search's estimate of the position's value."""
    card = int(np.argmax(visits))
    return float(values[card] / visits[card])


class MCTSBot(Bot):
    """Determinized UCT with random playouts; subclasses set the budget."""

    name = "mcts-fast"

    determinizations: ClassVar[int] = 32  # deals searched per card decision
    iterations: ClassVar[int] = 3000  # UCT iterations per deal
    trump_determinizations: ClassVar[int] = 16  # deals searched per trump decision
    trump_iterations: ClassVar[int] = 500  # UCT iterations per deal and trump
    exploration: ClassVar[float] = 0.35
    playout_randomness: ClassVar[float] = 1.0  # 1: random playouts; below: rule-of-thumb playouts with this noise
    trump_prior_weight: ClassVar[float] = 1.0  # how much the rule bot's hand score counts beside the search
    time_cap: ClassVar[float] = 1.0  # seconds; a safety net only (budgets are counts)
    inference_candidates: ClassVar[int] = 0  # deals sampled and weighed by how the others played (0: none)
    inference_noise: ClassVar[float] = 0.25  # weight factor of a decision the model player would not have made
    open_noise: ClassVar[float] = 0.5  # weight factor of a card far below the best with open cards (1: unused)

    def __init__(self) -> None:
        self.last_iterations = 0  # iterations of the last decision, for benchmarks

    # -- card play -------------------------------------------------------------

    @classmethod
    def warm_up(cls) -> None:
        """Compile (or load) the search kernels now, e.g. when a worker process starts."""
        _compile()

    def act_by(self, obs: Observation, rng: np.random.Generator, deadline: float) -> Action:
        """Like ``act``, but stop searching at ``deadline`` (a ``time.time()`` value), whatever the budget.

        At least one deal is always searched, so a late call still answers
        with a searched move, just a shallower one.
        """
        legal = [action for action in obs.legal_actions() if not action.is_announcement]
        if len(legal) <= 1 or server_move(obs) is not None:
            return self.act(obs, rng)
        if not _compiled:
            # The kernels are still being compiled (seconds, the first time after an install): a live
            # move does not wait for the compiler, it is the rule bot's move this once.
            return _STAND_IN.act(obs, rng)
        if obs.trump < 0:
            return Action.trump(self._choose_trump(obs, rng, deadline))
        return with_stoeck(obs, Action.card(self._choose_card(obs, rng, deadline)))

    def _deadline(self, deadline: float | None) -> float:
        """The ``time.time()`` at which to stop: shortly before the caller's deadline (the move still has
        to be stored and sent), or the safety cap, whichever is first."""
        cap = time.time() + self.time_cap
        return cap if deadline is None else min(cap, deadline - DELIVERY_RESERVE_S)

    def choose_card(self, obs: Observation, rng: np.random.Generator) -> int:
        return self._choose_card(obs, rng, None)

    def _choose_card(self, obs: Observation, rng: np.random.Generator, deadline: float | None) -> int:
        legal = obs.legal_mask()
        if legal & (legal - 1) == 0:
            return legal.bit_length() - 1
        visits, values = self.card_statistics(obs, rng, deadline)
        cards = list(iter_cards(legal))
        # Most visited wins; the mean result breaks ties.
        return max(cards, key=lambda c: (visits[c], values[c] / visits[c] if visits[c] else 0.0))

    def card_statistics(
        self, obs: Observation, rng: np.random.Generator, deadline: float | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Search ``determinizations`` deals; return the summed root visits and results per card."""
        _compile()
        sampler = Sampler(obs)
        kernel_rng = seed_state(int(rng.integers(1 << 62)))
        visits = np.zeros(36, dtype=np.float64)
        values = np.zeros(36, dtype=np.float64)
        stop = self._deadline(deadline)
        self.last_iterations = 0
        deals = None
        if self.inference_candidates and (obs.tricks or obs.trick or obs.declarer != obs.viewer):
            # Reading the others' play may use up to 40% of a live move's time; without a deadline, all of it.
            until = None if deadline is None else time.time() + 0.4 * max(0.0, stop - time.time())
            deals = pick_deals(
                obs,
                lambda: sampler.sample(rng),
                self.inference_candidates,
                self.determinizations,
                self.inference_noise,
                rng,
                until,
                self.open_noise,
            )
        for index in range(self.determinizations):
            hands = deals[index] if deals else sampler.sample(rng)
            row = encode_parts(hands, obs.trump, obs.player, obs.leader, obs.trick, obs.top, obs.tricks, obs.points)
            uct_search(row, self.iterations, self.exploration, self.playout_randomness, kernel_rng, visits, values)
            self.last_iterations += self.iterations
            if time.time() > stop:
                break
        return visits, values

    # -- trump choice ----------------------------------------------------------

    def choose_trump(self, obs: Observation, rng: np.random.Generator) -> int:
        return self._choose_trump(obs, rng, None)

    def _choose_trump(self, obs: Observation, rng: np.random.Generator, deadline: float | None) -> int:
        values = self.trump_values(obs, rng, deadline)
        if self.trump_prior_weight:
            # The searches play open cards; the rule bot's hand score knows how hands fare in real play.
            scores = trump_scores(obs.hand)
            for trump in TRUMPS:
                values[trump] += self.trump_prior_weight * scores[trump] / (2.0 * VALUE_SCALE)
            if PUSH in values:
                values[PUSH] += self.trump_prior_weight * PUSH_THRESHOLD / (2.0 * VALUE_SCALE)
        best = max(TRUMPS, key=lambda t: values[t])
        if obs.forehand == -1 and values[PUSH] > values[best]:
            return PUSH
        return best

    def trump_values(
        self, obs: Observation, rng: np.random.Generator, deadline: float | None = None
    ) -> dict[int, float]:
        """Estimate, per trump (and for pushing, if allowed), our team's expected round result in [0, 1]."""
        _compile()
        sampler = Sampler(obs)
        kernel_rng = seed_state(int(rng.integers(1 << 62)))
        forehand = next_seat(obs.dealer)
        partner = partner_of(forehand)
        may_push = obs.forehand == -1
        totals = dict.fromkeys(TRUMPS, 0.0)
        push_total = 0.0
        deals = 0
        stop = self._deadline(deadline)
        self.last_iterations = 0
        for _ in range(self.trump_determinizations):
            hands = sampler.sample(rng)
            deal_values = {}
            for trump in TRUMPS:
                row = encode_parts(hands, trump, forehand, forehand, (), -1, (), (0, 0))
                visits = np.zeros(36, dtype=np.float64)
                values = np.zeros(36, dtype=np.float64)
                uct_search(
                    row, self.trump_iterations, self.exploration, self.playout_randomness, kernel_rng, visits, values
                )
                deal_values[trump] = _best_child_value(visits, values)
                if obs.shown_weis is not None:
                    # The searches play the cards; Weis and Stöck of this deal come on top.
                    extra = weis_and_stoeck(hands, trump, forehand)
                    team = forehand % 2
                    deal_values[trump] += (extra[team] - extra[1 - team]) / (2.0 * VALUE_SCALE)
                totals[trump] += deal_values[trump]
            self.last_iterations += self.trump_iterations * len(TRUMPS)
            if may_push:
                # The partner declares from its own hand: model its choice by the rule bot's hand score.
                scores = trump_scores(hands[partner])
                push_total += deal_values[max(TRUMPS, key=lambda t: scores[t])]
            deals += 1
            if time.time() > stop:
                break
        result: dict[int, float] = {trump: totals[trump] / deals for trump in TRUMPS}
        if may_push:
            result[PUSH] = push_total / deals
        return result


def weis_and_stoeck(hands: tuple[int, int, int, int], trump: int, forehand: int) -> tuple[int, int]:
    """What each team would score in Weis and Stöck with these hands and trump, everyone declaring all."""
    declared = [hand_weis(hand) for hand in hands]
    team = scoring_team(declared, trump, forehand)
    points = [0, 0]
    if team >= 0:
        points[team] += team_weis_points(declared, team)
    pair = stoeck_cards(trump)
    for seat, hand in enumerate(hands):
        if pair and hand & pair == pair:
            points[seat % 2] += STOECK_POINTS
    return (points[0], points[1])


class MCTSStrongBot(MCTSBot):
    """A deeper search over deals weighed by how the others played (``bots.inference``: the rule bot's
    choices and the open-card value of the cards they played)."""

    name = "mcts-strong"

    # Its extra time goes into more deals rather than deeper searches of each: a search of 2,500 iterations
    # already plays an open-card round well, and more deals average the hidden cards better.
    determinizations = 192
    iterations = 2500
    inference_candidates = 400  # and into reading the others' hands from their play
    trump_determinizations = 96
    trump_iterations = 1000
    time_cap = 5.0
