"""Sockets that go away while the server is answering them: nothing in the log but the usual lines.

A client that sends requests and drops its connection before the replies arrive is ordinary (a phone
that loses its network, a tab closed mid-game) and cheap to do on purpose: each reply to a closed
socket used to log an ERROR with a traceback, so a few connections flooded the log.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket

import httpx
import pytest
import websockets
from autobahn.exception import Disconnected

from games.live.consumers import FrameConsumer
from games.live.protocol import Ping
from tests.hostile_helpers import production_server
from tests.server_helpers import HTTP, TLS, wait_for
from tests.ws_helpers import guest_cookies

SOCKETS = 100
HOLD = 2.0  # seconds a half-closed connection is held open: replies keep coming meanwhile
FRAMES = 60  # per socket: more than the server answers before the connection is gone
TOKEN = "closed-sockets-metrics"


def open_sockets(base: str) -> float:
    """The server's own count of open websockets (its /metrics), over every kind."""
    text = HTTP.get(base + "/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10).text
    return sum(float(value) for value in re.findall(r"^jassweb_open_sockets\{[^}]*\} (\S+)$", text, re.M))


CLOSE_FRAME = bytes([0x88, 0x82, 0, 0, 0, 0]) + (1000).to_bytes(2, "big")  # a client's close (mask 0)


async def hit_and_run(url: str, headers: dict[str, str], index: int) -> None:
    """Open a socket, ask for many replies without reading them, and go away while they are on their way."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a slow reader: the server's writes back up
    sock.connect(("127.0.0.1", int(url.split(":")[2].split("/")[0])))
    connection = await websockets.connect(url, sock=sock, additional_headers=headers, open_timeout=30)
    connection.transport.pause_reading()  # read nothing: the replies queue up in the server
    for n in range(FRAMES):
        await connection.send(json.dumps({"type": "ping", "id": n} if n % 3 else {"type": "resync"}))
    await connection.send('{"type": "play_card", "card": "XX"}')  # a refusal is a reply too
    if index % 3 == 0:
        connection.transport.abort()  # the network is gone: no close frame
    elif index % 3 == 1:
        await connection.close()  # a tab closed: the close frame races the replies
    else:  # a client that says goodbye and then stops reading: the server's close handshake hangs
        connection.transport.write(CLOSE_FRAME)
        await asyncio.sleep(HOLD)
        connection.transport.abort()


async def hit_and_run_all(base: str, table_id: int, cookies: dict[str, str]) -> None:
    headers = {"Origin": base, "Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}
    url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}/"
    await asyncio.gather(*(hit_and_run(url, headers, i) for i in range(SOCKETS)))


class Answering(FrameConsumer):
    """The frame handling every socket of the site shares (tables, lobby, tournaments)."""

    HANDLERS = {Ping: FrameConsumer.on_ping}


@pytest.mark.django_db  # the message budget's shared count lives in the cache, the database's in tests
def test_replies_to_a_socket_in_its_closing_handshake_are_dropped_without_an_error(caplog):
    # What daphne does with a send while the socket's closing handshake runs: it raises.
    sent: list[dict] = []

    async def closing_transport(message: dict) -> None:
        sent.append(message)
        if message["type"] != "websocket.accept":
            raise Disconnected("Attempt to send on a closed protocol")

    frames = ['{"type": "ping", "id": 1}', "not json", '{"type": "nope"}', '{"type": "ping", "id": 2}']
    incoming = asyncio.Queue()
    for message in [
        {"type": "websocket.connect"},
        *({"type": "websocket.receive", "text": text} for text in frames),
        {"type": "websocket.disconnect", "code": 1006},
    ]:
        incoming.put_nowait(message)
    scope = {"type": "websocket", "path": "/ws/x/", "headers": [], "url_route": {"kwargs": {}}}

    asyncio.run(Answering.as_asgi()(scope, incoming.get, closing_transport))

    assert [m["type"] for m in sent] == ["websocket.accept"] + ["websocket.send"] * 4  # each frame was answered
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


@pytest.mark.services  # a production-mode server on Redis
def test_a_hundred_sockets_that_close_while_replies_are_in_flight_log_no_traceback(tmp_path):
    limits = {"JASSWEB_LIMIT_MESSAGE_PERSON": "1000000/h", "JASSWEB_SOCKETS_PER_PERSON": "1000"}
    with production_server(tmp_path, JASSWEB_METRICS_TOKEN=TOKEN, **limits) as (base, log):
        cookies = guest_cookies(base, "Dropper")
        with httpx.Client(verify=TLS, base_url=base, cookies=cookies, follow_redirects=False) as http:
            data = {"name": "Drops", "mode": "standard", "target": "1000", "seat": "2"}
            created = http.post("/tables/new/", data={**data, "csrfmiddlewaretoken": cookies["csrftoken"]})
        table_id = int(created.headers["location"].rstrip("/").split("/")[-1])

        asyncio.run(hit_and_run_all(base, table_id, cookies))
        # Once the server counts no open socket, every request it read has been answered or dropped.
        wait_for(lambda: open_sockets(base) == 0, 60, "the server to see every socket closed")

        assert HTTP.get(base + "/", timeout=10).status_code == 200
        server_log = log()
        assert "Traceback" not in server_log, server_log[server_log.index("Traceback") - 500 :][:3000]
        assert not re.search(r"\bERROR\b", server_log), server_log[-3000:]
