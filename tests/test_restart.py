"""A game in progress survives the server stopping (or crashing) and starting again."""

from __future__ import annotations

import random
import sqlite3

import pytest

from tests.server_helpers import ServerProcess, migrate
from tests.ws_helpers import LiveClient, close_all_clients, create_live_table, guest_cookies

pytestmark = [pytest.mark.asyncio, pytest.mark.services]

SOUTH = 2


async def play_until(client: LiveClient, seat: int, rng: random.Random, stop) -> dict:
    """Play ``seat``'s moves until ``stop(game view)`` holds; return that game view."""
    while True:
        game = (await client.state(lambda v: v["game"] and (stop(v["game"]) or v["game"]["player"] == seat), 20))[
            "game"
        ]
        if stop(game):
            return game
        await make_move(client, game, rng)
        await client.state(lambda v, seq=game["seq"]: v["game"]["seq"] > seq, 20)


async def make_move(client: LiveClient, game: dict, rng: random.Random) -> None:
    if game["legal_trumps"]:
        await client.send({"type": "choose_trump", "trump": rng.choice(game["legal_trumps"]), "seq": game["seq"]})
    else:
        await client.send({"type": "play_card", "card": rng.choice(game["legal"]), "seq": game["seq"]})


def stored_moves(db_path: str) -> int:
    with sqlite3.connect(db_path) as db:
        return db.execute("SELECT count(*) FROM games_action").fetchone()[0]


async def test_a_game_goes_on_after_a_restart_and_after_a_crash(tmp_path):
    db_path = str(tmp_path / "db.sqlite3")
    env = {"JASSWEB_SQLITE_PATH": db_path, "JASSWEB_BOT_DELAY_MS": "300"}  # the crash must land within a bot pause
    migrate(env)
    server = ServerProcess(env)
    rng = random.Random(4)
    try:
        cookies = guest_cookies(server.url, "Nora")
        table_id = create_live_table(server.url, cookies, mode="fair", round_count="2", seat=str(SOUTH))
        nora = await LiveClient.open(server.url, table_id, cookies)
        for seat in (0, 1, 3):
            await nora.send({"type": "add_bot", "seat": seat, "bot": "random"})
        await nora.send({"type": "start"})

        # 1. A graceful stop while the game waits for Nora.
        waiting = await play_until(nora, SOUTH, rng, lambda g: g["seq"] >= 12 and g["player"] == SOUTH)
        await close_all_clients()
        server.stop()
        server = ServerProcess(env)
        nora = await LiveClient.open(server.url, table_id, cookies)
        game = nora.view["game"]
        assert nora.view["you"]["seat"] == SOUTH
        assert (game["seq"], game["player"], game["hand"]) == (waiting["seq"], SOUTH, waiting["hand"])

        # 2. A crash right after Nora's move is stored, while a bot is about to move. (If her
        #    move wins a trick she leads again: she moves until the turn passes to a bot.)
        while True:
            await make_move(nora, game, rng)
            moved = (await nora.state(lambda v, seq=game["seq"]: v["game"]["seq"] == seq + 1))["game"]
            if moved["player"] != SOUTH:
                break
            game = moved
        server.kill()
        await close_all_clients()
        assert stored_moves(db_path) == moved["seq"]  # committed before the crash, nothing after
        assert moved["player"] != SOUTH, "a bot is to move"

        # 3. After the restart the bots carry on by themselves and the game finishes.
        server = ServerProcess(env)
        nora = await LiveClient.open(server.url, table_id, cookies)
        resumed = nora.view["game"]
        assert resumed["seq"] == moved["seq"] and resumed["player"] == moved["player"]
        await nora.state(lambda v: v["game"]["seq"] > resumed["seq"], 20)
        final = await play_until(nora, SOUTH, rng, lambda g: g["over"])
        assert final["status"] == "finished" and len(final["rounds"]) == 2
        assert stored_moves(db_path) == final["seq"]
    finally:
        await close_all_clients()
        server.stop()
