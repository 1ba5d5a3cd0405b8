"""Number formats of the statistics, leaderboard and profile pages, in the page's language (12.3 / 12,3)."""

from __future__ import annotations

from django import template
from django.utils.formats import get_format

register = template.Library()

NONE = "\u2013"  # an en dash where there is no number
MINUS = "\u2212"  # a real minus sign, as wide as the plus


def _local(number: str) -> str:
    """A number written by Python ("12.3") with the language's decimal separator ("12,3" in German)."""
    return number.replace(".", get_format("DECIMAL_SEPARATOR"))


@register.filter
def percent(value: float | None, digits: int = 0) -> str:
    """0.5234 -> "52%" (``digits`` decimals); a dash for no value."""
    if value is None:
        return NONE
    return _local(f"{100 * value:.{digits}f}") + "%"


@register.filter
def signed(value: float | None, digits: int = 1) -> str:
    """+12.3 or -4.0 (with a minus sign); a dash for no value."""
    if value is None:
        return NONE
    return _local(f"{value:+.{digits}f}").replace("-", MINUS)


@register.filter
def decimal(value: float | None, digits: int = 1) -> str:
    """12.3 (with a minus sign below zero); a dash for no value."""
    if value is None:
        return NONE
    return _local(f"{value:.{digits}f}").replace("-", MINUS)
