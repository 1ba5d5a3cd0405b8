"""The player side of scripts/production-smoke.sh: two people and two bots play a game through nginx.

Everything goes through the reverse proxy over HTTPS, as a browser would: the
plain-HTTP port must redirect to HTTPS; two guests are made with the lobby's
forms (CSRF with the Origin header, secure cookies); Anna opens a Fair table
and seats two bots, Beat sits down; each opens the table's websocket (wss)
through nginx, and nginx sends both sockets to the same daphne process, the
one the table's path hashes to (checked in the database: each open websocket
is a ``Connection`` row naming its server's ``Worker``). They play legal cards until the game is
over; then the result page, the record and ``/healthz`` are fetched through
nginx. Prints one JSON line of what it saw and exits 0, or raises.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import ssl
import time
from typing import Any

import httpx
import psycopg
import websockets

SEAT_NAMES = ("North", "East", "South", "West")


def check(condition: object, message: str) -> None:
    if not condition:
        raise SystemExit(f"smoke: FAILED: {message}")


def guest(base: str, ca: str, nickname: str) -> httpx.Client:
    """A browser session of a new guest, through the proxy."""
    http = httpx.Client(base_url=base, verify=ca, follow_redirects=False, headers={"Origin": base}, timeout=10)
    lobby = http.get("/")
    check(lobby.status_code == 200, f"the lobby answers 200 through nginx, got {lobby.status_code}")
    check("max-age=" in lobby.headers.get("strict-transport-security", ""), "HSTS header on pages")
    cookie = next((c for c in http.cookies.jar if c.name == "csrftoken"), None)
    check(cookie is not None and cookie.secure, "the CSRF cookie is set and marked Secure")
    response = http.post("/guest/", data={"nickname": nickname, "csrfmiddlewaretoken": cookie.value})
    check(response.status_code == 302, f"guest form: 302 expected, got {response.status_code}")
    session = next((c for c in http.cookies.jar if c.name == "sessionid"), None)
    check(session is not None and session.secure, "the session cookie is set and marked Secure")
    return http


def cookie_header(http: httpx.Client) -> str:
    return "; ".join(f"{c.name}={c.value}" for c in http.cookies.jar)


def form(http: httpx.Client, path: str, **fields: str) -> httpx.Response:
    token = next(c.value for c in http.cookies.jar if c.name == "csrftoken")
    return http.post(path, data={**fields, "csrfmiddlewaretoken": token})


class Seat:
    """One person's websocket at the table, through nginx."""

    def __init__(self, name: str, connection: websockets.ClientConnection) -> None:
        self.name = name
        self.connection = connection
        self.view: dict[str, Any] = {}
        self.moves = 0

    @classmethod
    async def open(cls, name: str, base: str, ca: str, http: httpx.Client, table: int) -> Seat:
        context = ssl.create_default_context(cafile=ca)
        url = base.replace("https://", "wss://") + f"/ws/tables/{table}/"
        headers = {"Origin": base, "Cookie": cookie_header(http)}
        connection = await websockets.connect(url, ssl=context, additional_headers=headers, open_timeout=10)
        seat = cls(name, connection)
        await seat.until(lambda view: True)
        return seat

    async def until(self, predicate, timeout: float = 30.0) -> dict[str, Any]:
        """The latest view if it satisfies ``predicate``, else the first state frame to come that does."""
        if self.view and predicate(self.view):
            return self.view
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            check(left > 0, f"{self.name}: no state as expected within {timeout:g} s; last view {self.view}")
            try:
                frame = json.loads(await asyncio.wait_for(self.connection.recv(), left))
            except TimeoutError:
                game = self.view.get("game") or {}
                check(
                    False,
                    f"{self.name}: nothing as expected within {timeout:g} s; game at {game.get('seq')},"
                    f" {SEAT_NAMES[game['player']] if game.get('player', -1) >= 0 else '-'} to move: {game}",
                )
            check(frame.get("type") != "error" or frame.get("code") == "stale", f"{self.name} got {frame}")
            if frame["type"] == "state":
                self.view = frame["view"]
                if predicate(self.view):
                    return self.view

    async def play(self, position: int, rng: random.Random) -> None:
        """Play this seat's legal moves until the game is over."""
        while True:
            view = await self.until(lambda v: v["game"] and (v["game"]["over"] or v["game"]["player"] == position))
            game = view["game"]
            if game["over"]:
                return
            if game["legal_trumps"]:
                move = {"type": "choose_trump", "trump": rng.choice(game["legal_trumps"]), "seq": game["seq"]}
            else:
                move = {"type": "play_card", "card": rng.choice(game["legal"]), "seq": game["seq"]}
            await self.connection.send(json.dumps(move))
            self.moves += 1
            await self.until(lambda v, seq=game["seq"]: v["game"]["seq"] > seq or v["game"]["over"])


def workers_of(database: str, table: int) -> dict[int, int]:
    """The server process (pid) that holds each person's open websocket at ``table``."""
    with psycopg.connect(database) as db:
        rows = db.execute(
            "SELECT c.player_id, w.pid FROM games_connection c JOIN games_worker w ON w.id = c.worker_id"
            " WHERE c.table_id = %s",
            [table],
        ).fetchall()
    return dict(rows)


async def noted_server(name: str, database: str, table: int, player: int) -> int:
    """The server process (pid) that holds ``player``'s websocket at ``table``, once the server noted it."""
    deadline = time.monotonic() + 30
    while (pid := workers_of(database, table).get(player)) is None:  # the row is written as the socket opens
        check(time.monotonic() < deadline, f"{name}'s connection was never noted")
        await asyncio.sleep(0.1)
    return pid


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="https://127.0.0.1:PORT (nginx)")
    parser.add_argument("--plain", required=True, help="http://127.0.0.1:PORT (nginx, plain HTTP)")
    parser.add_argument("--ca", required=True, help="the self-signed certificate nginx serves")
    parser.add_argument("--database", required=True, help="a libpq URL of the servers' database")
    parser.add_argument("--record", required=True, help="where to save the game's record")
    parser.add_argument("--rounds", default="4")
    args = parser.parse_args()
    started = time.monotonic()

    redirect = httpx.get(args.plain + "/", follow_redirects=False, timeout=10)
    check(redirect.status_code == 301, f"plain HTTP redirects to HTTPS: got {redirect.status_code}")
    check(redirect.headers["location"].startswith("https://"), redirect.headers.get("location"))

    anna, beat = guest(args.base, args.ca, "Anna"), guest(args.base, args.ca, "Beat")
    options = {"name": "Smoke test", "mode": "fair", "round_count": args.rounds, "seat": "0"}
    created = form(anna, "/tables/new/", **options, turn_clock="0", round_pause="0")
    check(created.status_code == 302 and "/tables/" in created.headers["location"], f"table form: {created.text[:300]}")
    table = int(created.headers["location"].rstrip("/").split("/")[-1])
    check(anna.get(f"/tables/{table}/").status_code == 200, "the table page answers through nginx")

    north = await Seat.open("Anna", args.base, args.ca, anna, table)
    anna_id = north.view["seats"][0]["player_id"]
    anna_pid = await noted_server("Anna", args.database, table, anna_id)
    for position, bot in ((1, "mcts-fast"), (3, "rules")):
        await north.connection.send(json.dumps({"type": "add_bot", "seat": position, "bot": bot}))
    sat = form(beat, f"/tables/{table}/seat/", action="join", seat="2")
    check(sat.status_code == 302, f"Beat sits down: {sat.status_code}")
    await north.until(lambda v: all(s["kind"] != "empty" for s in v["seats"]))
    beat_id = north.view["seats"][2]["player_id"]
    south = await Seat.open("Beat", args.base, args.ca, beat, table)
    beat_pid = await noted_server("Beat", args.database, table, beat_id)
    check(beat_pid == anna_pid, f"nginx sent the table's sockets to one server: Anna's {anna_pid}, Beat's {beat_pid}")

    await north.connection.send(json.dumps({"type": "start"}))
    rng = random.Random(15)
    await asyncio.gather(north.play(0, rng), south.play(2, rng))
    game = north.view["game"]
    check(game["status"] == "finished", f"the game is finished: {game['status']}")
    for seat in (north, south):
        await seat.connection.close()

    result = anna.get(f"/games/{game['id']}/")
    check(result.status_code == 200, f"the result page answers: {result.status_code}")
    record = anna.get(f"/games/{game['id']}/record.json")
    check(record.status_code == 200 and record.json()["status"] == "finished", f"the record: {record.text[:200]}")
    with open(args.record, "w") as out:
        out.write(record.text)
    health = httpx.get(args.base + "/healthz", verify=args.ca, timeout=10)
    check(health.status_code == 200, f"/healthz through nginx: {health.status_code} {health.text}")
    timings = ", ".join(f"{name} {check['ms']} ms" for name, check in health.json()["checks"].items())
    print(
        f"smoke: game {game['id']} at table {table} finished {game['scores'][0]} to {game['scores'][1]} in"
        f" {game['seq']} moves ({north.moves + south.moves} by Anna and Beat) after"
        f" {time.monotonic() - started:.1f} s; Anna's websocket on server pid {anna_pid}, Beat's on pid"
        f" {beat_pid}; /healthz through nginx: {health.json()['status']}"
        f" ({timings})"
    )


if __name__ == "__main__":
    asyncio.run(main())
