"""``{{ kind|fault_words }}``: a remote bot's fault kind in words (games.catalogue.FAULT_WORDS)."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext

from games.catalogue import FAULT_WORDS, FaultKind

register = template.Library()


@register.filter
def fault_words(kind: str) -> str:
    """ "timeout" -> "No answer in time" (in the page's language); an unknown kind is shown as it comes."""
    return gettext(FAULT_WORDS[FaultKind(kind)]) if kind in FAULT_WORDS else kind
