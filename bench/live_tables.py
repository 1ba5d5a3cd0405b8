"""Live tables of simulated people through the real pages and websockets, beside the Channels ceiling.

Every simulated person is a guest made through the real ``/guest/`` form. The
table's creator opens it through the lobby form (fair mode, 12 rounds, seated
at North), everyone GETs the table page once like a browser, opens the table's
websocket (Origin and session cookie as a browser sends them), takes a seat
with ``join``, and the creator sends ``start``; when a game is over the creator
starts the next one, so the load stays constant. Whoever is to move plays a
random legal trump or card at the chosen pace:

    stress  no think time: the mover moves as soon as its state shows its turn
    bot     a uniform 0-1 s think before each move
    human   a uniform 1-5 s think (about what people take for a card)

The ramp adds tables to reach each step (10, 50, 100, 250, 500 by default);
tables of earlier steps stay open and keep playing. Each pace starts from a
fresh server and a fresh database. Per step: a short warm-up, then ``--seconds``
measured. Latency of a move: from the mover's send to the moment the last of
the table's seated sockets has received a state with a higher ``game.seq`` (or
a newer game). moves/s and latency count the moves confirmed inside the
measured window; lost moves (not at every seat within ``--lost-after`` s) and
error replies count over the whole step, set-up included (a lost move that
arrives later is also counted as late). A table that shows no progress for
twice ``--lost-after`` + the longest think asks for a ``resync`` (a stall).

The same people then play the same turns, at the same pace, against the
framework's ceiling (bench/ceiling_app.py: one consumer that relays every frame
to its table's group, same daphne, same channel layer): the mover sends a
``move`` frame padded to the size of a real state frame (the mean measured in
our run, or ``--pad``), every seat receives it, the next seat moves.

Columns: ``mv/s`` confirmed moves per second, ``p50 ... max`` latency in ms,
``RSS`` the daphne process(es) at the end of the step, ``CPU%`` the daphne
process(es) over the window in % of one core (two processes: the sum, then
each), ``aux%`` the server's helpers (its bot worker processes; in scale-out
also every PostgreSQL and Redis process on the machine), ``c.mv/s`` / ``c.p99``
/ ``c.CPU%`` the ceiling at the same step, ``thr%`` our moves/s in % of the
ceiling's, ``p99x`` our p99 divided by the ceiling's (both ratios at every
step), ``gen%`` the load generator's CPU (its client processes and this
process, which serves the HSLU bots) and ``host%`` the whole machine (both in %
of one core, during our window). Memory: (RSS with all sockets of a step open -
RSS of the fresh server) / sockets, and the same since the previous step (which
leaves out what the first requests and sockets load once). A step opens its
tables in two phases, every table's pages first (guest form, lobby form, table
page: what a browser loads before its socket) and then the sockets, and reads
the server's RSS between them: ``ours sock`` / ``ceil. sock`` is the growth per
socket of the sockets alone, ``pages/tbl`` ours per table for the pages (the
ceiling has no pages).

Embedded (the default): one daphne, a fresh SQLite file, the in-memory layer,
``JASSWEB_BOT_DELAY_MS=0``. ``--scale-out``: a fresh PostgreSQL database, Redis
on 127.0.0.1:6379 with a fresh channel prefix, two daphne processes; every other
table has seats 0 and 1 on one process and seats 2 and 3 on the other, the rest
sit on one process (alternating). ``--processes N``: N daphne processes instead of two. ``--front``:
the scale-out as ``scripts/serve-scaled.sh`` starts it (nginx on one port before the daphne processes, a
Redis and a PostgreSQL database of its own), every seat connecting through nginx, which sends all of a
table's sockets to one process (by the table's path) and spreads the tables; nginx counts among the
helpers (``aux%``). ``--hslu-tables N`` (default 10 with ``--scale-out``) adds tables where two
people (North on one process, South on the other for every other table; behind ``--front``, where
nginx sends them) play with two HSLU bots (East and West) served by a counting bot server in this
process at ``/t<table>s<seat>/``: every request is hashed (path and body) and a request seen twice is
a duplicate. HSLU tables open with the first step, on top of its tables: their sockets count in
``socks``, their moves and requests are in the summary, not in the rows. At the
end the database (SQLite or PostgreSQL) is checked: every game's actions number
exactly ``action_count``, with unique, contiguous seq. A websocket handshake
that fails is counted and tried again (three times in all), as the table page
reconnects.

    .venv/bin/python bench/live_tables.py --steps 10,50,100,250,500 --pace stress,bot,human
    .venv/bin/python bench/live_tables.py --steps 10 --pace stress --seconds 10
    .venv/bin/python bench/live_tables.py --scale-out --steps 250 --pace human --hslu-tables 10
    .venv/bin/python bench/live_tables.py --steps 250 --pace human --clients 2 --no-ceiling
    .venv/bin/python bench/live_tables.py --ceiling-only --steps 10,100,250 --pace stress
    .venv/bin/python bench/live_tables.py --front --pace human --steps 1000,1250 --seconds 10 --server uvicorn

``--server uvicorn`` serves ours and the ceiling with uvicorn (uvloop, httptools, the websockets library)
instead of daphne (Twisted, autobahn), for the choice of a server by measurement; deployed is daphne, whose
stop hands the games over at once (jassweb/shutdown.py).

The load generator shares the machine with the server: read ``gen%`` beside
the figures (``--clients K`` spreads the tables over K client processes).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import multiprocessing
import os
import platform
import random
import resource
import sqlite3
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.server_helpers import ServerProcess, migrate  # noqa: E402

PACES = {"stress": (0.0, 0.0), "bot": (0.0, 1.0), "human": (1.0, 5.0)}
OUR_APP = "jassweb.asgi:application"
CEILING_APP = "bench.ceiling_app:application"
REDIS_URL = "redis://127.0.0.1:6379/0"
CLK_TCK = os.sysconf("SC_CLK_TCK")
SAMPLE_ERRORS = 5
CONNECT_ATTEMPTS = 3
DEFAULT_PAD_FRAME = 3000  # bytes of a ceiling frame when no real state frame was measured


# -- processes: CPU and memory from /proc ---------------------------------------------------------


def _proc_stat_fields(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()  # after "pid (comm) ": field 3 onwards


def descendants(pid: int) -> list[int]:
    """All processes below ``pid`` (daphne's bot worker processes)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _proc_stat_fields(int(entry.name))
            if fields:
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], list(children.get(pid, []))
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def processes_named(*names: str) -> list[int]:
    """Every process whose command name is one of ``names`` (PostgreSQL's backends, redis-server)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if (entry / "comm").read_text().strip() in names:
                    found.append(int(entry.name))
    return found


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of ``pids`` so far (a process that has exited counts 0)."""
    total = 0
    for pid in pids:
        fields = _proc_stat_fields(pid)
        if fields:
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / CLK_TCK


def rss_bytes(pid: int) -> int:
    """Resident memory of one process."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def host_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine, all cores."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return sum(values) - idle, sum(values)


@dataclass
class CpuSample:
    """CPU counters at one moment, to turn two samples into % of one core."""

    at: float
    servers: list[float]
    aux: float
    generator: float
    host: tuple[int, int]


def sample_cpu(servers: list[int], aux: list[int], generator: list[int]) -> CpuSample:
    """The daphne processes one by one; their helpers (and services) together; the load generator."""
    return CpuSample(
        time.monotonic(),
        [cpu_seconds([pid]) for pid in servers],
        cpu_seconds(aux),
        cpu_seconds(generator),
        host_jiffies(),
    )


# -- servers --------------------------------------------------------------------------------------


def log_problems(text: str) -> list[str]:
    """A server log's error lines and its tracebacks' last lines (what went wrong on the server's side)."""
    lines = text.splitlines()
    found = []
    for number, line in enumerate(lines):
        if " ERROR " in line or " CRITICAL " in line:
            found.append(line.strip())
        elif line.startswith("Traceback"):
            # The exception itself is the first unindented line after the traceback.
            tail = next((x for x in lines[number + 1 :] if x and not x.startswith((" ", "\t"))), line)
            found.append(tail.strip())
    return found


class Served(ServerProcess):
    """One server process (daphne, or ``--server``'s) serving ``app`` on a free port, with what its log says
    went wrong."""

    def __init__(self, app: str, env: dict[str, str], timeout: float = 60.0, server: str = "daphne") -> None:
        super().__init__(env, timeout, app, server)
        self.command: list[str] = list(self.process.args)  # type: ignore[arg-type]  # Popen was given a list

    @property
    def pid(self) -> int:
        return self.process.pid

    def problems(self) -> list[str]:
        """The log's error lines and tracebacks' last lines (what went wrong on the server's side)."""
        return log_problems(self.output())

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.log.close()
        with contextlib.suppress(OSError):
            os.unlink(self.log.name)


class ScaledSet:
    """``scripts/serve-scaled.sh``: nginx on one port before ``processes`` daphne processes, PostgreSQL, Redis.

    Its servers are read by pid (CPU, memory) and their logs for errors; its database is checked before
    the set stops (the script drops it).
    """

    def __init__(
        self, app: str, env: dict[str, str], processes: int, timeout: float = 180.0, server: str = "daphne"
    ) -> None:
        from tests.server_helpers import free_port

        self.logs = tempfile.mkdtemp(prefix="serve-scaled-logs-")
        port = free_port()
        merged = {
            "JASSWEB_ROUND_PAUSE_S": "0",
            "JASSWEB_ANALYSIS": "0",
            **os.environ,
            **env,
            "JASSWEB_SERVERS": str(processes),
            "JASSWEB_SERVER": server,
            "JASSWEB_ASGI_APP": app,
            "JASSWEB_LOG_DIR": self.logs,
        }
        merged.pop("DJANGO_SETTINGS_MODULE", None)
        self.process = subprocess.Popen(
            [str(ROOT / "scripts" / "serve-scaled.sh"), str(port)],
            cwd=ROOT,
            env=merged,
            stdout=subprocess.PIPE,
            stderr=open(Path(self.logs) / "serve-scaled.log", "w"),  # noqa: SIM115  # closed with the process
            text=True,
        )
        ready = ""
        deadline = time.monotonic() + timeout
        assert self.process.stdout is not None
        while not ready.startswith("ready:"):
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.stop()
                raise RuntimeError(f"serve-scaled.sh did not get ready: {self.log_tail()}")
            ready = self.process.stdout.readline().strip()
        # ready: URL servers PID,PID nginx PID redis PID database NAME
        words = ready.split()
        self.url = words[1]
        self.pids = [int(pid) for pid in words[3].split(",")]
        self.front_pid = int(words[5])
        base = os.environ.get("JASSWEB_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
        self.database = f"{base.rsplit('/', 1)[0]}/{words[9]}"
        self.metrics_token = words[11] if len(words) > 11 else ""
        self.command = (
            f"scripts/serve-scaled.sh PORT  JASSWEB_SERVERS={processes} JASSWEB_SERVER={server} JASSWEB_ASGI_APP={app}"
        )

    def log_tail(self) -> str:
        with contextlib.suppress(OSError):
            return (Path(self.logs) / "serve-scaled.log").read_text()[-2000:]
        return ""

    def problems(self) -> list[str]:
        """Error lines and tracebacks' last lines in the servers' logs."""
        return [
            p
            for log in sorted(Path(self.logs).glob("web-*.log"))
            for p in log_problems(log.read_text(errors="replace"))
        ]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


class PidOnly:
    """A server of a ``ScaledSet``, as the samples read it (its set starts, watches and stops it)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.url = ""

    def problems(self) -> list[str]:
        return []

    def stop(self) -> None:
        pass


# -- the counting HSLU bot server -----------------------------------------------------------------


class CountingBotServer:
    """HSLU bots for every (table, seat) at ``/t<table>s<seat>/``, counting each distinct request once.

    A request is identified by the sha1 of its path and body: the body holds the bot's hand and
    the tricks so far, so the same request arriving twice means the server asked twice.
    """

    def __init__(self) -> None:
        from bots.examples.simple_bot import choose_card, choose_trump  # the engine only, no Django
        from games.engine import CARD_CODES
        from games.hslu import decode_observation

        self.lock = threading.Lock()
        self.seen: dict[str, int] = {}
        self.by_endpoint: dict[str, int] = {}
        self.seats: set[str] = set()
        self.duplicates: list[str] = []
        self.failures = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the server's httpx client would like

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                digest = hashlib.sha1(self.path.encode() + b"\n" + body).hexdigest()
                parts = self.path.strip("/").split("/")
                endpoint = parts[-1]
                with owner.lock:
                    owner.seen[digest] = owner.seen.get(digest, 0) + 1
                    owner.by_endpoint[endpoint] = owner.by_endpoint.get(endpoint, 0) + 1
                    owner.seats.add(parts[0])
                    if owner.seen[digest] == 2 and len(owner.duplicates) < SAMPLE_ERRORS:
                        owner.duplicates.append(f"{self.path} ({len(body)} bytes)")
                if endpoint == "game_info":
                    return self.reply(200, {})
                try:
                    obs = decode_observation(json.loads(body))
                    if endpoint == "select_trump":
                        return self.reply(200, {"trump": choose_trump(obs)})
                    if endpoint == "play_card":
                        return self.reply(200, {"card": CARD_CODES[choose_card(obs)]})
                except Exception as exc:  # a request we cannot read: answer, count, keep serving
                    with owner.lock:
                        owner.failures += 1
                    return self.reply(400, {"error": str(exc)})
                return self.reply(404, {"error": f"no such path: {self.path}"})

            def reply(self, status: int, data: dict[str, Any]) -> None:
                payload = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, name="hslu-bots", daemon=True)
        self.thread.start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def counts(self) -> dict[str, Any]:
        with self.lock:
            return {
                "requests": sum(self.seen.values()),
                "distinct": len(self.seen),
                "duplicated": sum(n - 1 for n in self.seen.values() if n > 1),
                "by_endpoint": dict(self.by_endpoint),
                "seats": len(self.seats),
                "tables": len({seat.rsplit("s", 1)[0] for seat in self.seats}),
                "samples": list(self.duplicates),
                "failures": self.failures,
            }

    def reset(self) -> None:
        with self.lock:
            self.seen.clear()
            self.by_endpoint.clear()
            self.seats.clear()
            self.duplicates.clear()
            self.failures = 0

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# -- the simulated people (runs in the client processes) -----------------------------------------


@dataclass
class TableSpec:
    """One table to open: which server each person uses, and which seats are HSLU bots."""

    index: int
    kind: str  # "jass" (our server) or "ceiling"
    seat_urls: dict[int, str]  # people's seats -> the base URL of the server that person uses
    bot_base: str = ""  # HSLU tables: the counting bot server
    bot_seats: tuple[int, ...] = ()
    group: str = "main"  # "main" (four people) or "hslu"
    mode: str = "fair"
    split: bool = False


def new_stats() -> dict[str, Any]:
    return {
        "lat": [],  # ms, moves confirmed inside the window
        "done": 0,  # moves confirmed inside the window
        "sent": 0,
        "lost": 0,
        "late": 0,  # lost moves that reached every seat after all
        "refused": 0,  # moves answered with an error frame
        "errors": 0,
        "error_samples": [],
        "stalls": 0,
        "disconnects": 0,
        "restarts": 0,
        "setup_failed": 0,
        "setup_errors": [],
        "connect_failures": 0,  # websocket handshakes that failed (and were tried again)
        "connect_errors": [],
        "state_frames": 0,
        "state_bytes": 0,
        "window_s": 0.0,
        "lost_samples": [],
    }


@dataclass
class Pending:
    """A move sent and not yet seen by every seat."""

    sent: float
    step: int
    msg_id: int
    seats: set[int] = field(default_factory=set)


class Person:
    """One browser tab: a guest's session and its websocket at one seat."""

    def __init__(self, table: LiveTable, seat: int, url: str) -> None:
        self.table, self.seat, self.url = table, seat, url
        self.cookies: dict[str, str] = {}
        self.ws: ClientConnection | None = None
        self.reader: asyncio.Task[None] | None = None
        self.version = -1
        self.key = (-1, -1)  # (game id, moves so far) of the newest state seen
        self.moved_for: tuple[int, int] | None = None
        self.view: dict[str, Any] | None = None

    async def send(self, message: dict[str, Any]) -> None:
        if self.ws is not None:
            with contextlib.suppress(ConnectionClosed):
                await self.ws.send(json.dumps(message))

    async def read(self) -> None:
        """Feed every frame to the table until the socket closes."""
        assert self.ws is not None
        worker = self.table.worker
        try:
            async for text in self.ws:
                try:
                    self.table.on_frame(self, text if isinstance(text, str) else text.decode())
                except Exception as exc:  # a frame we cannot read counts as an error; the socket reads on
                    worker.error(self.table.spec.group, "client", f"could not handle a frame: {exc!r}")
        except ConnectionClosed:
            pass
        if not worker.closing:
            worker.stats(self.table.spec.group)["disconnects"] += 1


class LiveTable:
    """One table's people, their pending moves and the confirmation bookkeeping."""

    def __init__(self, worker: Worker, spec: TableSpec) -> None:
        self.worker, self.spec = worker, spec
        self.people = {seat: Person(self, seat, url) for seat, url in spec.seat_urls.items()}
        self.creator = min(self.people)
        self.pending: dict[tuple[int, int], Pending] = {}
        self.lost: dict[tuple[int, int], Pending] = {}  # counted lost, still watched for a late arrival
        self.max_key = (-1, -1)
        self.last_progress = time.monotonic()
        self.restarted: set[int] = set()
        self.rng = random.Random(f"{worker.seed}-{spec.kind}-{spec.index}")
        self.table_id = 0

    # -- frames in --

    def on_frame(self, person: Person, text: str) -> None:
        now = time.monotonic()
        try:
            frame = json.loads(text)
        except ValueError:
            self.worker.error(self.spec.group, "client", f"not JSON: {text[:80]!r}")
            return
        kind = frame.get("type") if isinstance(frame, dict) else None
        if kind == "state":
            self.on_state(person, frame, len(text), now)
        elif kind == "move":
            self.on_relay(person, frame, now)
        elif kind == "error":
            self.on_error(person, frame)
        # other frame types (pong, presence, bot_test...) are not ours to judge

    def on_state(self, person: Person, frame: dict[str, Any], size: int, now: float) -> None:
        stats = self.worker.stats(self.spec.group)
        stats["state_frames"] += 1
        stats["state_bytes"] += size
        version = frame.get("version", 0)
        if version < person.version:
            return  # an older state overtaken by a newer one
        person.version = version
        person.view = view = frame.get("view") or {}
        game = view.get("game")
        if not game:
            return
        key = (game["id"], game["seq"])
        self.observe(person, key, now)
        if self.worker.stopping:
            return
        if game.get("over") or game.get("status") != "running":
            if person.seat == self.creator and game["id"] not in self.restarted:
                self.restarted.add(game["id"])  # once per finished game: the next one keeps the load
                stats["restarts"] += 1
                self.worker.spawn(person.send({"type": "start"}))
            return
        if game.get("player") != person.seat or person.moved_for == key or key < person.key:
            return
        trumps, cards = game.get("legal_trumps") or [], game.get("legal") or []
        if trumps:
            message = {"type": "choose_trump", "trump": self.rng.choice(trumps), "seq": key[1]}
        elif cards:
            message = {"type": "play_card", "card": self.rng.choice(cards), "seq": key[1]}
        else:
            return
        person.moved_for = key
        self.worker.spawn(self.move(person, key, message))

    def on_relay(self, person: Person, frame: dict[str, Any], now: float) -> None:
        """The ceiling: frame ``seq`` n is move n; the seat after it makes move n + 1."""
        seq = int(frame.get("seq", -1))
        key = (0, seq + 1)
        self.observe(person, key, now)
        if not self.worker.stopping and (seq + 1) % 4 == person.seat and person.moved_for != key:
            self.ceiling_move(person, key)

    def ceiling_move(self, person: Person, key: tuple[int, int]) -> None:
        person.moved_for = key
        self.worker.spawn(self.move(person, key, {"type": "move", "seq": key[1], "pad": self.worker.pad}))

    def on_error(self, person: Person, frame: dict[str, Any]) -> None:
        self.worker.error(self.spec.group, str(frame.get("code")), str(frame.get("message")))
        ref = frame.get("id")
        for key, pending in list(self.pending.items()):
            if pending.msg_id == ref:  # the move was refused: an error reply, not a lost move
                del self.pending[key]
                self.worker.step_stats(self.spec.group, pending.step)["refused"] += 1

    def observe(self, person: Person, key: tuple[int, int], now: float) -> None:
        """``person`` saw the game at ``key``: every pending move before it is confirmed at that seat."""
        person.key = max(person.key, key)
        if key > self.max_key:
            self.max_key = key
            self.last_progress = now
        for pending_key, pending in list(self.pending.items()):
            if key > pending_key:
                pending.seats.add(person.seat)
                if len(pending.seats) == len(self.people):
                    del self.pending[pending_key]
                    self.worker.confirmed(self.spec.group, now - pending.sent)
        for lost_key, pending in list(self.lost.items()):
            if key > lost_key:
                pending.seats.add(person.seat)
                if len(pending.seats) == len(self.people):
                    del self.lost[lost_key]
                    self.worker.step_stats(self.spec.group, pending.step)["late"] += 1

    # -- moves out --

    async def move(self, person: Person, key: tuple[int, int], message: dict[str, Any]) -> None:
        low, high = self.worker.think
        if high > 0:
            await asyncio.sleep(self.rng.uniform(low, high))
        if self.worker.stopping or person.key != key:
            return
        message["id"] = msg_id = self.worker.new_id()
        self.pending[key] = Pending(time.monotonic(), self.worker.step, msg_id)
        self.worker.stats(self.spec.group)["sent"] += 1
        await person.send(message)

    def unstall(self, now: float) -> None:
        """Nothing moved for too long: ask every seat for a fresh state (ours) or move again (ceiling)."""
        self.worker.stats(self.spec.group)["stalls"] += 1
        self.last_progress = now
        if self.spec.kind == "ceiling":
            mover = self.people.get(self.max_key[1] % 4)
            if mover is not None:
                mover.key = self.max_key  # it may have missed the frame that made it the mover
                self.ceiling_move(mover, self.max_key)
            return
        self.restarted.clear()
        for person in self.people.values():
            person.moved_for = None
            self.worker.spawn(person.send({"type": "resync"}))

    # -- set-up and tear-down --

    async def prepare(self) -> None:
        """What a person's browser does before its socket opens: the pages (guest, lobby form, table page).

        The ceiling has no pages: its people only open sockets.
        """
        if self.spec.kind == "ceiling":
            return
        await asyncio.gather(*(self.become_guest(p) for p in self.people.values()))
        self.table_id = await self.open_table(self.people[self.creator])
        await asyncio.gather(*(self.get_page(p) for p in self.people.values()))

    async def setup(self) -> None:
        """The sockets, the seats taken and the game started (after ``prepare``)."""
        if self.spec.kind == "ceiling":
            await asyncio.gather(*(self.connect(p, f"/ws/tables/{self.spec.index}/") for p in self.people.values()))
            self.observe(self.people[0], (0, 0), time.monotonic())
            self.ceiling_move(self.people[0], (0, 0))
            return
        await asyncio.gather(*(self.connect(p, f"/ws/tables/{self.table_id}/") for p in self.people.values()))
        await self.until(lambda: all(p.view for p in self.people.values()), "first states")
        for person in self.people.values():
            if person.seat != self.creator:
                await person.send({"type": "join", "seat": person.seat})
        creator = self.people[self.creator]
        for seat in self.spec.bot_seats:
            url = f"{self.spec.bot_base}/t{self.table_id}s{seat}"
            await creator.send({"type": "add_remote_bot", "seat": seat, "url": url, "name": "bench", "dialect": "spec"})
        await self.until(
            lambda: all(s.get("kind") != "empty" for s in (creator.view or {}).get("seats", [])), "seats filled"
        )
        await creator.send({"type": "start"})
        await self.until(lambda: bool((creator.view or {}).get("game")), "game started")

    async def until(self, predicate: Any, what: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise TimeoutError(f"table {self.spec.index}: no {what} within {timeout:.0f} s")
            await asyncio.sleep(0.05)

    def http(self, person: Person) -> httpx.AsyncClient:
        # One TLS context for all clients: building one per client (certifi's bundle) costs ~10 ms.
        return httpx.AsyncClient(
            base_url=person.url, cookies=person.cookies, timeout=60.0, verify=self.worker.tls, trust_env=False
        )

    async def become_guest(self, person: Person) -> None:
        """The lobby page (for its CSRF cookie), then the guest form, as tests.ws_helpers.guest_cookies does."""
        async with self.http(person) as http:
            await http.get("/")
            token = http.cookies.get("csrftoken")
            if not token:
                raise RuntimeError("the lobby set no CSRF cookie")
            nickname = f"P{self.spec.index}{self.spec.kind[0]}{person.seat}"
            response = await http.post("/guest/", data={"nickname": nickname, "csrfmiddlewaretoken": token})
            if response.status_code != 302 or "sessionid" not in http.cookies:
                raise RuntimeError(f"guest form answered {response.status_code}: {response.text[:200]}")
            person.cookies = dict(http.cookies)

    async def open_table(self, person: Person) -> int:
        """The lobby's table form, as tests.ws_helpers.create_live_table posts it."""
        fields = {
            "name": f"Bench {self.spec.index}",
            "mode": self.spec.mode,
            "target": "1000",
            "round_count": "12",
            "seat": str(person.seat),
            "csrfmiddlewaretoken": person.cookies["csrftoken"],
        }
        async with self.http(person) as http:
            response = await http.post("/tables/new/", data=fields)
        location = response.headers.get("location", "")
        if response.status_code != 302 or "/tables/" not in location:
            raise RuntimeError(f"table form answered {response.status_code}: {response.text[:200]}")
        return int(location.rstrip("/").split("/")[-1])

    async def get_page(self, person: Person) -> None:
        async with self.http(person) as http:
            response = await http.get(f"/tables/{self.table_id}/")
        if response.status_code != 200:
            raise RuntimeError(f"table page answered {response.status_code}")

    async def connect(self, person: Person, path: str) -> None:
        headers = {"Origin": person.url}
        if person.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in person.cookies.items())
        for attempt in range(1, CONNECT_ATTEMPTS + 1):
            try:
                person.ws = await connect(
                    person.url.replace("http://", "ws://") + path,
                    additional_headers=headers,
                    open_timeout=60,
                    close_timeout=2,
                    ping_interval=None,  # browsers do not ping; the server's pings are answered all the same
                    max_size=2**22,
                )
                break
            except (OSError, TimeoutError, WebSocketException) as exc:
                # A refused or dropped handshake (daphne gives the app 5 s to accept): count it and
                # try again a moment later, as the table page's script reconnects.
                stats = self.worker.stats(self.spec.group)
                stats["connect_failures"] += 1
                if len(stats["connect_errors"]) < SAMPLE_ERRORS:
                    stats["connect_errors"].append(f"table {self.spec.index} seat {person.seat}: {exc!r:.160}")
                if attempt == CONNECT_ATTEMPTS:
                    raise
                await asyncio.sleep(attempt)
        person.reader = asyncio.create_task(person.read())

    async def close(self) -> None:
        for person in self.people.values():
            if person.ws is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(person.ws.close(), 5)
            if person.reader is not None:
                person.reader.cancel()


class Worker:
    """One client process: an asyncio loop driving its share of the tables, steered over a pipe."""

    def __init__(self, conn: Connection, config: dict[str, Any]) -> None:
        self.conn = conn
        self.seed: int = config["seed"]
        self.think: tuple[float, float] = PACES[config["pace"]]
        self.lost_after: float = config["lost_after"]
        # Long enough that an overloaded server's slow moves are counted lost, not "unstalled" with resyncs
        # that would only add load; short enough to recover a table whose move was refused.
        self.stall_after = 2 * self.lost_after + self.think[1]
        self.pad: str = "x" * config.get("pad", 0)
        self.setup_gate = asyncio.Semaphore(config["setup_concurrency"])
        self.tls = ssl.create_default_context()
        self.tables: list[LiveTable] = []
        self.prepared: dict[int, LiveTable] = {}  # by spec index: pages done, sockets not yet open
        self.step = 0
        self.window = False
        self.window_started = 0.0
        self.stopping = False
        self.closing = False
        self._ids = 0
        self._stats: dict[tuple[int, str], dict[str, Any]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    def new_id(self) -> int:
        self._ids += 1
        return self._ids

    def step_stats(self, group: str, step: int) -> dict[str, Any]:
        return self._stats.setdefault((step, group), new_stats())

    def stats(self, group: str) -> dict[str, Any]:
        return self.step_stats(group, self.step)

    def error(self, group: str, code: str, message: str) -> None:
        stats = self.stats(group)
        stats["errors"] += 1
        if len(stats["error_samples"]) < SAMPLE_ERRORS:
            stats["error_samples"].append(f"{code}: {message[:160]}")

    def confirmed(self, group: str, seconds: float) -> None:
        if self.window:
            stats = self.stats(group)
            stats["lat"].append(seconds * 1000)
            stats["done"] += 1

    def spawn(self, coroutine: Any) -> None:
        """Run ``coroutine`` beside the readers, keeping a reference so it is not collected mid-flight."""
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def tick(self) -> None:
        """Expire lost moves and wake stalled tables, twice a second."""
        while True:
            await asyncio.sleep(0.5)
            now = time.monotonic()
            for table in self.tables:
                for key, pending in list(table.pending.items()):
                    if now - pending.sent > self.lost_after:
                        del table.pending[key]
                        table.lost[key] = pending
                        stats = self.step_stats(table.spec.group, pending.step)
                        stats["lost"] += 1
                        if len(stats["lost_samples"]) < SAMPLE_ERRORS:
                            stats["lost_samples"].append(
                                f"table {table.table_id or table.spec.index} game {key[0]} move {key[1]}: "
                                f"seen at seats {sorted(pending.seats)} of {sorted(table.people)}"
                            )
                if not self.stopping and not table.pending and now - table.last_progress > self.stall_after:
                    table.unstall(now)

    def _setup_failed(self, spec: TableSpec, exc: Exception) -> None:
        stats = self.stats(spec.group)
        stats["setup_failed"] += 1
        if len(stats["setup_errors"]) < SAMPLE_ERRORS:
            stats["setup_errors"].append(f"table {spec.index}: {exc!r:.200}")

    async def prepare(self, specs: list[TableSpec]) -> dict[str, Any]:
        """Every table's pages, no socket yet (so the server's memory can be read between the two)."""

        async def one(spec: TableSpec) -> None:
            table = LiveTable(self, spec)
            async with self.setup_gate:
                try:
                    await table.prepare()
                except Exception as exc:
                    self._setup_failed(spec, exc)
                    return
            self.prepared[spec.index] = table

        await asyncio.gather(*(one(spec) for spec in specs))
        return {"prepared": len(self.prepared)}

    async def add(self, specs: list[TableSpec]) -> dict[str, Any]:
        async def one(spec: TableSpec) -> None:
            table = self.prepared.pop(spec.index, None)
            if table is None:
                if spec.kind != "ceiling":
                    return  # its pages failed: counted in prepare
                table = LiveTable(self, spec)
            async with self.setup_gate:
                try:
                    await table.setup()
                except Exception as exc:
                    self._setup_failed(spec, exc)
                    await table.close()
                    return
            table.last_progress = time.monotonic()
            self.tables.append(table)

        await asyncio.gather(*(one(spec) for spec in specs))
        return {"tables": len(self.tables)}

    async def drain(self) -> None:
        """Stop moving and wait until every sent move is confirmed or counted lost."""
        self.stopping = True
        deadline = time.monotonic() + self.lost_after + 2
        while any(t.pending for t in self.tables) and time.monotonic() < deadline:
            await asyncio.sleep(0.2)

    async def run(self) -> None:
        ticker = asyncio.create_task(self.tick())
        try:
            while True:
                command = await asyncio.to_thread(self.conn.recv)
                name = command["cmd"]
                reply: dict[str, Any]
                if name == "prepare":
                    self.step = command["step"]
                    reply = await self.prepare([TableSpec(**s) for s in command["tables"]])
                elif name == "add":
                    self.step = command["step"]
                    reply = await self.add([TableSpec(**s) for s in command["tables"]])
                elif name == "window_start":
                    self.window, self.window_started = True, time.monotonic()
                    reply = {}
                elif name == "window_end":
                    self.window = False
                    for group in ("main", "hslu"):
                        self.stats(group)["window_s"] = time.monotonic() - self.window_started
                    reply = {"stats": {g: self.stats(g) for g in ("main", "hslu")}}
                elif name == "drain":
                    await self.drain()
                    reply = {"steps": [[step, group, s] for (step, group), s in self._stats.items()]}
                elif name == "close":
                    self.closing = True
                    await asyncio.gather(*(t.close() for t in self.tables))
                    self.conn.send({})
                    return
                else:
                    reply = {"error": f"unknown command {name}"}
                self.conn.send(reply)
        finally:
            ticker.cancel()


def worker_main(conn: Connection, config: dict[str, Any]) -> None:
    """Entry point of a client process."""
    asyncio.run(Worker(conn, config).run())


# -- the orchestrator (this process) ---------------------------------------------------------------


class Clients:
    """The client processes of one run, commanded in lockstep."""

    def __init__(self, count: int, config: dict[str, Any]) -> None:
        context = multiprocessing.get_context("spawn")  # a clean interpreter: no threads, no Django
        self.conns: list[Connection] = []
        self.processes: list[multiprocessing.process.BaseProcess] = []
        for number in range(count):
            parent, child = context.Pipe()
            process = context.Process(
                target=worker_main, args=(child, {**config, "seed": config["seed"] * 100 + number}), daemon=True
            )
            process.start()
            self.conns.append(parent)
            self.processes.append(process)

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.processes if p.pid is not None]

    def command(self, messages: list[dict[str, Any]], timeout: float) -> list[dict[str, Any]]:
        """Send one message to each client and wait for every reply."""
        for conn, message in zip(self.conns, messages, strict=True):
            conn.send(message)
        replies = []
        deadline = time.monotonic() + timeout
        for conn, process in zip(self.conns, self.processes, strict=True):
            while not conn.poll(0.5):
                if not process.is_alive():
                    raise RuntimeError(f"client process {process.pid} died (exit code {process.exitcode})")
                if time.monotonic() > deadline:
                    raise TimeoutError(f"client {process.pid} did not answer {messages[0]['cmd']} in {timeout:.0f} s")
            replies.append(conn.recv())
        return replies

    def all(self, message: dict[str, Any], timeout: float) -> list[dict[str, Any]]:
        return self.command([message] * len(self.conns), timeout)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.all({"cmd": "close"}, 30)
        for process in self.processes:
            process.join(5)
            if process.is_alive():
                process.kill()
                process.join(5)


@dataclass
class StepRow:
    """One step's figures for one server (ours or the ceiling)."""

    tables: int
    sockets: int
    setup_s: float
    moves_per_s: float
    p50: float
    p95: float
    p99: float
    max: float
    lost: int
    late: int
    errors: int
    refused: int
    stalls: int
    disconnects: int
    setup_failed: int
    rss: list[int]
    cpu: list[float]
    aux_cpu: float
    generator_cpu: float
    host_cpu: float
    kb_per_socket: float
    rss_open: int = 0  # the server(s) with every socket of this step open
    rss_before: int = 0  # the server(s) before this step's tables were opened
    rss_pages: int = 0  # the server(s) after this step's tables' pages, before their sockets
    hslu: dict[str, Any] = field(default_factory=dict)
    gc: dict[str, GcPauses] = field(default_factory=dict)  # ours behind the front: the window's collections


@dataclass
class GcPauses:
    """One generation's garbage collections in a window, over every server (jassweb_gc_pause_seconds)."""

    count: int
    total_ms: float
    longest_ms: float  # the histogram's bound that every one of them stayed under (inf: above its last)


def gc_histograms(url: str, token: str) -> dict[str, dict[str, float]]:
    """The servers' ``jassweb_gc_pause_seconds`` now, read through the front: by generation, each bucket's
    cumulative count by its bound (``le``), and ``sum``."""
    from prometheus_client.parser import text_string_to_metric_families

    response = httpx.get(url + "/metrics", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    response.raise_for_status()
    seen: dict[str, dict[str, float]] = {}
    for family in text_string_to_metric_families(response.text):
        if family.name != "jassweb_gc_pause_seconds":
            continue
        for sample in family.samples:
            by = seen.setdefault(sample.labels["generation"], {})
            if sample.name.endswith("_bucket"):
                by[sample.labels["le"]] = sample.value
            elif sample.name.endswith("_sum"):
                by["sum"] = sample.value
    return seen


def gc_window(before: dict[str, dict[str, float]], after: dict[str, dict[str, float]]) -> dict[str, GcPauses]:
    """What each generation's collections took between two readings of ``gc_histograms``."""
    window = {}
    for generation, now in sorted(after.items()):
        then = before.get(generation, {})
        count = now.get("+Inf", 0) - then.get("+Inf", 0)
        bounds = sorted((float(le), n - then.get(le, 0)) for le, n in now.items() if le != "sum")
        longest = next((bound for bound, n in bounds if n >= count), float("inf"))
        window[generation] = GcPauses(int(count), (now.get("sum", 0) - then.get("sum", 0)) * 1000, longest * 1000)
    return window


def gc_line(pauses: dict[str, GcPauses]) -> str:
    return ", ".join(
        f"gen{g} {p.count}x {p.total_ms:,.0f} ms (each <= {p.longest_ms:g} ms)" if p.count else f"gen{g} none"
        for g, p in sorted(pauses.items())
    )


@dataclass
class RunResult:
    """One server kind at one pace: its rows, and what went wrong along the way."""

    target: str
    pace: str
    command: str
    rows: list[StepRow] = field(default_factory=list)
    error_samples: list[str] = field(default_factory=list)
    lost_samples: list[str] = field(default_factory=list)
    setup_errors: list[str] = field(default_factory=list)
    connect_errors: list[str] = field(default_factory=list)
    connect_failures: int = 0
    server_problems: list[str] = field(default_factory=list)
    frame_bytes: float = 0.0
    db_check: str = ""
    bots: dict[str, Any] = field(default_factory=dict)
    hslu_totals: dict[str, Any] = field(default_factory=dict)
    failure: str = ""


def quantile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Add up the stats of several clients (one step, one group)."""
    total = new_stats()
    for part in parts:
        for key, value in part.items():
            if key == "window_s":
                total[key] = max(total[key], value)
            elif isinstance(value, list):
                total[key].extend(value)
            else:
                total[key] += value
    return total


def table_specs(kind: str, first: int, last: int, servers: list[str], scale_out: bool) -> list[TableSpec]:
    """People tables ``first``..``last - 1``: in scale-out every other one is split across the processes."""
    specs = []
    for index in range(first, last):
        split = scale_out and index % 2 == 0
        if split:
            urls = {0: servers[0], 1: servers[0], 2: servers[1], 3: servers[1]}
        else:
            home = servers[(index // 2) % len(servers)]
            urls = dict.fromkeys(range(4), home)
        specs.append(TableSpec(index=index, kind=kind, seat_urls=urls, split=split))
    return specs


def hslu_specs(count: int, servers: list[str], bot_base: str) -> list[TableSpec]:
    """Tables of two people (North, South) and two HSLU bots (East, West)."""
    specs = []
    for number in range(count):
        split = len(servers) > 1 and number % 2 == 0
        urls = {0: servers[0], 2: servers[1 if split else (number // 2) % len(servers)]}
        if not split:
            urls[0] = urls[2]
        specs.append(
            TableSpec(
                index=100_000 + number,
                kind="jass",
                seat_urls=urls,
                bot_base=bot_base,
                bot_seats=(1, 3),
                group="hslu",
                split=split,
            )
        )
    return specs


def check_database(database: str) -> str:
    """Every game's actions: as many as action_count, seq unique and contiguous from 0."""
    query = (
        "SELECT g.id, g.action_count, COUNT(a.id), COUNT(DISTINCT a.seq), COALESCE(MIN(a.seq), 0), "
        "COALESCE(MAX(a.seq), -1) FROM games_game g LEFT JOIN games_action a ON a.game_id = g.id "
        "GROUP BY g.id, g.action_count"
    )
    if database.startswith("postgres"):
        import psycopg

        with psycopg.connect(database, connect_timeout=5) as conn:
            rows = conn.execute(query).fetchall()
    else:
        with contextlib.closing(sqlite3.connect(database, timeout=30)) as conn:
            rows = conn.execute(query).fetchall()
    bad = [
        row
        for row in rows
        if row[2] != row[1] or row[3] != row[2] or (row[2] and (row[4] != 0 or row[5] != row[2] - 1))
    ]
    actions = sum(row[2] for row in rows)
    text = f"{len(rows)} games, {actions} actions: {len(bad)} games with missing or duplicated moves"
    for game_id, count, stored, distinct, low, high in bad[:SAMPLE_ERRORS]:
        text += f"\n    game {game_id}: action_count {count}, {stored} rows, {distinct} distinct seq, {low}..{high}"
    return text


def run_one(target: str, pace: str, args: argparse.Namespace, bots: CountingBotServer | None, pad: int) -> RunResult:
    """Start fresh servers for ``target`` ("ours" or "ceiling"), ramp the tables at ``pace``, return the rows."""
    processes = args.processes if args.scale_out else 1
    app = OUR_APP if target == "ours" else CEILING_APP
    result = RunResult(target, pace, "")
    servers: list[Served] | list[PidOnly] = []
    scaled: ScaledSet | None = None
    clients: Clients | None = None
    with contextlib.ExitStack() as stack:
        directory = stack.enter_context(tempfile.TemporaryDirectory(prefix="live-tables-"))
        # Hundreds of guests and tables from one address: the limits on abuse would stop the crowd.
        env: dict[str, str] = {"JASSWEB_BOT_DELAY_MS": "0", "JASSWEB_LIMITS": "0"}
        database = ""
        if args.front:
            pass  # serve-scaled.sh brings its own Redis and PostgreSQL database
        elif args.scale_out:
            env["REDIS_URL"] = REDIS_URL
            env["JASSWEB_CHANNEL_PREFIX"] = f"bench-{uuid.uuid4().hex[:10]}"
            if target == "ours":
                from tests.services import postgres_database

                database = stack.enter_context(postgres_database())
                env["DATABASE_URL"] = database
        elif target == "ours":
            database = env["JASSWEB_SQLITE_PATH"] = str(Path(directory) / "db.sqlite3")
        try:
            if args.front:
                scaled = ScaledSet(app, env, processes, server=args.server)
                servers = [PidOnly(pid) for pid in scaled.pids]
                database = scaled.database if target == "ours" else ""
                result.command = scaled.command + "  " + " ".join(f"{k}={v}" for k, v in env.items())
                urls = [scaled.url] * 2  # every seat through the front; nginx picks the server by the table
            else:
                if target == "ours":
                    migrate(env)
                servers = [Served(app, env, server=args.server) for _ in range(processes)]
                result.command = (
                    " ".join(["python", *servers[0].command[1:]])
                    + "  "
                    + " ".join(f"{k}={v}" for k, v in env.items() if k != "DATABASE_URL")
                )
                urls = [s.url for s in servers]
            base_rss = [rss_bytes(s.pid) for s in servers]
            config = {
                "pace": pace,
                "seed": args.seed,
                "lost_after": args.lost_after,
                "setup_concurrency": args.setup_concurrency,
                "pad": pad,
            }
            clients = Clients(args.clients, config)
            generator_pids = [os.getpid(), *clients.pids]
            with_hslu = target == "ours" and bots is not None and args.hslu_tables > 0
            if bots is not None:
                bots.reset()
            opened = 0
            for step, tables in enumerate(args.steps):
                kind = "jass" if target == "ours" else "ceiling"
                specs = table_specs(kind, opened, tables, urls, args.scale_out)
                if step == 0 and with_hslu:
                    assert bots is not None
                    specs += hslu_specs(args.hslu_tables, urls, bots.base)
                shares: list[list[dict[str, Any]]] = [[] for _ in range(args.clients)]
                for number, spec in enumerate(specs):
                    shares[number % args.clients].append(asdict(spec))
                began = time.monotonic()
                rss_before = [rss_bytes(s.pid) for s in servers]
                for command in ("prepare", "add"):  # the pages first, then the sockets: memory read between
                    clients.command(
                        [{"cmd": command, "step": step, "tables": share} for share in shares], 300 + 2 * len(specs)
                    )
                    if command == "prepare":
                        rss_pages = [rss_bytes(s.pid) for s in servers]
                setup_s = time.monotonic() - began
                opened = tables
                rss_open = [rss_bytes(s.pid) for s in servers]
                time.sleep(args.warmup)
                pids = [s.pid for s in servers]
                # The servers' helpers: bot worker processes, and in scale-out PostgreSQL and Redis.
                aux = [pid for s in servers for pid in descendants(s.pid)]
                if args.scale_out:
                    aux += processes_named("postgres", "redis-server")
                if scaled is not None:
                    aux += [scaled.front_pid, *descendants(scaled.front_pid)]
                # Ours behind the front: the collector's pauses in the window, from /metrics.
                gc_read = scaled is not None and bool(scaled.metrics_token) and target == "ours"
                gc_before = gc_histograms(scaled.url, scaled.metrics_token) if scaled and gc_read else {}
                before = sample_cpu(pids, aux, generator_pids)
                # For a profiler attached by hand: when the window opens, and to which processes.
                servers_named = ",".join(str(pid) for pid in pids)
                print(
                    f"  {target} {pace} {tables} tables: window of {args.seconds:.0f} s, servers {servers_named}",
                    file=sys.stderr,
                    flush=True,
                )
                clients.all({"cmd": "window_start"}, 30)
                time.sleep(args.seconds)
                replies = clients.all({"cmd": "window_end"}, 60)
                after = sample_cpu(pids, aux, generator_pids)
                main = merge([r["stats"]["main"] for r in replies])
                hslu = merge([r["stats"]["hslu"] for r in replies])
                row = make_row(main, hslu, tables, setup_s, rss_open, base_rss, before, after, servers, with_hslu, args)
                row.rss_before, row.rss_pages = sum(rss_before), sum(rss_pages)
                if scaled is not None and gc_read:
                    row.gc = gc_window(gc_before, gc_histograms(scaled.url, scaled.metrics_token))
                result.rows.append(row)
                print(progress_line(target, pace, row), file=sys.stderr, flush=True)
            finals = clients.all({"cmd": "drain"}, args.lost_after + 60)
            settle_rows(result, finals)
        except Exception as exc:
            result.failure = f"{type(exc).__name__}: {exc}"
            print(f"  {target} {pace}: FAILED: {result.failure}", file=sys.stderr, flush=True)
        finally:
            if clients is not None:
                clients.close()
            for server in servers:
                result.server_problems.extend(server.problems())
                server.stop()
            if target == "ours" and database:
                try:
                    result.db_check = check_database(database)
                except Exception as exc:
                    result.db_check = f"could not check: {exc!r:.200}"
            if scaled is not None:
                result.server_problems.extend(scaled.problems())
                scaled.stop()
            if bots is not None and target == "ours" and args.hslu_tables:
                result.bots = bots.counts()
    return result


def make_row(
    main: dict[str, Any],
    hslu: dict[str, Any],
    tables: int,
    setup_s: float,
    rss_open: list[int],
    base_rss: list[int],
    before: CpuSample,
    after: CpuSample,
    servers: Sequence[Served | PidOnly],
    with_hslu: bool,
    args: argparse.Namespace,
) -> StepRow:
    """One step's row from the merged client stats and the /proc samples."""
    elapsed = after.at - before.at
    ordered = sorted(main["lat"])
    sockets = tables * 4 + (2 * args.hslu_tables if with_hslu else 0)
    busy = (after.host[0] - before.host[0]) / max(1, after.host[1] - before.host[1]) * (os.cpu_count() or 1) * 100
    return StepRow(
        tables=tables,
        sockets=sockets,
        setup_s=setup_s,
        moves_per_s=main["done"] / max(elapsed, 1e-9),
        p50=quantile(ordered, 0.50),
        p95=quantile(ordered, 0.95),
        p99=quantile(ordered, 0.99),
        max=ordered[-1] if ordered else 0.0,
        lost=main["lost"],
        late=main["late"],
        errors=main["errors"],
        refused=main["refused"],
        stalls=main["stalls"],
        disconnects=main["disconnects"],
        setup_failed=main["setup_failed"],
        rss=[rss_bytes(s.pid) for s in servers],
        cpu=[(b - a) / elapsed * 100 for a, b in zip(before.servers, after.servers, strict=True)],
        aux_cpu=(after.aux - before.aux) / elapsed * 100,
        generator_cpu=(after.generator - before.generator) / elapsed * 100,
        host_cpu=busy,
        kb_per_socket=(sum(rss_open) - sum(base_rss)) / 1024 / max(1, sockets),
        rss_open=sum(rss_open),
        hslu={"moves_per_s": hslu["done"] / max(elapsed, 1e-9), "p99": quantile(sorted(hslu["lat"]), 0.99)},
    )


def settle_rows(result: RunResult, finals: list[dict[str, Any]]) -> None:
    """After the drain: every step's complete lost/error counts, and the samples to show."""
    by_step: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for reply in finals:
        for step, group, stats in reply["steps"]:
            by_step.setdefault((step, group), []).append(stats)
    hslu_total = new_stats()
    frames = size = 0
    for (step, group), parts in sorted(by_step.items()):
        stats = merge(parts)
        result.error_samples.extend(stats["error_samples"])
        result.lost_samples.extend(stats["lost_samples"])
        result.setup_errors.extend(stats["setup_errors"])
        result.connect_errors.extend(stats["connect_errors"])
        result.connect_failures += stats["connect_failures"]
        frames += stats["state_frames"]
        size += stats["state_bytes"]
        if group == "hslu":
            hslu_total = merge([hslu_total, stats])
            continue
        if step < len(result.rows):
            row = result.rows[step]
            for name in ("lost", "late", "errors", "refused", "stalls", "disconnects", "setup_failed"):
                setattr(row, name, stats[name])
    result.frame_bytes = size / frames if frames else 0.0
    result.hslu_totals = {k: v for k, v in hslu_total.items() if not isinstance(v, list)}


# -- printing -----------------------------------------------------------------------------------


def progress_line(target: str, pace: str, row: StepRow) -> str:
    return (
        f"  {target:<7} {pace:<6} {row.tables:>4} tables {row.sockets:>5} sockets  set-up {row.setup_s:5.1f} s  "
        f"{row.moves_per_s:7.1f} moves/s  p99 {row.p99:7.1f} ms  lost {row.lost}  errors {row.errors}  "
        f"server CPU {sum(row.cpu):4.0f}% (+{row.aux_cpu:.0f}% helpers)  load generator {row.generator_cpu:4.0f}%"
        + (f"\n    garbage collections: {gc_line(row.gc)}" if row.gc else "")
    )


def joined(values: Sequence[float], unit: float = 1.0) -> str:
    """The sum, and each process when there are several: ``123 (61+62)``."""
    total = f"{sum(values) / unit:.0f}"
    return total if len(values) == 1 else f"{total} ({'+'.join(f'{v / unit:.0f}' for v in values)})"


def print_report(args: argparse.Namespace, results: dict[tuple[str, str], RunResult], bots_used: bool) -> None:
    processes = args.processes if args.scale_out else 1
    print()
    front = ", nginx in front (scripts/serve-scaled.sh)" if args.front else ""
    mode = (
        f"scale-out: {processes} {args.server} processes, PostgreSQL, Redis pub/sub layer{front}"
        if args.scale_out
        else f"embedded default: 1 {args.server} process, SQLite, in-memory channel layer"
    )
    print(f"Live tables: {mode}")
    print(
        f"machine: {os.cpu_count()} cores, {platform.platform()}, Python {platform.python_version()}; "
        f"load generator: {args.clients} client process(es) on the same machine"
    )
    commands = {r.target: r.command for r in results.values() if r.command}
    for target, command in commands.items():
        print(f"{target + ':':<9}{command}")
    print(
        f"{args.seconds:.0f} s measured per step after {args.warmup:.0f} s warm-up; a move is lost when not at every "
        f"seat within {args.lost_after:.0f} s; fair mode, 12 rounds; latencies in ms"
    )
    width = 17 if processes > 1 else 8
    header = (
        f"{'pace':<7}{'tables':>6}{'socks':>6}{'mv/s':>8}{'p50':>7}{'p95':>7}{'p99':>7}{'max':>7}{'lost':>5}"
        f"{'err':>5}{'RSS MB':>{width}}{'CPU%':>{width}}{'aux%':>6}{'c.mv/s':>8}{'c.p99':>7}{'c.CPU%':>{width}}"
        f"{'thr%':>6}{'p99x':>6}{'gen%':>6}{'host%':>6}"
    )
    for pace in args.paces:
        ours, ceiling = results.get(("ours", pace)), results.get(("ceiling", pace))
        if ours is None and ceiling is not None:  # --ceiling-only: its figures in the first columns
            ours, ceiling = ceiling, None
        if ours is None:
            continue
        print()
        print(header if ours.target == "ours" else f"{header}   (the ceiling alone)")
        for step, row in enumerate(ours.rows):
            c = ceiling.rows[step] if ceiling and step < len(ceiling.rows) else None
            thr = f"{row.moves_per_s / c.moves_per_s * 100:.0f}" if c and c.moves_per_s else "-"
            p99x = f"{row.p99 / c.p99:.1f}" if c and c.p99 else "-"
            print(
                f"{pace:<7}{row.tables:>6}{row.sockets:>6}{row.moves_per_s:>8.1f}{row.p50:>7.1f}{row.p95:>7.1f}"
                f"{row.p99:>7.1f}{row.max:>7.0f}{row.lost:>5}{row.errors:>5}{joined(row.rss, 2**20):>{width}}"
                f"{joined(row.cpu):>{width}}{row.aux_cpu:>6.0f}{(f'{c.moves_per_s:.1f}' if c else '-'):>8}"
                f"{(f'{c.p99:.1f}' if c else '-'):>7}{(joined(c.cpu) if c else '-'):>{width}}"
                f"{thr:>6}{p99x:>6}{row.generator_cpu:>6.0f}{row.host_cpu:>6.0f}"
            )
    print()
    print(
        "Server RSS growth in KB per socket: since the fresh server / since the previous step / the step's sockets"
        " alone (read after its tables' pages, before and after their sockets); ours also per table for the pages"
    )
    print(
        f"{'memory':<7}{'tables':>6}{'socks':>6}{'ours':>10}{'ours step':>11}{'ours sock':>11}{'pages/tbl':>11}"
        f"{'ceiling':>10}{'ceil. step':>11}{'ceil. sock':>11}"
    )
    for pace in args.paces:
        ours, ceiling = results.get(("ours", pace)), results.get(("ceiling", pace))
        either = ours or ceiling
        for step, row in enumerate(either.rows if either else []):
            o = ours.rows[step] if ours and step < len(ours.rows) else None
            c = ceiling.rows[step] if ceiling and step < len(ceiling.rows) else None
            mine = marginal_kb(ours.rows, step) if ours else "-"
            theirs = marginal_kb(ceiling.rows, step) if ceiling else "-"
            print(
                f"{pace:<7}{row.tables:>6}{row.sockets:>6}{(f'{o.kb_per_socket:.1f}' if o else '-'):>10}{mine:>11}"
                f"{(socket_kb(ours.rows, step) if ours else '-'):>11}{(pages_kb(ours.rows, step) if ours else '-'):>11}"
                f"{(f'{c.kb_per_socket:.1f}' if c else '-'):>10}{theirs:>11}"
                f"{(socket_kb(ceiling.rows, step) if ceiling else '-'):>11}"
            )
    print()
    for pace in args.paces:
        for target in ("ours", "ceiling"):
            result = results.get((target, pace))
            if result is not None:
                print_summary(result, bots_used and target == "ours")


def marginal_kb(rows: list[StepRow], step: int) -> str:
    """RSS growth per socket added since the previous step (the fresh server's start-up costs excluded)."""
    if step == 0 or step >= len(rows) or rows[step].sockets <= rows[step - 1].sockets:
        return "-"
    added = rows[step].sockets - rows[step - 1].sockets
    return f"{(rows[step].rss_open - rows[step - 1].rss_open) / 1024 / added:.1f}"


def _added(rows: list[StepRow], step: int, what: str) -> int:
    before = getattr(rows[step - 1], what) if step > 0 else 0
    return int(getattr(rows[step], what)) - int(before)


def socket_kb(rows: list[StepRow], step: int) -> str:
    """RSS growth per socket while only this step's sockets opened (its tables' pages already served)."""
    if step >= len(rows) or not rows[step].rss_pages or _added(rows, step, "sockets") <= 0:
        return "-"
    return f"{(rows[step].rss_open - rows[step].rss_pages) / 1024 / _added(rows, step, 'sockets'):.1f}"


def pages_kb(rows: list[StepRow], step: int) -> str:
    """RSS growth per table while this step's tables' pages were served (guest, lobby form, table page)."""
    if step >= len(rows) or not rows[step].rss_pages or _added(rows, step, "tables") <= 0:
        return "-"
    return f"{(rows[step].rss_pages - rows[step].rss_before) / 1024 / _added(rows, step, 'tables'):.1f}"


def print_summary(result: RunResult, bots_used: bool) -> None:
    rows = result.rows
    name = f"{result.target} {result.pace}:"
    if result.failure:
        print(f"{name} FAILED: {result.failure}")
    if rows:
        first, last = rows[0], rows[-1]
        print(
            f"{name} {first.tables}->{last.tables} tables: {first.moves_per_s:.1f}->{last.moves_per_s:.1f} moves/s, "
            f"p99 {first.p99:.0f}->{last.p99:.0f} ms; lost {sum(r.lost for r in rows)} "
            f"({sum(r.late for r in rows)} of them arrived later), "
            f"errors {sum(r.errors for r in rows)} ({sum(r.refused for r in rows)} refused moves), "
            f"stalls {sum(r.stalls for r in rows)}, disconnects {sum(r.disconnects for r in rows)}, "
            f"failed websocket handshakes {result.connect_failures}, "
            f"tables failed to open {sum(r.setup_failed for r in rows)}"
            + (f"; state frames {result.frame_bytes:.0f} bytes on average" if result.frame_bytes else "")
        )
    for label, samples in (
        ("error", result.error_samples),
        ("lost", result.lost_samples),
        ("set-up", result.setup_errors),
        ("handshake", result.connect_errors),
    ):
        for sample in samples[:SAMPLE_ERRORS]:
            print(f"    {label}: {sample}")
    if result.server_problems:
        print(f"    server log: {len(result.server_problems)} error lines; the first kinds:")
        for line in list(dict.fromkeys(result.server_problems))[:3]:
            print(f"      {line[:200]}")
    if result.db_check:
        print(f"    database: {result.db_check}")
    for row in rows:
        if row.gc:
            print(f"    garbage collections at {row.tables} tables (all servers, the window): {gc_line(row.gc)}")
    if bots_used and result.bots:
        b, h = result.bots, result.hslu_totals
        print(
            f"    HSLU tables: {b['tables']} tables ({b['seats']} bot seats) asked their bots {b['requests']} times "
            f"({', '.join(f'{k} {v}' for k, v in sorted(b['by_endpoint'].items()))}); duplicated requests "
            f"{b['duplicated']}; bad requests {b['failures']}; people's moves {h.get('sent', 0)}, "
            f"lost {h.get('lost', 0)}, errors {h.get('errors', 0)}, stalls {h.get('stalls', 0)}"
        )
        for sample in b["samples"]:
            print(f"      duplicated: {sample}")


# -- main ---------------------------------------------------------------------------------------


def check_services() -> None:
    """Scale-out needs Redis and PostgreSQL: say how to start them rather than fail half-way."""
    import psycopg
    import redis

    from tests.services import POSTGRES_DSN, START_HINTS

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
        psycopg.connect(POSTGRES_DSN, connect_timeout=3).close()
    except (redis.RedisError, psycopg.Error) as exc:
        hints = "; ".join(f"{name}: {hint}" for name, hint in START_HINTS.items())
        sys.exit(f"--scale-out needs Redis on {REDIS_URL} and PostgreSQL on {POSTGRES_DSN} ({exc}). Start: {hints}")


def raise_file_limit() -> int:
    """Thousands of sockets: the soft limit up to the hard one (the servers and clients inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else 65536
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="10,50,100,250,500", help="table counts of the ramp")
    parser.add_argument("--pace", default="stress,bot,human", help="stress, bot and/or human, comma-separated")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds per step")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds between a step's set-up and its window")
    parser.add_argument("--lost-after", type=float, default=15.0, help="a move not at every seat by then is lost")
    parser.add_argument("--scale-out", action="store_true", help="daphne processes on PostgreSQL and Redis")
    parser.add_argument("--processes", type=int, default=2, help="daphne processes in scale-out (2)")
    parser.add_argument(
        "--server",
        choices=("daphne", "uvicorn"),
        default="daphne",
        help="the ASGI server of ours and the ceiling: daphne (deployed) or uvicorn (measured beside it)",
    )
    parser.add_argument(
        "--front",
        action="store_true",
        help="scale-out behind scripts/serve-scaled.sh: nginx on one port, its own Redis and database",
    )
    parser.add_argument("--hslu-tables", type=int, default=None, help="tables with two HSLU bots (10 in scale-out)")
    parser.add_argument("--clients", type=int, default=1, help="client processes driving the tables")
    parser.add_argument("--pad", type=int, default=None, help="ceiling frame size in bytes (default: as measured)")
    parser.add_argument("--no-ceiling", action="store_true", help="skip the framework's ceiling")
    parser.add_argument("--ceiling-only", action="store_true", help="only the ceiling (e.g. to see the client's limit)")
    parser.add_argument("--setup-concurrency", type=int, default=8, help="tables opened at once per client")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.steps = sorted({int(s) for s in args.steps.split(",") if s.strip()})
    args.paces = [p.strip() for p in args.pace.split(",") if p.strip()]
    unknown = [p for p in args.paces if p not in PACES]
    if unknown or not args.steps or args.clients < 1:
        parser.error(f"--pace is one or more of {', '.join(PACES)}; --steps and --clients are positive")
    if args.front:
        args.scale_out = True
    if args.hslu_tables is None:
        args.hslu_tables = 10 if args.scale_out else 0
    if args.scale_out:
        check_services()
    limit = raise_file_limit()
    if limit < max(args.steps) * 8 + 1000:
        print(f"warning: only {limit} open files allowed; large steps may fail", file=sys.stderr)

    if not args.ceiling_only:
        # The servers' bot workers compile the search kernels they lack at their start, at low priority: on a
        # fresh checkout that is a minute of CPU beside the measured window (make run and make test compile them
        # at set-up, as this does; with the kernels in numba's cache it takes a second).
        subprocess.run([sys.executable, "-m", "bots.think"], cwd=ROOT, check=True)
    bots = CountingBotServer() if args.hslu_tables else None
    results: dict[tuple[str, str], RunResult] = {}
    try:
        for pace in args.paces:
            ours = None
            if not args.ceiling_only:
                print(f"pace {pace}: our server", file=sys.stderr, flush=True)
                ours = results[("ours", pace)] = run_one("ours", pace, args, bots, 0)
            if not args.no_ceiling:
                measured = round(ours.frame_bytes) if ours and ours.frame_bytes else DEFAULT_PAD_FRAME
                frame = args.pad if args.pad is not None else measured
                pad = max(0, frame - len(json.dumps({"type": "move", "seq": 1000, "pad": "", "id": 1000})))
                print(f"pace {pace}: the ceiling (frames of {frame} bytes)", file=sys.stderr, flush=True)
                results[("ceiling", pace)] = run_one("ceiling", pace, args, None, pad)
    except KeyboardInterrupt:
        print("interrupted: printing what was measured", file=sys.stderr)
    finally:
        if bots is not None:
            bots.stop()
    print_report(args, results, bots is not None)


if __name__ == "__main__":
    main()
