"""Built-in bots by name: what the pages show of each, and where its code is (imported when it first plays).

The table is read without importing any bot, so a process that only serves pages
never loads the search bots' compiled kernels (numba).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from bots.base import Bot
from games.catalogue import BuiltinBot, register_builtin_bot


@dataclass(frozen=True)
class Implementation:
    """A built-in bot: its catalogue entry, its class (``module:Class``) and a live move's time allowance."""

    info: BuiltinBot
    path: str
    move_budget_s: float | None = None  # a searching bot's wall-clock allowance per move (``act_by``)


IMPLEMENTATIONS: dict[str, Implementation] = {
    impl.info.name: impl
    for impl in (
        Implementation(
            BuiltinBot(
                "random", "Random", "Plays a random legal card; declares a random trump or pushes half the time."
            ),
            "bots.random:RandomBot",
        ),
        Implementation(
            BuiltinBot(
                "rules",
                "Rule-based",
                "Scores its hand to pick a trump; draws trumps, cashes Bocks, gives points to its partner.",
            ),
            "bots.rule_based:RuleBot",
        ),
        Implementation(
            BuiltinBot(
                "mcts-fast",
                "MCTS (fast)",
                "Searches many deals of the unseen cards (Monte Carlo tree search), about 0.1 s a move.",
            ),
            "bots.mcts:MCTSBot",
            move_budget_s=0.2,  # the count budget fits in it on this machine
        ),
        Implementation(
            BuiltinBot(
                "mcts-strong",
                "MCTS (strong)",
                "Searches many deals of the unseen cards (Monte Carlo tree search), about 1 s a move.",
            ),
            "bots.mcts:MCTSStrongBot",
            move_budget_s=1.2,
        ),
        Implementation(
            BuiltinBot(
                "solver",
                "Solver",
                "Solves deals of the unseen cards that fit the play so far exactly and plays the best card on"
                " average (from the second trick; before, as MCTS (strong)), about 1 s a move.",
            ),
            "bots.solver_bot:SolverBot",
            move_budget_s=1.2,
        ),
    )
}


def register() -> None:
    """Make every built-in bot known to the service and the pages (``games.catalogue``)."""
    for impl in IMPLEMENTATIONS.values():
        register_builtin_bot(impl.info)


def bot_class(name: str) -> type[Bot]:
    """The class of a built-in bot (importing its module); ``KeyError`` names the known ones."""
    try:
        module, _, attribute = IMPLEMENTATIONS[name].path.partition(":")
    except KeyError:
        raise KeyError(f"unknown bot {name!r}; built-in bots: {', '.join(sorted(IMPLEMENTATIONS))}") from None
    cls: type[Bot] = getattr(importlib.import_module(module), attribute)
    return cls


def get_bot(name: str) -> Bot:
    """Return a built-in bot by name; ``KeyError`` names the known ones."""
    return bot_class(name)()


def move_budget(name: str) -> float | None:
    """A built-in bot's wall-clock allowance for a live move, if it searches (None: it answers at once)."""
    impl = IMPLEMENTATIONS.get(name)
    return impl.move_budget_s if impl else None
