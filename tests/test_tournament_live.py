"""A tournament's page over its websocket: live updates on the Redis layer, and every bad frame refused."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from games.models import Player
from tests.ws_helpers import ORIGIN, session_cookie
from tournaments import service

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio, pytest.mark.usefixtures("redis_layer")]


async def connect(tournament_id: int, player: Player | None = None) -> WebsocketCommunicator:
    from jassweb.asgi import application

    headers = [ORIGIN] + ([await session_cookie(player)] if player else [])
    socket = WebsocketCommunicator(application, f"/ws/tournaments/{tournament_id}/", headers=headers)
    connected, _ = await socket.connect()
    assert connected
    return socket


def _cup() -> int:
    tournament = service.create(None, service.Options(name="Cup"))
    spec = service.bot_spec("rules")
    service.add_team(tournament.pk, None, "Erste", (spec, spec))
    return tournament.pk


async def test_the_page_hears_every_change_as_its_live_part_rendered_again(stop_runner):
    tournament_id = await sync_to_async(_cup)()
    socket = await connect(tournament_id)
    first = await socket.receive_json_from()
    assert first["type"] == "live" and first["status"] == "registration" and "Erste" in first["html"]
    spec = await sync_to_async(service.bot_spec)("random")
    evil = '<script>alert("x")</script>'
    await sync_to_async(service.add_team)(tournament_id, None, evil, (spec, spec))
    update = await socket.receive_json_from(timeout=10)
    assert update["version"] > first["version"]
    assert evil not in update["html"] and "&lt;script&gt;" in update["html"]  # escaped by the templates
    await sync_to_async(service.start)(tournament_id, None)
    started = await socket.receive_json_from(timeout=10)
    assert started["status"] == "running"
    await socket.disconnect()


async def test_every_bad_frame_gets_its_own_refusal_and_changes_nothing(stop_runner):
    tournament_id = await sync_to_async(_cup)()
    socket = await connect(tournament_id)
    await socket.receive_json_from()
    for frame, code in (
        ("not json", "bad_json"),
        ("[1, 2]", "bad_message"),
        (json.dumps({"type": "delete_everything"}), "unknown_type"),
        (json.dumps({"type": "test_bot", "url": "http://127.0.0.1:9/"}), "no_identity"),
    ):
        await socket.send_to(text_data=frame)
        reply = await socket.receive_json_from()
        assert (reply["type"], reply["code"]) == ("error", code), (frame, reply)
    await socket.send_to(bytes_data=b"\x00")
    assert (await socket.receive_json_from())["code"] == "bad_frame"
    await socket.send_json_to({"type": "ping", "id": 7})
    assert await socket.receive_json_from() == {"type": "pong", "id": 7}
    await socket.disconnect()


async def test_a_person_tests_a_bot_url_before_registering_it(stop_runner):
    tournament_id = await sync_to_async(_cup)()
    anna = await sync_to_async(Player.objects.create)(name="Anna")
    socket = await connect(tournament_id, anna)
    await socket.receive_json_from()
    await socket.send_json_to({"type": "test_bot", "id": "t1", "url": "ftp://nowhere"})
    reply = await socket.receive_json_from()
    assert (reply["type"], reply["code"], reply["id"]) == ("error", "bad_bot_url", "t1")
    await socket.send_json_to({"type": "test_bot", "id": "t2", "url": "http://127.0.0.1:9/", "dialect": "nope"})
    assert (await socket.receive_json_from())["code"] == "bad_message"
    await socket.disconnect()


async def test_an_unknown_tournament_is_refused():
    from jassweb.asgi import application

    socket = WebsocketCommunicator(application, "/ws/tournaments/424242/", headers=[ORIGIN])
    connected, code = await socket.connect()
    assert not connected and code == 4404
