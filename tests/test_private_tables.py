"""Private tables stay private: the table page, its websocket, its seats and its games, for strangers and invitees."""

from __future__ import annotations

import json
import re

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client as HttpClient

from games import access
from games.live import service, snapshot
from games.models import Game, Player, Table
from tests.table_helpers import actor, make_table, start
from tests.ws_helpers import ORIGIN

pytestmark = pytest.mark.django_db(transaction=True)


def guest(nickname: str) -> tuple[HttpClient, Player]:
    client = HttpClient()
    assert client.post("/guest/", {"nickname": nickname}).status_code == 302
    return client, Player.objects.get(name=nickname)


def page_view(client: HttpClient, table_id: int) -> dict:
    page = client.get(f"/tables/{table_id}/").content.decode()
    found = re.search(r'<script id="initial-view" type="application/json">(.*?)</script>', page, re.S)
    assert found, page[:300]
    return json.loads(found.group(1))


async def open_socket(client: HttpClient, table_id: int) -> tuple[bool, int | str | None, WebsocketCommunicator]:
    """A websocket to the table in ``client``'s session: (accepted, close code, communicator)."""
    from jassweb.asgi import application

    cookie = f"sessionid={client.cookies['sessionid'].value}".encode() if "sessionid" in client.cookies else b""
    communicator = WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=[ORIGIN, (b"cookie", cookie)])
    connected, code = await communicator.connect(timeout=5)
    return connected, code, communicator


def private_table_of(owner: Player, **options) -> Table:
    return make_table(owner, [None, None, owner, None], private=True, **options)


def test_a_stranger_gets_404_for_a_private_tables_page_and_seats_and_no_list_shows_it():
    nora_client, nora = guest("Nora")
    table = private_table_of(nora, name="Nora's own table")
    emil_client, emil = guest("Emil")
    for client in (emil_client, HttpClient()):
        assert client.get(f"/tables/{table.pk}/").status_code == 404
        assert client.post(f"/tables/{table.pk}/seat/", {"action": "join", "seat": "0"}).status_code == 404
        assert client.get(f"/tables/{table.pk}/invite/wrong-token/").status_code == 404
        assert client.get(f"/tables/{table.pk}/invite/{table.invite_token[:-1]}/").status_code == 404
        assert "Nora&#x27;s own table" not in client.get("/").content.decode()
    assert not table.seats.filter(player=emil).exists()
    assert nora_client.get(f"/tables/{table.pk}/").status_code == 200


@pytest.mark.asyncio
@pytest.mark.usefixtures("redis_layer")
async def test_a_strangers_websocket_is_refused_and_join_is_impossible_without_the_link(stop_runner):
    _nora_client, nora = await sync_to_async(guest)("Nora")
    table = await sync_to_async(private_table_of)(nora)
    emil_client, emil = await sync_to_async(guest)("Emil")
    for client in (emil_client, HttpClient()):
        connected, code, _ = await open_socket(client, table.pk)
        assert not connected and code == 4404
    form = await sync_to_async(emil_client.post)(f"/tables/{table.pk}/seat/", {"action": "join", "seat": "0"})
    assert form.status_code == 404 and not await _seated(table, emil)  # nor through the seat form

    # With the invitation link, the same session enters, sees the table and sits down.
    response = await sync_to_async(emil_client.get)(f"/tables/{table.pk}/invite/{table.invite_token}/")
    assert response.status_code == 302 and response["Location"] == f"/tables/{table.pk}/"
    connected, _, socket = await open_socket(emil_client, table.pk)
    assert connected and (await socket.receive_json_from())["type"] == "state"
    await socket.send_json_to({"type": "join", "seat": 0})
    while not await _seated(table, emil):
        assert (await socket.receive_json_from(timeout=5))["type"] == "state"
    await socket.disconnect()


async def _seated(table: Table, player: Player) -> bool:
    return await sync_to_async(table.seats.filter(player=player).exists)()


def test_only_the_creator_sees_the_invitation_link_and_it_works_for_a_visitor_without_a_nickname():
    nora_client, nora = guest("Nora")
    table = private_table_of(nora)
    link = f"http://testserver/tables/{table.pk}/invite/#{table.invite_token}"
    assert link in nora_client.get(f"/tables/{table.pk}/").content.decode()
    visitor = HttpClient()
    assert accept(visitor, table.pk, table.invite_token).status_code == 302
    page = visitor.get(f"/tables/{table.pk}/")
    assert page.status_code == 200 and table.invite_token not in page.content.decode()
    assert visitor.post("/guest/", {"nickname": "Emil"}).status_code == 302  # the invitation stays in the session
    assert visitor.get(f"/tables/{table.pk}/").status_code == 200
    assert visitor.post(f"/tables/{table.pk}/seat/", {"action": "join", "seat": "0"}).status_code == 302
    emil = Player.objects.get(name="Emil")
    assert table.seats.get(position=0).player_id == emil.pk
    assert table.invite_token not in visitor.get(f"/tables/{table.pk}/").content.decode()  # seated, not creator
    # A public table has no invitation link: its id is its address.
    public = make_table(nora, [None, None, nora, None])
    assert "invite-link" not in nora_client.get(f"/tables/{public.pk}/").content.decode()
    assert nora_client.get(f"/tables/{public.pk}/invite/{public.invite_token}/").status_code == 404


def test_every_table_has_its_own_unguessable_token():
    nora = Player.objects.create(name="Nora")
    tokens = {make_table(nora, [], private=True).invite_token for _ in range(20)}
    assert len(tokens) == 20 and all(len(t) >= 22 for t in tokens)


def test_a_stranger_who_sits_down_after_a_game_does_not_see_that_game():
    nora_client, nora = guest("Nora")
    wim_client, wim = guest("Wim")
    table = make_table(nora, [wim, "random", nora, "random"], private=True)
    game = start(table, nora)
    service.abandon_game(table.pk, service.SYSTEM, "test: over")
    service.leave_seat(table.pk, wim)
    emil_client, emil = guest("Emil")
    assert emil_client.get(f"/tables/{table.pk}/invite/{table.invite_token}/").status_code == 302
    service.take_seat(table.pk, 0, emil)

    seen = page_view(emil_client, table.pk)
    assert seen["you"]["seat"] == 0 and seen["you"]["can_manage"]
    assert seen["game"] is None and seen["hidden_game"] == "abandoned"
    for url in (f"/games/{game.pk}/", f"/games/{game.pk}/replay", f"/games/{game.pk}/record.json"):
        assert emil_client.get(url).status_code == 404
    row = next(r for r in snapshot.lobby_tables(emil) if r["id"] == table.pk)  # listed for him: he sits there
    assert row["points"] is None
    # Those who played it, and the creator, still see it.
    assert page_view(wim_client, table.pk)["game"]["id"] == game.pk
    assert page_view(nora_client, table.pk)["game"]["id"] == game.pk
    assert wim_client.get(f"/games/{game.pk}/replay").status_code == 200


@pytest.mark.asyncio
@pytest.mark.usefixtures("redis_layer")
async def test_the_live_view_hides_the_previous_game_from_a_newcomer(stop_runner):
    _nora_client, nora = await sync_to_async(guest)("Nora")
    table = await sync_to_async(make_table)(nora, ["random", "random", nora, "random"], private=True)
    await sync_to_async(start)(table, nora)
    await sync_to_async(service.abandon_game)(table.pk, service.SYSTEM, "test: over")
    await sync_to_async(service.clear_seat)(table.pk, 0, actor(nora))
    emil_client, _emil = await sync_to_async(guest)("Emil")
    await sync_to_async(emil_client.get)(f"/tables/{table.pk}/invite/{table.invite_token}/")
    connected, _, socket = await open_socket(emil_client, table.pk)
    assert connected
    await socket.send_json_to({"type": "join", "seat": 0})
    frames = []
    while not frames or frames[-1]["view"]["you"]["seat"] != 0:
        frames.append(await socket.receive_json_from(timeout=5))
    assert all(f["view"]["game"] is None and f["view"]["hidden_game"] == "abandoned" for f in frames)
    await socket.disconnect()


def test_a_private_tables_invitation_is_kept_in_the_session_only():
    _nora_client, nora = guest("Nora")
    table = private_table_of(nora)
    emil_client, emil = guest("Emil")
    emil_client.get(f"/tables/{table.pk}/invite/{table.invite_token}/")
    assert access.invited_tables(emil_client.session) == [table.pk]
    assert access.may_enter(table, emil, emil_client.session)
    assert not access.may_enter(table, emil, HttpClient().session)  # another device, no link, no seat
    assert Game.objects.count() == 0


def accept(client: HttpClient, table_id: int, token: str):
    """What the invitation page does with a link's code (static/js/invitation.js): show the page, post the code."""
    landing = client.get(f"/tables/{table_id}/invite/")
    assert landing.status_code == 200 and 'name="token"' in landing.content.decode()
    return client.post(f"/tables/{table_id}/invite/", {"token": token})


def test_the_invitation_page_is_the_same_for_every_table_and_a_wrong_code_gets_a_404():
    _nora_client, nora = guest("Nora")
    table = private_table_of(nora)
    visitor = HttpClient()
    pages = [visitor.get(f"/tables/{table_id}/invite/") for table_id in (table.pk, table.pk + 1000)]
    assert [p.status_code for p in pages] == [200, 200]  # it says nothing of which tables exist
    assert table.invite_token not in pages[0].content.decode()
    assert visitor.post(f"/tables/{table.pk}/invite/", {"token": table.invite_token[:-1]}).status_code == 404
    assert visitor.post(f"/tables/{table.pk}/invite/", {}).status_code == 404
    assert visitor.post(f"/tables/{table.pk + 1000}/invite/", {"token": table.invite_token}).status_code == 404
    assert visitor.get(f"/tables/{table.pk}/").status_code == 404
    assert accept(visitor, table.pk, table.invite_token).status_code == 302
    assert visitor.get(f"/tables/{table.pk}/").status_code == 200


def test_the_creator_renews_the_invitation_and_the_old_link_leads_nowhere():
    nora_client, nora = guest("Nora")
    table = private_table_of(nora)
    old = table.invite_token
    early, _ = guest("Emil")
    assert accept(early, table.pk, old).status_code == 302

    # Only the creator may renew: others (even one who entered by the link) get a 404 and change nothing.
    assert early.post(f"/tables/{table.pk}/invite/renew/").status_code == 404
    assert HttpClient().post(f"/tables/{table.pk}/invite/renew/").status_code == 404
    assert nora_client.get(f"/tables/{table.pk}/invite/renew/").status_code == 405
    table.refresh_from_db()
    assert table.invite_token == old

    assert nora_client.post(f"/tables/{table.pk}/invite/renew/").status_code == 302
    table.refresh_from_db()
    assert table.invite_token != old and len(table.invite_token) >= 22
    page = nora_client.get(f"/tables/{table.pk}/").content.decode()
    assert f"/invite/#{table.invite_token}" in page and old not in page

    late = HttpClient()
    assert late.post(f"/tables/{table.pk}/invite/", {"token": old}).status_code == 404
    assert late.get(f"/tables/{table.pk}/invite/{old}/").status_code == 404  # the older form of link too
    assert late.get(f"/tables/{table.pk}/").status_code == 404
    assert accept(late, table.pk, table.invite_token).status_code == 302
    assert early.get(f"/tables/{table.pk}/").status_code == 200  # who came in before stays in


def test_a_public_table_has_nothing_to_renew():
    nora_client, nora = guest("Nora")
    public = make_table(nora, [None, None, nora, None])
    assert nora_client.post(f"/tables/{public.pk}/invite/renew/").status_code == 404
