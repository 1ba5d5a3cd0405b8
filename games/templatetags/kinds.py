"""``{{ kind|fault_words }}``: a remote bot's fault kind in words (games.catalogue.FAULT_WORDS);
``{{ seat|player_name }}`` and ``{{ key|bot_name }}``: built-in bots in the page's language (games.pages.names)."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext

from games.catalogue import FAULT_WORDS, FaultKind
from games.pages.names import abandon_words, local_bot_label, local_player_name

register = template.Library()


@register.filter
def fault_words(kind: str) -> str:
    """ "timeout" -> "No answer in time" (in the page's language); an unknown kind is shown as it comes."""
    return gettext(FAULT_WORDS[FaultKind(kind)]) if kind in FAULT_WORDS else kind


@register.filter
def player_name(seat: object) -> str:
    """Who played a seat, a built-in bot by its name in the page's language ("Bot Regelbasiert")."""
    return local_player_name(seat)


@register.filter
def bot_name(name: str) -> str:
    """A built-in bot's key ("rules") as the page names it; any other text as it is."""
    return local_bot_label(name)


@register.filter
def abandon_reason(reason: str) -> str:
    """Why a game was abandoned, in the page's language."""
    return abandon_words(reason)
