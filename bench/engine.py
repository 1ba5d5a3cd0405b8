"""Random-play rate of our rules engine against jass-kit's, measured side by side in one run.

Each engine plays whole rounds: deal 36 cards, pick a random trump, then play
random legal cards until the round ends. Measurements alternate between the
engines so machine noise hits both; the median of the repeats is reported.

    .venv/bin/python bench/engine.py [--seconds 2] [--repeats 3]

The last line is ``speedup vs jass-kit: <x>x`` (our fast path vs jass-kit's GameSim).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from jass.game.game_sim import GameSim
from jass.game.game_util import deal_random_hand
from jass.game.rule_schieber import RuleSchieber

from games.engine import Action, RoundState
from games.engine.fair import random_deal


def random_bit(mask: int, rng: random.Random) -> int:
    """Pick a uniformly random card out of a mask."""
    for _ in range(int(rng.random() * mask.bit_count())):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


def jasskit_round(sim: GameSim, rule: RuleSchieber, rng: np.random.Generator) -> None:
    sim.init_from_cards(deal_random_hand(), dealer=int(rng.integers(4)))
    sim.action_trump(int(rng.integers(6)))
    while not sim.is_done():
        valid = rule.get_valid_cards_from_state(sim.state)
        sim.action_play_card(int(rng.choice(np.flatnonzero(valid))))


def fast_round(rng: random.Random) -> None:
    state = RoundState.deal(random_deal(rng), rng.randrange(4)).choose_trump_unchecked(rng.randrange(6))
    while state.player >= 0:
        state = state.play_unchecked(random_bit(state.legal_mask(), rng))


def checked_round(rng: random.Random) -> None:
    state = RoundState.deal(random_deal(rng), rng.randrange(4)).apply(Action.trump(rng.randrange(6)))
    while state.player >= 0:
        state = state.apply(Action.card(random_bit(state.legal_mask(), rng)), state.player)


def rate(play_round: Callable[[], None], seconds: float) -> float:
    """Rounds per second of ``play_round`` over about ``seconds``."""
    rounds, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(20):
            play_round()
        rounds += 20
        now = time.perf_counter()
        if now >= deadline:
            return rounds / (now - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="duration of one measurement")
    parser.add_argument("--repeats", type=int, default=3, help="measurements per engine (median reported)")
    args = parser.parse_args()

    rule, sim = RuleSchieber(), GameSim(RuleSchieber())
    np_rng, py_rng = np.random.default_rng(1), random.Random(1)
    engines: dict[str, Callable[[], None]] = {
        "jass-kit 2.0.5 GameSim + RuleSchieber": lambda: jasskit_round(sim, rule, np_rng),
        "jassweb RoundState, checked (apply)": lambda: checked_round(py_rng),
        "jassweb RoundState, fast path (play_unchecked)": lambda: fast_round(py_rng),
    }
    results: dict[str, list[float]] = {name: [] for name in engines}
    for _ in range(args.repeats):
        for name, play_round in engines.items():
            results[name].append(rate(play_round, args.seconds))

    print(
        f"Random-play rounds per second (deal, random trump, 36 random legal cards); "
        f"median of {args.repeats} x {args.seconds:g} s, one core, Python {sys.version.split()[0]}"
    )
    medians = {name: statistics.median(values) for name, values in results.items()}
    reference = medians["jass-kit 2.0.5 GameSim + RuleSchieber"]
    width = max(map(len, medians))
    for name, value in medians.items():
        print(f"  {name:<{width}}  {value:>8,.0f} rounds/s  ({value / reference:4.1f}x)")
    fast = medians["jassweb RoundState, fast path (play_unchecked)"]
    print(f"speedup vs jass-kit: {fast / reference:.1f}x")


if __name__ == "__main__":
    main()
