"""A table page that missed an event (a Redis outage lost it) shows the table as it is within one ping.

The page's heartbeat pings after two quiet seconds with the number of the last event it saw
(static/js/socket.js, ``pingFields``); the server sends the table afresh when it has had a later
one (issue 28). Here the change is written straight into the server's database, as a change
whose event was lost on its way would be: stored, never sent.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import WebSocket, expect

from tests.browser_helpers import become_guest, open_table
from tests.server_helpers import running_server

pytest_plugins = ["tests.browser_helpers"]


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("missed-event") / "db.sqlite3"


@pytest.fixture(scope="module")
def jass_server(database: Path) -> Iterator[str]:
    """The module's server, over a database this test also writes to."""
    with running_server({"JASSWEB_SQLITE_PATH": str(database), "JASSWEB_BOT_DELAY_MS": "50"}) as base:
        yield base


def test_a_page_that_missed_an_event_shows_the_table_as_it_is_within_one_ping(open_page, database):
    page = open_page()
    pings: list[dict] = []

    def watch(ws: WebSocket) -> None:
        def sent(payload: str | bytes) -> None:
            frame = json.loads(payload)
            if frame.get("type") == "ping":
                pings.append(frame)

        ws.on("framesent", sent)

    page.on("websocket", watch)
    become_guest(page, "Vreni")
    table_id = open_table(page, "Quiet table")
    expect(page.get_by_test_id("add-bot-0")).to_be_visible()

    with sqlite3.connect(database) as db:  # a bot seated North, whose event never reached the page
        db.execute("UPDATE games_seat SET bot = 'rules' WHERE table_id = ? AND position = 0", [table_id])
        db.execute("UPDATE games_table SET version = version + 1 WHERE id = ?", [table_id])

    expect(page.get_by_test_id("remove-bot-0")).to_be_visible()
    assert pings and all(type(p.get("version")) is int for p in pings), pings
