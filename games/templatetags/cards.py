"""``{% trump %}``, ``{% card %}`` and ``{% suit_mark %}``: trumps and cards in the visitor's deck (games/decks.py)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString

from games import decks

register = template.Library()


def _deck(context: Any, deck: decks.Deck | str | None) -> decks.Deck:
    if isinstance(deck, decks.Deck):
        return deck
    return decks.deck_named(deck) if deck else context.get("deck") or decks.DECKS[decks.FRENCH]


@register.simple_tag(takes_context=True)
def trump(context: Any, trump: int | None, deck: decks.Deck | str | None = None) -> SafeString:
    """A trump (0..5, 10) with its symbol and name; anything else is shown as a dash."""
    return decks.trump_html(-1 if trump is None else int(trump), _deck(context, deck))


@register.simple_tag(takes_context=True)
def card(context: Any, code: str, extra_class: str = "", deck: decks.Deck | str | None = None) -> SafeString:
    return decks.card_html(code, _deck(context, deck), extra_class)


@register.simple_tag(takes_context=True)
def suit_mark(context: Any, suit: str, deck: decks.Deck | str | None = None) -> SafeString:
    return decks.suit_mark(suit, _deck(context, deck))
