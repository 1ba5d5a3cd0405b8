"""Weis and Stöck over the websocket (real Redis channel layer): declaring, announcing, refusals, no leaks."""

from __future__ import annotations

import asyncio
import random

import pytest
from asgiref.sync import sync_to_async

from games.engine import CARD_CODES, GameState, codes_of, weis_cards
from games.models import Game
from tests.engine_helpers import held_weis
from tests.table_helpers import make_players, make_table
from tests.test_consumers import _snapshot, card_strings, ground_truth
from tests.ws_helpers import Client

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio, pytest.mark.usefixtures("redis_layer")]


def allowed_weis_cards(truth: GameState, seat: int | None, path: tuple) -> set[str]:
    """The cards a Weis part of a frame may show: the scoring team's of each round, the viewer's own."""
    if truth.over:
        return set(CARD_CODES)
    index = path[3] if path[2] == "rounds" else truth.round_index
    rnd = truth.rounds[index]
    shown = rnd.observation(seat).shown_weis or ()
    cards = {c for codes in shown for code in codes for c in codes_of(weis_cards(code))}
    if seat is not None and path[2] == "announce":
        cards |= set(codes_of(rnd.starting_hands()[seat]))
    return cards


def check_frame(frame: dict, truth: GameState, seat: int | None) -> int:
    """Every card under a Weis key is one the viewer may see; return how many such cards there were."""
    seen = 0
    for path, code in card_strings(frame):
        if "weis" in path or path[2:3] == ("announce",):
            assert code in allowed_weis_cards(truth, seat, path), f"{'/'.join(map(str, path))}: {code} leaked"
            seen += 1
    return seen


async def play_with_weis(client: Client, seat: int, rng: random.Random, announced: list[str]) -> None:
    """Act for ``seat``: declare every Weis offered (one message), announce Stöck when offered, else play."""
    while True:
        view = await client.state(lambda v: v["game"] and (v["game"]["over"] or v["game"]["player"] == seat), 30)
        game = view["game"]
        if game["over"]:
            return
        offer = game.get("announce") or {}
        if game["legal_trumps"]:
            message = {"type": "choose_trump", "trump": rng.choice(game["legal_trumps"])}
        elif offer.get("weis"):
            message = {"type": "declare_weis", "weis": [entry["code"] for entry in offer["weis"]]}
            announced.append("weis")
        elif offer.get("stoeck"):
            message = {"type": "play_card", "card": offer["stoeck"], "stoeck": True}
            announced.append("stoeck")
        else:
            message = {"type": "play_card", "card": rng.choice(game["legal"])}
        await client.send({**message, "seq": game["seq"]})
        await client.state(lambda v, seq=game["seq"]: v["game"]["seq"] > seq or v["game"]["over"], 30)


async def test_people_declare_and_announce_over_the_socket_and_no_frame_leaks_a_weis(stop_runner):
    nora, _, sara, _ = await sync_to_async(make_players)()
    table = await sync_to_async(make_table)(
        nora, [nora, "rules", sara, "rules"], mode="fair", round_count=4, weis=True, round_pause_s=0
    )
    north, south = await Client.open(table.pk, nora), await Client.open(table.pk, sara)
    spectator = await Client.open(table.pk, None)
    await north.send({"type": "start"})
    game_id = (await north.state(lambda v: v["game"] is not None))["game"]["id"]
    announced: list[str] = []
    rng = random.Random(7)
    await asyncio.gather(play_with_weis(north, 0, rng, announced), play_with_weis(south, 2, rng, announced))
    await spectator.state(lambda v: v["game"] and v["game"]["over"], 30)

    game = await sync_to_async(Game.objects.get)(pk=game_id)
    final = await sync_to_async(ground_truth)(game_id, game.action_count)
    assert game.status == Game.FINISHED and final.config.weis
    people = [d for rnd in final.rounds for s in (0, 2) for d in rnd.declared[s]]
    assert len(people) == sum(len(held_weis(rnd, s)) for rnd in final.rounds for s in (0, 2))
    weis_cards_seen = 0
    for client, seat in ((north, 0), (south, 2), (spectator, None)):
        for frame in client.frames:
            if frame["type"] == "state" and frame["view"]["game"] is not None:
                truth = await sync_to_async(ground_truth)(game_id, frame["view"]["game"]["seq"])
                weis_cards_seen += check_frame(frame, truth, seat)
    if people or any(rnd.weis_team >= 0 for rnd in final.rounds):
        assert weis_cards_seen > 0  # the check looked at real Weis cards


async def test_bad_weis_and_stoeck_messages_are_refused_and_change_nothing(stop_runner):
    players = await sync_to_async(make_players)()
    table = await sync_to_async(make_table)(players[0], list(players), weis=True)
    clients = [await Client.open(table.pk, p) for p in players]
    await clients[0].send({"type": "start"})
    view = (await clients[0].state(lambda v: v["game"] is not None))["game"]
    mover = clients[view["player"]]
    await mover.send({"type": "choose_trump", "trump": 4, "seq": view["seq"]})  # Obe-Abe: no Stöck
    view = (await mover.state(lambda v: v["game"] and v["game"]["phase"] == "play"))["game"]
    mover = clients[view["player"]]
    view = (await mover.state(lambda v: v["game"]["seq"] == view["seq"]))["game"]
    seq, card = view["seq"], view["legal"][0]
    game_id = view["id"]
    before = await _snapshot(game_id, table.pk)
    cases = [
        ({"type": "declare_weis", "weis": "all", "seq": seq}, "bad_action"),
        ({"type": "declare_weis", "weis": [], "seq": seq}, "bad_action"),
        ({"type": "declare_weis", "weis": [1006], "seq": seq}, "bad_action"),  # four 8s are no Weis
        ({"type": "declare_weis", "weis": [5], "seq": seq}, "bad_action"),
        ({"type": "declare_weis", "weis": [1003, 1003], "seq": seq}, "illegal"),  # not held, or twice
        ({"type": "announce_stoeck", "card": card, "seq": seq}, "illegal"),
        ({"type": "announce_stoeck", "seq": seq}, "bad_action"),
        ({"type": "play_card", "card": card, "stoeck": "yes", "seq": seq}, "bad_action"),
        ({"type": "play_card", "card": card, "stoeck": True, "seq": seq}, "illegal"),
        ({"type": "declare_weis", "weis": [1003], "seq": seq - 1}, "stale"),
    ]
    for message, code in cases:
        reply = await mover.error(message)
        assert reply["code"] == code, (message, reply)
    other = clients[(view["player"] + 1) % 4]
    assert (await other.error({"type": "declare_weis", "weis": [1003], "seq": seq}))["code"] in (
        "not_your_turn",
        "illegal",
    )
    assert await _snapshot(game_id, table.pk) == before
