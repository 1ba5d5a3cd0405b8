"""Analysis of one played round: every decision judged with open hands and from the player's own view.

Runs in a bot worker process (``bots.think.analysis_pool``) or at once for
``manage.py analyse``; it imports no Django and works on plain data (the deal,
the dealer and the round's action codes), so a round travels to a worker as a
few ints and comes back as JSON-ready dicts.

For every card played:

- *open hands*: ``bots.solver`` values every legal card with all four hands
  known (the points the mover's team ends the round with, perfect play on
  both sides), the card played and its loss. Positions are solved from the
  end of the round backwards, so each one finds the later positions already
  in the solver's table (both teams' positions, once no Match is left); a position that needs more than ``node_limit``
  search nodes (early in a trump round, sometimes) is left unsolved
  (``open: null``) rather than holding the whole analysis up.
- *the player's view*: the ``mcts-fast`` search (20 deals x 1,500 iterations) from that seat's observation
  only (deals of the unseen cards that agree with what the table showed),
  each legal card's expected points for the mover's team, the card that
  search prefers and the points lost by the card played. Marks (?!, ?, ??)
  come from this loss: a player is judged on what it could know.
- ``eval``: after every card, the expected final points of both teams by the
  view of the seat to move next (the final score after the last card).

For the trump decisions: the expected points of each trump (and of pushing,
when it was allowed) from the deciding seat's view (``MCTSBot.trump_values``).

At a table with Weis and Stöck the round is replayed with them (``weis``).
Announcing is not judged: a Weis or Stöck scores the same whatever card
follows it, so each card is judged from the position its player chose it in
(before the Stöck said with it) on the points the cards still decide; the
``eval`` adds each team's Weis (from the end of the first trick) and Stöck
(from their announcement) as the round scores them.

Expected points come from the search's mean result, a point difference from
the mover's team's view scaled to [0, 1] (``bots.mcts``): points = (157 + D) / 2,
so a Match counts as 207 rather than 257 there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from games.engine import PUSH, TRUMPS, Action, RoundState, iter_cards
from games.engine.rules import MATCH_BONUS, ROUND_POINTS

from .mcts import VALUE_SCALE, MCTSBot
from .solver import OutOfBudget, Solver

ANALYSIS_VERSION = 1
NODE_LIMIT = 400_000  # open-hand search nodes per position (about 0.2 s); see README "Analysis"
# Marks by points lost from the player's view (README "Analysis").
MARKS = ((20.0, "??"), (10.0, "?"), (5.0, "?!"))


class _ViewSearch(MCTSBot):
    """The ``mcts-fast`` search with a smaller budget: 432 decisions of a 12-round game must fit in minutes."""

    determinizations = 20
    iterations = 1500
    trump_determinizations = 12
    time_cap = 5.0


_solver: Solver | None = None
_bot = _ViewSearch()


def _solver_instance() -> Solver:
    global _solver
    if _solver is None:
        _solver = Solver()
    return _solver


def mark_for(loss: float) -> str:
    """The mark of a decision that lost ``loss`` points from the player's view ("" when fine)."""
    for threshold, mark in MARKS:
        if loss >= threshold:
            return mark
    return ""


def expected_points(mean_result: float) -> float:
    """A search's mean result (a point difference scaled to [0, 1]) as the team's expected round points."""
    difference = (mean_result - 0.5) * 2.0 * VALUE_SCALE
    return max(0.0, min(float(ROUND_POINTS + MATCH_BONUS), (ROUND_POINTS + difference) / 2.0))


def _view_of_cards(state: RoundState, rng: np.random.Generator) -> dict[int, float]:
    """Each legal card's expected points for the mover's team, by the search from the mover's observation."""
    obs = state.observation(state.player)
    legal = list(iter_cards(state.legal_mask()))
    if len(legal) == 1:
        visits, values = _bot.card_statistics(obs, rng)
        total = visits.sum()
        return {legal[0]: round(expected_points(values.sum() / total if total else 0.5), 1)}
    visits, values = _bot.card_statistics(obs, rng)
    return {card: round(expected_points(values[card] / visits[card] if visits[card] else 0.0), 1) for card in legal}


def _judged(values: dict[int, float], played: int) -> dict[str, Any]:
    best_value = max(values.values())
    best = max(values, key=lambda card: (values[card], card == played))
    loss = round(best_value - values[played], 1)
    return {"values": {str(c): v for c, v in values.items()}, "best": best, "loss": loss}


def _announced(state: RoundState) -> tuple[float, float]:
    """Each team's Weis and Stöck scored so far (none at a table without them)."""
    if not state.weis_on:
        return (0.0, 0.0)
    weis, stoeck = state.weis_points(), state.stoeck_points()
    return (float(weis[0] + stoeck[0]), float(weis[1] + stoeck[1]))


def _cards_only(state: RoundState) -> RoundState:
    """The position without its Weis and Stöck, for the open-hand solver (which counts card points only)."""
    return state._replace(declared=None, stoeck=-1) if state.weis_on else state


def analyse_round(
    hands: list[int],
    dealer: int,
    actions: list[int],
    seed: int,
    node_limit: int = NODE_LIMIT,
    weis: bool = False,
) -> dict[str, Any]:
    """Analyse one round from its deal, dealer and action codes (``Action.code``), as JSON-ready data.

    ``weis``: the round was played at a table with Weis and Stöck.
    """
    rng = np.random.default_rng([seed, 13])
    state = RoundState.deal(hands, dealer, weis)
    trump_decisions = []
    cards_states: list[tuple[RoundState, int]] = []
    chose_at: RoundState | None = None  # where the player to move chose its card, before announcing
    for code in actions:
        action = Action.from_code(code)
        if action.is_announcement:
            if chose_at is None:
                chose_at = state
        elif state.trump < 0:
            obs = state.observation(state.player)
            raw = _bot.trump_values(obs, rng)
            values = {key: round(expected_points(value), 1) for key, value in raw.items()}
            chosen = PUSH if action.is_push else action.value
            judged = _judged(values, chosen)
            judged["values"] = {str(k): v for k, v in values.items()}
            trump_decisions.append({"seat": state.player, "chosen": chosen, **judged, "mark": mark_for(judged["loss"])})
        else:
            cards_states.append((chose_at or state, action.value))
            chose_at = None
        state = state.apply(action, state.player)
    final = list(state.score()) if state.is_over else None

    # Open hands, from the last card back to the first (each solve leaves the later positions in the table).
    solver = _solver_instance()
    solver.table.clear()
    solver.node_limit = node_limit
    open_results: list[dict[str, Any] | None] = [None] * len(cards_states)
    for index in range(len(cards_states) - 1, -1, -1):
        position, played = cards_states[index]
        try:
            solution = solver.card_values(_cards_only(position))
        except OutOfBudget:
            continue
        judged = _judged({c: float(v) for c, v in solution.values.items()}, played)
        judged["values"] = {str(c): v for c, v in solution.values.items()}
        judged["loss"] = int(judged["loss"])
        open_results[index] = judged

    cards = []
    evaluation = []
    for index, (position, played) in enumerate(cards_states):
        view = _judged(_view_of_cards(position, rng), played)
        team = position.player % 2
        best_value = view["values"][str(view["best"])]
        announced = _announced(position)
        estimate = [0.0, 0.0]
        estimate[team] = round(best_value + announced[team], 1)
        estimate[1 - team] = round(max(0.0, ROUND_POINTS - best_value) + announced[1 - team], 1)
        evaluation.append(estimate)
        legal_count = bin(position.legal_mask()).count("1")
        cards.append(
            {
                "seat": position.player,
                "card": played,
                "choices": legal_count,
                "open": open_results[index],
                "view": view,
                "mark": mark_for(view["loss"]) if legal_count > 1 else "",
            }
        )
    if final is not None:
        evaluation.append([float(final[0]), float(final[1])])
    return {"version": ANALYSIS_VERSION, "trump": trump_decisions, "cards": cards, "eval": evaluation}


def warm_up() -> None:
    """Compile (or load) the solver's and the search's kernels in this process."""
    from .mcts import _compile

    _compile()
    solver = _solver_instance()
    rng = np.random.default_rng(0)
    hands = [0, 0, 0, 0]
    deck = rng.permutation(36)
    for index, card in enumerate(deck):
        hands[index // 9] |= 1 << int(card)
    state = RoundState.deal(hands, 0).apply(Action.trump(TRUMPS[0]))
    while state.cards_played < 28:
        state = state.play_unchecked(next(iter_cards(state.legal_mask())))
    solver.node_limit = None
    solver.card_values(state)
