"""Page weight: the table page's CSS and JS modules under hashed names, compressed, cached for good.

``collectstatic`` writes hashed, gzip- and brotli-compressed copies (``make run`` and ``make test``
run it); WhiteNoise serves them with ``Cache-Control: immutable``. The modules' relative imports
go through the page's import map to hashed names too: a real browser proves that the modules load.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from jassweb.staticfiles import HashedStaticStorage
from tests.server_helpers import ROOT, TLS, _server_env, migrate, running_server

pytest_plugins = ["tests.browser_helpers"]

HASHED = re.compile(r"^/static/.+\.[0-9a-f]{12}\.(js|css|svg)$")
A_YEAR = 365 * 24 * 3600


@pytest.fixture(scope="module")
def collected(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], int]:
    """A database with one table; the static files are those ``make test`` collected (``staticfiles/``, as for
    every browser test: a second collection into a folder of this module cost 12 s of CPU)."""
    folder = tmp_path_factory.mktemp("static")
    env = {"JASSWEB_SQLITE_PATH": str(folder / "db.sqlite3")}
    run: dict[str, Any] = {"cwd": ROOT, "env": _server_env(env), "check": True, "capture_output": True, "text": True}
    migrate(env)
    made = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "-c",
            "from games.live import service; print(service.create_table(None, name='Light').pk)",
        ],
        **run,
    )
    return env, int(made.stdout.split()[-1])


@pytest.fixture(scope="module", params=["debug", "production"])
def served(request, collected) -> Iterator[tuple[str, int]]:
    env, table = collected
    if request.param == "production":
        # Plain HTTP straight to daphne, as from the TLS proxy in front of it (deploy/nginx/jassweb.conf).
        env = {**env, "JASSWEB_DEBUG": "0", "DJANGO_SECRET_KEY": "static-files-test", "JASSWEB_SSL_REDIRECT": "0"}
    with running_server(env) as base:
        yield base, table


def asset_urls(html: str) -> list[str]:
    """The stylesheet, the module scripts and every module of the import map."""
    urls = re.findall(r'<link rel="stylesheet" href="([^"]+)"', html)
    urls += re.findall(r'<script type="module" src="([^"]+)"', html)
    imports = re.search(r'<script type="importmap" nonce="[\w-]+">(.*?)</script>', html)
    assert imports, "the page has an import map for the modules' relative imports"
    urls += json.loads(imports.group(1))["imports"].values()
    return sorted(set(urls))


@pytest.mark.services
def test_table_page_assets_are_hashed_compressed_and_cached_for_good(served):
    base, table = served
    http = httpx.Client(verify=TLS, base_url=base)  # one connection for all: the assets, not the handshakes, are tested
    html = http.get(f"/tables/{table}/").text
    urls = asset_urls(html)
    assert any(u.endswith(".css") for u in urls) and any("/table." in u for u in urls), urls
    plain = brotli = 0
    for url in urls:
        assert HASHED.match(url), url
        for encoding in ("br", "gzip"):
            response = http.get(url, headers={"Accept-Encoding": encoding})
            assert response.status_code == 200, url
            assert response.headers.get("content-encoding") == encoding, (url, response.headers)
            cache = response.headers["cache-control"]
            assert "immutable" in cache and int(re.search(r"max-age=(\d+)", cache).group(1)) >= A_YEAR, cache
            if encoding == "br":
                brotli += int(response.headers["content-length"])
        plain += len(http.get(url, headers={"Accept-Encoding": "identity"}).content)
    http.close()
    assert brotli < plain / 3, (brotli, plain)  # text compresses well: about a quarter on the wire


def test_a_browser_loads_every_module_under_its_hashed_name(served, browser):
    base, table = served
    context = browser.new_context(base_url=base)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    loaded: list[str] = []
    page.on("requestfinished", lambda request: loaded.append(request.url))
    page.goto(f"/tables/{table}/")
    expect(page.get_by_test_id("table-app")).to_have_attribute("data-socket", "open")
    assets = [u.removeprefix(base) for u in loaded if "/static/" in u]
    assert any("/static/js/dom." in u for u in assets), assets  # imported by another module, not by the page
    assert all(HASHED.match(u) for u in assets), assets
    assert not errors, errors
    context.close()


def test_an_edited_static_file_is_served_under_its_plain_name_in_debug(settings, tmp_path):
    source, root = tmp_path / "static", tmp_path / "root"
    (source / "js").mkdir(parents=True)
    root.mkdir()
    (source / "js" / "a.js").write_text("export const a = 1;\n")
    manifest = {"paths": {"js/a.js": "js/a.0123456789ab.js"}, "version": "1.1", "hash": "0"}
    (root / "staticfiles.json").write_text(json.dumps(manifest))
    os.utime(source / "js" / "a.js", (1, 1))  # collected after its last edit
    settings.STATICFILES_DIRS = [source]
    settings.DEBUG = True
    assert HashedStaticStorage(location=root, base_url="/static/").url("js/a.js") == "/static/js/a.0123456789ab.js"
    (source / "js" / "a.js").write_text("export const a = 2;\n")  # edited since
    assert HashedStaticStorage(location=root, base_url="/static/").url("js/a.js") == "/static/js/a.js"
    settings.DEBUG = False  # production serves what was collected
    assert HashedStaticStorage(location=root, base_url="/static/").url("js/a.js") == "/static/js/a.0123456789ab.js"


def test_every_stylesheet_closes_the_blocks_it_opens():
    """An unclosed ``@media {`` silently makes every later rule phone-only: each block must close."""
    for sheet in sorted((ROOT / "static").rglob("*.css")):
        text = re.sub(r"/\*.*?\*/", "", sheet.read_text(), flags=re.S)
        text = re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', '""', text)
        depth, line = 0, 1
        for char in text:
            line += char == "\n"
            depth += {"{": 1, "}": -1}.get(char, 0)
            assert depth >= 0, f"{sheet.name}: a '}}' closes nothing near line {line}"
        assert depth == 0, f"{sheet.name}: {depth} block(s) left open"


def test_every_module_parses():
    """A merge that drops one ``}`` breaks a whole page: every module must parse as an ES module (Node)."""
    modules = sorted((ROOT / "static" / "js").rglob("*.js"))
    assert modules
    for module in modules:
        checked = subprocess.run(
            ["node", "--input-type=module", "--check"],
            input=module.read_text(),
            capture_output=True,
            text=True,
            check=False,
        )
        assert checked.returncode == 0, f"{module.name}: {checked.stderr.strip().splitlines()[:4]}"
