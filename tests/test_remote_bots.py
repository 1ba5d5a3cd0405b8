"""External HSLU bots by URL: jass-kit's real player service, a fault injector, the address guard."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import threading
from io import StringIO

import numpy as np
import pytest
from asgiref.sync import sync_to_async
from django.core.management import call_command

from bots import remote
from bots.runner import play_bot_turns, runner
from games.engine import CARD_CODES, GameConfig, GameState
from games.engine.rules import illegal_card_reason
from games.live import service
from games.models import Action as ActionRow
from games.models import Fault, Game, GameSeat
from tests.bot_helpers import jasskit_service, jasskit_stats
from tests.bot_servers.faulty import FaultyBots
from tests.server_helpers import HTTP
from tests.table_helpers import make_players

pytestmark = [pytest.mark.django_db, pytest.mark.services]  # real HTTP bot servers on loopback


# The jass-kit reference bot's games check dialects and faults, not its speed (timeouts have their own tests):
# with a core kept busy its answers took over the table's default 5 s and were faults.
REFERENCE_TIMEOUT = 30


def remote_table(seats: list[str], *, dialect: str = remote.AUTO, timeout: int = 5, **options):
    """A table whose seats hold built-in bot names or bot URLs (in seat order)."""
    table = service.create_table(None, name="Bots", bot_delay_ms=0, bot_timeout_s=timeout, **options)
    for position, seat in enumerate(seats):
        if seat.startswith("http"):
            service.set_remote_bot(table.pk, position, seat, "", dialect, service.SYSTEM)
        else:
            service.set_bot(table.pk, position, seat, service.SYSTEM)
    return table


def play(table, seed: int = 1) -> Game:
    game = service.start_game(table.pk, service.SYSTEM, seed=seed)
    play_bot_turns(game.pk)
    game.refresh_from_db()
    return game


def replayed(game: Game) -> GameState:
    """The game rebuilt from its rows through the checked engine: every move, stand-ins too, is legal."""
    rows = game.actions.order_by("seq")
    return GameState.replay(game.config(), [(r.seat, r.to_engine()) for r in rows], game.plan())


# -- the reference peer ----------------------------------------------------------------


def jasskit_undertrump(game: Game, fault: Fault) -> bool:
    """True if ``fault`` is jass-kit's known bug: a lower trump played into a non-trump trick already trumped."""
    if fault.kind != "illegal_card" or fault.seq is None:
        return False
    moves = [(a.seat, a.to_engine()) for a in ActionRow.objects.filter(game=game, seq__lt=fault.seq).order_by("seq")]
    rnd = GameState.replay(game.config(), moves, game.plan()).current
    card = CARD_CODES.index(fault.hidden_detail.removeprefix("played "))
    return illegal_card_reason(rnd.hands[rnd.player], rnd.trick, rnd.trump, card).startswith("may not under-trump")


def test_a_fair_game_with_jasskit_bots_in_both_dialects_has_no_faults():
    with jasskit_service("alice", "bob") as base:
        seats = [f"{base}/alice", "rules", f"{base}/spec/bob", "random"]
        table = remote_table(seats, mode="fair", timeout=REFERENCE_TIMEOUT)  # 12 rounds
        seats = list(table.seats.order_by("position"))
        service.set_remote_bot(table.pk, 0, seats[0].remote_url, "Alice", remote.JASS_KIT, service.SYSTEM)
        service.set_remote_bot(table.pk, 2, seats[2].remote_url, "Bob", remote.SPEC, service.SYSTEM)
        game = play(table, seed=3)
        stats = jasskit_stats(base)
    assert game.status == Game.FINISHED
    # jass-kit's random agents pick from jass-kit's legal cards, which wrongly allow under-trumping in a
    # trick that is already trumped (jass-kit-py issue 10): such a card is refused, nothing else may be.
    assert [(f.kind, f.detail) for f in game.faults.all() if not jasskit_undertrump(game, f)] == []
    assert replayed(game).over
    # Both bots answered every request of theirs in their dialect, and heard game_info after each round.
    assert game.round_count == 12 and len(game.deals) == 12
    assert stats.get("action_trump 200", 0) + stats.get("action_play_card 200", 0) >= 12 * 9
    assert stats.get("select_trump 200", 0) + stats.get("play_card 200", 0) >= 12 * 9
    assert stats["game_info 200"] == 2 * 12
    assert not [key for key in stats if not key.endswith(" 200")]
    remote_moves = ActionRow.objects.filter(game=game, seat__in=(0, 2))
    assert remote_moves.exists() and not remote_moves.filter(latency_ms__isnull=True).exists()


def test_auto_finds_each_bots_dialect_and_remembers_it():
    with jasskit_service("carla", "dora") as base:
        seats = [f"{base}/carla", "random", f"{base}/spec/dora", "random"]
        table = remote_table(seats, mode="fair", round_count=2, timeout=REFERENCE_TIMEOUT)
        game = play(table, seed=5)
        stats = jasskit_stats(base)
    assert game.status == Game.FINISHED and not game.faults.exists()
    dialects = dict(GameSeat.objects.filter(game=game, position__in=(0, 2)).values_list("position", "remote_dialect"))
    assert dialects == {0: remote.JASS_KIT, 2: remote.SPEC}
    # The jass-kit bot's spec path 404'd once; after that the runner asked its own paths directly.
    assert stats.get("select_trump 404", 0) + stats.get("play_card 404", 0) == 1


def test_playgame_seats_bots_by_url():
    with jasskit_service("eve") as base:
        out, err = StringIO(), StringIO()
        call_command(
            "playgame", "--seat", f"{base}/eve", "--seat", "rules", "--seat", f"{base}/eve", "--seat", "rules",
            "--mode", "fair", "--rounds", "2", "--dialect", "jass-kit", "--timeout", str(REFERENCE_TIMEOUT),
            "--seed", "4",
            stdout=out, stderr=err,
        )  # fmt: skip
    import json

    result = json.loads(out.getvalue())
    game = Game.objects.get(pk=result["game"])
    assert game.status == Game.FINISHED and not game.faults.exists() and err.getvalue() == ""
    assert list(game.seats.values_list("remote_dialect", flat=True)) == ["jass-kit", "", "jass-kit", ""]


# -- every failure is a random legal move and a fault -------------------------------------

FAULTS = {
    "status500": "http_status",
    "notjson": "not_json",
    "notobject": "not_object",
    "missing": "missing_field",
    "wrongtype": "wrong_type",
    "badtrump": "bad_trump",
    "unknown": "unknown_card",
    "notinhand": "card_not_in_hand",
    "illegal": "illegal_card",
    "pushtwice": "second_push",
    "huge": "too_large",
    "redirect": "redirect",
    "timeout": "timeout",
    "infofail": "game_info",
}


def test_every_bad_answer_becomes_a_random_legal_move_and_a_fault():
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    refused = f"http://127.0.0.1:{closed.getsockname()[1]}/bot"
    closed.close()  # nothing listens there: connection refused
    # Four rounds make every seat forehand once (asked for a trump); the two pushers sit as partners,
    # so when one pushes, the other is asked and pushes again.
    tables = [
        ["badtrump", "pushtwice", "status500", "pushtwice"],
        ["notjson", "notobject", "missing", "wrongtype"],
        ["unknown", "notinhand", "illegal", "huge"],
        ["redirect", "timeout", "infofail", refused],
    ]
    with FaultyBots() as bots:
        games = [
            play(
                remote_table(
                    [b if b.startswith("http") else bots.url(b) for b in seats],
                    dialect=remote.SPEC,
                    timeout=1,
                    mode="fair",
                    round_count=4,
                ),
                seed=index,
            )
            for index, seats in enumerate(tables)
        ]
    kinds = set(Fault.objects.values_list("kind", flat=True))
    assert kinds >= {*FAULTS.values(), "connection"}
    for game in games:
        assert game.status == Game.FINISHED
        assert replayed(game).over  # every stand-in was a legal move
        for fault in game.faults.exclude(kind="game_info"):
            stand_in = game.actions.get(seq=fault.seq)
            assert stand_in.seat == fault.seat and stand_in.latency_ms == fault.latency_ms
    # The illegal card stays hidden until the game is over (it would show the bot's hand).
    illegal = Fault.objects.filter(kind="illegal_card").first()
    assert "played" in illegal.hidden_detail and illegal.hidden_detail not in illegal.detail


def test_a_bot_that_packs_its_replies_is_read_and_a_packed_bomb_or_a_false_label_is_a_fault():
    # gzip and deflate, as the client's Accept-Encoding offers them: read as the bot meant them, no fault.
    with FaultyBots() as bots:
        packed = play(remote_table([bots.url("gzip"), "rules", bots.url("deflate"), "rules"], dialect=remote.SPEC))
        broken = play(
            remote_table([bots.url("gzipbomb"), "rules", bots.url("brokengzip"), "rules"], dialect=remote.SPEC)
        )
        asked = sum(n for key, n in bots.requests.items() if key.startswith(("gzip ", "deflate ")))
    assert packed.status == Game.FINISHED and not packed.faults.exists() and asked > 20
    assert broken.status == Game.FINISHED
    kinds = {(f.seat, f.kind) for f in broken.faults.exclude(kind="game_info")}
    assert kinds == {(0, "too_large"), (2, "not_json")}, kinds  # 30 MiB unpacked: refused, never held in memory
    assert "gzip" in broken.faults.filter(seat=2).first().detail


def test_a_bot_past_its_timeout_gets_a_timeout_fault_and_the_game_goes_on():
    with FaultyBots() as bots:
        table = remote_table([bots.url("timeout"), "random", "random", "random"], timeout=1, mode="fair", round_count=2)
        game = play(table, seed=2)
    timeouts = list(game.faults.filter(kind="timeout"))
    assert len(timeouts) == 3 and game.status == Game.FINISHED
    for fault in timeouts:
        assert fault.latency_ms >= 1000  # it was given its whole second (bench/remote_timeouts.py: how much more)
        move = game.actions.get(seq=fault.seq)
        assert move.seat == fault.seat and move.latency_ms == fault.latency_ms


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.usefixtures("redis_layer")
async def test_ten_tables_of_four_remote_bots_play_at_once():
    with FaultyBots() as bots:
        url = bots.url("slow40")
        tables = [
            # A 40 ms bot, and the longest timeout a table may have: on a busy machine (CI) the answers of forty
            # bots at once may queue for seconds, and a timeout here would be the machine's, not the adapter's.
            await sync_to_async(remote_table)([url] * 4, dialect=remote.SPEC, timeout=30, mode="fair", round_count=2)
            for _ in range(10)
        ]
        runner.ensure_started()
        try:
            games = [await sync_to_async(service.start_game)(t.pk, service.SYSTEM, i) for i, t in enumerate(tables)]
            ids = [g.pk for g in games]
            for _ in range(600):
                finished = await sync_to_async(Game.objects.filter(pk__in=ids, status=Game.FINISHED).count)()
                if finished == len(ids):
                    break
                await asyncio.sleep(0.2)
        finally:
            await runner.stop()
        assert finished == 10
        faults = await sync_to_async(lambda: list(Fault.objects.values_list("kind", "detail")[:5]))()
        assert faults == []
        # The tables did not wait for each other: many answers were being computed at the same time.
        assert bots.max_in_flight >= 5


# -- the private-address guard ---------------------------------------------------------------


class Listener:
    """A TCP listener that records whether anyone connected."""

    def __init__(self, family: int, host: str) -> None:
        self.sock = socket.socket(family)
        self.sock.bind((host, 0))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connected = False
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return  # closed
            self.connected = True
            conn.close()

    def reached(self) -> bool:
        """Whether anyone connected so far: stop accepting, then look at the queue too (no waiting on luck).

        The kernel completes a connection to a listening socket before it is accepted, so one made
        before this call is either accepted already or waiting in the queue.
        """
        self.stop.set()
        self.thread.join()
        self.sock.setblocking(False)
        try:
            conn, _ = self.sock.accept()
        except BlockingIOError:
            return self.connected
        conn.close()
        return True

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


@pytest.fixture
def guard_on(settings):
    settings.JASS_ALLOW_PRIVATE_BOT_URLS = False
    settings.JASS_BOT_URL_ALLOWLIST = []
    return settings


@pytest.mark.asyncio
async def test_the_guard_refuses_private_addresses_and_sends_nothing(guard_on):
    ipv6 = Listener(socket.AF_INET6, "::1")
    bot = f"http://[::1]:{ipv6.port}/bot"
    try:
        for url in ("http://10.0.0.1/", bot, "http://169.254.169.254/latest", "http://localhost/"):
            with pytest.raises(remote.BotUrlError, match="non-public address") as excinfo:
                await remote.guarded_address(remote.check_bot_url(url))
            assert excinfo.value.kind == "private_address"
        state = GameState.new(GameConfig(seed=1))
        obs = state.current.observation(state.player)
        async with remote.new_client() as client:
            answer = await remote.ask_bot(client, bot, remote.SPEC, obs, "SCHIEBER", 2, np.random.default_rng(1))
        assert answer.fault.kind == "private_address" and answer.action in obs.legal_actions()
        assert not ipv6.reached(), "nothing may be sent to a refused address"
    finally:
        ipv6.close()


@pytest.mark.asyncio
async def test_a_redirect_to_another_host_is_not_followed(guard_on):
    target = Listener(socket.AF_INET, "127.0.0.1")
    with FaultyBots() as bots:
        guard_on.JASS_BOT_URL_ALLOWLIST = [f"127.0.0.1:{bots.port}"]  # the bot itself is allowed
        state = GameState.new(GameConfig(seed=2))
        obs = state.current.observation(state.player)
        async with remote.new_client() as client:
            ok = await remote.ask_bot(client, bots.url("ok"), remote.SPEC, obs, "SCHIEBER", 2, np.random.default_rng(1))
            assert ok.fault is None  # allowlisted: answered
            moved = await remote.ask_bot(
                client, bots.url("redirect"), remote.SPEC, obs, "SCHIEBER", 2, np.random.default_rng(1)
            )
        assert moved.fault.kind == "redirect" and "another host" in moved.fault.detail
    assert bots.requests["ok select_trump"] == 1  # the redirect's target (localhost) never heard of it
    assert not target.reached()
    target.close()


@pytest.mark.asyncio
async def test_ipv4_inside_ipv6_is_unwrapped_and_refused_before_any_connection(guard_on):
    listener = Listener(socket.AF_INET, "127.0.0.1")
    port = listener.port
    try:
        for url in (
            f"http://[::127.0.0.1]:{port}/",  # IPv4-compatible
            f"http://[64:ff9b::7f00:1]:{port}/",  # NAT64
            f"http://[64:ff9b:1::7f00:1]:{port}/",  # local-use NAT64
            f"http://[2002:7f00:1::]:{port}/",  # 6to4
            f"http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:{port}/",  # Teredo, client 127.0.0.1
            "http://[64:ff9b::a00:1]/",  # NAT64 to 10.0.0.1
        ):
            with pytest.raises(remote.BotUrlError) as excinfo:
                await remote.guarded_address(remote.check_bot_url(url))
            assert excinfo.value.kind == "private_address", url
        # The public addresses these forms may carry stay usable.
        for address in ("64:ff9b::808:808", "2002:808:808::1", "2606:4700::1111"):
            assert not remote._forbidden(ipaddress.ip_address(address)), address
        await asyncio.sleep(0.3)
        assert not listener.connected
    finally:
        listener.close()


@pytest.mark.asyncio
async def test_a_host_that_is_no_domain_name_is_a_bad_url_before_any_lookup(guard_on):
    for url in ("http://\u202e/", "http://exa mple.org/", "http://a..b/"):
        with pytest.raises(remote.BotUrlError) as excinfo:
            await remote.guarded_address(remote.check_bot_url(url))
        assert excinfo.value.kind == "bad_url", url
    assert remote.check_bot_url("http://bücher.example:5001/bot") == "http://bücher.example:5001/bot"
    assert remote.check_bot_url("http://bots.example.org./x") == "http://bots.example.org./x"


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.usefixtures("redis_layer")
async def test_inviting_a_private_address_is_refused_with_a_clear_message(guard_on):
    from tests.ws_helpers import Client, close_all_clients

    nora = (await sync_to_async(make_players)(("Nora",)))[0]
    table = await sync_to_async(service.create_table)(nora, name="Guarded")
    client = await Client.open(table.pk, nora)
    try:
        for url in ("http://10.0.0.1/", "http://[::1]:9/", "http://169.254.169.254/"):
            for message in (
                {"type": "add_remote_bot", "seat": 1, "url": url, "name": "x"},
                {"type": "test_bot", "url": url, "dialect": "auto"},
            ):
                reply = await client.error(message)
                assert reply["code"] == "bot_url_refused" and "non-public address" in reply["message"]
        reply = await client.error({"type": "add_remote_bot", "seat": 1, "url": "ftp://bots.example/x"})
        assert reply["code"] == "bad_bot_url" and "http://" in reply["message"]
        seats = await sync_to_async(lambda: list(table.seats.values_list("remote_url", flat=True)))()
        assert seats == ["", "", "", ""]
    finally:
        await close_all_clients()
        await runner.stop()


def test_bot_urls_are_checked_for_form():
    assert remote.check_bot_url(" http://bots.example.org:5001/mybot/ ") == "http://bots.example.org:5001/mybot"
    for bad, reason in [
        ("", "enter the bot's URL"),
        ("bots.example.org/x", "http:// or https://"),
        ("http:///x", "no host"),
        ("http://user:pw@bots.example.org/", "user name or password"),
        ("http://bots.example.org/x?y=1", "no ?query"),
        ("http://bots.example.org:99999/", "invalid port"),
        ("http://b.example/" + "x" * 300, "at most 300"),
    ]:
        with pytest.raises(remote.BotUrlError, match=reason.replace("?", r"\?")):
            remote.check_bot_url(bad)


def test_the_example_bot_plays_whole_games_without_a_fault():
    from tests.bot_helpers import example_bot

    with example_bot() as url:
        assert HTTP.post(f"{url}/nowhere", json={}).status_code == 400  # a malformed request is refused
        deep = HTTP.post(f"{url}/play_card", content="[" * 5000 + "]" * 5000)  # and one json.loads would recurse into
        assert deep.status_code == 400 and "nests more than 16 levels" in deep.json()["error"]
        game = play(remote_table([url, "random", url, "random"], mode="fair", round_count=4), seed=8)
        assert game.status == Game.FINISHED and not game.faults.exists()  # moves, trumps and game_info all fine
        assert replayed(game).over


def test_the_record_names_each_remote_bot_and_lists_its_faults():
    import json

    from games.records import game_record

    with FaultyBots() as bots:
        game = play(remote_table([bots.url("notinhand"), "random", "random", "random"], mode="fair", round_count=2))
    record = json.loads(json.dumps(game_record(game)))
    assert record["seats"][0] == {
        "position": 0,
        "name": "notinhand",
        "kind": "remote",
        "bot": None,
        "url": bots.url("notinhand"),
        "dialect": "spec",  # auto, settled by its first answer: a bad answer still proves the paths
    }
    assert record["faults"] and {f["kind"] for f in record["faults"]} == {"card_not_in_hand"}
    assert all(f["seat"] == 0 and f["move"] is not None for f in record["faults"])


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.usefixtures("redis_layer")
async def test_only_managers_test_bots_and_the_test_runs_beside_the_connection():
    from tests.ws_helpers import Client, close_all_clients

    nora, emil = await sync_to_async(make_players)(("Nora", "Emil"))
    table = await sync_to_async(service.create_table)(nora, name="Testing", bot_timeout_s=2)
    with FaultyBots() as bots:
        owner = await Client.open(table.pk, nora)
        visitor = await Client.open(table.pk, emil)
        try:
            refused = await visitor.error({"type": "test_bot", "url": bots.url("ok"), "id": "v1"})
            assert refused == {
                "type": "error",
                "id": "v1",
                "code": "not_allowed",
                "message": "only the table's creator or a seated player can test bots",
            }
            # A bot that takes its time: the connection still answers (and gets states) meanwhile.
            await owner.send({"type": "test_bot", "url": bots.url("slow1500"), "dialect": "spec", "id": "t1"})
            busy = await owner.error({"type": "test_bot", "url": bots.url("ok"), "id": "t2"})
            assert busy["code"] == "busy" and busy["id"] == "t2"
            await owner.send({"type": "ping", "id": 7})
            assert (await owner.frame_of("pong", timeout=1))["type"] == "pong"
            result = await owner.frame_of("bot_test", timeout=5)
            assert result["type"] == "bot_test" and result["id"] == "t1" and result["ok"]
            assert result["dialect"] == "spec" and result["latency_ms"] >= 1500
            # The bot is asked as the seat it is invited to, and the answer says so.
            for seat, name in ((0, "North"), (3, "West")):
                await owner.send({"type": "test_bot", "url": bots.url("ok"), "seat": seat, "id": f"s{seat}"})
                result = await owner.frame_of("bot_test", timeout=5)
                assert result["ok"] and f"asked as {name}, forehand" in result["answer"], result
                assert bots.players[-1] == seat
            bad = await owner.error({"type": "test_bot", "url": bots.url("ok"), "seat": 4, "id": "s4"})
            assert bad["code"] == "bad_message" and "'seat'" in bad["message"]
        finally:
            await close_all_clients()
            await runner.stop()
