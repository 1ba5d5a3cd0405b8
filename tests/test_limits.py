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
from games.live import limits, service
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


def test_a_forged_forwarded_for_makes_no_extra_guests_behind_the_proxy(settings):
    """Behind one proxy the address is the header's last entry: what the visitor put before it is ignored."""
    settings.JASSWEB_PROXY_HOPS = 1
    limit(settings, "guest.address", "3/h")

    def through_proxy(forged: str, real: str = "198.51.100.7") -> HttpClient:
        # nginx appending ($proxy_add_x_forwarded_for), and daphne's --proxy-headers taking the first entry.
        return HttpClient(REMOTE_ADDR=forged, HTTP_X_FORWARDED_FOR=f"{forged}, {real}")

    for n in range(8):
        visitor = through_proxy(f"10.9.{n}.1")
        visitor.post("/guest/", {"nickname": f"Forged {n}"})
    assert Player.objects.filter(name__startswith="Forged").count() == 3
    assert "Too many new guests: at most 3 an hour from one address." in shown_messages(visitor)
    # The recipe's nginx replaces the header with the one address it saw: the same visitor.
    replaced = HttpClient(REMOTE_ADDR="198.51.100.7", HTTP_X_FORWARDED_FOR="198.51.100.7")
    replaced.post("/guest/", {"nickname": "Forged again"})
    assert not Player.objects.filter(name="Forged again").exists()
    through_proxy("198.51.100.7", real="203.0.113.9").post("/guest/", {"nickname": "Elsewhere"})
    assert Player.objects.filter(name="Elsewhere").exists()  # another visitor, even naming the first one


def test_the_visitor_address_is_read_from_the_right(settings):
    settings.JASSWEB_PROXY_HOPS = 0  # no proxy: the connection's address, whatever the header says
    assert limits.visitor_address("192.0.2.1", ["10.0.0.1"]) == "192.0.2.1"
    settings.JASSWEB_PROXY_HOPS = 1
    assert limits.visitor_address("10.0.0.1", ["10.0.0.1, 192.0.2.1"]) == "192.0.2.1"
    assert limits.visitor_address("10.0.0.1", ["10.0.0.1", "192.0.2.1"]) == "192.0.2.1"  # two headers
    assert limits.visitor_address("127.0.0.1", []) == "127.0.0.1"  # not through the proxy
    settings.JASSWEB_PROXY_HOPS = 2  # a load balancer, then nginx: the address the balancer saw
    assert limits.visitor_address("10.0.0.1", ["10.0.0.1, 192.0.2.1, 172.16.0.5"]) == "192.0.2.1"
    assert limits.visitor_address("x", ["192.0.2.1"]) == "192.0.2.1"  # past one proxy only: its entry
    # Websockets: the same reading of the handshake's headers.
    scope = {"client": ("10.0.0.1", 5000), "headers": [(b"x-forwarded-for", b"10.0.0.1,2001:db8:1:2::7")]}
    settings.JASSWEB_PROXY_HOPS = 1
    assert limits.scope_address(scope) == "2001:db8:1:2::/64"
    assert limits.scope_address({"client": None, "headers": []}) == "unknown"


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


def test_login_attempts_per_name_from_one_address_and_per_address(settings):
    limit(settings, "login.address_account", "3/15m")
    limit(settings, "login.address", "5/15m")
    User.objects.create_user("vreni", password="the-right-one-42")
    for _ in range(3):
        wrong = from_address("198.51.100.7").post("/accounts/login/", {"username": "vreni", "password": "guess"})
        assert wrong.status_code == 200  # refused as a wrong password
    hammering = from_address("198.51.100.7")  # past the limit, even the right password is not tried
    response = hammering.post("/accounts/login/", {"username": "Vreni", "password": "the-right-one-42"})
    assert response.status_code == 429
    assert (
        "Too many log-in attempts: at most 3 in 15 minutes for one account from one address."
        in response.content.decode()
    )
    assert "_auth_user_id" not in hammering.session
    # One address trying many names.
    User.objects.create_user("emil", password="the-right-one-42")
    for n in range(5):
        from_address("192.0.2.1").post("/accounts/login/", {"username": f"nobody{n}", "password": "x"})
    blocked = from_address("192.0.2.1")
    response = blocked.post("/accounts/login/", {"username": "emil", "password": "the-right-one-42"})
    assert response.status_code == 429 and "from one address" in response.content.decode()
    assert "_auth_user_id" not in blocked.session


def test_a_name_hammered_from_elsewhere_still_logs_in_from_its_own_address(settings):
    limit(settings, "login.address_account", "3/15m")
    User.objects.create_user("vreni", password="the-right-one-42")
    attacker = from_address("198.51.100.66")
    for _ in range(10):
        attacker.post("/accounts/login/", {"username": "vreni", "password": "guess"})
        attacker.post(f"/{settings.JASSWEB_ADMIN_PATH}login/", {"username": "VRENI ", "password": "guess"})
    assert attacker.post("/accounts/login/", {"username": "vreni", "password": "x"}).status_code == 429
    victim = from_address("203.0.113.9")
    response = victim.post("/accounts/login/", {"username": "vreni", "password": "the-right-one-42"})
    assert response.status_code == 302 and victim.session["_auth_user_id"] == str(User.objects.get().pk)
    # The victim's household (their IPv6 /64) is theirs too: the attacker's next network is not it.
    assert (
        from_address("2001:db8:5:6::1")
        .post("/accounts/login/", {"username": "vreni", "password": "the-right-one-42"})
        .status_code
        == 302
    )


def test_the_admin_login_refuses_past_its_limit(settings):
    limit(settings, "login.address", "4/15m")
    User.objects.create_user("chef", password="the-right-one-42", is_staff=True, is_superuser=True)
    admin_login = f"/{settings.JASSWEB_ADMIN_PATH}login/"
    guesser = from_address("198.51.100.7")
    for n in range(3):
        wrong = guesser.post(admin_login, {"username": "chef", "password": f"guess{n}"})
        assert wrong.status_code == 200 and "errornote" in wrong.content.decode()
    # The site's log-in and the admin's count together: no double the guesses by alternating.
    assert guesser.post("/accounts/login/", {"username": "chef", "password": "guess"}).status_code == 200
    response = guesser.post(admin_login, {"username": "chef", "password": "the-right-one-42"})
    assert response.status_code == 429
    assert "Too many log-in attempts: at most 4 in 15 minutes from one address." in response.content.decode()
    assert "_auth_user_id" not in guesser.session
    assert guesser.get(f"/{settings.JASSWEB_ADMIN_PATH}").status_code == 302  # still to the log-in page
    chef = from_address("203.0.113.9")  # the operator, from their own address
    response = chef.post(admin_login, {"username": "chef", "password": "the-right-one-42"})
    assert response.status_code == 302 and chef.get(f"/{settings.JASSWEB_ADMIN_PATH}").status_code == 200


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


async def open_from(table_id: int, player: Player, address: str) -> Client:
    """A table's socket through the proxy (``JASSWEB_PROXY_HOPS=1``) from ``address``."""
    from channels.testing import WebsocketCommunicator

    from jassweb.asgi import application
    from tests.ws_helpers import ORIGIN, session_cookie

    headers = [ORIGIN, await session_cookie(player), (b"x-forwarded-for", address.encode())]
    communicator = WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)
    connected, code = await communicator.connect(timeout=5)
    assert connected, f"connection refused ({code})"
    client = Client(communicator, player.name)
    assert (await client.receive())["type"] == "state"
    return client


@pytest.mark.asyncio
@pytest.mark.usefixtures("redis_layer")
async def test_refused_bot_urls_use_up_no_one_elses_bot_calls(settings):
    """Only calls that leave the server count, and one address gets its share of the server's, no more."""
    settings.JASSWEB_PROXY_HOPS = 1
    limit(settings, "bot_call.person", "50/h")
    limit(settings, "bot_call.address", "2/h")
    limit(settings, "bot_call.server", "3/h")
    mallory, mia, emil = await sync_to_async(make_players)(("Mallory", "Mia", "Emil"))
    mallory_table = await sync_to_async(service.create_table)(mallory, name="Mallory's")
    emil_table = await sync_to_async(service.create_table)(emil, name="Emil's")
    mia_table = await sync_to_async(service.create_table)(mia, name="Mia's")
    try:
        with FaultyBots() as bots:
            settings.JASS_ALLOW_PRIVATE_BOT_URLS = False
            settings.JASS_BOT_URL_ALLOWLIST = [bots.url("ok").split("/")[2]]  # only this bot server
            mallory_socket = await open_from(mallory_table.pk, mallory, "198.51.100.66")
            for n in range(20):  # over six times the server's calls, all to a refused address
                refused = await mallory_socket.error(
                    {"type": "test_bot", "url": "http://10.0.0.1/bot", "dialect": "spec", "id": n}
                )
                assert refused["code"] == "bot_url_refused", refused
            await mallory_socket.send({"type": "join", "seat": 0})
            await mallory_socket.state(lambda v: v["you"]["seat"] == 0)
            for _ in range(4):  # and invitations to a taken seat: no bot is ever called
                refused = await mallory_socket.error({"type": "add_remote_bot", "seat": 0, "url": bots.url("ok")})
                assert refused["code"] == "seat_taken", refused
            assert sum(bots.requests.values()) == 0

            emil_socket = await open_from(emil_table.pk, emil, "203.0.113.9")
            await emil_socket.send({"type": "add_remote_bot", "seat": 1, "url": bots.url("ok"), "name": "First"})
            await emil_socket.state(lambda v: v["seats"][1]["kind"] == "remote")  # the server's first call

            # One address's share: Mallory's two real tests, then Mia's from the same address is refused.
            for n in range(2):
                await mallory_socket.send({"type": "test_bot", "url": bots.url("ok"), "dialect": "spec", "id": n})
                assert (await mallory_socket.frame_of("bot_test"))["ok"]
            mia_socket = await open_from(mia_table.pk, mia, "198.51.100.66")
            refused = await mia_socket.error({"type": "test_bot", "url": bots.url("ok"), "dialect": "spec"})
            assert refused["code"] == "rate_limited"
            assert "Too many bot tests and bot invitations: at most 2 an hour from one address." in refused["message"]
            # The server's three calls are made: now everyone is refused, and nothing was sent past a limit.
            asked = sum(bots.requests.values())
            refused = await emil_socket.error({"type": "test_bot", "url": bots.url("ok"), "dialect": "spec"})
            assert "at most 3 an hour on this server" in refused["message"]
            assert sum(bots.requests.values()) == asked
    finally:
        await close_all_clients()
        await runner.stop()


@pytest.mark.asyncio
@pytest.mark.usefixtures("redis_layer")
async def test_six_hundred_refused_bot_tests_from_one_address_leave_another_users_invitation_alone(settings):
    """Issue 28, finding 3, as it was found: the production limits, 600 tests of refused URLs from one address
    (several people there, each within their message budget), then someone elsewhere invites a bot."""
    settings.JASSWEB_PROXY_HOPS = 1
    people = await sync_to_async(make_players)([f"Mallory {n}" for n in range(7)] + ["Emil"])
    *mallories, emil = people
    try:
        with FaultyBots() as bots:
            settings.JASS_ALLOW_PRIVATE_BOT_URLS = False
            settings.JASS_BOT_URL_ALLOWLIST = [bots.url("ok").split("/")[2]]
            sent = 0
            for mallory in mallories:  # 7 people, at most 90 frames each: under each one's 100 in 10 s
                table = await sync_to_async(service.create_table)(mallory, name=mallory.name)
                socket = await open_from(table.pk, mallory, "198.51.100.66")
                for n in range(min(90, 600 - sent)):
                    url = f"http://10.{n % 250}.0.1/bot"
                    refused = await socket.error({"type": "test_bot", "url": url, "dialect": "spec", "id": n})
                    assert refused["code"] == "bot_url_refused", refused
                sent += min(90, 600 - sent)
            assert sent == 600 and sum(bots.requests.values()) == 0

            emil_table = await sync_to_async(service.create_table)(emil, name="Emil's")
            emil_socket = await open_from(emil_table.pk, emil, "203.0.113.9")
            await emil_socket.send({"type": "add_remote_bot", "seat": 1, "url": bots.url("ok"), "name": "Bot"})
            await emil_socket.state(lambda v: v["seats"][1]["kind"] == "remote")
            await emil_socket.send({"type": "test_bot", "url": bots.url("ok"), "dialect": "spec"})
            assert (await emil_socket.frame_of("bot_test"))["ok"]  # a real call out, not refused
            assert sum(bots.requests.values()) >= 1
    finally:
        await close_all_clients()
        await runner.stop()
