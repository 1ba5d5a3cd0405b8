"""Built-in bots by name."""

from __future__ import annotations

from bots.base import Bot
from bots.mcts import MCTSBot, MCTSStrongBot
from bots.random import RandomBot
from bots.rules import RuleBot

BUILTIN_BOTS: dict[str, type[Bot]] = {cls.name: cls for cls in (RandomBot, RuleBot, MCTSBot, MCTSStrongBot)}


def get_bot(name: str) -> Bot:
    """Return a built-in bot by name; ``KeyError`` names the known ones."""
    try:
        return BUILTIN_BOTS[name]()
    except KeyError:
        raise KeyError(f"unknown bot {name!r}; built-in bots: {', '.join(sorted(BUILTIN_BOTS))}") from None


def bot_choices() -> list[dict[str, str]]:
    """The built-in bots as plain data for pages and views: name, label, description."""
    return [{"name": b.name, "label": b.label, "description": b.description} for b in BUILTIN_BOTS.values()]
