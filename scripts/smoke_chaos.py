"""The player side of production-smoke.sh's chaos step: a game that must finish while Redis restarts and a
server is killed.

Anna and Beat play a Fair game with an MCTS and a rule bot through nginx (which sends both sockets to
the daphne process the table's path hashes to, and to the other one while that one is down), as table
pages would: they play at once when it is their turn, ping with the last event they
saw after two seconds of quiet (static/js/socket.js), take ``--think`` seconds a move (so that the
chaos happens mid-game), and reconnect through nginx when their socket
closes. The script writes ``GAME SEQ`` to ``--progress`` at every move it sees, for the shell to time
its chaos by, and fails if the game stands still for ``--stall`` seconds. Prints one line of what it saw
and exits 0 once the game is over.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import ssl
import time

import websockets
from smoke_play import SEAT_NAMES, Seat, check, cookie_header, form, guest, noted_server

QUIET_PING_S = 2.0


class Person:
    """One person's table page: plays, pings with the last event seen, reconnects through nginx."""

    def __init__(self, name: str, position: int, base: str, ca: str, cookies: str, table: int, think: float) -> None:
        self.name, self.position, self.table, self.think = name, position, table, think
        self.url = base.replace("https://", "wss://") + f"/ws/tables/{table}/"
        self.headers = {"Origin": base, "Cookie": cookies}
        self.ssl = ssl.create_default_context(cafile=ca)
        self.version = -1
        self.game: dict = {}
        self.sent: set[int] = set()
        self.reconnects = 0
        self.rng = random.Random(position)

    async def run(self, first: websockets.ClientConnection, changed: asyncio.Event) -> None:
        connection: websockets.ClientConnection | None = first
        while not self.game.get("over"):
            with contextlib.suppress(OSError, websockets.ConnectionClosed, websockets.InvalidHandshake, TimeoutError):
                if connection is None:
                    connection = await websockets.connect(
                        self.url, ssl=self.ssl, additional_headers=self.headers, open_timeout=5, close_timeout=1
                    )
                async with connection:
                    self.sent.clear()  # a move sent on a socket that closed may never have arrived
                    await self._session(connection, changed)
            connection = None
            if not self.game.get("over"):
                self.reconnects += 1
                await asyncio.sleep(0.5)

    async def _session(self, connection: websockets.ClientConnection, changed: asyncio.Event) -> None:
        heard = time.monotonic()
        while not self.game.get("over"):
            try:
                text = await asyncio.wait_for(connection.recv(), 0.25)
            except TimeoutError:
                if time.monotonic() - heard >= QUIET_PING_S:
                    await connection.send(json.dumps({"type": "ping", "id": 1, "version": self.version}))
                    heard = time.monotonic()
                continue
            heard = time.monotonic()
            frame = json.loads(text)
            check(frame.get("type") != "error" or frame.get("code") == "stale", f"{self.name} got {frame}")
            if frame["type"] != "state" or frame["version"] < self.version or frame["view"]["game"] is None:
                continue
            self.version, game = frame["version"], frame["view"]["game"]
            if (game["id"], game["seq"]) >= (self.game.get("id", 0), self.game.get("seq", -1)):
                self.game = game
                changed.set()
            if game["over"] or game["player"] != self.position or game["seq"] in self.sent:
                continue
            self.sent.add(game["seq"])
            await asyncio.sleep(self.think)  # a person's moment: the chaos happens mid-game, not after it
            if game["legal_trumps"]:
                move = {"type": "choose_trump", "trump": self.rng.choice(game["legal_trumps"]), "seq": game["seq"]}
            else:
                move = {"type": "play_card", "card": self.rng.choice(game["legal"]), "seq": game["seq"]}
            await connection.send(json.dumps(move))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="https://127.0.0.1:PORT (nginx)")
    parser.add_argument("--ca", required=True, help="the self-signed certificate nginx serves")
    parser.add_argument("--database", required=True, help="a libpq URL of the servers' database")
    parser.add_argument("--progress", required=True, help="a file: GAME SEQ, rewritten at every move seen")
    parser.add_argument("--rounds", default="4")
    parser.add_argument("--think", type=float, default=0.2, help="seconds a person takes for a move")
    parser.add_argument("--stall", type=float, default=30.0, help="seconds the game may stand still")
    args = parser.parse_args()
    started = time.monotonic()

    anna, beat = guest(args.base, args.ca, "Anna"), guest(args.base, args.ca, "Beat")
    options = {"name": "Chaos", "mode": "fair", "round_count": args.rounds, "seat": "0"}
    created = form(anna, "/tables/new/", **options, turn_clock="0", round_pause="0")
    check(created.status_code == 302, f"table form: {created.text[:300]}")
    table = int(created.headers["location"].rstrip("/").split("/")[-1])

    seat = await Seat.open("Anna", args.base, args.ca, anna, table)
    anna_pid = await noted_server("Anna", args.database, table, seat.view["seats"][0]["player_id"])
    north = seat.connection
    for position, bot in ((1, "mcts-fast"), (3, "rules")):
        await north.send(json.dumps({"type": "add_bot", "seat": position, "bot": bot}))
    check(form(beat, f"/tables/{table}/seat/", action="join", seat="2").status_code == 302, "Beat sits down")
    await seat.until(lambda v: all(s["kind"] != "empty" for s in v["seats"]))
    beat_id = seat.view["seats"][2]["player_id"]
    other = await Seat.open("Beat", args.base, args.ca, beat, table)
    beat_pid = await noted_server("Beat", args.database, table, beat_id)
    await north.send(json.dumps({"type": "start"}))

    people = [
        Person("Anna", 0, args.base, args.ca, cookie_header(anna), table, args.think),
        Person("Beat", 2, args.base, args.ca, cookie_header(beat), table, args.think),
    ]
    changed = asyncio.Event()
    players = [asyncio.create_task(p.run(c, changed)) for p, c in zip(people, (north, other.connection), strict=True)]
    longest, moved = 0.0, time.monotonic()
    try:
        while not all(p.game.get("over") for p in people):
            changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), 1.0)
            latest = max((p.game for p in people), key=lambda g: (g.get("id", 0), g.get("seq", -1)))
            if changed.is_set():
                longest, moved = max(longest, time.monotonic() - moved), time.monotonic()
                with open(args.progress + ".new", "w") as out:  # replaced whole: the shell never reads half
                    out.write(f"{latest.get('id', 0)} {latest.get('seq', -1)}\n")
                os.replace(args.progress + ".new", args.progress)
            still = time.monotonic() - moved
            player = latest.get("player", -1)
            check(
                still < args.stall,
                f"the game stood still for {still:.0f} s at move {latest.get('seq')},"
                f" {SEAT_NAMES[player] if player >= 0 else '-'} to move",
            )
    finally:
        for task in players:
            task.cancel()
        await asyncio.gather(*players, return_exceptions=True)
    game = people[0].game
    check(game["status"] == "finished", f"the game is finished: {game['status']}")
    print(
        f"smoke: chaos game {game['id']} finished in {game['seq']} moves after {time.monotonic() - started:.1f} s;"
        f" Anna began on server pid {anna_pid}, Beat on pid {beat_pid}; reconnects"
        f" {people[0].reconnects} and {people[1].reconnects}; the longest wait for a move {longest:.1f} s"
    )


if __name__ == "__main__":
    asyncio.run(main())
