"""Search speed: batched rollouts against jass-kit's random play, and the MCTS bots' decisions, in one run.

Rollouts: whole random rounds (deal, random trump, 36 random legal cards), as
in ``bench/engine.py``. jass-kit's ``GameSim`` + ``RuleSchieber`` and the
batched kernels of ``bots/rollout.py`` (one core, batches of ``--batch``
rounds) are measured alternately; the median of the repeats is reported.

MCTS: both levels decide the same positions, taken from rule-bot games
(trump decisions and card decisions, forced moves left out); reported are
seconds per decision and search iterations per second.

    .venv/bin/python bench/bots.py [--seconds 2] [--repeats 3] [--positions 12]

The last line is ``rollouts: <x>x jass-kit``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from jass.game.game_sim import GameSim
from jass.game.rule_schieber import RuleSchieber

from bench.engine import jasskit_round, rate
from bots.mcts import MCTSBot, MCTSStrongBot
from bots.rollout import random_playouts, random_rounds
from bots.rule_based import RuleBot
from games.engine import GameConfig, GameState, Observation


def rollout_rate(batch: int, seconds: float, seed: int) -> float:
    """Rounds per second of the batched kernels: deal ``batch`` rounds, then play them all out."""
    rounds, start, call = 0, time.perf_counter(), 0
    deadline = start + seconds
    while True:
        call += 1
        random_playouts(random_rounds(batch, seed + call), seed - call)
        rounds += batch
        now = time.perf_counter()
        if now >= deadline:
            return rounds / (now - start)


def decision_positions(count: int) -> list[Observation]:
    """Observations of the seat to move with a real choice, from rule-bot games: a few trump decisions, then cards."""
    positions: list[Observation] = []
    trumps = 0
    rule, rng = RuleBot(), np.random.default_rng(0)
    seed = 0
    while len(positions) < count:
        game = GameState.new(GameConfig(mode="fair", round_count=2, seed=seed))
        seed += 1
        step = 0
        while not game.over and len(positions) < count:
            obs = game.observation(game.player)
            if len(obs.legal_actions()) > 1 and (step % 5 == 0 or (obs.trump < 0 and trumps < count // 4)):
                trumps += obs.trump < 0
                positions.append(obs)
            game = game.apply(game.player, rule.act(obs, rng))
            step += 1
    return positions


def time_decisions(bot: MCTSBot, positions: list[Observation]) -> dict[str, tuple[float, float]]:
    """Per kind of decision (trump, card): mean seconds and iterations per second."""
    seconds: dict[str, list[float]] = {"trump": [], "card": []}
    iterations: dict[str, int] = {"trump": 0, "card": 0}
    for index, obs in enumerate(positions):
        kind = "trump" if obs.trump < 0 else "card"
        start = time.perf_counter()
        bot.act(obs, np.random.default_rng(index))
        seconds[kind].append(time.perf_counter() - start)
        iterations[kind] += bot.last_iterations
    return {
        kind: (statistics.mean(values), iterations[kind] / sum(values)) for kind, values in seconds.items() if values
    }


def time_rule_bot(positions: list[Observation], repeats: int = 20) -> dict[str, float]:
    """The rule bot's mean seconds per decision, per kind (it decides in well under a millisecond)."""
    bot, seconds = RuleBot(), {"trump": list[float](), "card": list[float]()}
    for index, obs in enumerate(positions):
        kind = "trump" if obs.trump < 0 else "card"
        start = time.perf_counter()
        for repeat in range(repeats):
            bot.act(obs, np.random.default_rng([index, repeat]))
        seconds[kind].append((time.perf_counter() - start) / repeats)
    return {kind: statistics.mean(values) for kind, values in seconds.items() if values}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="duration of one rollout measurement")
    parser.add_argument("--repeats", type=int, default=3, help="rollout measurements per engine (median reported)")
    parser.add_argument("--batch", type=int, default=1024, help="rounds per batched call")
    parser.add_argument("--positions", type=int, default=20, help="decisions timed per MCTS level")
    args = parser.parse_args()

    rollout_rate(16, 0.01, 1)  # compile (or load) the kernels before timing
    rule, sim = RuleSchieber(), GameSim(RuleSchieber())
    np_rng = np.random.default_rng(1)
    engines: dict[str, Callable[[], float]] = {
        "jass-kit 2.0.5 GameSim + RuleSchieber": lambda: rate(lambda: jasskit_round(sim, rule, np_rng), args.seconds),
        f"jassweb bots/rollout.py (batches of {args.batch})": lambda: rollout_rate(args.batch, args.seconds, 7),
    }
    results: dict[str, list[float]] = {name: [] for name in engines}
    for _ in range(args.repeats):
        for name, measure in engines.items():
            results[name].append(measure())
    medians = {name: statistics.median(values) for name, values in results.items()}
    reference = medians["jass-kit 2.0.5 GameSim + RuleSchieber"]
    print(
        f"Random-play rounds per second (deal, random trump, 36 random legal cards); "
        f"median of {args.repeats} x {args.seconds:g} s, one core, Python {sys.version.split()[0]}"
    )
    width = max(map(len, medians))
    for name, value in medians.items():
        print(f"  {name:<{width}}  {value:>10,.0f} rounds/s  ({value / reference:6.1f}x)")

    positions = decision_positions(args.positions)
    print(f"Decisions on {len(positions)} positions from rule-bot games (forced moves excluded)")
    for kind, seconds in time_rule_bot(positions).items():
        print(f"  rules: {kind:<5}  {seconds * 1000:6.3f} ms/decision")
    for bot in (MCTSBot(), MCTSStrongBot()):
        budget = (
            f"{bot.determinizations} deals x {bot.iterations} iterations per card, "
            f"{bot.trump_determinizations} deals x 6 trumps x {bot.trump_iterations} per trump choice"
        )
        print(f"  {bot.name}: {budget}")
        for kind, (mean_seconds, per_second) in time_decisions(bot, positions).items():
            print(
                f"    {kind:<5}  {mean_seconds:6.3f} s/decision  {1 / mean_seconds:7.1f} decisions/s"
                f"  {per_second:>10,.0f} iterations/s"
            )
    ours = medians[f"jassweb bots/rollout.py (batches of {args.batch})"]
    print(f"rollouts: {ours / reference:.0f}x jass-kit")


if __name__ == "__main__":
    main()
