"""Values every page's template needs: the visitor's deck (``<html data-deck>``, the header's deck switch),
and the seat kinds to compare with (``{% if s.kind == SeatKind.EMPTY %}``)."""

from __future__ import annotations

from django.http import HttpRequest
from django.templatetags.static import static

from games.catalogue import SeatKind
from games.decks import DECKS, SPRITE
from games.live.identity import deck_for_request


def cards(request: HttpRequest) -> dict[str, object]:
    return {"deck": deck_for_request(request), "decks": list(DECKS.values()), "card_sprite": static(SPRITE)}


def kinds(request: HttpRequest) -> dict[str, object]:
    return {"SeatKind": SeatKind}
