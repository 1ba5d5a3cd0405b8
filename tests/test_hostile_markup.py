"""Markup in every field a person can type, rendered in Chromium on every page: no script runs.

The nickname, the table name, a bot's name, the name of an imported record and the
player names inside it all carry markup that would run a script if a page put it
into HTML unescaped (``p()`` counts such runs). Every page showing them is opened
by the person who typed them and by a visitor; the text shows as text.
"""

from __future__ import annotations

import asyncio
import json
import random
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.server_helpers import TLS
from tests.test_consumers import play_as
from tests.ws_helpers import LiveClient, close_all_clients, create_live_table, guest_cookies

pytestmark = pytest.mark.services  # production-mode servers, Redis

pytest_plugins = ["tests.browser_helpers"]

NICKNAME = "<img src=x onerror=p()>"  # 23 of the 24 characters a nickname may have
TABLE_NAME = "\"'><script>p()</script><svg onload=p()>"
BOT_NAME = "<img src=x onerror=p()>\"'&amp;"
RECORD_NAME = "</title><script>p()</script>"
RECORD_PLAYER = "<iframe srcdoc='<script>parent.p()</script>'>"
COUNT_RUNS = "window.p = () => { window.__ran = (window.__ran || 0) + 1; };"


def test_no_field_a_person_types_runs_a_script_on_any_page(open_page, jass_server):
    cookies = guest_cookies(jass_server, NICKNAME)
    table_id = create_live_table(jass_server, cookies, name=TABLE_NAME, mode="fair", round_count="2", turn_clock="0")
    game_id = _run(_play_a_game(jass_server, table_id, cookies))
    imported_id = _import_with_markup(jass_server, cookies, game_id)
    _run(_start_another_game(jass_server, table_id, cookies))  # the table page shows a running game

    pages = [
        "/",
        f"/tables/{table_id}/",
        "/games/",
        "/games/mine/",
        f"/games/{game_id}/",
        f"/games/{game_id}/replay",
        f"/games/{imported_id}/",
        f"/games/{imported_id}/replay",
        "/games/import/",
        "/rules/",
        "/accounts/login/",
        "/accounts/signup/",
    ]
    shown = {NICKNAME: 0, TABLE_NAME: 0, BOT_NAME: 0, RECORD_NAME: 0, RECORD_PLAYER: 0}
    for who in ("typist", "visitor"):
        page = open_page()
        page.add_init_script(COUNT_RUNS)
        if who == "typist":
            page.context.add_cookies([{"name": k, "value": v, "url": jass_server} for k, v in cookies.items()])
        for path in pages:
            page.goto(path)
            _settle(page, path)
            text = page.locator("body").inner_text()
            for payload in shown:
                shown[payload] += payload in text
            assert page.evaluate("window.__ran") is None, f"a script ran on {path} for the {who}"
            assert not page.locator("body img[src=x], body svg[onload], body iframe[srcdoc]").count(), path
    assert all(shown.values()), shown  # every payload was on some page, as text


def _run(coroutine):
    """Run websocket clients beside Playwright's own event loop (in a thread of their own)."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


def _settle(page: Page, path: str) -> None:
    """Wait until a page has drawn what its script draws (the live table, the replay)."""
    if path.startswith("/tables/"):
        expect(page.get_by_test_id("table-app")).to_have_attribute("data-socket", "open")
        expect(page.locator("[data-testid=seat-top]")).not_to_be_empty()
    elif path.endswith("/replay"):
        expect(page.locator("[data-testid=replay]")).to_have_attribute("data-ready", "true")
    else:
        page.wait_for_load_state("networkidle")


async def _play_a_game(base: str, table_id: int, cookies: dict[str, str]) -> int:
    client = await LiveClient.open(base, table_id, cookies)
    try:
        await client.send({"type": "add_bot", "seat": 0, "bot": "random"})
        await client.send({"type": "add_bot", "seat": 3, "bot": "random"})
        # An HSLU bot nobody answers for: named with markup; its faults (random moves) show too.
        await client.send({"type": "add_remote_bot", "seat": 1, "url": "http://127.0.0.1:9/bot", "name": BOT_NAME})
        await client.state(lambda v: all(s["kind"] != "empty" for s in v["seats"]))
        await client.send({"type": "start"})
        await play_as(client, 2, random.Random(3))
        return (await client.state(lambda v: v["game"]["over"]))["game"]["id"]
    finally:
        await close_all_clients()


async def _start_another_game(base: str, table_id: int, cookies: dict[str, str]) -> None:
    client = await LiveClient.open(base, table_id, cookies)
    try:
        await client.send({"type": "start"})
        await client.state(lambda v: v["game"]["status"] == "running")
    finally:
        await close_all_clients()


def _import_with_markup(base: str, cookies: dict[str, str], game_id: int) -> int:
    with httpx.Client(verify=TLS, base_url=base, cookies=cookies, follow_redirects=False) as http:
        record = http.get(f"/games/{game_id}/record.json").json()
        for seat in record["seats"]:
            seat["name"] = RECORD_PLAYER if seat["position"] == 0 else seat["name"]
        response = http.post(
            "/games/import/",
            data={
                "text": json.dumps(record),
                "name": RECORD_NAME,
                "public": "on",
                "csrfmiddlewaretoken": cookies["csrftoken"],
            },
        )
        assert response.status_code == 302, response.text[:500]
        return int(response.headers["location"].split("/")[2])
