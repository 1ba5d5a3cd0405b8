"""The ``solver`` bot: deals of the unseen cards that agree with the play so far, each solved exactly.

At each card decision from the second trick on, the bot draws deals of the cards
it has not seen that agree with everything it observed (voids shown, Weis
declared, trump called or pushed) and weighs them by how the others played
(``bots.inference``, the sampler of ``mcts-strong``). Each deal is solved
open-handed by ``bots.solver``: every legal card gets its exact points for the
bot's team in that deal. The card played is the one with the best *mean* over
all the deals — one choice for the whole set of deals rather than the best
card of each deal counted as a vote, which would let the bot act as if it knew
the hidden cards (strategy fusion: in every single deal it "knows" where the
cards are, and a vote of such deals favours cards that are only good when you
know).

In the first trick an exact solve costs too much for a move of about a second
(a trump deal from its first card: about 1 s per deal, and the bot wants
dozens), so the first trick and the trump choice are ``mcts-strong``'s; in the
second trick a few deals need more than ``solve_nodes`` and are left out.
The budgets are counts (deals, and nodes per solve), so the same observation
and seed give the same move; ``time_cap`` and a live move's deadline only cut
the number of deals short.
"""

from __future__ import annotations

import threading
import time
from typing import ClassVar

import numpy as np

from bots.determinize import Sampler
from bots.inference import pick_deals
from bots.mcts import MCTSStrongBot
from bots.solver import OutOfBudget, Solver
from games.engine import Action, Observation, RoundState, iter_cards


class SolverBot(MCTSStrongBot):
    """Plays the card with the best mean exact value over deals consistent with the play (``mcts-strong`` early)."""

    name = "solver"

    solve_below: ClassVar[int] = 33  # solve when fewer cards than this are in the hands (from the second trick)
    deals: ClassVar[int] = 32  # deals solved per card decision
    deal_candidates: ClassVar[int] = 200  # deals sampled and weighed by how the others played
    solve_nodes: ClassVar[int] = 1_000_000  # a deal whose solve needs more is left out (about 0.1 s)
    table_bits: ClassVar[int] = 18  # 256K entries, 8 MB: a decision's deals fit, and clearing it is cheap
    time_cap = 1.0

    def __init__(self) -> None:
        super().__init__()
        self._local = threading.local()  # a solver per thread: its table and scratch are changed in place
        self.last_deals = 0  # deals solved in the last card decision (0: it was mcts-strong's)

    def _choose_card(self, obs: Observation, rng: np.random.Generator, deadline: float | None) -> int:
        legal = obs.legal_mask()
        if legal & (legal - 1) == 0:
            return legal.bit_length() - 1
        self.last_deals = 0
        if sum(obs.hand_sizes) >= self.solve_below:
            return super()._choose_card(obs, rng, deadline)
        means = self.card_means(obs, rng, deadline)
        if means is None:
            return super()._choose_card(obs, rng, deadline)
        return max(iter_cards(legal), key=lambda card: (means[card], -card))

    def card_means(
        self, obs: Observation, rng: np.random.Generator, deadline: float | None = None
    ) -> dict[int, float] | None:
        """Each legal card's mean exact points for the mover's team over the sampled deals; None if none was solved."""
        stop = self._deadline(deadline)
        solver = self._solver_for_decision()
        sampler = Sampler(obs)
        drawn = None
        if obs.tricks or obs.trick or obs.declarer != obs.viewer:
            # Reading the others' play may use up to 40% of the time.
            until = time.time() + 0.4 * max(0.0, stop - time.time())
            drawn = pick_deals(
                obs,
                lambda: sampler.sample(rng),
                self.deal_candidates,
                self.deals,
                self.inference_noise,
                rng,
                until,
                self.open_noise,
            )
        totals: dict[int, float] = {}
        solved = 0
        for index in range(self.deals):
            hands = drawn[index] if drawn else sampler.sample(rng)
            try:
                solution = solver.card_values(position(obs, hands))
            except OutOfBudget:
                continue
            for card, value in solution.values.items():
                totals[card] = totals.get(card, 0.0) + value
            solved += 1
            if time.time() > stop:
                break
        self.last_deals = solved
        if not solved:
            return None
        return {card: total / solved for card, total in totals.items()}

    def _solver_for_decision(self) -> Solver:
        """This thread's solver, reset: what one decision learned (table, move ordering) does not steer the
        next, so the same observation and seed give the same move (which deals stay within ``solve_nodes``
        depends on the ordering)."""
        solver: Solver | None = getattr(self._local, "solver", None)
        if solver is None:
            solver = self._local.solver = Solver(bits=self.table_bits, node_limit=self.solve_nodes)
        else:
            solver.reset()
        return solver

    @classmethod
    def warm_up(cls) -> None:
        """Compile (or load) the search and the solver's kernels now, e.g. when a worker process starts."""
        super().warm_up()
        # Any position runs every kernel of a solve (numba compiles or loads a kernel's whole call tree at its
        # first call); one with three tricks left costs milliseconds, where the first card of a deal cost
        # 0.45 s of CPU in every bot process that started.
        state = RoundState.deal([0x1FF << (9 * seat) for seat in range(4)], 0).apply(Action.trump(0))
        while state.cards_played < 24:
            state = state.play_unchecked(next(iter_cards(state.legal_mask())))
        Solver(bits=10).card_values(state)


def position(obs: Observation, hands: tuple[int, int, int, int]) -> RoundState:
    """The round at ``obs`` with ``hands`` for the four hands, without Weis and Stöck (the solver counts card
    points only, and no card decides them any more)."""
    return RoundState(
        dealer=obs.dealer,
        hands=hands,
        trump=obs.trump,
        forehand=obs.forehand,
        player=obs.player,
        leader=obs.leader,
        trick=obs.trick,
        top=obs.top,
        tricks=obs.tricks,
        points=obs.points,
    )
