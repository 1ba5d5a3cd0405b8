"""Racing moves on the scaled-out setup: two server processes, one PostgreSQL, one Redis.

The same player has a tab on each server; both tabs send a different card for
the same seat at the same moment. The database lock and the event number let
exactly one through, every time, and the other tab gets a clear refusal.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from tests.server_helpers import ServerProcess, migrate
from tests.services import fetch_one, scale_out
from tests.ws_helpers import LiveClient, after, at, close_all_clients, create_live_table, guest_cookies

pytestmark = [pytest.mark.asyncio, pytest.mark.services]


def stored(database_url: str, table_id: int) -> tuple[int, int]:
    """(moves stored, the game's own move counter) straight from PostgreSQL."""
    count, counter = fetch_one(
        database_url,
        "SELECT count(a.id), g.action_count FROM games_game g LEFT JOIN games_action a ON a.game_id = g.id"
        " WHERE g.table_id = %s GROUP BY g.id",
        table_id,
    )
    return count, counter


async def test_two_servers_two_tabs_one_seat_exactly_one_move_each_time():
    with scale_out("race", JASSWEB_BOT_DELAY_MS="0") as (env, database_url):
        migrate(env)
        first, second = ServerProcess(env), ServerProcess(env)
        try:
            people = [guest_cookies(first.url, name) for name in ("Nora", "Emil", "Sara", "Wim")]
            table_id = create_live_table(first.url, people[0], mode="fair", round_count="2", seat="0")
            tabs = [await LiveClient.open(first.url, table_id, people[0], "Nora on server 1")]
            for seat in (1, 2, 3):  # the others sit down through alternating servers
                server = (first, second)[seat % 2]
                tabs.append(await LiveClient.open(server.url, table_id, people[seat], f"seat {seat}"))
                await tabs[seat].send({"type": "join", "seat": seat})
            await tabs[0].state(lambda v: all(s["kind"] == "human" for s in v["seats"]))
            twin = await LiveClient.open(second.url, table_id, people[0], "Nora on server 2")
            await tabs[0].send({"type": "start"})

            rng = random.Random(12)
            races = 0
            while True:
                game = (await tabs[0].state(lambda v: v["game"] is not None))["game"]
                if game["over"]:
                    break
                seat, seq = game["player"], game["seq"]
                view = (await tabs[seat].state(at(seq)))["game"]
                if seat != 0:
                    if view["legal_trumps"]:
                        move = {"type": "choose_trump", "trump": rng.choice(view["legal_trumps"]), "seq": seq}
                    else:
                        move = {"type": "play_card", "card": rng.choice(view["legal"]), "seq": seq}
                    await tabs[seat].send(move)
                else:
                    await twin.state(at(seq))
                    if view["legal_trumps"]:
                        options = view["legal_trumps"]
                        one, other = ({"type": "choose_trump", "trump": t, "seq": seq} for t in options[:2])
                    else:
                        cards = view["legal"]
                        one, other = ({"type": "play_card", "card": c, "seq": seq} for c in (cards[0], cards[-1]))
                    await asyncio.gather(tabs[0].send(one), twin.send(other))
                    for tab in (tabs[0], twin):
                        await tab.state(after(seq), 20)
                    replies = await tabs[0].drain() + await twin.drain()
                    errors = [f for f in tabs[0].frames + twin.frames if f["type"] == "error"]
                    assert len(errors) == 1, (errors, replies)
                    # The winner of the last race ends the game; the loser then hears "game_over".
                    assert errors[0]["code"] in ("stale", "not_your_turn", "game_over")
                    for tab in (tabs[0], twin):
                        tab.frames = [f for f in tab.frames if f["type"] != "error"]
                    count, counter = stored(database_url, table_id)
                    assert count == counter and count >= seq + 1
                    races += 1
                await tabs[0].state(after(seq), 20)
            count, counter = stored(database_url, table_id)
            assert count == counter == game["seq"]
            assert races >= 18  # about a quarter of some 75 moves
            assert game["status"] == "finished"
        finally:
            await close_all_clients()
            first.stop()
            second.stop()
