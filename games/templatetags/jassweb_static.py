"""``{% importmap %}``: hashed URLs for the ES modules' relative imports (see jassweb/staticfiles.py)."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from jassweb.staticfiles import importmap as _importmap

register = template.Library()


@register.simple_tag
def importmap() -> SafeString:
    return _importmap()
