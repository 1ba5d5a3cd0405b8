"""A real HSLU bot server on loopback that plays well and counts every request it gets.

Any path is a bot (spec dialect): ``http://127.0.0.1:PORT/<name>/select_trump`` etc.
Each request is hashed with its path; the same request twice is a duplicate: one
decision asked twice, as two drivers of one game would.

The bots also check the interface: every request must be exactly the V0.2
message of the position it describes (``violations`` lists those that are not:
an unknown field, or any byte the codec would not have written).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from bots.examples.simple_bot import choose_card, choose_trump
from games.engine import CARD_CODES
from games.hslu import decode_observation, encode_observation
from tests import tiers

V02_FIELDS = {"version", "trump", "dealer", "currentPlayer", "playerView", "forehand", "tricks", "player", "jassTyp"}
TRICK_FIELDS = {"cards", "points", "win", "first"}


def v02_problem(body: bytes) -> str | None:
    """What is wrong with a request body as an HSLU V0.2 message, or None."""
    data = json.loads(body)
    if set(data) != V02_FIELDS or data["version"] != "V0.2":
        return f"fields {sorted(set(data) ^ V02_FIELDS)} or version {data.get('version')!r}"
    if any(not set(t) <= TRICK_FIELDS for t in data["tricks"]) or any(set(p) != {"hand"} for p in data["player"]):
        return "a trick or player entry has another field"
    again = json.dumps(encode_observation(decode_observation(data), data["jassTyp"])).encode()
    return None if again == body else "not byte for byte what the V0.2 codec writes"


class CountingBots:
    """Start with ``with CountingBots() as bots:``; ``bots.url("north")`` is a bot URL."""

    def __init__(self) -> None:
        tiers.require("services", "an HTTP bot server")
        self.seen: Counter[str] = Counter()
        self.violations: list[str] = []
        self.routes: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/{name}"

    @property
    def duplicates(self) -> int:
        with self.lock:
            return sum(n - 1 for n in self.seen.values() if n > 1)

    @property
    def decisions(self) -> int:
        with self.lock:
            return self.routes["select_trump"] + self.routes["play_card"]

    def __enter__(self) -> CountingBots:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self):
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                route = self.path.rstrip("/").rsplit("/", 1)[-1]
                problem = v02_problem(body)
                with owner.lock:
                    owner.seen[hashlib.sha1(self.path.encode() + b"\n" + body).hexdigest()] += 1
                    owner.routes[route] += 1
                    if problem:
                        owner.violations.append(f"{route}: {problem}")
                if route == "game_info":
                    return self.reply({})
                obs = decode_observation(json.loads(body))
                if route == "select_trump":
                    return self.reply({"trump": choose_trump(obs)})
                return self.reply({"card": CARD_CODES[choose_card(obs)]})

            def reply(self, data: dict) -> None:
                payload = json.dumps(data).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: object) -> None:
                pass

        return Handler
