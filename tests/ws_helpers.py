"""Websocket clients for tests: a session per person, every received frame recorded.

``Client`` talks to the ASGI app in-process (Channels' communicator);
``LiveClient`` talks to a real server over a real socket (the ``websockets``
library). Both share the waiting and recording logic of ``FrameRecorder``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import websockets
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore

from games.live.identity import GUEST_SESSION_KEY
from games.models import Player
from tests.server_helpers import TLS

ORIGIN = (b"origin", b"http://127.0.0.1:8000")
PASSING = frozenset({"state", "chat_history", "chat"})  # frames that may come between a request and its reply
_open_clients: list[FrameRecorder] = []


class FrameRecorder:
    """What every test client does: receive JSON frames, keep them, wait for states."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.frames: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.sent: list[str] = []
        _open_clients.append(self)

    async def _recv(self, timeout: float) -> str:
        raise NotImplementedError

    async def _send_text(self, text: str) -> None:
        raise NotImplementedError

    async def _quiet(self, seconds: float) -> bool:
        """True when nothing arrives for ``seconds`` (without losing what does arrive)."""
        raise NotImplementedError

    async def _close(self) -> None:
        raise NotImplementedError

    async def receive(self, timeout: float = 5) -> dict[str, Any]:
        text = await self._recv(timeout)
        self.raw.append(text)
        frame = json.loads(text)
        self.frames.append(frame)
        return frame

    async def send(self, message: dict[str, Any] | str) -> None:
        text = message if isinstance(message, str) else json.dumps(message)
        self.sent.append(text[:200])
        await self._send_text(text)

    async def error(self, message: dict[str, Any] | str, timeout: float = 5) -> dict[str, Any]:
        """Send ``message`` and return the error reply (state frames in between are kept)."""
        await self.send(message)
        while True:
            frame = await self.receive(timeout)
            if frame["type"] == "error":
                return frame
            assert frame["type"] in PASSING, frame

    async def frame_of(self, kind: str | tuple[str, ...], timeout: float = 5) -> dict[str, Any]:
        """Receive until a frame of type ``kind`` (or of one of the types ``kind`` names) comes (state frames in
        between, e.g. presence, are kept)."""
        kinds = (kind,) if isinstance(kind, str) else kind
        while True:
            frame = await self.receive(timeout)
            if frame["type"] in kinds:
                return frame
            assert frame["type"] in PASSING, frame

    async def state(self, predicate=lambda view: True, timeout: float = 10) -> dict[str, Any]:
        """Wait for a state frame whose view satisfies ``predicate``; return the view."""
        latest = next((f["view"] for f in reversed(self.frames) if f["type"] == "state"), None)
        if latest is not None and predicate(latest):
            return latest
        while True:
            try:
                frame = await self.receive(timeout)
            except TimeoutError:
                refused = [f.get("message") for f in self.frames if f["type"] == "error"][-3:]
                last = next((f["view"].get("game") for f in reversed(self.frames) if f["type"] == "state"), None)
                at = {k: last.get(k) for k in ("seq", "player", "phase", "status")} if last else None
                wanted = f"{self.label}: no state as awaited within {timeout} s"
                raise AssertionError(f"{wanted} (last game {at}, sent {self.sent[-2:]}, refusals {refused})") from None
            if frame["type"] == "state" and predicate(frame["view"]):
                return frame["view"]

    async def drain(self, quiet: float = 0.3) -> list[dict[str, Any]]:
        """Receive until nothing arrives for ``quiet`` seconds; return what came."""
        received = []
        while not await self._quiet(quiet):
            received.append(await self.receive())
        return received

    @property
    def view(self) -> dict[str, Any]:
        return next(f["view"] for f in reversed(self.frames) if f["type"] == "state")

    async def close(self) -> None:
        if self in _open_clients:
            _open_clients.remove(self)
            await self._close()


class Client(FrameRecorder):
    """One browser tab, in-process: the real ASGI app and the configured channel layer."""

    def __init__(self, communicator: WebsocketCommunicator, label: str) -> None:
        super().__init__(label)
        self.communicator = communicator

    @classmethod
    async def open(cls, table_id: int, player: Player | None = None, label: str = "") -> Client:
        from jassweb.asgi import application

        headers = [ORIGIN] + ([await session_cookie(player)] if player else [])
        communicator = WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)
        connected, code = await communicator.connect(timeout=5)
        assert connected, f"connection refused ({code})"
        client = cls(communicator, label or (player.name if player else "spectator"))
        assert (await client.receive())["type"] == "state"
        return client

    async def _recv(self, timeout: float) -> str:
        text = await self.communicator.receive_from(timeout=timeout)
        assert isinstance(text, str), f"a binary frame: {text!r:.60}"
        return text

    async def _send_text(self, text: str) -> None:
        await self.communicator.send_to(text_data=text)

    async def send_bytes(self, data: bytes) -> None:
        await self.communicator.send_to(bytes_data=data)

    async def _quiet(self, seconds: float) -> bool:
        # receive_nothing, not a receive timeout: asgiref cancels the application on a timeout.
        return await self.communicator.receive_nothing(timeout=seconds)

    async def _close(self) -> None:
        await self.communicator.disconnect(timeout=5)


class LiveClient(FrameRecorder):
    """One browser tab against a real server process."""

    def __init__(self, connection: websockets.ClientConnection, label: str) -> None:
        super().__init__(label)
        self.connection = connection

    @classmethod
    async def open(
        cls, base: str, table_id: int, cookies: dict[str, str] | None = None, label: str = "", open_timeout: float = 10
    ) -> LiveClient:
        """Open the table's socket and read its first state (``open_timeout``: for a handshake that may wait
        on the server's database)."""
        headers = {"Origin": base}
        if cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}/"
        # A server a test killed never answers the close: do not wait the default 10 s for it.
        connection = await websockets.connect(
            url, additional_headers=headers, open_timeout=open_timeout, close_timeout=1
        )
        client = cls(connection, label)
        assert (await client.receive())["type"] == "state"
        return client

    async def _recv(self, timeout: float) -> str:
        return await asyncio.wait_for(self.connection.recv(decode=True), timeout)

    async def _send_text(self, text: str) -> None:
        await self.connection.send(text)

    async def _quiet(self, seconds: float) -> bool:
        try:
            text = await asyncio.wait_for(self.connection.recv(decode=True), seconds)
        except TimeoutError:
            return True
        self.raw.append(text)
        self.frames.append(json.loads(text))
        return False

    async def _close(self) -> None:
        await self.connection.close()


def at(seq: int):
    """A ``state`` predicate: the game is at move ``seq``."""
    return lambda view: view["game"] is not None and view["game"]["seq"] == seq


def after(seq: int):
    """A ``state`` predicate: the game is past move ``seq``."""
    return lambda view: view["game"] is not None and view["game"]["seq"] > seq


async def session_cookie(player: Player) -> tuple[bytes, bytes]:
    """A session in which ``player`` is the guest, as a cookie header."""
    session = SessionStore()
    session[GUEST_SESSION_KEY] = player.pk
    await sync_to_async(session.save)()
    return (b"cookie", f"sessionid={session.session_key}".encode())


async def close_all_clients() -> None:
    """Disconnect every client a test opened (so no consumer is cancelled mid-read at teardown).

    The list is emptied first and every client is tried: a client that cannot close (its test failed
    and left it broken) fails this test's teardown, never the next test's.
    """
    clients = list(_open_clients)
    _open_clients.clear()
    failures = []
    for client in clients:
        try:
            await client._close()
        except Exception as exc:
            failures.append(exc)
    if failures:
        raise failures[0]


def guest_cookies(base: str, nickname: str) -> dict[str, str]:
    """Become a guest on a live server through its pages; return the session cookies."""
    with httpx.Client(verify=TLS, base_url=base, follow_redirects=False) as http:
        http.get("/")
        token = http.cookies.get("csrftoken")
        assert token, "the lobby sets a CSRF cookie"
        response = http.post("/guest/", data={"nickname": nickname, "csrfmiddlewaretoken": token})
        assert response.status_code == 302, response.text[:200]
        return dict(http.cookies)


def create_live_table(base: str, cookies: dict[str, str], **fields: str) -> int:
    """Open a table through the lobby form; return its id."""
    with httpx.Client(verify=TLS, base_url=base, cookies=cookies, follow_redirects=False) as http:
        data = {"name": "Live table", "mode": "standard", "target": "1000", "seat": "2", **fields}
        response = http.post("/tables/new/", data={**data, "csrfmiddlewaretoken": cookies["csrftoken"]})
        assert response.status_code == 302 and "/tables/" in response.headers["location"], response.text[:300]
        return int(response.headers["location"].rstrip("/").split("/")[-1])
