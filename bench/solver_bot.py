"""The card choices of the ``solver`` bot, ``mcts-strong`` and ``rules`` judged with open hands, on the same positions.

Positions come from rounds of rule-bot play (random deals, the rule bot's trump
and cards); at every card decision with more than one legal card and fewer
than ``--below`` cards in the hands (and at least ``--at-least``), each bot chooses from the mover's
observation and the open-hand solver values every legal card on the true deal.
A card's loss is the best card's value minus its own (0 when it is one of the
best): what the choice cost against perfect play with every hand known. Perfect
play without seeing the hands can lose too, so this is no strength in points
per round (the arena measures that), but the three bots meet the same
positions and the same yardstick. Reported: mean loss and seconds per decision.

    .venv/bin/python bench/solver_bot.py [--rounds 8] [--seed 11] [--below 29] [--at-least 0]

The last line is ``open-hand loss per card: solver X, mcts-strong Y, rules Z``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from bots.base import Bot
from bots.mcts import MCTSStrongBot
from bots.rule_based import RuleBot
from bots.solver import Solver
from bots.solver_bot import SolverBot
from games.engine import RoundState
from games.engine.fair import random_deal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--below", type=int, default=29, help="judge decisions with fewer cards than this in the hands")
    parser.add_argument("--at-least", type=int, default=0, help="and with at least this many")
    args = parser.parse_args()
    SolverBot.warm_up()
    bots: dict[str, Bot] = {"solver": SolverBot(), "mcts-strong": MCTSStrongBot(), "rules": RuleBot()}
    truth = Solver(bits=20)
    losses: dict[str, list[int]] = {name: [] for name in bots}
    seconds: dict[str, list[float]] = {name: [] for name in bots}
    rng = random.Random(args.seed)
    rules = RuleBot()
    for index in range(args.rounds):
        state = RoundState.deal(random_deal(rng), rng.randrange(4))
        play_rng = np.random.default_rng(index)
        while not state.is_over:
            obs = state.observation(state.player)
            held = sum(obs.hand_sizes)
            if state.trump >= 0 and args.at_least <= held < args.below and len(state.legal_cards()) > 1:
                truth.table.clear()
                values = truth.card_values(state).values
                for name, bot in bots.items():
                    start = time.perf_counter()
                    card = bot.choose_card(obs, np.random.default_rng(len(losses[name])))
                    seconds[name].append(time.perf_counter() - start)
                    losses[name].append(max(values.values()) - values[card])
            state = state.apply(rules.act(obs, play_rng))
    count = len(losses["solver"])
    print(f"{count} decisions from {args.rounds} rule-bot rounds (seed {args.seed}, < {args.below} cards held)")
    print(f"{'bot':<12} {'loss/card':>9} {'s/decision':>10} {'p95 s':>7}")
    for name in bots:
        p95 = statistics.quantiles(seconds[name], n=20)[-1] if count > 1 else seconds[name][0]
        print(f"{name:<12} {statistics.mean(losses[name]):>9.2f} {statistics.mean(seconds[name]):>10.3f} {p95:>7.3f}")
    print(
        "open-hand loss per card: "
        + ", ".join(f"{name} {statistics.mean(values):.2f}" for name, values in losses.items())
    )


if __name__ == "__main__":
    main()
