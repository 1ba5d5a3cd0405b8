"""Chat, play again and play now on the scaled-out set-up: two server processes, PostgreSQL, Redis.

Nora is connected to one server and Emil to the other: what one says reaches the
other, a spectator's words stay with the spectators, an offer to play again made on
one server is accepted on the other and starts the game, and two people pressing
*Play now* on different servers meet at one table that a server's heartbeat fills
with bots.
"""

from __future__ import annotations

import re

import httpx
import pytest

from tests.server_helpers import HTTP, TLS, ServerProcess, migrate
from tests.services import scale_out
from tests.ws_helpers import LiveClient, close_all_clients, create_live_table, guest_cookies

pytestmark = [pytest.mark.asyncio, pytest.mark.services]


async def play_to_the_end(tabs: dict[int, LiveClient]) -> int:
    """The people at ``tabs`` (seat -> client) play their legal moves until the game is over; its id."""
    watch = next(iter(tabs.values()))
    seq = -1
    while True:
        moved_on = lambda v, seq=seq: v["game"] is not None and (v["game"]["seq"] > seq or v["game"]["over"])  # noqa: E731
        game = (await watch.state(moved_on, 30))["game"]
        if game["over"]:
            return game["id"]
        seq, seat = game["seq"], game["player"]
        if seat not in tabs:
            continue  # a bot's move: wait for the next one
        there = lambda v, seq=seq: v["game"] is not None and v["game"]["seq"] >= seq  # noqa: E731
        view = (await tabs[seat].state(there, 30))["game"]
        if view["seq"] != seq or view["over"]:
            continue
        if view["legal_trumps"]:
            await tabs[seat].send({"type": "choose_trump", "trump": view["legal_trumps"][0], "seq": seq})
        else:
            await tabs[seat].send({"type": "play_card", "card": view["legal"][0], "seq": seq})


async def test_chat_play_again_and_play_now_across_two_servers():
    with scale_out(
        "social", JASSWEB_BOT_DELAY_MS="0", JASSWEB_PLAY_NOW_WAIT_S="3", JASSWEB_CHAT_GUESTS_PHRASES_ONLY="0"
    ) as (env, _database_url):
        migrate(env)
        first, second = ServerProcess(env), ServerProcess(env)
        try:
            nora, emil, vreni = (
                guest_cookies(s.url, n) for s, n in ((first, "Nora"), (second, "Emil"), (first, "Vreni"))
            )
            table_id = create_live_table(first.url, nora, target="1", seat="0")  # to one point: one round a game
            a = await LiveClient.open(first.url, table_id, nora, "Nora on server 1")
            b = await LiveClient.open(second.url, table_id, emil, "Emil on server 2")
            c = await LiveClient.open(first.url, table_id, vreni, "Vreni on server 1")
            await b.send({"type": "join", "seat": 2})
            for seat in (1, 3):
                await a.send({"type": "add_bot", "seat": seat, "bot": "random"})
            await a.state(lambda v: all(s["kind"] != "empty" for s in v["seats"]))

            # Chat across the servers; the spectator's words stay with the spectators.
            await a.send({"type": "chat", "text": "Grüezi <b>Emil</b>"})
            said = await b.frame_of("chat")
            assert (said["from"], said["text"], said["room"]) == ("Nora", "Grüezi <b>Emil</b>", "players")
            await c.send({"type": "chat", "text": "psst"})
            assert (await c.frame_of("chat"))["text"] == "Grüezi <b>Emil</b>"
            assert (await c.frame_of("chat"))["text"] == "psst"
            await b.send({"type": "chat", "phrase": "thanks"})
            assert (await a.frame_of("chat"))["text"] == "Grüezi <b>Emil</b>"  # her own, back
            assert (await a.frame_of("chat"))["phrase"] == "thanks"  # not "psst": that never came here

            # Play again: offered on one server, accepted on the other.
            await a.send({"type": "start"})
            first_game = await play_to_the_end({0: a, 2: b})
            await a.send({"type": "rematch", "accept": True})
            await b.state(lambda v: v["rematch"] is not None)  # the offer reached the other server
            await b.send({"type": "rematch", "accept": True})
            view = await a.state(lambda v: v["game"] is not None and v["game"]["id"] != first_game, 30)
            assert view["game"]["status"] == "running"
            page = HTTP.get(f"{first.url}/games/{first_game}/", timeout=30).text
            assert "Played again by the same four" in page

            # Play now on both servers: one table, filled by bots on a heartbeat, started.
            anna, beat = guest_cookies(first.url, "Anna"), guest_cookies(second.url, "Beat")
            tables = []
            for server, cookies in ((first, anna), (second, beat)):
                with httpx.Client(
                    verify=TLS, base_url=server.url, cookies=cookies, follow_redirects=False, timeout=30
                ) as http:
                    response = http.post(
                        "/play-now/", data={"csrfmiddlewaretoken": cookies["csrftoken"], "bot": "rules"}
                    )
                    assert response.status_code == 302, response.text[:200]
                    tables.append(int(re.findall(r"/tables/(\d+)/", response.headers["location"])[0]))
            assert tables[0] == tables[1]
            watcher = await LiveClient.open(second.url, tables[0], beat, "Beat")
            view = await watcher.state(lambda v: v["game"] is not None, 30)
            kinds = sorted(s["kind"] for s in view["seats"])
            assert kinds == ["bot", "bot", "human", "human"]
        finally:
            await close_all_clients()
            first.stop()
            second.stop()
