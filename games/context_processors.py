"""Values every page's template needs: the visitor's deck (``<html data-deck>``, the header's deck switch)."""

from __future__ import annotations

from django.http import HttpRequest
from django.templatetags.static import static

from games.decks import DECKS, SPRITE
from games.identity import deck_for_request


def cards(request: HttpRequest) -> dict[str, object]:
    return {"deck": deck_for_request(request), "decks": list(DECKS.values()), "card_sprite": static(SPRITE)}
