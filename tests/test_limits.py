"""Limits on abuse: each says what it is when hit, and nothing is created past it.

The limits are counted in the real Redis cache here (as with several server
processes), each test under a fresh key prefix.
"""

from __future__ import annotations

import json
import uuid

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.test import Client as HttpClient

from bots.runner import runner
from games import limits, service
from games.models import Game, Player, Table
from tests.bot_servers.faulty import FaultyBots
from tests.services import require_redis
from tests.table_helpers import make_players
from tests.ws_helpers import Client, close_all_clients

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]  # the real Redis cache


@pytest.fixture(autouse=True)
def redis_cache(settings):
    """The shared cache of a multi-process deployment: Redis, under a key prefix of this test's own."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": require_redis(),
            "KEY_PREFIX": f"test-limits-{uuid.uuid4().hex[:12]}",
        }
    }
    settings.JASSWEB_LIMITS_ON = True
    # Passwords are checked for real, only with a cheap hash (the default costs a second a log-in here).
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return settings


def limit(settings, name: str, rate: str) -> None:
    settings.JASSWEB_LIMITS = {**settings.JASSWEB_LIMITS, name: rate}


def from_address(address: str) -> HttpClient:
    return HttpClient(REMOTE_ADDR=address)


def guest(nickname: str, address: str = "198.51.100.7") -> tuple[HttpClient, Player]:
    client = from_address(address)
    assert client.post("/guest/", {"nickname": nickname}).status_code == 302
    return client, Player.objects.get(name=nickname)


def shown_messages(client: HttpClient) -> str:
    return client.get("/").content.decode()


def test_guests_per_address(settings):
    limit(settings, "guest.address", "3/h")
    for n in range(3):
        guest(f"Guest {n}")
    late = from_address("198.51.100.7")
    late.post("/guest/", {"nickname": "One too many"})
    assert "Too many new guests: at most 3 an hour from one address. Try again in" in shown_messages(late)
    assert not Player.objects.filter(name="One too many").exists()
    guest("Elsewhere", address="203.0.113.9")  # another address is not affected
    # An IPv6 household counts as its /64 network.
    for n in range(3):
        guest(f"Six {n}", address=f"2001:db8:1:2::{n + 1}")
    refused = from_address("2001:db8:1:2:ffff::1")
    refused.post("/guest/", {"nickname": "Six more"})
    assert not Player.objects.filter(name="Six more").exists()


def test_renaming_a_guest_is_no_new_guest(settings):
    limit(settings, "guest.address", "1/h")
    client, player = guest("Vreni")
    for name in ("Vreni B", "Vreni C"):
        client.post("/guest/", {"nickname": name})
        player.refresh_from_db()
        assert player.name == name


def test_signups_per_address(settings):
    limit(settings, "signup.address", "2/h")
    password = "a-long-enough-pw-42"
    for n in range(2):
        response = from_address("198.51.100.7").post(
            "/accounts/signup/", {"username": f"user{n}", "password1": password, "password2": password}
        )
        assert response.status_code == 302
    response = from_address("198.51.100.7").post(
        "/accounts/signup/", {"username": "user9", "password1": password, "password2": password}
    )
    assert response.status_code == 429
    assert "Too many sign-ups: at most 2 an hour from one address." in response.content.decode()
    assert not User.objects.filter(username="user9").exists()


def test_login_attempts_per_account_and_per_address(settings):
    limit(settings, "login.account", "3/15m")
    limit(settings, "login.address", "5/15m")
    User.objects.create_user("vreni", password="the-right-one-42")
    for _ in range(3):
        wrong = from_address("198.51.100.7").post("/accounts/login/", {"username": "vreni", "password": "guess"})
        assert wrong.status_code == 200  # refused as a wrong password
    client = from_address("203.0.113.9")  # even from elsewhere, and with the right password
    response = client.post("/accounts/login/", {"username": "Vreni", "password": "the-right-one-42"})
    assert response.status_code == 429
    assert "Too many log-in attempts: at most 3 in 15 minutes for one account." in response.content.decode()
    assert "_auth_user_id" not in client.session
    # One address trying many names.
    User.objects.create_user("emil", password="the-right-one-42")
    for n in range(5):
        from_address("192.0.2.1").post("/accounts/login/", {"username": f"nobody{n}", "password": "x"})
    blocked = from_address("192.0.2.1")
    response = blocked.post("/accounts/login/", {"username": "emil", "password": "the-right-one-42"})
    assert response.status_code == 429 and "from one address" in response.content.decode()
    assert "_auth_user_id" not in blocked.session


def test_tables_per_person_and_per_address(settings):
    limit(settings, "table.person", "3/h")
    limit(settings, "table.address", "4/h")
    nora_client, nora = guest("Nora")
    for n in range(3):
        assert nora_client.post("/tables/new/", {"name": f"Table {n}"}).status_code == 302
    nora_client.post("/tables/new/", {"name": "Table 3"})
    assert "Too many new tables: at most 3 an hour per person." in shown_messages(nora_client)
    assert Table.objects.filter(created_by=nora).count() == 3
    emil_client, emil = guest("Emil")  # the same address: one more there, then no more
    assert emil_client.post("/tables/new/", {"name": "Emil's"}).status_code == 302
    emil_client.post("/tables/new/", {"name": "Emil's second"})
    assert "Too many new tables: at most 4 an hour from one address." in shown_messages(emil_client)
    assert Table.objects.filter(created_by=emil).count() == 1


def test_imports_per_person(settings):
    limit(settings, "import.person", "2/h")
    nora_client, _nora = guest("Nora")
    record = {"mode": "standard", "target": 1000, "rounds": []}
    for n in range(2):
        nora_client.post("/games/import/", {"text": json.dumps(record), "name": f"Try {n}"})  # refused: no rounds
    games = Game.objects.count()
    response = nora_client.post("/games/import/", {"text": json.dumps(record)})
    assert response.status_code == 429
    assert "Too many imports: at most 2 an hour per person." in response.content.decode()
    assert Game.objects.count() == games


@pytest.mark.asyncio
@pytest.mark.usefixtures("redis_layer")
async def test_websocket_messages_per_person_across_connections(settings, stop_runner):
    limit(settings, "message.person", "6/h")
    nora, emil = await sync_to_async(make_players)(("Nora", "Emil"))
    table = await sync_to_async(service.create_table)(nora, name="Chatty")
    first = await Client.open(table.pk, nora)
    for n in range(4):
        await first.send({"type": "ping", "id": n})
        assert (await first.frame_of("pong"))["id"] == n
    second = await Client.open(table.pk, nora)  # another tab: the same budget
    await second.send({"type": "ping", "id": 4})
    assert (await second.frame_of("pong"))["id"] == 4
    await first.send({"type": "ping", "id": 5})
    assert (await first.frame_of("pong"))["id"] == 5
    refused = await first.error({"type": "join", "seat": 0, "id": 6})
    assert refused == {
        "type": "error",
        "code": "rate_limited",
        "message": refused["message"],
    } and refused["message"].startswith("Too many messages: at most 6 an hour per person. Try again in")
    # Reconnecting starts no new budget, and nothing a refused message asked for happens.
    await first.close()
    await second.close()
    again = await Client.open(table.pk, nora)
    assert (await again.error({"type": "join", "seat": 0}))["code"] == "rate_limited"
    assert not await sync_to_async(table.seats.filter(player=nora).exists)()
    # Someone else's budget is their own.
    other = await Client.open(table.pk, emil)
    await other.send({"type": "join", "seat": 1})
    await other.state(lambda v: v["you"]["seat"] == 1)


@pytest.mark.asyncio
@pytest.mark.usefixtures("redis_layer")
async def test_bot_tests_and_invitations_per_person_and_for_the_server(settings):
    settings.JASS_ALLOW_PRIVATE_BOT_URLS = True
    limit(settings, "bot_call.person", "2/h")
    limit(settings, "bot_call.server", "3/h")
    nora, emil = await sync_to_async(make_players)(("Nora", "Emil"))
    nora_table = await sync_to_async(service.create_table)(nora, name="Nora's")
    emil_table = await sync_to_async(service.create_table)(emil, name="Emil's")
    try:
        with FaultyBots() as bots:
            nora_socket = await Client.open(nora_table.pk, nora)
            await nora_socket.send({"type": "test_bot", "url": bots.url("ok"), "dialect": "spec", "id": 1})
            assert (await nora_socket.frame_of("bot_test"))["ok"]
            await nora_socket.send({"type": "add_remote_bot", "seat": 1, "url": bots.url("ok"), "name": "First"})
            await nora_socket.state(lambda v: v["seats"][1]["kind"] == "remote")
            asked = sum(bots.requests.values())
            refused = await nora_socket.error({"type": "add_remote_bot", "seat": 3, "url": bots.url("ok")})
            assert refused["code"] == "rate_limited"
            assert "Too many bot tests and bot invitations: at most 2 an hour per person." in refused["message"]
            refused = await nora_socket.error({"type": "test_bot", "url": bots.url("ok"), "dialect": "spec"})
            assert refused["code"] == "rate_limited"

            emil_socket = await Client.open(emil_table.pk, emil)  # the server's third call: allowed
            await emil_socket.send({"type": "test_bot", "url": bots.url("ok"), "dialect": "spec", "id": 2})
            assert (await emil_socket.frame_of("bot_test"))["ok"]
            asked = sum(bots.requests.values())
            refused = await emil_socket.error({"type": "test_bot", "url": bots.url("ok"), "dialect": "spec"})
            assert "at most 3 an hour on this server" in refused["message"]
            assert sum(bots.requests.values()) == asked  # no request left this server past a limit
            seats = await sync_to_async(lambda: list(nora_table.seats.values_list("remote_url", flat=True)))()
            assert seats[3] == "" and seats[1]
    finally:
        await close_all_clients()
        await runner.stop()


def test_rates_read_like_the_settings_say():
    assert limits.Rate.parse("20/h") == limits.Rate(20, 3600)
    assert limits.Rate.parse("100/10s") == limits.Rate(100, 10)
    assert limits.Rate.parse("off") is None and limits.Rate.parse("0") is None
    with pytest.raises(ValueError, match="count/period"):
        limits.Rate.parse("lots")
    assert limits.address_key("2001:db8::1") == "2001:db8::/64"
    assert limits.address_key("::ffff:198.51.100.7") == "198.51.100.7"
