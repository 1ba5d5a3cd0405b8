"""Malformed websocket frames and record uploads: one error each, never a traceback, never a dead socket.

In-process (Channels' communicator on the real Redis layer) for the replies; a real
daphne for what only the transport does (a message above the frame limit closes
the socket cleanly with 1009).
"""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets
from asgiref.sync import sync_to_async
from django.test import Client as HttpClient

from games.live.protocol import MAX_FRAME
from games.models import Game
from tests.server_helpers import running_server
from tests.table_helpers import make_players, make_table
from tests.ws_helpers import Client, LiveClient, close_all_clients, create_live_table, guest_cookies

pytestmark = [pytest.mark.django_db(transaction=True)]

NESTED = "[" * 1500 + "]" * 1500  # 3 KB: within the frame limit, beyond json's recursion limit


async def _nora_at_a_table() -> Client:
    nora = (await sync_to_async(make_players)(("Nora",)))[0]
    table = await sync_to_async(make_table)(nora, [nora])
    return await Client.open(table.pk, nora)


@pytest.mark.asyncio
@pytest.mark.usefixtures("redis_layer")
async def test_a_deeply_nested_frame_gets_one_bad_json_error_and_the_socket_stays_open(stop_runner, caplog):
    client = await _nora_at_a_table()
    for frame in (
        NESTED,
        '{"type": "ping", "x": ' + "[" * 2000 + "]" * 2000 + "}",
        '{"type": "ping", "id": ' + "[" * 900 + "]" * 900 + "}",  # json reads it; a reply could not write it
        '{"type": "join", "seat": [[[[[[[[[0]]]]]]]]]}',
    ):
        reply = await client.error(frame)
        assert reply == {"type": "error", "code": "bad_json", "message": reply["message"]}
        assert "nested too deeply" in reply["message"]
    assert await client.drain() == []  # one reply each, nothing more
    await client.send({"type": "ping", "id": 1})
    assert await client.frame_of("pong") == {"type": "pong", "id": 1}
    await client.send({"type": "ping", "id": [1, 2]})  # an id that is no string or integer is not echoed
    assert await client.frame_of("pong") == {"type": "pong", "id": None}
    assert "Traceback" not in caplog.text and not [r for r in caplog.records if r.levelname == "ERROR"]


@pytest.mark.asyncio
@pytest.mark.usefixtures("redis_layer")
async def test_an_error_carries_its_own_requests_id_or_none(stop_runner):
    client = await _nora_at_a_table()
    await client.send({"type": "ping", "id": "first"})
    assert (await client.frame_of("pong"))["id"] == "first"
    assert "id" not in await client.error({"type": "dance", "id": ["not", "an", "id"]})
    assert (await client.error({"type": "dance", "id": 17}))["id"] == 17
    # Frames that are no JSON object cannot name a request: their errors carry no id, not the last one.
    await client.send_bytes(b"\x00binary")
    assert "id" not in await client.frame_of("error")
    for frame in ("not json", NESTED, "x" * (MAX_FRAME + 1), '{"type": "ping", "id": "\\ud800"}', "[1, 2]"):
        reply = await client.error(frame)
        assert "id" not in reply, (frame[:20], reply)
    assert (await client.error({"type": "join", "seat": 9, "id": "mine"}))["id"] == "mine"


@pytest.mark.asyncio
@pytest.mark.usefixtures("redis_layer")
async def test_a_lone_surrogate_is_refused_before_it_reaches_the_database(stop_runner):
    client = await _nora_at_a_table()
    frame = '{"type": "add_bot", "seat": 1, "bot": "\\udc80"}'
    reply = await client.error(frame)
    assert reply["code"] == "bad_json"
    await client.send({"type": "ping"})
    assert (await client.frame_of("pong"))["type"] == "pong"


def test_a_nested_upload_is_a_400_that_stores_nothing():
    http = HttpClient()
    assert http.post("/guest/", {"nickname": "Nora"}).status_code == 302
    before = Game.objects.count()
    for text in ('{"rounds": ' + "[" * 5000 + "]" * 5000 + "}", '{"rounds": "\\ud800"}'):
        response = http.post("/games/import/", {"text": text})
        assert response.status_code == 400, response.content[:200]
        assert 'data-testid="import-error"' in response.content.decode()
    assert Game.objects.count() == before


@pytest.mark.services
def test_a_message_above_the_frame_limit_gets_a_clean_1009_close(tmp_path):
    """Under daphne the transport refuses it: a close handshake with 1009, not a dropped connection (1006)."""
    env = {"JASSWEB_SQLITE_PATH": str(tmp_path / "db.sqlite3"), "JASSWEB_BOT_DELAY_MS": "0"}
    with running_server(env) as base:
        cookies = guest_cookies(base, "Nora")
        table_id = create_live_table(base, cookies)

        async def send(payload: str) -> tuple[int | None, str | bytes | None]:
            headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}
            async with websockets.connect(
                base.replace("http", "ws") + f"/ws/tables/{table_id}/", origin=base, additional_headers=headers
            ) as socket:
                assert json.loads(await socket.recv())["type"] == "state"
                try:
                    await socket.send(payload)  # a large one may be cut off by the server's close
                    reply = await asyncio.wait_for(socket.recv(), 10)
                except websockets.ConnectionClosed as closed:
                    return closed.rcvd.code if closed.rcvd else None, None
                return None, reply

        for size in (MAX_FRAME + 1, 1_000_000, 10_000_000):
            code, reply = asyncio.run(send("x" * size))
            assert code == 1009, (size, code, reply)
        code, reply = asyncio.run(send('{"type": "ping", "id": 3, "pad": "' + "x" * (MAX_FRAME - 40) + '"}'))
        assert code is None and json.loads(reply) == {"type": "pong", "id": 3}  # at the limit: served
        code, reply = asyncio.run(send(NESTED))
        assert json.loads(reply)["code"] == "bad_json"
        # The limit is on what clients send: the server's own frames may be larger (a table's state).
        watched = create_live_table(base, cookies, seat="", turn_clock="0", name="Faulty bots")
        largest = asyncio.run(_largest_state(base, watched, cookies))
        assert largest > MAX_FRAME


async def _largest_state(base: str, table_id: int, cookies: dict[str, str]) -> int:
    """Play a game of HSLU bots that never answer (a fault per move) until a state frame is above the limit."""
    client = await LiveClient.open(base, table_id, cookies)
    try:
        for seat in range(3):
            await client.send({"type": "add_remote_bot", "seat": seat, "url": "http://127.0.0.1:9/", "name": "Mute"})
        await client.send({"type": "add_bot", "seat": 3, "bot": "random"})
        await client.state(lambda v: all(s["kind"] != "empty" for s in v["seats"]))
        await client.send({"type": "start"})
        while max(map(len, client.raw)) <= MAX_FRAME:
            await client.receive(timeout=20)
        return max(map(len, client.raw))
    finally:
        await close_all_clients()
