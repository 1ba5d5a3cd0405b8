"""A rolling restart of two servers while tables play: no move lost or doubled, no table stalled past 2 s.

Two daphne processes on PostgreSQL and Redis; at every table a person (a websocket client that plays at
once and, like the table page, reconnects to a running server when its socket closes) sits North with
three random bots (thinking in a bot worker process, as deployed). While every table plays, the first
server gets SIGTERM and must stop by itself (``jassweb/shutdown.py``: stop accepting, hand its games over
at once, send its sockets away), a new one starts in its place and the next server is stopped once it is
ready (/healthz), as ``scripts/rolling-restart.sh`` does. Every game handed back is claimed at once on the
stopping server's word (the metrics say how each lease was taken: none after a lease ran out); no person
ever sees their table go back or gets a refusal; afterwards the database holds every game's moves once
each, without a gap, as far as every person saw them. Each person notes when their table last moved (a
move, or the next game): the stalls are printed, and with ``JASSWEB_RESTART_TIMED=1`` no table may stall more
than 2 s, timed when the machine keeps its pace (its tables stall at most 1 s in the 10 s of play before the
restart).

``JASSWEB_RESTART_TABLES`` sets the number of tables (default 20: the suite runs on a busy 2-core machine;
the issue's figure is for 100) and ``JASSWEB_RESTART_BOT_DELAY_MS`` the bots' think before each move (default
150 ms; 100 tables at that pace ask 2 cores for more moves than they serve without any restart, so the issue's
figure is taken at 1000 ms, the live benchmark's bot pace). A table's stall is its longest pause less that
think: the time it stood beyond what its bot was meant to take.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import time
from dataclasses import dataclass, field

import pytest
import websockets
from prometheus_client.parser import text_string_to_metric_families

from tests.server_helpers import HTTP, ServerProcess, bot_worker, migrate
from tests.services import fetch_one, scale_out
from tests.ws_helpers import create_live_table, guest_cookies

pytestmark = [pytest.mark.asyncio, pytest.mark.services]

TABLES = int(os.environ.get("JASSWEB_RESTART_TABLES", "20"))
BOT_DELAY_MS = os.environ.get("JASSWEB_RESTART_BOT_DELAY_MS", "150")  # a bot's think before each move
THINK_S = int(BOT_DELAY_MS) / 1000
# The 2 s bound is checked on request (JASSWEB_RESTART_TIMED=1, as docs/benchmarks.md runs it): in the suite another
# test file shares the two cores, and a new server's start then stalls tables past 2 s with no fault of the handover.
TIMED = os.environ.get("JASSWEB_RESTART_TIMED") == "1"
MAX_STALL_S = 2.0
QUIET_S = 10.0  # seconds of play measured before the restart, for the machine's own pace
QUIET_STALL_S = 1.0  # tables that stall longer than this without a restart: the machine is too busy to time one
NORTH = 0


@dataclass
class Person:
    """A person at one table, North, against three bots: plays at once, starts the next game, reconnects."""

    name: str
    table_id: int
    cookies: dict[str, str]
    urls: list[str]  # the servers now (the test replaces a restarted one)
    server: int
    playing: bool = True
    game: tuple[int, int] = (0, -1)  # (game id, seq) last seen
    still: bool = False  # the game last seen waits for this person (their turn), or is over
    moved_at: float = 0.0
    pauses: list[tuple[float, float]] = field(default_factory=list)  # (from, to) between two moves seen
    regressions: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    reconnects: int = 0
    started: set[int] = field(default_factory=set)
    sent: set[tuple[int, int]] = field(default_factory=set)

    async def run(self, done: asyncio.Event) -> None:
        rng = random.Random(self.table_id)
        while not done.is_set():
            with contextlib.suppress(OSError, websockets.ConnectionClosed, websockets.InvalidHandshake, TimeoutError):
                await self._session(rng, done)  # until its socket closes, or cannot open (a stopping server)
            if done.is_set():
                return
            self.reconnects += 1
            self.server = (self.server + 1) % len(self.urls)  # the other server, as the balancer would pick
            await asyncio.sleep(rng.uniform(0.25, 0.5))  # the table page's first retry (static/js/socket.js)

    async def _session(self, rng: random.Random, done: asyncio.Event) -> None:
        base = self.urls[self.server]
        headers = {"Origin": base, "Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        url = base.replace("http://", "ws://") + f"/ws/tables/{self.table_id}/"
        async with websockets.connect(url, additional_headers=headers, open_timeout=5, close_timeout=1) as ws:
            self.sent.clear()  # a move sent on the socket that closed may never have arrived: send it again
            while not done.is_set():
                try:
                    text = await asyncio.wait_for(ws.recv(), 0.5)
                except TimeoutError:
                    continue
                frame = json.loads(text)
                if frame["type"] == "error":
                    if frame["code"] != "stale":  # a move sent just before a reconnect may come too late
                        self.errors.append(f"{frame['code']}: {frame['message']}")
                    continue
                if frame["type"] == "state" and frame["view"]["game"] is not None:
                    await self._state(ws, frame["view"]["game"], rng)

    async def _state(self, ws: websockets.ClientConnection, game: dict, rng: random.Random) -> None:
        now = time.monotonic()
        seen = (game["id"], game["seq"])
        if seen < self.game:
            self.regressions.append(f"{self.name}: {self.game} then {seen}")
        elif seen > self.game:
            if self.moved_at:
                self.pauses.append((self.moved_at, now))
            self.game, self.moved_at = seen, now
            self.still = game["over"] or game["player"] == NORTH
        if not self.playing:
            return
        if game["over"] and game["id"] not in self.started:
            self.started.add(game["id"])
            await ws.send(json.dumps({"type": "start"}))
        elif not game["over"] and game["player"] == NORTH and seen not in self.sent:
            self.sent.add(seen)
            if game["legal_trumps"]:
                move = {"type": "choose_trump", "trump": rng.choice(game["legal_trumps"]), "seq": game["seq"]}
            else:
                move = {"type": "play_card", "card": rng.choice(game["legal"]), "seq": game["seq"]}
            await ws.send(json.dumps(move))

    def longest_pause(self, since: float, until: float) -> float:
        """The longest time this table did not move between ``since`` and ``until``."""
        gaps = [min(b, until) - max(a, since) for a, b in self.pauses if b > since and a < until]
        return max([*gaps, until - max(self.moved_at, since)])


def wait_until_ready(url: str, timeout: float = 60.0) -> None:
    """Until the server's /healthz is 200: its database, channel layer and bot workers answer."""
    deadline = time.monotonic() + timeout
    while True:
        response = HTTP.get(url + "/healthz", timeout=5)
        workers = response.json()["checks"]["bot_workers"].get("workers", "")
        if response.status_code == 200 and "start with the first table" not in workers:
            return
        assert time.monotonic() < deadline, response.text
        time.sleep(0.2)


def stopped_by_itself(server: ServerProcess) -> tuple[int | None, float]:
    """SIGTERM, then wait: (its exit code, seconds until it exited; None if it had to be killed)."""
    started = time.monotonic()
    server.process.terminate()
    try:
        code = server.process.wait(timeout=30)
    except Exception:
        server.kill()
        return None, time.monotonic() - started
    return code, time.monotonic() - started


async def test_a_rolling_restart_of_two_servers_loses_and_doubles_no_move_and_stalls_no_table(tmp_path):
    settings = {
        "JASSWEB_BOT_DELAY_MS": BOT_DELAY_MS,
        "JASSWEB_LIMITS": "0",  # every person comes from this one address
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),  # who took the games over, and how
        # As deploy/ runs it: the bots think in a worker process, which a server restart leaves alone.
        "JASSWEB_THINKERS": "channels",
    }
    with scale_out("rolling", **settings) as (env, database_url):
        migrate(env)
        worker = bot_worker(env)
        servers = [ServerProcess(env), ServerProcess(env)]
        urls = [s.url for s in servers]
        people: list[Person] = []
        done = asyncio.Event()
        tasks: list[asyncio.Task[None]] = []
        try:
            for number in range(TABLES):
                base = urls[number % 2]
                cookies = guest_cookies(base, f"P{number}")
                # No round pause: the bots' wait for the round's summary (5 s by default) would count as a stall.
                table_id = create_live_table(
                    base, cookies, mode="fair", round_count="12", seat=str(NORTH), round_pause="0"
                )
                people.append(Person(f"P{number}", table_id, cookies, urls, number % 2))
            tasks = [asyncio.create_task(p.run(done)) for p in people]
            await asyncio.sleep(0.5)
            for person in people:  # through a socket of its own, like the table's Add bot buttons
                await _add_bots_and_start(person)
            deadline = time.monotonic() + 60
            while any(p.game[1] < 5 for p in people):
                assert time.monotonic() < deadline, [p.game for p in people]
                await asyncio.sleep(0.2)
            # The pace of this machine without a restart: on a busy one, tables pause without any.
            quiet = time.monotonic()
            await asyncio.sleep(QUIET_S)

            window = time.monotonic()
            exits = []
            events = []  # (seconds into the window, what happened): the failure message's timeline
            for index in (0, 1):
                old = servers[index]
                events.append((time.monotonic() - window, f"SIGTERM to server {index + 1}"))
                code, seconds = await asyncio.to_thread(stopped_by_itself, old)
                events.append((time.monotonic() - window, f"server {index + 1} exited"))
                exits.append((code, seconds, old.output()))
                servers[index] = await asyncio.to_thread(ServerProcess, env)
                urls[index] = servers[index].url
                events.append((time.monotonic() - window, f"new server {index + 1} answers"))
                # As scripts/rolling-restart.sh: the next server stops only once this one is ready to take its
                # games (/healthz 200).
                await asyncio.to_thread(wait_until_ready, servers[index].url)
                events.append((time.monotonic() - window, f"new server {index + 1} ready"))
            await asyncio.sleep(3.0)  # every table plays on with both new servers
            end = time.monotonic()

            # Stop playing; once the bots are done every table waits for its person, and what each person
            # saw must be what the database holds.
            for person in people:
                person.playing = False
            deadline = time.monotonic() + 60
            while not await asyncio.to_thread(_everyone_saw_what_is_stored, database_url, people):
                if time.monotonic() > deadline:
                    break  # the assertion below names who saw what
                await asyncio.sleep(0.5)
            done.set()
            await asyncio.gather(*tasks)

            stalls = sorted(p.longest_pause(window, end) - THINK_S for p in people)
            before = max(p.longest_pause(quiet, window) for p in people) - THINK_S
            handed = sum(int(m) for _, _, output in exits for m in re.findall(r"handed (\d+) games back", output))
            taken = _leases_taken(servers[0].url)
            print(
                f"rolling restart of 2 servers, {TABLES} tables, bots think {THINK_S:.2f} s: longest stall per table"
                f" (pause less the think) median {stalls[len(stalls) // 2]:.2f} s, max {stalls[-1]:.2f} s (without a"
                f" restart, just before: {before:.2f} s); servers stopped by themselves in"
                f" {', '.join(f'{s:.2f} s' for _, s, _ in exits)};"
                f" {handed} games handed over, leases taken {taken}; {sum(p.reconnects for p in people)} reconnects"
            )
            for code, seconds, output in exits:
                assert code == 0, f"a server did not stop by itself ({seconds:.1f} s):\n{output[-3000:]}"
                assert "stopped cleanly" in output, output[-3000:]
            assert not [r for p in people for r in p.regressions]
            assert not [e for p in people for e in p.errors]
            assert min(p.reconnects for p in people) >= 1  # every socket of a stopping server was sent away
            moves, distinct, counted, gaps, abandoned = fetch_one(
                database_url,
                "SELECT count(a.id), count(DISTINCT (a.game_id, a.seq)), (SELECT sum(action_count) FROM games_game),"
                " (SELECT count(*) FROM games_game g WHERE g.action_count > 0 AND (SELECT max(seq) + 1 FROM"
                " games_action WHERE game_id = g.id) <> g.action_count),"
                " (SELECT count(*) FROM games_game WHERE status = 'abandoned') FROM games_action a",
            )
            assert moves == distinct == counted and gaps == 0 and abandoned == 0
            for person in people:
                game_id, seq = person.game
                stored = fetch_one(database_url, "SELECT action_count FROM games_game WHERE id = %s", game_id)[0]
                assert seq == stored, f"{person.name} saw move {seq} of game {game_id}, the database holds {stored}"

            # Timed only where the machine keeps its pace: on one so busy that tables pause for seconds without
            # any restart (other suites on the same cores), even a lease may lapse; the figures are reported.
            if before > QUIET_STALL_S:
                print(f"not timed: the tables stalled {before:.2f} s without a restart (a busy machine)")
                return
            # Every game a stopping server handed back was claimed at once on its word (not found at a
            # heartbeat, nor after a lease ran out), and (timed) no table stalled over 2 s.
            assert handed >= TABLES and taken.get("claimed", 0) >= handed and not taken.get("dead"), taken
            if not TIMED:  # a duration is a benchmark's figure (printed above); the suite shares its cores
                return
            worst = max(people, key=lambda p: p.longest_pause(window, end))
            timeline = sorted(
                [(t, what) for t, what in events]
                + [
                    (a - window, f"{worst.name} waits {b - a:.2f} s")
                    for a, b in worst.pauses
                    if b - a > 0.5 and b > window
                ]
            )
            assert stalls[-1] <= MAX_STALL_S, "\n".join(f"{t:6.2f} {what}" for t, what in timeline)
        finally:
            done.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            for server in servers:
                server.stop()
            worker.terminate()
            worker.wait(10)


def _everyone_saw_what_is_stored(database_url: str, people: list[Person]) -> bool:
    """Whether every table is still (its game waits for its person, who no longer plays, or is over) and
    every person's last view is their game as the database holds it."""
    for person in people:
        game_id, seq = person.game
        stored = fetch_one(database_url, "SELECT action_count FROM games_game WHERE id = %s", game_id)[0]
        if not person.still or stored != seq:
            return False
    return True


def _leases_taken(url: str) -> dict[str, float]:
    """``jassweb_leases_taken_over_total`` by source, summed over every server process that ever ran."""
    text = HTTP.get(url + "/metrics", timeout=10).text
    taken: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "jassweb_leases_taken_over_total":
                taken[sample.labels["source"]] = taken.get(sample.labels["source"], 0) + sample.value
    return taken


async def _add_bots_and_start(person: Person) -> None:
    base = person.urls[person.server]
    headers = {"Origin": base, "Cookie": "; ".join(f"{k}={v}" for k, v in person.cookies.items())}
    url = base.replace("http://", "ws://") + f"/ws/tables/{person.table_id}/"
    async with websockets.connect(url, additional_headers=headers, open_timeout=10) as ws:
        for seat in (1, 2, 3):
            await ws.send(json.dumps({"type": "add_bot", "seat": seat, "bot": "random"}))
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if frame["type"] == "state" and all(s["kind"] != "empty" for s in frame["view"]["seats"]):
                break
        await ws.send(json.dumps({"type": "start"}))
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if frame["type"] == "state" and frame["view"]["game"] is not None:
                return
