"""Websocket fuzzing against a live production-mode server with a game in progress.

10,000 frames from a seated player: random bytes, non-JSON, wrong types, frames
above the size limit (1 MB ones among them), deep nesting, forged seats,
out-of-turn and illegal cards, stale ``seq``, floods. Afterwards the server
answers, its log holds no traceback, every refusal had the one error shape, and
the game — played to its end — has a record that passes import's checks.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import string
import time

import pytest
import websockets

from games.engine import CARD_CODES
from games.records import check_record
from tests.hostile_helpers import production_server
from tests.server_helpers import HTTP
from tests.test_consumers import play_as
from tests.ws_helpers import LiveClient, close_all_clients, create_live_table, guest_cookies

pytestmark = pytest.mark.services  # production-mode servers, Redis

FRAMES = 10_000
TYPES = [
    "join",
    "add_bot",
    "remove_bot",
    "add_remote_bot",
    "test_bot",
    "set_bot_timeout",
    "start",
    "abandon",
    "abandon_vote",
    "choose_trump",
    "play_card",
    "resync",
    "ping",
    "back",
    "set_turn_clock",
]  # every message a client may send but "leave", which gives a seat away for good
ODD_VALUES = [None, True, False, -1, 4, 2**70, -(2**63), 1.5, float("1e308"), "0", "", "🂡", [], {}, [0], {"x": 1}]
ERROR_SHAPE = {"type", "code", "message"}


class Fuzzer:
    """Makes hostile frames for a player at a running game; knows the game from the states it reads."""

    def __init__(self, rng: random.Random, seat: int) -> None:
        self.rng, self.seat = rng, seat
        self.view: dict | None = None

    def game(self) -> dict:
        return (self.view or {}).get("game") or {"seq": 0, "hand": [], "legal": [], "player": -1}

    def frame(self, index: int) -> str | bytes:
        kind = index % 20
        rng, game = self.rng, self.game()
        seq = game.get("seq", 0)
        if kind in (0, 1, 2):  # random bytes
            return rng.randbytes(rng.randint(0, 600))
        if kind in (3, 4, 5):  # text that is no JSON (control characters, escapes, truncated JSON)
            alphabet = string.printable + '\u202e\u0000\ufffd\ud7ff\U0001f0a1{}[]"\\'
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 400)))
            return rng.choice([text, '{"type": "ping"', '{"type": "\\ud800"}', "\\u0000", text + "}"])
        if kind in (6, 7):  # JSON of the wrong shape
            return json.dumps(rng.choice([*ODD_VALUES, [{"type": "ping"}], {"type": rng.choice(ODD_VALUES)}]))
        if kind in (8, 9, 10):  # known types with fields of the wrong type or range
            message: dict[str, object] = {"type": rng.choice(TYPES)}
            for key in rng.sample(["seat", "seq", "card", "trump", "bot", "url", "seconds", "agree", "id", "x"], 3):
                message[key] = rng.choice(ODD_VALUES)
            if message["type"] in ("add_remote_bot", "test_bot"):
                message["url"] = rng.choice(["http://10.1.2.3/", "http://[::1]:1/", "ftp://x/", "http://\u202e/"])
            return json.dumps(message)
        if kind == 11:  # deep nesting (within the size limit)
            depth = rng.randint(900, 2000)
            return rng.choice(["[" * depth + "]" * depth, '{"type": "ping", "id": ' + "[" * depth + "]" * depth + "}"])
        if kind in (12, 13):  # forged seats
            card = rng.choice(game.get("legal") or CARD_CODES)
            seat = rng.choice([s for s in range(4) if s != self.seat] + [-1, 7, "0"])
            return json.dumps({"type": "play_card", "card": card, "seq": seq, "seat": seat})
        if kind in (14, 15):  # out of turn, illegal or not held cards, impossible trumps, at the current seq
            hand, legal = game.get("hand") or [], game.get("legal") or []
            refused = [c for c in CARD_CODES if c not in legal]
            if rng.random() < 0.3:
                return json.dumps({"type": "choose_trump", "trump": rng.choice([-1, 6, 7, 9, 11, 99]), "seq": seq})
            return json.dumps({"type": "play_card", "card": rng.choice(refused or hand or CARD_CODES), "seq": seq})
        if kind == 16:  # stale (or future) seq
            stale = rng.choice([seq - 1, seq - 5, seq + 1, seq + 1000, -1, 0]) if seq else rng.choice([1, 5, 99])
            return json.dumps(
                {"type": rng.choice(["play_card", "choose_trump"]), "card": "HA", "trump": 0, "seq": stale}
            )
        if kind in (17, 18):  # part of a flood of pings
            return json.dumps({"type": "ping", "id": index})
        return json.dumps({"type": rng.choice(TYPES), "id": "x" * rng.randint(0, 3000)})  # big, within the limit


async def fuzz(base: str, table_id: int, cookies: dict[str, str], seat: int) -> dict:
    """Send ``FRAMES`` frames from the seated player; return what came back."""
    fuzzer = Fuzzer(random.Random(20261124), seat)
    seen: dict = {"frames": 0, "errors": [], "closes": [], "pongs": 0, "states": 0}
    answered: dict[str, asyncio.Event] = {}
    headers = {"Origin": base, "Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}
    url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}/"

    async def read(socket: websockets.ClientConnection) -> None:
        async for text in socket:
            frame = json.loads(text)
            seen["frames"] += 1
            if frame["type"] == "state":
                fuzzer.view = frame["view"]
                seen["states"] += 1
            elif frame["type"] == "pong":
                seen["pongs"] += 1
                if isinstance(frame.get("id"), str) and frame["id"] in answered:
                    answered[frame["id"]].set()
            elif frame["type"] == "error":
                seen["errors"].append(frame)

    async def all_answered(socket: websockets.ClientConnection, mark: str) -> None:
        """Wait until the server answered every frame sent so far (replies come in order)."""
        answered[mark] = asyncio.Event()
        await socket.send(json.dumps({"type": "ping", "id": mark}))
        await asyncio.wait_for(answered[mark].wait(), 120)

    async def connect() -> tuple[websockets.ClientConnection, asyncio.Task]:
        socket = await websockets.connect(url, additional_headers=headers, max_size=None)
        return socket, asyncio.create_task(read(socket))

    socket, reader = await connect()
    oversized = {FRAMES * k // 10 for k in range(1, 10)}  # nine frames above the limit, each closing the socket
    for index in range(FRAMES):
        if index in oversized:
            await all_answered(socket, f"before {index}")  # the close would drop frames still queued
            try:
                await socket.send("x" * (1_000_000 if index % 2 else 4097))
                await asyncio.wait_for(reader, 10)  # the reader ends when the server closes
            except websockets.ConnectionClosed:
                pass
            seen["closes"].append(socket.close_code)
            socket, reader = await connect()
            continue
        await socket.send(fuzzer.frame(index))
        if index % 250 == 0:
            await asyncio.sleep(0.05)  # let the reader catch up with the game now and then
    await all_answered(socket, "last")
    await socket.close()
    reader.cancel()
    return seen


def test_ten_thousand_hostile_frames_leave_the_server_answering_and_the_game_sound(tmp_path):
    # The message budget is raised so that every frame is parsed and handled (tests/test_limits.py
    # pins the budget itself); every other limit is as in production.
    env = {"JASSWEB_LIMIT_MESSAGE_PERSON": "1000000/h", "JASSWEB_ROUND_PAUSE_S": "0"}
    with production_server(tmp_path, **env) as (base, log):
        mallory, helper = guest_cookies(base, "Mallory"), guest_cookies(base, "Helper")
        fields = {"mode": "fair", "round_count": "2", "turn_clock": "0", "seat": "2"}
        table_id = create_live_table(base, mallory, **fields)
        asyncio.run(_seat_and_start(base, table_id, mallory, helper))
        started = time.monotonic()
        seen = asyncio.run(fuzz(base, table_id, mallory, seat=2))
        fuzz_seconds = time.monotonic() - started

        assert seen["closes"] == [1009] * 9, seen["closes"]
        assert seen["pongs"] >= 1000 and seen["errors"]
        for error in seen["errors"]:
            assert set(error) - {"id"} == ERROR_SHAPE and error["message"], error
        codes = {e["code"] for e in seen["errors"]}
        assert "server_error" not in codes
        assert {"bad_frame", "bad_json", "bad_message", "not_your_seat", "stale"} <= codes, codes

        # The server answers, and the game goes on to its end with legal moves.
        game_id = asyncio.run(_play_out(base, table_id, mallory, helper))
        assert HTTP.get(base + "/", timeout=10).status_code == 200
        record = HTTP.get(f"{base}/games/{game_id}/record.json", timeout=10).json()
        checked = check_record(record)
        assert checked.status == "finished" and checked.state.over
        server_log = log()
        assert "Traceback" not in server_log, server_log[server_log.index("Traceback") - 2000 :][:4000]
        assert not re.search(r"\bERROR\b", server_log), server_log[-3000:]
    print(f"\n{FRAMES} frames in {fuzz_seconds:.1f} s; {len(seen['errors'])} errors, codes {sorted(codes)}")


async def _seat_and_start(base: str, table_id: int, mallory: dict[str, str], helper: dict[str, str]) -> None:
    owner = await LiveClient.open(base, table_id, mallory)
    other = await LiveClient.open(base, table_id, helper)
    try:
        await other.send({"type": "join", "seat": 0})  # a second person: Abandon becomes a request to them
        await owner.state(lambda v: v["seats"][0]["kind"] == "human")
        for seat in (1, 3):
            await owner.send({"type": "add_bot", "seat": seat, "bot": "random"})
        await owner.state(lambda v: all(s["kind"] != "empty" for s in v["seats"]))
        await owner.send({"type": "start"})
        await owner.state(lambda v: v["game"] is not None and v["game"]["status"] == "running")
    finally:
        await close_all_clients()


async def _play_out(base: str, table_id: int, mallory: dict[str, str], helper: dict[str, str]) -> int:
    owner = await LiveClient.open(base, table_id, mallory)
    other = await LiveClient.open(base, table_id, helper)
    try:
        await owner.send({"type": "back"})  # should a fuzzed clock have put a stand-in in the seat
        rng = random.Random(7)
        await asyncio.gather(play_as(owner, 2, rng), play_as(other, 0, rng))
        view = await owner.state(lambda v: v["game"]["over"], timeout=30)
        assert view["game"]["status"] == "finished", view["game"]["status"]
        return view["game"]["id"]
    finally:
        await close_all_clients()
