"""The Content-Security-Policy of every response: only this site's own scripts, styles and sockets.

Everything the pages run comes from ``/static/`` (ES modules) and the translation catalogue
(``/jsi18n/``); the one inline script is the import map (jassweb/staticfiles.py), which carries
the request's nonce. No inline style attributes either: cards place their pips by data
attributes, and scripts set styles through the CSSOM (static/js/dom.js), which a policy allows.
A page that breaks the policy is caught by every browser test (tests/browser_helpers.py fails a
test on any console report of a refused resource).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

HEADER = "Content-Security-Policy"


def policy(nonce: str) -> str:
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src 'self' 'nonce-{nonce}'",
            "style-src 'self'",
            "img-src 'self' data:",
            "connect-src 'self'",  # the same origin's ws:// and wss:// too (CSP 3)
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


class ContentSecurityPolicyMiddleware:
    """Give each request a fresh ``csp_nonce`` and each response the policy that admits it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        nonce = secrets.token_urlsafe(16)
        request.csp_nonce = nonce  # type: ignore[attr-defined]
        response = self.get_response(request)
        if settings.DEBUG and response.status_code in (404, 500):
            return response  # Django's technical pages for developers, with their inline styles and scripts
        if HEADER not in response:
            response[HEADER] = policy(nonce)
        return response


def request_nonce(request: HttpRequest | None) -> str:
    """The nonce of ``request`` (none outside a request, e.g. a template rendered for an e-mail)."""
    return getattr(request, "csp_nonce", "") if request is not None else ""
