"""A websocket keeps no database connection of its own on the event loop (issue 27: memory per socket).

Django's connections are local to the async context on the event loop's thread: anything a consumer asks of
``django.db.connection`` there (its ``vendor``, say) makes a new database wrapper for that socket's task, kept
as long as the socket (1,296 wrappers for 514 sockets behind the front, ~4 KB each). The database work runs
on the database threads, whose connections are per thread; the event loop must make none.
"""

from __future__ import annotations

import asyncio
import random
import threading

import pytest
from asgiref.sync import sync_to_async
from django.db import connections

from tests.table_helpers import make_players, make_table
from tests.test_consumers import play_as
from tests.ws_helpers import Client

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio, pytest.mark.usefixtures("redis_layer")]


async def test_sockets_that_play_a_game_make_no_database_connection_on_the_event_loop(monkeypatch, stop_runner):
    nora, _, sara, _ = await sync_to_async(make_players)()
    table = await sync_to_async(make_table)(nora, [nora, "random", sara, "random"], mode="fair", round_count=2)
    loop_thread = threading.get_ident()
    made_on_loop: list[str] = []
    create = connections.create_connection

    def counted(alias: str):
        if threading.get_ident() == loop_thread:
            made_on_loop.append(alias)
        return create(alias)

    monkeypatch.setattr(connections, "create_connection", counted)
    north = await Client.open(table.pk, nora)
    south = await Client.open(table.pk, sara)
    watchers = [await Client.open(table.pk, None) for _ in range(3)]
    await north.send({"type": "start"})
    await north.state(lambda v: v["game"] is not None)
    await north.send({"type": "chat", "text": "Hoi zäme"})
    rng = random.Random(3)
    await asyncio.gather(play_as(north, 0, rng), play_as(south, 2, rng))
    for watcher in watchers:
        await watcher.state(lambda v: v["game"] and v["game"]["over"], 20)
        await watcher.close()

    assert made_on_loop == [], f"{len(made_on_loop)} database wrappers made on the event loop for 5 sockets"
