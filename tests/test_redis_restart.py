"""A Redis restart mid-game (issue 28): no game waits, every seat sees every move, the bot workers live on.

Two daphne servers on PostgreSQL and a Redis of this test's own (a free port: the shared Redis that other
tests use is never restarted), one bot worker, bots thinking on it (``JASSWEB_THINKERS=channels``), as
deployed. At each table two people play from the two servers — North on one, South on the other — with an
MCTS bot and a rule bot, the clock off; each plays at once when it is their turn and, like the table page,
pings with the number of the last event it saw after two seconds of quiet. Mid-game Redis stops. Both
servers' /healthz say so (503, ``channel_layer``) and moves are committed that nobody could be told of;
then Redis starts again, empty. Within 5 s every person has seen every move stored before it came back,
/healthz is 200 again on both servers, the bot worker still runs and MCTS moves are thought by it again
(none left to the rule bot after the return), and every game plays on. The test prints what it measured.

The smaller pieces are tested on their own below: a ping with an old event number gets the table afresh,
the tables changed during an outage are published again with their clock started afresh, and the bots'
layer receives again after a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from dataclasses import dataclass, field

import pytest
import websockets
from asgiref.sync import sync_to_async
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from games.engine import GameState
from games.live import service
from games.live.events import publisher
from games.models import Game, Table, table_group
from jassweb.layers import ReconnectingRedisChannelLayer
from tests.server_helpers import HTTP, ServerProcess, bot_worker, migrate
from tests.services import OwnRedis, fetch_one, scale_out
from tests.table_helpers import actor, make_players, make_table, start
from tests.ws_helpers import Client, create_live_table, guest_cookies

TABLES = 3
BACK_WITHIN_S = 5.0  # the acceptance bound: every seat has seen every stored move this long after Redis returns
QUIET_PING_S = 2.0  # static/js/socket.js PROBE_AFTER_MS: a quiet table page pings after this long
SEATS = {0: "North", 2: "South"}  # the people; East is an MCTS bot, West the rule bot


@dataclass
class Person:
    """A person at one table on one server: plays at once, pings with the last event seen, reconnects."""

    name: str
    table_id: int
    cookies: dict[str, str]
    url: str
    position: int
    playing: bool = True
    version: int = -1
    game: tuple[int, int] = (0, -1)  # (game id, seq) last seen
    seen_at: dict[tuple[int, int], float] = field(default_factory=dict)  # (game id, seq) -> when first seen
    sent: set[tuple[int, int]] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    reconnects: int = 0

    async def run(self, done: asyncio.Event) -> None:
        rng = random.Random(self.table_id * 4 + self.position)
        while not done.is_set():
            with contextlib.suppress(OSError, websockets.ConnectionClosed, websockets.InvalidHandshake, TimeoutError):
                await self._session(rng, done)
            if done.is_set():
                return
            self.reconnects += 1
            await asyncio.sleep(0.5)  # the table page's first retry

    async def _session(self, rng: random.Random, done: asyncio.Event) -> None:
        headers = {"Origin": self.url, "Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        url = self.url.replace("http://", "ws://") + f"/ws/tables/{self.table_id}/"
        async with websockets.connect(url, additional_headers=headers, open_timeout=5, close_timeout=1) as ws:
            self.sent.clear()  # a move sent on a socket that closed may never have arrived
            heard = time.monotonic()
            while not done.is_set():
                try:
                    text = await asyncio.wait_for(ws.recv(), 0.25)
                except TimeoutError:
                    if time.monotonic() - heard >= QUIET_PING_S:  # the page's heartbeat, with its last event
                        await ws.send(json.dumps({"type": "ping", "id": 1, "version": self.version}))
                        heard = time.monotonic()
                    continue
                heard = time.monotonic()
                frame = json.loads(text)
                if frame["type"] == "error" and frame["code"] != "stale":
                    self.errors.append(f"{frame['code']}: {frame['message']}")
                elif frame["type"] == "state" and frame["version"] >= self.version:
                    self.version = frame["version"]
                    if frame["view"]["game"] is not None:
                        await self._state(ws, frame["view"]["game"], rng)

    async def _state(self, ws: websockets.ClientConnection, game: dict, rng: random.Random) -> None:
        seen = (game["id"], game["seq"])
        self.seen_at.setdefault(seen, time.monotonic())
        self.game = max(self.game, seen)
        if not self.playing or game["over"] or game["player"] != self.position or seen in self.sent:
            return
        self.sent.add(seen)
        if game["legal_trumps"]:
            move = {"type": "choose_trump", "trump": rng.choice(game["legal_trumps"]), "seq": game["seq"]}
        else:
            move = {"type": "play_card", "card": rng.choice(game["legal"]), "seq": game["seq"]}
        await ws.send(json.dumps(move))

    def saw(self, game: tuple[int, int]) -> float | None:
        """When this person first saw ``game`` at its seq or later (None: not yet)."""
        times = [t for (game_id, seq), t in self.seen_at.items() if (game_id, seq) >= game]
        return min(times) if times else None


def stored_games(database_url: str, table_ids: list[int]) -> dict[int, tuple[int, int]]:
    """Each table's newest game and its number of moves, as stored."""
    games = {}
    for table_id in table_ids:
        games[table_id] = fetch_one(
            database_url,
            "SELECT id, action_count FROM games_game WHERE table_id = %s ORDER BY id DESC LIMIT 1",
            table_id,
        )
    return games


def health(url: str) -> tuple[int, dict]:
    response = HTTP.get(url + "/healthz", timeout=10)
    return response.status_code, response.json()


def metric(url: str, name: str, bot: str) -> float:
    """A counter's value for one bot, summed over every process (the servers' and the worker's)."""
    text = HTTP.get(url + "/metrics", timeout=10).text
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name and sample.labels.get("bot") == bot
    )


async def poll(condition, seconds: float, what: str):
    """Await ``condition()`` (run in a thread) until it returns something true, for at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        value = await asyncio.to_thread(condition)
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out after {seconds:g} s waiting for {what}"
        await asyncio.sleep(0.1)


@pytest.mark.asyncio
@pytest.mark.services
async def test_a_redis_restart_mid_game_stops_no_game_and_every_seat_sees_every_move(tmp_path):
    redis_server = OwnRedis()
    settings = {
        "REDIS_URL": redis_server.url,
        "JASSWEB_THINKERS": "channels",
        "JASSWEB_BOT_DELAY_MS": "100",
        "JASSWEB_LIMITS": "0",  # every person comes from this one address
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),  # the worker's decisions, read on a server
    }
    with scale_out("redis-restart", **settings) as (env, database_url):
        migrate(env)
        worker = bot_worker(env)
        servers = [ServerProcess(env), ServerProcess(env)]
        people: list[Person] = []
        done = asyncio.Event()
        tasks: list[asyncio.Task[None]] = []
        try:
            await poll(lambda: all(health(s.url)[0] == 200 for s in servers), 60, "both servers healthy")
            tables = []
            for number in range(TABLES):
                north = guest_cookies(servers[0].url, f"N{number}")
                south = guest_cookies(servers[1].url, f"S{number}")
                table_id = create_live_table(
                    servers[0].url, north, mode="fair", round_count="12", seat="0", turn_clock="0"
                )
                tables.append(table_id)
                people.append(Person(f"N{number}", table_id, north, servers[0].url, 0))
                people.append(Person(f"S{number}", table_id, south, servers[1].url, 2))
            for north, south in zip(people[::2], people[1::2], strict=True):
                await _seat_and_start(north, south)
            tasks = [asyncio.create_task(p.run(done)) for p in people]
            await poll(lambda: all(seq >= 8 for _, seq in stored_games(database_url, tables).values()), 60, "play")

            # Redis stops mid-game: the servers say so, and moves are stored that nobody can be told of.
            before = stored_games(database_url, tables)
            redis_server.stop()
            await poll(
                lambda: all("channel_layer" in health(s.url)[1].get("failing", []) for s in servers),
                20,
                "/healthz to report the channel layer failing on both servers",
            )
            await poll(lambda: stored_games(database_url, tables) != before, 20, "a move stored while Redis is down")
            assert worker.poll() is None, "the bot worker exited while Redis was down"
            outage = stored_games(database_url, tables)

            redis_server.start()
            back = time.monotonic()

            def everyone_saw_the_outage_moves() -> bool:
                return all(p.saw(outage[p.table_id]) is not None for p in people)

            await poll(everyone_saw_the_outage_moves, BACK_WITHIN_S, "every seat to see the moves stored meanwhile")
            lags = sorted(max(0.0, (p.saw(outage[p.table_id]) or back) - back) for p in people)

            # Both servers healthy again, the bot worker alive; MCTS decisions thought by the worker again.
            await poll(lambda: all(health(s.url)[0] == 200 for s in servers), 30, "/healthz 200 again")
            healthy = time.monotonic() - back
            assert worker.poll() is None, "the bot worker exited after Redis came back"
            fallbacks = metric(servers[0].url, "jassweb_thinker_fallbacks_total", "mcts-fast")
            thought = metric(servers[0].url, "jassweb_thinker_seconds_count", "mcts-fast")
            resumed = stored_games(database_url, tables)
            await poll(
                lambda: all(
                    game[0] != resumed[t][0] or game[1] >= resumed[t][1] + 12
                    for t, game in stored_games(database_url, tables).items()
                ),
                60,
                "every game to play on (12 more moves)",
            )
            assert metric(servers[0].url, "jassweb_thinker_seconds_count", "mcts-fast") >= thought + TABLES * 2
            assert metric(servers[0].url, "jassweb_thinker_fallbacks_total", "mcts-fast") == fallbacks

            # Everyone stops; every table then waits for a person, who has seen what is stored.
            for person in people:
                person.playing = False

            def everyone_saw_what_is_stored() -> bool:
                stored = stored_games(database_url, tables)
                return all(p.game == stored[p.table_id] for p in people)

            await poll(everyone_saw_what_is_stored, 30, "every person to see their game as stored")
            assert not [e for p in people for e in p.errors]
            logs = "".join(s.output() for s in servers)
            assert "published" in logs and "again that changed while the channel layer was out of reach" in logs
            print(
                f"Redis restarted mid-game, {TABLES} tables, people on 2 servers: every seat saw the"
                f" {sum(outage[t][1] - before[t][1] for t in tables)} moves stored while Redis was down within"
                f" {lags[-1]:.2f} s of its return (median {lags[len(lags) // 2]:.2f} s); /healthz 200 on both"
                f" servers after {healthy:.1f} s; {sum(p.reconnects for p in people)} reconnects;"
                f" MCTS fallbacks to the rule bot: {fallbacks:g} (none after the return)"
            )
        finally:
            done.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            for server in servers:
                server.stop()
            worker.terminate()
            worker.wait(10)
            redis_server.stop()


async def _request(person: Person, messages: list[dict], until) -> None:
    """Send ``messages`` on a socket of ``person``'s own; return once a state satisfies ``until``."""
    headers = {"Origin": person.url, "Cookie": "; ".join(f"{k}={v}" for k, v in person.cookies.items())}
    url = person.url.replace("http://", "ws://") + f"/ws/tables/{person.table_id}/"
    async with websockets.connect(url, additional_headers=headers, open_timeout=10) as ws:
        for message in messages:
            await ws.send(json.dumps(message))
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert frame["type"] != "error", frame
            if frame["type"] == "state" and until(frame["view"]):
                return


async def _seat_and_start(north: Person, south: Person) -> None:
    """South sits down (on the other server), North seats the bots (East MCTS, West the rule bot) and starts."""
    await _request(south, [{"type": "join", "seat": 2}], lambda v: v["seats"][2]["kind"] == "human")
    bots = [{"type": "add_bot", "seat": 1, "bot": "mcts-fast"}, {"type": "add_bot", "seat": 3, "bot": "rules"}]
    await _request(north, bots, lambda v: all(s["kind"] != "empty" for s in v["seats"]))
    await _request(north, [{"type": "start"}], lambda v: v["game"] is not None)


# -- the pieces ----------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_ping_with_an_older_event_number_gets_the_table_afresh(stop_runner, monkeypatch):

    def open_game():
        players = make_players()
        table = make_table(players[0], players)
        game = start(table, players[0])
        return players, table, game

    players, table, game = await sync_to_async(open_game)()
    nora = await Client.open(table.pk, players[0])
    seen = nora.frames[-1]["version"]
    await nora.send({"type": "ping", "id": 1, "version": seen})
    assert (await nora.receive())["type"] == "pong"  # nothing was missed: nothing is sent again

    def move_nobody_hears_of() -> int:
        fresh = Game.objects.get(pk=game.pk)
        state = GameState.replay(fresh.config(), [], fresh.plan())
        mover = players[state.player]
        monkeypatch.setattr(publisher, "publish", lambda sends: None)  # the channel layer lost the event
        try:
            action = state.observation(state.player).legal_actions()[0]
            service.submit(game.pk, state.player, action, actor=actor(mover), expected_seq=0)
        finally:
            monkeypatch.undo()
        return Table.objects.get(pk=table.pk).version

    latest = await sync_to_async(move_nobody_hears_of)()
    assert await nora.drain() == []  # the move's event never came
    await nora.send({"type": "ping", "id": 2, "version": seen})
    state = await nora.receive()
    assert state["type"] == "state" and state["version"] == latest and state["view"]["game"]["seq"] == 1
    assert (await nora.receive()) == {"type": "pong", "id": 2}


@pytest.mark.django_db(transaction=True)
def test_the_tables_changed_while_the_layer_was_out_of_reach_are_published_again_with_the_clock_afresh(
    monkeypatch,
):

    players = make_players()
    before = make_table(players[0], ["rules"] * 4, name="Changed before")
    since = timezone.now()
    table = make_table(players[0], players, turn_clock_s=30)
    game = start(table, players[0])
    until = timezone.now()
    after = make_table(players[0], ["rules"] * 4, name="Changed since")
    shown_at = Game.objects.get(pk=game.pk).turn_started_at

    assert service.tables_changed_between(since, until) == [table.pk]
    sent = []
    monkeypatch.setattr(publisher, "publish", sent.extend)
    assert not service.redeliver(before.pk, since, until)
    assert not service.redeliver(after.pk, since, until)
    assert sent == []
    assert service.redeliver(table.pk, since, until)
    version = Table.objects.get(pk=table.pk).version
    states = [m for kind, name, m in sent if name == table_group(table.pk)]
    assert [(m["type"], m["version"]) for m in states] == [("table.state", version)]
    assert ("group", "lobby", {"type": "lobby.event", "table": table.pk}) in sent
    # The turn began while its event was lost: its clock starts again now.
    restarted = Game.objects.get(pk=game.pk).turn_started_at
    assert restarted is not None and shown_at is not None and restarted > shown_at
    assert not service.redeliver(table.pk, since, until)  # published again already (since ``until``)


@pytest.mark.asyncio
@pytest.mark.services
async def test_the_bots_layer_receives_again_after_a_redis_restart(caplog):
    redis_server = OwnRedis()
    try:
        layer = ReconnectingRedisChannelLayer(hosts=[redis_server.url], prefix="restart-test")
        receiving = asyncio.create_task(layer.receive("bots-think"))
        await layer.send("bots-think", {"type": "bot.think", "request": 1})
        assert (await asyncio.wait_for(receiving, 5))["request"] == 1
        receiving = asyncio.create_task(layer.receive("bots-think"))
        redis_server.stop()
        deadline = time.monotonic() + 10
        while "Redis is out of reach" not in caplog.text:
            assert time.monotonic() < deadline and not receiving.done(), caplog.text
            await asyncio.sleep(0.05)
        redis_server.start()
        await layer.send("bots-think", {"type": "bot.think", "request": 2})
        assert (await asyncio.wait_for(receiving, 5))["request"] == 2
        assert "Redis is back" in caplog.text
    finally:
        redis_server.stop()
