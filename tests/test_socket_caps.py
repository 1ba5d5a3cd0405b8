"""How many websockets one person, or one address, may hold open on a server process.

Without a cap one client opened 1,000 sockets (issue 28, finding 9). Past ``JASSWEB_SOCKETS_PER_PERSON``
or ``JASSWEB_SOCKETS_PER_ADDRESS`` a new socket is closed with 4429; closing one gives its place back,
also when daphne gave up on a consumer still busy after its socket closed (its disconnect never ran).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from games.live import consumers
from games.live.consumers import TOO_MANY_SOCKETS, FrameConsumer
from games.live.protocol import Resync
from games.models import Player
from tests.table_helpers import make_table
from tests.ws_helpers import ORIGIN, Client, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


async def connect(path: str, player: Player | None = None) -> tuple[bool, int | str | None, WebsocketCommunicator]:
    from jassweb.asgi import application

    headers = [ORIGIN] + ([await session_cookie(player)] if player else [])
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, code = await communicator.connect(timeout=5)
    return connected, code, communicator


@pytest.mark.asyncio
async def test_a_person_holds_at_most_their_cap_of_sockets_and_a_closed_one_gives_its_place_back(settings, stop_runner):
    settings.JASSWEB_SOCKETS_PER_PERSON = 3
    nora = await sync_to_async(Player.objects.create)(name="Nora")
    emil = await sync_to_async(Player.objects.create)(name="Emil")
    table = await sync_to_async(make_table)(nora, [None, None, nora, None])
    tabs = [await Client.open(table.pk, nora) for _ in range(2)]
    lobby_ok, _, lobby = await connect("/ws/lobby/", nora)  # every kind of socket counts
    assert lobby_ok

    for path in (f"/ws/tables/{table.pk}/", "/ws/lobby/"):
        connected, code, _refused = await connect(path, nora)
        assert (connected, code) == (False, TOO_MANY_SOCKETS), path
    assert (await Client.open(table.pk, emil)).view["table"]["id"] == table.pk  # another person is not held up

    await tabs[0].close()
    await Client.open(table.pk, nora)  # its place, given back
    await lobby.disconnect()
    assert (await connect("/ws/lobby/", nora))[0]


@pytest.mark.asyncio
async def test_visitors_from_one_address_hold_at_most_its_cap(settings, stop_runner):
    settings.JASSWEB_SOCKETS_PER_ADDRESS = 2
    nora = await sync_to_async(Player.objects.create)(name="Nora")
    table = await sync_to_async(make_table)(nora, [None, None, nora, None])
    watchers = [await Client.open(table.pk) for _ in range(2)]  # spectators without a name: counted by address
    connected, code, _ = await connect(f"/ws/tables/{table.pk}/")
    assert (connected, code) == (False, TOO_MANY_SOCKETS)
    connected, code, _ = await connect(f"/ws/tables/{table.pk}/", nora)  # a person there, the same address
    assert (connected, code) == (False, TOO_MANY_SOCKETS)
    await watchers[1].close()
    assert (await Client.open(table.pk, nora)).view["you"] is not None
    settings.JASSWEB_LIMITS_ON = False  # JASSWEB_LIMITS=0, as a load test from one address runs
    assert (await Client.open(table.pk)).view["table"]["id"] == table.pk


class Stuck(FrameConsumer):
    """A socket whose request never ends (a backlog of frames, a slow database)."""

    stuck = asyncio.Event()
    cleaned = 0

    async def connect(self) -> None:
        self.address = "192.0.2.7"
        if await self.admit_socket(None, self.address):
            await self.accept()

    async def on_wait(self, message: Resync) -> None:
        Stuck.stuck.set()
        await asyncio.Event().wait()

    async def disconnect(self, code: int) -> None:
        Stuck.cleaned += 1

    HANDLERS = {Resync: on_wait}


def test_a_consumer_daphne_gives_up_on_is_cleaned_up_and_uncounted():
    async def scenario() -> None:
        incoming: asyncio.Queue = asyncio.Queue()
        for message in ({"type": "websocket.connect"}, {"type": "websocket.receive", "text": '{"type": "resync"}'}):
            incoming.put_nowait(message)

        async def send(message: Any) -> None:
            pass

        scope: Any = {"type": "websocket", "path": "/ws/x/", "headers": [], "url_route": {"kwargs": {}}}
        instance = asyncio.ensure_future(Stuck.as_asgi()(scope, incoming.get, send))
        await asyncio.wait_for(Stuck.stuck.wait(), 5)
        assert consumers._open_by[("address", "192.0.2.7")] == 1
        incoming.put_nowait({"type": "websocket.disconnect", "code": 1006})  # behind the request that never ends
        instance.cancel()  # what daphne does 10 s after the socket closed
        with pytest.raises(asyncio.CancelledError):
            await instance

    asyncio.run(scenario())
    assert Stuck.cleaned == 1 and ("address", "192.0.2.7") not in consumers._open_by
