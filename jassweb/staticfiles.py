"""Static files with content-hashed names, compressed (gzip and brotli), served by WhiteNoise.

``collectstatic`` (run by ``make run`` and ``make test``) writes every file under a hashed name
(``js/table.3f9a0c1b2d4e.js``) with ``.gz`` and ``.br`` siblings; WhiteNoise serves those with
``Cache-Control: immutable`` for ten years and the compression the browser accepts.

The ES modules import each other by relative path (``import { h } from "./dom.js"``), and
Django's manifest storage rewrites ``url()`` in CSS but not JavaScript import specifiers. An
import map (``{% importmap %}`` in ``base.html``) maps every module's plain URL to its hashed
URL, so a module loads its imports under their hashed, immutable names too, and a page after a
deploy never mixes an old module with a new one.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles.storage import staticfiles_storage
from django.utils.safestring import SafeString, mark_safe
from whitenoise.storage import CompressedManifestStaticFilesStorage

log = logging.getLogger(__name__)


def _sources_newer_than(path: Path) -> bool:
    """Whether a file in STATICFILES_DIRS changed after ``path`` (the manifest) was written."""
    try:
        written = path.stat().st_mtime
    except FileNotFoundError:
        return False
    for folder in settings.STATICFILES_DIRS:
        for source in Path(folder).rglob("*"):
            if source.is_file() and source.stat().st_mtime > written:
                return True
    return False


class HashedStaticStorage(CompressedManifestStaticFilesStorage):
    """Hashed names wherever ``collectstatic`` wrote them, plain names otherwise.

    Plain names (served by WhiteNoise from the source folders, ``WHITENOISE_USE_FINDERS``) keep
    pages working before any ``collectstatic`` (tests, a bare ``daphne``), and in DEBUG after a
    static file was edited since the last ``collectstatic``: then the manifest is ignored so
    that the edit shows at once. Hashed names are used in DEBUG too, so ``make run`` serves what
    production serves.
    """

    manifest_strict = False

    def load_manifest(self) -> tuple[dict[str, str], str]:
        """The manifest's names and hash; none in DEBUG once a source is newer than the manifest."""
        if settings.DEBUG and _sources_newer_than(Path(self.path(self.manifest_name))):
            log.info("static files changed since the last collectstatic: plain names until it runs again")
            return {}, ""
        return super().load_manifest()

    def stored_name(self, name: str) -> str:
        hashed = self.hashed_files.get(self.hash_key(self.clean_name(name)))
        return name if hashed is None else hashed

    def url(self, name: str | None, force: bool = False) -> str:
        return super().url(name, force=True)


def importmap(nonce: str = "") -> SafeString:
    """A ``<script type="importmap">`` mapping each module's plain URL to its hashed URL (or nothing); with
    the request's Content-Security-Policy ``nonce`` (jassweb/csp.py), the one inline script it admits."""
    hashed = getattr(staticfiles_storage, "hashed_files", {})
    imports = {
        settings.STATIC_URL + name: staticfiles_storage.url(name)
        for name in sorted(hashed)
        if name.endswith(".js") and hashed[name] != name
    }
    if not imports:
        return mark_safe("")
    # JSON of our own file names, with "</" escaped so that it cannot close the script element.
    text = json.dumps({"imports": imports}, separators=(",", ":")).replace("</", "<\\/")
    nonced = f' nonce="{nonce}"' if nonce else ""  # token_urlsafe: letters, digits, - and _ only
    return mark_safe(f'<script type="importmap"{nonced}>{text}</script>')
