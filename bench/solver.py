"""The open-hand solver (bots/solver.py) against a plain alpha-beta, side by side in one run, on one core.

Whole deals from the first card: the solver finds the value of the deal for
the forehand's team (``Solver.value``, a fresh table per deal), for trump games
and for Obe-Abe / Une-Ufe, and the median time is reported. The plain
alpha-beta (minimax with alpha-beta pruning over the rollout kernels: no table,
no ordering, no null windows) cannot finish a whole deal in reasonable time,
so both are first timed on the same smaller positions (``--plain-cards`` cards
left) and the plain one's whole-deal time is extrapolated from its node rate
and the growth of its tree — the output says which figures are measured and
which are estimated.

    .venv/bin/python bench/solver.py [--deals 9] [--node-cap 200000000]
        [--plain-positions 6] [--plain-cards 16] [--seed 1]

Nodes searched are counted too: unlike the seconds they do not depend on the
load of the machine, so they compare two versions of the solver exactly. A
deal that needs more than ``--node-cap`` nodes is stopped and counts as
slower than every finished one (the medians stay true while fewer than half
are stopped; the output says when they are not). The last line is
``solver: trump deal median X s, obe/une median Y s``.
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
from numba import njit

from bots.rollout import PLAYER, encode_round, legal_mask, nth_card, play_card, score
from bots.solver import OutOfBudget, Solver
from games.engine import Action, RoundState, iter_cards
from games.engine.fair import random_deal


@njit(cache=True)
def _plain(row: np.ndarray, team: int, alpha: int, beta: int, nodes: np.ndarray) -> int:
    """Plain alpha-beta: ``team``'s final points, cards tried in id order, nothing remembered."""
    nodes[0] += 1
    if row[PLAYER] < 0:
        return score(row, team)
    maximizing = row[PLAYER] % 2 == team
    best = -1 if maximizing else 1 << 20
    mask = legal_mask(row)
    while mask:
        card = nth_card(mask, 0)
        mask &= mask - 1
        child = row.copy()
        play_card(child, card)
        value = _plain(child, team, alpha, beta, nodes)
        if maximizing:
            best = max(best, value)
            alpha = max(alpha, best)
        else:
            best = min(best, value)
            beta = min(beta, best)
        if alpha >= beta:
            break
    return best


def plain_value(state: RoundState) -> tuple[int, int]:
    """The mover's team's value by plain alpha-beta, and the nodes it visited."""
    nodes = np.zeros(1, dtype=np.int64)
    value = _plain(encode_round(state), state.player % 2, -1, 1 << 20, nodes)
    return int(value), int(nodes[0])


def deal(rng: random.Random, trump: int) -> RoundState:
    return RoundState.deal(random_deal(rng), rng.randrange(4)).apply(Action.trump(trump))


def late(rng: random.Random, trump: int, cards_left: int) -> RoundState:
    """A random deal played with random legal cards until ``cards_left`` cards are left (at a trick start)."""
    state = deal(rng, trump)
    while 36 - state.cards_played > cards_left:
        state = state.play(rng.choice(list(iter_cards(state.legal_mask()))))
    return state


def timed(function, *args):
    """The result and the CPU seconds of this process it took: one core's time, whatever else the shared
    machine runs (numba's kernels run in this thread)."""
    start = time.process_time()
    result = function(*args)
    return result, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=9, help="whole deals per kind (trump, Obe-Abe/Une-Ufe)")
    parser.add_argument("--node-cap", type=int, default=200_000_000, help="stop a deal past this many nodes")
    parser.add_argument("--plain-positions", type=int, default=6)
    parser.add_argument("--plain-cards", type=int, default=16, help="cards left in the side-by-side positions")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    solver = Solver()
    solver.value(late(rng, 0, 8))  # compile / load the kernels outside the timings
    plain_value(late(rng, 0, 4))

    print("times are CPU seconds of this one process (one core), not wall-clock time")
    print(f"side by side, {args.plain_positions} positions with {args.plain_cards} cards left (measured):")
    print(f"{'trump':>6} {'plain s':>9} {'plain nodes':>12} {'solver s':>9} {'solver nodes':>13}  value")
    plain_rates = []
    plain_growth = []
    for index in range(args.plain_positions):
        trump = index % 6
        state = late(rng, trump, args.plain_cards)
        (plain, plain_nodes), plain_time = timed(plain_value, state)
        solver.table.clear()
        ours, our_time = timed(solver.value, state)
        assert ours == plain, (state, ours, plain)
        plain_rates.append(plain_nodes / plain_time)
        # How the plain tree grows with one more trick: the same deal four cards earlier.
        print(f"{trump:>6} {plain_time:>9.3f} {plain_nodes:>12,} {our_time:>9.3f} {solver.nodes:>13,}  {ours}")
    for index in range(min(3, args.plain_positions)):
        rng_growth = random.Random(args.seed * 100 + index)
        small = late(rng_growth, index % 4, args.plain_cards - 4)
        rng_growth = random.Random(args.seed * 100 + index)
        big = late(rng_growth, index % 4, args.plain_cards)
        small_nodes = plain_value(small)[1]
        big_nodes = plain_value(big)[1]
        plain_growth.append(big_nodes / max(small_nodes, 1))
    growth = statistics.median(plain_growth)
    rate = statistics.median(plain_rates)
    tricks_more = (36 - args.plain_cards) // 4
    plain_deal_nodes = (
        statistics.median(plain_value(late(random.Random(args.seed + i), i % 4, args.plain_cards))[1] for i in range(3))
        * growth**tricks_more
    )
    print(
        f"plain alpha-beta, whole trump deal (ESTIMATED, not run): its tree grows ~{growth:.0f}x per trick"
        f" at {args.plain_cards - 4}->{args.plain_cards} cards, so ~{plain_deal_nodes:.2g} nodes"
        f" at {rate / 1e6:.1f} M nodes/s = ~{plain_deal_nodes / rate:.2g} s (a lower estimate: the first"
        f" tricks branch more)"
    )

    print(f"\nwhole deals from the first card, solver only ({args.deals} per kind, measured):")
    capped = Solver(node_limit=args.node_cap)
    times: dict[str, list[float]] = {"trump": [], "obe/une": []}
    nodes: dict[str, list[float]] = {"trump": [], "obe/une": []}
    for index in range(2 * args.deals):
        kind = "trump" if index % 2 == 0 else "obe/une"
        trump = rng.randrange(4) if kind == "trump" else 4 + (index // 2) % 2
        state = deal(rng, trump)
        capped.table.clear()
        try:
            value, seconds = timed(capped.value, state)
        except OutOfBudget:
            times[kind].append(float("inf"))
            nodes[kind].append(float("inf"))
            print(f"  trump {trump}: stopped after {args.node_cap:,} nodes")
            continue
        times[kind].append(seconds)
        nodes[kind].append(capped.nodes)
        print(f"  trump {trump}: value {value:>3} for the forehand's team, {seconds:7.2f} s, {capped.nodes:>12,} nodes")
    for kind in times:
        stopped = sum(1 for t in times[kind] if t == float("inf"))
        if 2 * stopped >= len(times[kind]):
            print(f"{kind}: {stopped} of {len(times[kind])} deals stopped, the median below is not measured")
        print(f"{kind}: median {statistics.median(nodes[kind]):,.0f} nodes")
    trump_median = statistics.median(times["trump"])
    obe_median = statistics.median(times["obe/une"])
    slowest = max(times["trump"])
    # Issue 25's targets (the ones before were 1 s and 0.2 s, both met on a quiet machine).
    print(
        f"targets: trump <= 0.08 s ({trump_median / 0.08:.1f}x of it), obe/une <= 0.01 s"
        f" ({obe_median / 0.01:.1f}x of it), slowest trump deal <= 1 s ({slowest:.2f} s)"
    )
    print(f"solver: trump deal median {trump_median:.2f} s, obe/une median {obe_median:.2f} s")


if __name__ == "__main__":
    main()
