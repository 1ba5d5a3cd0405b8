"""Pages compressed on their way out (GZip), except a page holding a secret that is the same on every response.

Static files come compressed already (WhiteNoise serves their gzip and brotli copies, before this
middleware sees the request). Compressing HTML that holds a secret beside text an attacker can put in
the page opens it to BREACH (guessing the secret from the compressed sizes of many responses). Here:

- the CSRF token in every page is masked afresh for each response (Django), so no two pages carry the
  same bytes of it;
- Django's GZipMiddleware adds up to 100 random bytes to every compressed response (Heal-the-BREACH),
  so that sizes alone tell little;
- the one secret that is the same on every response, a private table's invitation link on its
  creator's table page, is never compressed: a view marks such a response (``keep_uncompressed``);
- session ids travel in cookies, never in bodies.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware

UNCOMPRESSED = "jassweb_uncompressed"  # the attribute a view sets on a response that holds a fixed secret


class PageGZipMiddleware(GZipMiddleware):
    """Django's GZipMiddleware, skipping the responses a view marked as holding a fixed secret."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if getattr(response, UNCOMPRESSED, False):
            return response
        return super().process_response(request, response)
