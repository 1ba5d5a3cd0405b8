"""Who played, in the page's language: the built-in bots by their translated names.

The live views (games/live/snapshot.py) are built once for every watcher, so they carry
the English names (``bot_label``) and the bot's key; pages put them in the reader's
language here, and the front end does the same from the key (static/js/dom.js).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext, ngettext, pgettext_lazy

from games.catalogue import SeatKind, abandon_parts, builtin_bots
from games.live.snapshot import bot_label

# The built-in bots' labels in the page's language; bots/ keeps the English ones (logs and records use them).
BOT_LABELS = {
    "Random": pgettext_lazy("bot", "Random"),
    "Rule-based": pgettext_lazy("bot", "Rule-based"),
    "MCTS (fast)": pgettext_lazy("bot", "MCTS (fast)"),
    "MCTS (strong)": pgettext_lazy("bot", "MCTS (strong)"),
    "Solver": pgettext_lazy("bot", "Solver"),
}


def local_bot_label(name: str) -> str:
    """A built-in bot as a page names it: "Rule-based bot" / "Bot Regelbasiert"; any other name as it is."""
    bot = builtin_bots().get(name)
    if bot is None:
        return name
    return gettext("{label} bot").format(label=BOT_LABELS.get(bot.label, bot.label))


def local_player_name(seat: Any) -> str:
    """The name of who plays a seat (a model row or a view's dict), a built-in bot's in the page's language.

    Only a built-in bot's own English name ("Random bot") is translated; a name an
    imported record gave the seat is shown as the record wrote it.
    """
    fields: Mapping[str, Any] = seat if isinstance(seat, Mapping) else vars(seat)
    bot = str(fields.get("bot") or "")
    name = str(fields.get("name") or "")
    builtin = bool(bot) and fields.get("kind", SeatKind.BOT) == SeatKind.BOT and bot in builtin_bots()
    if builtin and (not name or name == bot_label(bot)):
        return local_bot_label(bot)
    return name


def abandon_words(reason: str) -> str:
    """Why a game was abandoned, in the page's language ("Anna asked and the other players agreed")."""
    parts = abandon_parts(reason)
    kind = parts["kind"]
    if kind == "player":
        return gettext("a player ended it")
    if kind == "vote":
        return gettext("{name} asked and the other players agreed").format(name=parts["name"])
    if kind == "away":
        seconds = float(str(parts["seconds"]))
        if seconds >= 60:
            minutes = round(seconds / 60)
            text = ngettext(
                "nobody was at the table for {count} minute", "nobody was at the table for {count} minutes", minutes
            )
            return text.format(count=minutes)
        return gettext("nobody was at the table for {count} seconds").format(count=f"{seconds:g}")
    return str(parts.get("text", ""))
