"""Websocket consumers on the real Redis channel layer: views, refusals, races, reconnects."""

from __future__ import annotations

import asyncio
import gc
import json
import random
from collections import Counter

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from games.engine import CARD_CODES, GameState, codes_of
from games.live import service
from games.models import Action as ActionRow
from games.models import Game, Table
from tests.table_helpers import make_players, make_table, start
from tests.ws_helpers import ORIGIN, Client, FrameRecorder

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio, pytest.mark.usefixtures("redis_layer")]


def ground_truth(game_id: int, seq: int) -> GameState:
    """The full state of a game after its first ``seq`` moves, from the database."""
    game = Game.objects.get(pk=game_id)
    rows = list(game.actions.order_by("seq")[:seq])
    return GameState.replay(game.config(), [(r.seat, r.to_engine()) for r in rows], game.plan())


def card_strings(value, path=()):
    """Yield (path, code) for every card code anywhere in a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from card_strings(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from card_strings(item, (*path, index))
    elif isinstance(value, str) and value in CARD_CODES:
        yield path, value


def assert_only_public_cards_and_own_hand(frame: dict, truth: GameState, seat: int | None) -> None:
    """Every card in a frame is the viewer's own hand, or a card already played where the frame says."""
    current = truth.current
    played_now = {CARD_CODES[c] for t in current.tricks for c in t.cards} | {CARD_CODES[c] for c in current.trick}
    completed = [t for rnd in truth.rounds for t in rnd.tricks]
    latest_trick = {CARD_CODES[c] for c in completed[-1].cards} if completed else set()  # maybe last round's
    own = set(codes_of(current.hands[seat])) if seat is not None else set()
    for path, code in card_strings(frame):
        where = "/".join(map(str, path))
        if path[:3] == ("view", "game", "hand"):
            assert seat is not None and code in own, f"{where}: {code} is not the viewer's"
        elif "previous_trick" in path:
            assert code in latest_trick, f"{where}: {code} was not in the latest completed trick"
        elif path[2] == "why_not":
            # A refused card's reason may name the trick's highest trump (no under-trumping): a card on the table.
            on_table = {CARD_CODES[c] for c in current.trick}
            assert path[3] in own and path[4] == "card" and code in on_table, f"{where}: {code} is not in the trick"
        else:
            assert path[2] in ("trick", "last_trick", "legal"), f"{where}: a card where none belongs"
            assert code in (own if path[2] == "legal" else played_now), f"{where}: {code} was not played"
    if seat is None:
        assert "hand" not in frame["view"]["game"] and "legal" not in frame["view"]["game"]
    else:
        assert frame["view"]["game"]["hand"] == codes_of(current.hands[seat])


async def play_as(client: FrameRecorder, seat: int, rng: random.Random) -> None:
    """Act for ``seat`` whenever the view says it is its turn, until the game is over."""
    while True:
        view = await client.state(lambda v: v["game"] and (v["game"]["over"] or v["game"]["player"] == seat), 20)
        game = view["game"]
        if game["over"]:
            return
        if game["legal_trumps"]:
            await client.send({"type": "choose_trump", "trump": rng.choice(game["legal_trumps"]), "seq": game["seq"]})
        else:
            await client.send({"type": "play_card", "card": rng.choice(game["legal"]), "seq": game["seq"]})
        await client.state(lambda v, seq=game["seq"]: v["game"]["seq"] > seq or v["game"]["over"], 20)


async def test_no_frame_ever_carries_another_seats_cards(stop_runner):
    nora, _, sara, _ = await sync_to_async(make_players)()
    table = await sync_to_async(make_table)(nora, [nora, "random", sara, "random"], mode="fair", round_count=2)
    north = await Client.open(table.pk, nora)
    south = await Client.open(table.pk, sara)
    spectator = await Client.open(table.pk, None)
    await north.send({"type": "start"})
    game_view = await north.state(lambda v: v["game"] is not None)
    rng = random.Random(5)
    await asyncio.gather(play_as(north, 0, rng), play_as(south, 2, rng))
    await spectator.state(lambda v: v["game"] and v["game"]["over"], 20)
    game_id = game_view["game"]["id"]

    checked = 0
    for client, seat in ((north, 0), (south, 2), (spectator, None)):
        assert len(client.frames) > 40  # a state per move, fewer only when events arrive together
        for frame in client.frames:
            if frame["type"] != "state" or frame["view"]["game"] is None:
                continue
            view = frame["view"]["game"]
            truth = await sync_to_async(ground_truth)(game_id, view["seq"])
            assert_only_public_cards_and_own_hand(frame, truth, seat)
            checked += 1
    assert checked > 120
    final = await sync_to_async(Game.objects.get)(pk=game_id)
    assert final.status == Game.FINISHED and final.action_count >= 74


async def _four_humans_in_card_play():
    players = await sync_to_async(make_players)()
    table = await sync_to_async(make_table)(players[0], list(players))
    game = await sync_to_async(start)(table, players[0], seed=11)
    clients = [await Client.open(table.pk, p) for p in players]
    view = clients[0].view["game"]
    mover = view["player"]
    await clients[mover].send({"type": "choose_trump", "trump": 2, "seq": view["seq"]})  # spades
    for client in clients:
        await client.state(lambda v: v["game"]["phase"] == "play")
    return table, game, players, clients


async def _snapshot(game_id: int, table_id: int):
    game = await sync_to_async(Game.objects.get)(pk=game_id)
    table = await sync_to_async(Table.objects.get)(pk=table_id)
    rows = await sync_to_async(lambda: list(ActionRow.objects.filter(game_id=game_id).values_list("seq", "value")))()
    return game.action_count, table.version, rows


async def test_refused_messages_get_one_error_shape_and_change_nothing(stop_runner):
    table, game, _, clients = await _four_humans_in_card_play()
    view = clients[0].view["game"]
    seat, seq = view["player"], view["seq"]
    mover, other = clients[seat], clients[(seat + 1) % 4]
    # Lead a card, so that the next player may have cards that are not legal now.
    await mover.send({"type": "play_card", "card": mover.view["game"]["legal"][0], "seq": seq})
    nxt = (await other.state(lambda v: v["game"]["seq"] == seq + 1))["game"]
    seat, seq = nxt["player"], nxt["seq"]
    mover, bystander = clients[seat], clients[(seat + 1) % 4]
    view = await mover.state(lambda v: v["game"]["seq"] == seq)
    hand, legal = view["game"]["hand"], view["game"]["legal"]
    not_held = next(code for code in CARD_CODES if code not in hand)
    before = await _snapshot(game.pk, table.pk)
    spectator = await Client.open(table.pk, None)

    cases = [
        (mover, "x" * 5000, "bad_frame"),
        (mover, "not json", "bad_json"),
        (mover, "[1, 2]", "bad_message"),
        (mover, '{"type": 5}', "bad_message"),
        (mover, {"type": "dance"}, "unknown_type"),
        (mover, {"type": "play_card", "card": legal[0]}, "bad_message"),
        (mover, {"type": "play_card", "card": legal[0], "seq": "7"}, "bad_message"),
        (mover, {"type": "play_card", "card": "ZZ", "seq": seq}, "bad_action"),
        (mover, {"type": "play_card", "card": 5, "seq": seq}, "bad_action"),
        (mover, {"type": "choose_trump", "trump": 7, "seq": seq}, "bad_action"),
        (mover, {"type": "choose_trump", "trump": 1, "seq": seq}, "illegal"),
        (mover, {"type": "play_card", "card": not_held, "seq": seq}, "illegal"),
        (mover, {"type": "play_card", "card": legal[0], "seq": seq - 1}, "stale"),
        (mover, {"type": "play_card", "card": legal[0], "seq": seq, "seat": (seat + 2) % 4}, "not_your_seat"),
        (bystander, {"type": "play_card", "card": bystander.view["game"]["hand"][0], "seq": seq}, "not_your_turn"),
        (spectator, {"type": "play_card", "card": legal[0], "seq": seq}, "not_seated"),
        (spectator, {"type": "join", "seat": 0}, "no_identity"),
        (mover, {"type": "join", "seat": 1}, "game_running"),
        (mover, {"type": "add_bot", "seat": 1, "bot": "random"}, "game_running"),
        (mover, {"type": "add_bot", "seat": 1}, "bad_message"),
        (mover, {"type": "start"}, "game_running"),
    ]
    illegal = [code for code in hand if code not in legal]
    if illegal:
        cases.append((mover, {"type": "play_card", "card": illegal[0], "seq": seq}, "illegal"))
    await mover.send_bytes(b"\x00binary")
    assert (await mover.receive())["code"] == "bad_frame"
    for client, message, code in cases:
        reply = await client.error(message)
        assert set(reply) == {"type", "code", "message"}
        assert reply["code"] == code, (message, reply)
        assert reply["message"]
    assert await _snapshot(game.pk, table.pk) == before
    await mover.send({"type": "ping", "id": 42})
    assert (await mover.receive())["type"] == "pong"  # the connection survived all of it
    await mover.send({"type": "play_card", "card": legal[0], "seq": seq})
    await mover.state(lambda v: v["game"]["seq"] == seq + 1)


async def test_two_tabs_playing_the_same_seat_at_once_store_exactly_one_move(stop_runner):
    table, game, players, clients = await _four_humans_in_card_play()
    for _ in range(8):
        view = clients[0].view["game"]
        seat, seq = view["player"], view["seq"]
        tab = await Client.open(table.pk, players[seat], label="second tab")
        legal = clients[seat].view["game"]["legal"]
        first, second = legal[0], legal[-1]
        await asyncio.gather(
            clients[seat].send({"type": "play_card", "card": first, "seq": seq}),
            tab.send({"type": "play_card", "card": second, "seq": seq}),
        )
        for client in clients:
            await client.state(lambda v, seq=seq: v["game"]["seq"] == seq + 1)
        replies = await clients[seat].drain() + await tab.drain()
        count, _, rows = await _snapshot(game.pk, table.pk)
        assert count == seq + 1 and len(rows) == seq + 1
        errors = [f for f in clients[seat].frames + tab.frames if f["type"] == "error"]
        assert len(errors) == 1 and errors[0]["code"] in ("stale", "not_your_turn"), replies
        clients[seat].frames = [f for f in clients[seat].frames if f["type"] != "error"]
        await tab.close()


async def test_a_reconnecting_player_gets_the_seat_and_the_game_back(stop_runner):
    table, _, players, clients = await _four_humans_in_card_play()
    seat = 2
    before = clients[seat].view
    await clients[seat].close()
    again = await Client.open(table.pk, players[seat])
    view = again.view
    assert view["you"]["seat"] == seat and view["you"]["game_seat"] == seat
    assert view["game"]["hand"] == before["game"]["hand"] and view["version"] >= before["version"]
    await again.send({"type": "resync"})
    assert (await again.state())["version"] == view["version"]


async def test_event_numbers_only_grow(stop_runner):
    nora = (await sync_to_async(make_players)(("Nora",)))[0]
    table = await sync_to_async(make_table)(nora, [nora, "random", "random", "random"], mode="fair", round_count=2)
    client = await Client.open(table.pk, nora)
    await client.send({"type": "start"})
    await play_as(client, 0, random.Random(1))
    versions = [f["version"] for f in client.frames if f["type"] == "state"]
    assert versions == sorted(versions) and len(set(versions)) == len(versions)


async def test_bots_move_without_anyone_asking(stop_runner):
    nora = (await sync_to_async(make_players)(("Nora",)))[0]
    table = await sync_to_async(make_table)(nora, ["random"] * 4, mode="fair", round_count=2)
    client = await Client.open(table.pk, None)
    await sync_to_async(service.start_game)(table.pk, service.SYSTEM, 8)
    view = await client.state(lambda v: v["game"] and v["game"]["over"], 30)
    assert view["game"]["status"] == "finished"


async def test_unknown_tables_and_foreign_origins_are_refused():
    from jassweb.asgi import application

    communicator = WebsocketCommunicator(application, "/ws/tables/424242/", headers=[ORIGIN])
    connected, code = await communicator.connect()
    assert not connected and code == 4404
    table = await sync_to_async(make_table)((await sync_to_async(make_players)(("Nora",)))[0], [])
    evil = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/", headers=[(b"origin", b"http://evil.example")])
    connected, _ = await evil.connect()
    assert not connected


async def test_the_lobby_lists_tables_live(stop_runner):
    from jassweb.asgi import application

    lobby = WebsocketCommunicator(application, "/ws/lobby/", headers=[ORIGIN])
    assert (await lobby.connect())[0]
    first = await lobby.receive_json_from()
    assert first["type"] == "tables"
    nora = (await sync_to_async(make_players)(("Nora",)))[0]
    await sync_to_async(service.create_table)(nora, name="Neuer Tisch")
    update = await lobby.receive_json_from(timeout=5)
    assert "Neuer Tisch" in json.dumps(update)
    await lobby.disconnect()


async def test_a_move_made_while_the_driver_reads_the_game_is_not_lost(stop_runner, monkeypatch):
    # The driver takes a game when it starts and reads it from the database. A person's move that
    # lands while it reads (here: right after) used to be lost: the driver waited for that move for
    # ever and the bot after it never played. It reads the game again now.
    from bots import runner

    nora = (await sync_to_async(make_players)(("Nora",)))[0]
    table = await sync_to_async(make_table)(nora, [nora, "random", "random", "random"], mode="fair", round_count=2)
    seed = next(s for s in range(100) if GameState.new(table.config(s)).player == 0)  # Nora chooses trump
    read = runner.load_infos
    raced: list[int] = []

    def read_then_move(game_ids: list[int]):
        loaded = read(game_ids)
        if not raced and loaded:  # Nora chooses trump and leads a card: then a bot is to play
            (game_id, (_, state)), *_ = loaded.items()
            for seq in (0, 1):
                action = state.observation(0).legal_actions()[0]
                service.submit(game_id, 0, action, actor=service.Actor(player_id=nora.pk), expected_seq=seq)
                state = state.apply(0, action)
            raced.append(game_id)
        return loaded

    monkeypatch.setattr(runner, "load_infos", read_then_move)
    client = await Client.open(table.pk, nora)
    await sync_to_async(start)(table, nora, seed)
    view = await client.state(lambda v: v["game"] and v["game"]["seq"] >= 3, 10)
    assert raced and view["game"]["seq"] >= 3  # Nora's trump and card, then a bot's card: the game went on


async def test_a_sockets_frames_and_events_make_no_task_each(stop_runner):
    # Channels' own loop makes a task (and a context, and a waiter) for every message a socket gets; on a
    # busy server those were most of what a young garbage collection walks (games.live.consumers.dispatch_in_turn).
    nora = (await sync_to_async(make_players)(("Nora",)))[0]
    table = await sync_to_async(make_table)(nora, ["random"] * 4, mode="fair", round_count=2)
    client = await Client.open(table.pk, None)
    made: list[str] = []
    loop = asyncio.get_running_loop()

    def count_receives(loop, coro, **options):
        name = getattr(coro, "__qualname__", "")
        from_the_socket = name == "Queue.get" and coro.cr_frame.f_locals.get("self") is client.communicator.input_queue
        from_the_layer = name.endswith("Layer.receive") or name == "_async_proxy"  # channels_redis' pub/sub proxies
        if from_the_socket or from_the_layer:
            made.append(name)  # a receive of the socket's, in a task of its own
        return asyncio.Task(coro, loop=loop, **options)

    loop.set_task_factory(count_receives)
    try:
        await sync_to_async(service.start_game)(table.pk, service.SYSTEM, 8)
        view = await client.state(lambda v: v["game"] and v["game"]["over"], 30)
        for ref in range(20):
            await client.send({"type": "ping", "id": ref})
            assert (await client.frame_of("pong"))["id"] == ref
    finally:
        loop.set_task_factory(None)
    assert view["game"]["status"] == "finished"
    events = sum(frame["type"] == "state" for frame in client.frames)
    assert events > 50 and made == [], (events, len(made))


async def test_a_closed_socket_is_freed_at_once_not_left_to_a_full_collection(stop_runner):
    # A closed socket's consumer must not sit in a reference cycle (an exception's traceback holding the frame
    # that holds the tasks that hold the exception): 5,000 sockets' worth of such garbage is what a full
    # collection then walks and frees, pausing every table of the server.
    nora = (await sync_to_async(make_players)(("Nora",)))[0]
    table = await sync_to_async(make_table)(nora, [nora, "random", "random", "random"])
    await (await Client.open(table.pk, nora)).close()  # what a first socket sets up once
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for player in (None, nora, None, nora):
            await (await Client.open(table.pk, player)).close()
        gc.collect()
        left = Counter(type(thing).__name__ for thing in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left["TableConsumer"] == left["traceback"] == left["Task"] == 0, left.most_common(12)
