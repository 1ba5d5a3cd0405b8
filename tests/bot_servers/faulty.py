"""A real HSLU bot server on loopback that misbehaves on purpose, for the adapter's tests.

The first path part picks the behaviour, the rest is the dialect's route:
``http://127.0.0.1:PORT/<behaviour>`` is a bot URL (spec dialect), e.g.
``/illegal/play_card``. Behaviours:

- ``ok`` a random legal answer; ``slow<ms>`` the same after ``ms`` milliseconds;
- ``timeout`` sleeps far past any timeout on its first three requests, then plays well;
- ``status500``, ``notjson``, ``notobject``, ``missing``, ``wrongtype``, ``badtrump``,
  ``unknown``, ``notinhand``, ``illegal`` (an illegal card whenever it holds one),
  ``pushtwice`` (always pushes), ``huge`` (a 200 KiB reply), ``redirect`` (to another host);
- ``gzip`` and ``deflate`` play well, the reply packed so (``Content-Encoding``) when the client accepts it;
  ``gzipbomb`` a 30 KiB gzip reply that unpacks to 30 MiB, ``brokengzip`` one that is no gzip at all;
- ``infofail`` plays well but answers ``game_info`` with 400;
- ``garbagehalf`` answers garbage (not JSON) to about half the requests and a legal move to the
  others, chosen by a hash of the request: the same game gets the same answers, run after run.

It counts requests by behaviour and route and the most requests in flight at once.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import threading
import time
import zlib
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from games.engine import CARD_CODES, FULL_DECK, PUSH, TRUMPS, iter_cards
from games.hslu import decode_observation
from tests import tiers


class _Server(ThreadingHTTPServer):
    # socketserver's listen backlog is 5: forty bots asked at once (test_remote_bots) overflowed it on a busy
    # machine, and a connection dropped there was the test machine's fault, counted as the bot's.
    request_queue_size = 128


class FaultyBots:
    """Start with ``with FaultyBots() as bots:``; ``bots.url("illegal")`` is a bot URL."""

    def __init__(self) -> None:
        tiers.require("services", "an HTTP bot server")
        self.requests: Counter[str] = Counter()
        self.players: list[int] = []  # the currentPlayer of every request that had one (HSLU seat)
        self.in_flight = 0
        self.max_in_flight = 0
        self.timeouts_left = 3
        self.slowed: set[str] = set()  # "slowonce…" behaviours that took their time already
        self.lock = threading.Lock()
        self.rng = random.Random(7)
        self.server = _Server(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, behaviour: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}/{behaviour}"

    def __enter__(self) -> FaultyBots:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _answer(
        self, behaviour: str, route: str, message: dict, accepted: str = ""
    ) -> tuple[int, bytes, dict[str, str]]:
        if route == "game_info":
            return (400, b'{"error": "no"}', {}) if behaviour == "infofail" else (200, b'""', {})
        obs = decode_observation(message)
        trump_request = obs.trump < 0
        if behaviour.startswith("slowonce"):  # its first move request only: the rest at once
            with self.lock:
                first = behaviour not in self.slowed
                self.slowed.add(behaviour)
            if first:
                time.sleep(int(behaviour[8:]) / 1000)
            behaviour = "ok"
        if behaviour.startswith("slow"):
            time.sleep(int(behaviour[4:]) / 1000)
            behaviour = "ok"
        if behaviour == "timeout":
            with self.lock:
                sleepy = self.timeouts_left > 0
                self.timeouts_left -= 1
            if sleepy:
                time.sleep(8)
            behaviour = "ok"
        legal = list(iter_cards(obs.legal_mask())) if not trump_request else []
        if behaviour == "garbagehalf":
            digest = hashlib.sha256(json.dumps(message, sort_keys=True).encode()).digest()
            if digest[0] % 2:
                return 200, b"<html>garbage</html>", {}
            pick = random.Random(digest)
            answer: dict[str, object] = (
                {"trump": pick.choice(TRUMPS)} if trump_request else {"card": CARD_CODES[pick.choice(legal)]}
            )
            return 200, json.dumps(answer).encode(), {}
        with self.lock:
            good: dict[str, object] = (
                {"trump": self.rng.choice(TRUMPS)} if trump_request else {"card": CARD_CODES[self.rng.choice(legal)]}
            )
        bad: dict[str, dict[str, Any]] = {
            "status500": {"_status": 500},
            "notjson": {"_raw": b"<html>Internal error</html>"},
            "notobject": {"_raw": b"[1, 2, 3]"},
            "missing": {},
            "wrongtype": {"trump": "3"} if trump_request else {"card": 5},
            "badtrump": {"trump": 7} if trump_request else good,
            "unknown": good if trump_request else {"card": "X9"},
            "notinhand": good if trump_request else {"card": CARD_CODES[self._not_held(obs)]},
            "illegal": good if trump_request else self._illegal(obs, good),
            "pushtwice": {"trump": PUSH} if trump_request else good,
            "huge": {"card": "DA", "padding": "x" * 200_000},
            "redirect": {"_redirect": self.url("ok", host="localhost") + "/" + route},
        }
        if behaviour in ("gzip", "deflate"):
            return 200, *self._packed(json.dumps(good).encode(), behaviour, accepted)
        if behaviour == "gzipbomb":
            return (
                200,
                gzip.compress(b'{"card": "DA", "padding": "' + b" " * 30_000_000 + b'"}'),
                {"Content-Encoding": "gzip"},
            )
        if behaviour == "brokengzip":
            return 200, json.dumps(good).encode(), {"Content-Encoding": "gzip"}
        reply = bad.get(behaviour, good)
        if "_status" in reply:
            return reply["_status"], b'{"error": "boom"}', {}
        if "_raw" in reply:
            return 200, reply["_raw"], {}
        if "_redirect" in reply:
            return 302, b"", {"Location": reply["_redirect"]}
        return 200, json.dumps(reply).encode(), {}

    @staticmethod
    def _packed(body: bytes, encoding: str, accepted: str) -> tuple[bytes, dict[str, str]]:
        if encoding not in accepted:
            return body, {}
        return (gzip.compress(body) if encoding == "gzip" else zlib.compress(body)), {"Content-Encoding": encoding}

    @staticmethod
    def _not_held(obs) -> int:
        return next(c for c in range(36) if not obs.hand >> c & 1)

    @staticmethod
    def _illegal(obs, good: dict) -> dict:
        illegal = obs.hand & ~obs.legal_mask() & FULL_DECK
        return {"card": CARD_CODES[next(iter_cards(illegal))]} if illegal else good

    def _handler(self):
        bots = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                with bots.lock:
                    bots.in_flight += 1
                    bots.max_in_flight = max(bots.max_in_flight, bots.in_flight)
                try:
                    _, behaviour, route = self.path.split("/", 2)
                    bots.requests[f"{behaviour} {route}"] += 1
                    length = int(self.headers.get("Content-Length", 0))
                    message = json.loads(self.rfile.read(length))
                    if isinstance(message, dict) and "currentPlayer" in message:
                        bots.players.append(message["currentPlayer"])
                    accepted = self.headers.get("Accept-Encoding", "")
                    status, body, headers = bots._answer(behaviour, route, message, accepted)
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    for key, value in headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the adapter gave up on us (a timeout): fine
                finally:
                    with bots.lock:
                        bots.in_flight -= 1

            def log_message(self, format: str, *args: object) -> None:
                pass

        return Handler
