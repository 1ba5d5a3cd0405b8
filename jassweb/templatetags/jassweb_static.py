"""``{% importmap %}``: hashed URLs for the ES modules' relative imports (see jassweb/staticfiles.py);
``{% javascript_catalog %}``: the script with their translations (jassweb/jsi18n.py)."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from jassweb.csp import request_nonce
from jassweb.jsi18n import catalogue_script
from jassweb.staticfiles import importmap as _importmap

register = template.Library()


@register.simple_tag(takes_context=True)
def importmap(context: template.Context) -> SafeString:
    return _importmap(request_nonce(context.get("request")))


@register.simple_tag
def javascript_catalog() -> SafeString:
    """The script defining ``window.django``, the front end's translations (jassweb/jsi18n.py)."""
    return catalogue_script()
