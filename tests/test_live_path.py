"""The live path at scale: a move's cost does not grow with its watchers, and no game waits forever.

Consumers on the real Redis channel layer, the real driver (``bots.runner``) on
the test's event loop: presence, the turn clock and its stand-in bot, *I'm
back*, leaving a running game, games nobody plays any more, and what the
record and the replay say of stand-in moves.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading

import pytest
from asgiref.sync import sync_to_async
from django.db.backends.utils import CursorWrapper

from games import records
from games.live import service
from games.models import Action, Game, Seat
from games.pages.replay import replay_data
from tests.table_helpers import make_players, make_table, start
from tests.ws_helpers import Client, close_all_clients

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio, pytest.mark.usefixtures("redis_layer")]


class StatementCounter:
    """Counts the SQL statements of every thread (Channels runs database work on a thread of its own)."""

    def __init__(self) -> None:
        self.statements: list[str] = []
        self._lock = threading.Lock()
        # A private method of Django's, so not in django-stubs: the one place every statement passes.
        self._original = CursorWrapper._execute_with_wrappers  # type: ignore[attr-defined]

    def __enter__(self) -> StatementCounter:
        counter, original = self, self._original

        def counting(cursor, sql, params, many, executor):
            with counter._lock:
                counter.statements.append(sql)
            return original(cursor, sql, params, many, executor)

        CursorWrapper._execute_with_wrappers = counting  # type: ignore[attr-defined]
        return self

    def __exit__(self, *exc) -> None:
        CursorWrapper._execute_with_wrappers = self._original  # type: ignore[attr-defined]

    def game_statements(self) -> list[str]:
        """What the move cost, without the driver's heartbeat (once every two seconds per process)."""
        return [s for s in self.statements if "games_worker" not in s]


async def _count_one_move(watchers: int) -> list[str]:
    """Open a game of four people with ``watchers`` spectators; count the statements of one card played."""
    players = await sync_to_async(make_players)(tuple(f"P{watchers}-{i}" for i in range(4)))
    table = await sync_to_async(make_table)(players[0], list(players))
    await sync_to_async(start)(table, players[0], seed=3)
    clients = [await Client.open(table.pk, p) for p in players]
    audience = [await Client.open(table.pk, None, f"watcher {i}") for i in range(watchers)]
    everyone = clients + audience
    view = clients[0].view["game"]
    await clients[view["player"]].send({"type": "choose_trump", "trump": 1, "seq": view["seq"]})
    for client in everyone:
        await client.state(lambda v: v["game"]["phase"] == "play")
    await asyncio.sleep(0.3)  # presence events of the connections above have all been sent
    mover = clients[0].view["game"]["player"]
    view = await clients[mover].state(lambda v: bool(v["game"]["legal"]))
    seq = view["game"]["seq"]
    with StatementCounter() as counter:
        await clients[mover].send({"type": "play_card", "card": view["game"]["legal"][0], "seq": seq})
        for client in everyone:
            await client.state(lambda v: v["game"]["seq"] > seq)
    await close_all_clients()
    return counter.game_statements()


async def test_the_statements_of_a_move_do_not_grow_with_its_watchers(stop_runner):
    few = await _count_one_move(watchers=1)
    many = await _count_one_move(watchers=25)
    assert len(few) == len(many), (few, many)
    # The move itself: SQLite's BEGIN IMMEDIATE, lock and number the event, read the game with its seats, store the
    # move, update the game (on PostgreSQL the last two are one statement: tests/test_move_statements.py).
    assert len(many) <= 5, many
    assert not any(s.lstrip().upper().startswith("SELECT") and "games_connection" in s for s in many)


async def test_a_person_who_closes_the_tab_shows_offline(stop_runner):
    nora, emil = await sync_to_async(make_players)(("Nora", "Emil"))
    table = await sync_to_async(make_table)(nora, [nora, emil, "rules", "rules"])
    north = await Client.open(table.pk, nora)
    east = await Client.open(table.pk, emil)
    view = await north.state(lambda v: emil.pk in v["online"] and nora.pk in v["online"])
    assert view["seats"][1]["player_id"] == emil.pk
    await east.close()
    view = await north.state(lambda v: emil.pk not in v["online"], timeout=5)
    assert nora.pk in view["online"]
    assert await sync_to_async(Seat.objects.filter(table=table, player=emil).exists)() is not False  # still seated


async def _game_with_clock(seconds: int, seed: int = 4):
    nora = (await sync_to_async(make_players)(("Nora",)))[0]
    table = await sync_to_async(make_table)(nora, [nora, "rules", "rules", "rules"], turn_clock_s=seconds)
    client = await Client.open(table.pk, nora)
    await client.send({"type": "start"})
    view = await client.state(lambda v: v["game"] is not None)
    return nora, table, client, view["game"]["id"]


async def test_a_run_out_clock_seats_the_stand_in_and_im_back_returns_the_seat(stop_runner):
    _, _, client, game_id = await _game_with_clock(1)
    # Nora does nothing: when her turn comes, her clock runs out and the stand-in bot plays for her.
    view = await client.state(lambda v: v["game"]["players"][0]["standin"] == "clock", timeout=10)
    assert view["game"]["players"][0]["standin_label"] == "Rule-based bot"
    await client.state(lambda v: v["game"]["player"] not in (0, -1) or v["game"]["seq"] > view["game"]["seq"], 10)
    stood_in = await sync_to_async(lambda: list(Action.objects.filter(game_id=game_id, standin=True)))()
    assert stood_in and all(a.seat == 0 for a in stood_in)

    await client.send({"type": "back"})
    view = await client.state(lambda v: v["game"]["players"][0]["standin"] is None, timeout=5)
    before = await sync_to_async(Action.objects.filter(game_id=game_id, standin=True).count)()
    # Her turn again: she plays it herself, and it is not marked as a stand-in's move.
    view = await client.state(lambda v: v["game"]["player"] == 0, timeout=10)
    game = view["game"]
    if game["legal_trumps"]:
        await client.send({"type": "choose_trump", "trump": game["legal_trumps"][0], "seq": game["seq"]})
    else:
        await client.send({"type": "play_card", "card": game["legal"][0], "seq": game["seq"]})
    await client.state(lambda v, seq=game["seq"]: v["game"]["seq"] > seq)
    mine = await sync_to_async(Action.objects.get)(game_id=game_id, seq=game["seq"])
    assert mine.seat == 0 and not mine.standin
    assert await sync_to_async(Action.objects.filter(game_id=game_id, standin=True).count)() == before


async def test_a_person_playing_for_themselves_is_refused_while_the_stand_in_plays(stop_runner):
    _, _, client, _ = await _game_with_clock(1)
    await client.state(lambda v: v["game"]["players"][0]["standin"] == "clock", timeout=10)
    view = await client.state(lambda v: v["game"]["player"] == 0 and v["game"]["players"][0]["standin"], timeout=10)
    refusal = await client.error({"type": "play_card", "card": view["game"]["hand"][0], "seq": view["game"]["seq"]})
    assert refusal["code"] in ("standin", "stale")


async def test_a_seated_player_can_leave_a_running_game_and_a_bot_takes_the_seat(stop_runner):
    nora, emil = await sync_to_async(make_players)(("Nora", "Emil"))
    table = await sync_to_async(make_table)(nora, [nora, emil, "rules", "rules"])
    north = await Client.open(table.pk, nora)
    east = await Client.open(table.pk, emil)
    await north.send({"type": "start"})
    view = await east.state(lambda v: v["game"] is not None)
    game_id = view["game"]["id"]
    await east.send({"type": "leave"})
    view = await north.state(lambda v: v["game"] is not None and v["game"]["players"][1]["standin"] == "left")
    assert view["seats"][1]["kind"] == "bot" and view["seats"][1]["bot"] == "rules"
    # The stand-in plays East's turns from now on; Nora plays hers; the game goes on to its end.
    rng = random.Random(2)
    while True:
        view = await north.state(lambda v: v["game"]["over"] or v["game"]["player"] == 0, 20)
        game = view["game"]
        if game["over"]:
            break
        if game["legal_trumps"]:
            await north.send({"type": "choose_trump", "trump": rng.choice(game["legal_trumps"]), "seq": game["seq"]})
        else:
            await north.send({"type": "play_card", "card": rng.choice(game["legal"]), "seq": game["seq"]})
        await north.state(lambda v, seq=game["seq"]: v["game"]["seq"] > seq or v["game"]["over"], 20)
        if (await sync_to_async(Game.objects.get)(pk=game_id)).action_count > 40:
            break  # a few tricks with the stand-in are enough
    refusal = await east.error({"type": "back"})
    assert refusal["code"] == "left"
    moves = await sync_to_async(lambda: list(Action.objects.filter(game_id=game_id, seat=1)))()
    assert moves and all(m.standin for m in moves)


async def test_a_game_nobody_plays_any_more_is_abandoned_with_its_reason(stop_runner, settings):
    settings.JASSWEB_ORPHAN_MINUTES = 0.02  # 1.2 s
    nora, emil = await sync_to_async(make_players)(("Nora", "Emil"))
    table = await sync_to_async(make_table)(nora, [nora, emil, "rules", "rules"])  # no clock: nothing moves
    await sync_to_async(start)(table, nora, seed=9)
    north = await Client.open(table.pk, nora)
    east = await Client.open(table.pk, emil)
    watcher = await Client.open(table.pk, None)
    await north.state(lambda v: v["game"]["player"] in (0, 1))  # a person is to move
    await north.close()
    await asyncio.sleep(1.5)
    game = await sync_to_async(Game.objects.get)(table=table)
    assert game.status == Game.RUNNING  # Emil is still there
    await east.close()
    view = await watcher.state(lambda v: v["game"]["status"] == "abandoned", timeout=8)
    assert view["game"]["abandon_reason"] == "nobody was at the table for 1.2 seconds"
    game = await sync_to_async(Game.objects.get)(table=table)
    assert game.status == Game.ABANDONED and game.abandon_reason.startswith("nobody was at the table")


async def test_a_game_only_stand_ins_play_is_abandoned_after_the_orphan_time(stop_runner, settings):
    """Its one person closed the tab: the stand-in and three bots move every second, yet nobody is there."""
    settings.JASSWEB_ORPHAN_MINUTES = 0.05  # 3 s
    nora = (await sync_to_async(make_players)(("Nora",)))[0]
    table = await sync_to_async(make_table)(
        nora, [nora, "rules", "rules", "rules"], turn_clock_s=1, target=5000, bot_delay_ms=150
    )
    client = await Client.open(table.pk, nora)
    watcher = await Client.open(table.pk, None)
    await client.send({"type": "start"})
    await client.state(lambda v: v["game"] is not None)
    await client.close()
    view = await watcher.state(lambda v: v["game"] and v["game"]["players"][0]["standin"] == "clock", timeout=10)
    seq = view["game"]["seq"]
    view = await watcher.state(lambda v: v["game"]["status"] != "running", timeout=20)
    assert view["game"]["status"] == "abandoned", "a game to 5000 points is not over in seconds"
    assert view["game"]["abandon_reason"] == "nobody was at the table for 3 seconds"
    assert view["game"]["seq"] > seq, "stand-in and bots had moved on meanwhile"


async def test_a_game_of_bots_alone_is_never_abandoned_as_orphaned(stop_runner, settings):
    settings.JASSWEB_ORPHAN_MINUTES = 0.005
    nora = (await sync_to_async(make_players)(("Nora",)))[0]
    table = await sync_to_async(make_table)(nora, ["random"] * 4, mode="fair", round_count=2)
    watcher = await Client.open(table.pk, None)
    await sync_to_async(start)(table, nora, seed=5)
    view = await watcher.state(lambda v: v["game"] and v["game"]["over"], 30)
    assert view["game"]["status"] == "finished"


async def test_stand_in_moves_are_in_the_record_survive_import_and_show_in_the_replay(stop_runner):
    nora, table, client, game_id = await _game_with_clock(1, seed=6)
    await client.state(lambda v: v["game"]["players"][0]["standin"] == "clock", timeout=10)
    await client.state(lambda v: v["game"]["seq"] >= 12, timeout=20)
    await sync_to_async(service.abandon_game)(table.pk, service.Actor(player_id=nora.pk))
    game = await sync_to_async(Game.objects.get)(pk=game_id)
    record = await sync_to_async(records.game_record)(game)
    stood_in = [m["move"] for m in record["standin_moves"]]
    assert stood_in and all(m["seat"] == 0 for m in record["standin_moves"])
    assert record["standin_bot"] == "rules" and record["abandon_reason"] == "abandoned by a player"

    from django.test import Client as PageClient

    page = await sync_to_async(lambda: PageClient().get(f"/games/{game_id}/").content.decode())()
    assert "Abandoned: a player ended it." in page  # not "Abandoned: abandoned by a player." (issue 23)
    assert f"{len(stood_in)} move{'s' if len(stood_in) != 1 else ''} made by the stand-in Rule-based bot" in page

    imported = await sync_to_async(records.import_record)(json.loads(json.dumps(record)))
    assert (
        await sync_to_async(
            lambda: sorted(Action.objects.filter(game=imported, standin=True).values_list("seq", flat=True))
        )()
        == stood_in
    )

    for stored in (game, imported):
        data = await sync_to_async(replay_data)(stored)
        marked = []
        seq = 0
        for rnd in data["rounds"]:
            decisions = len(rnd["decision_ms"])
            marked += [seq + k for k in rnd["decision_standins"]]
            marked += [seq + decisions + k for k, card in enumerate(rnd["cards"]) if card.get("standin")]
            seq += decisions + len(rnd["cards"])
        assert marked == stood_in
        assert data["standin_label"] == "Rule-based bot"


async def _lobby_statements(watchers: int) -> list[str]:
    """Open ``watchers`` lobbies, change a table, count the statements until every lobby has the news."""
    from channels.testing import WebsocketCommunicator

    from jassweb.asgi import application
    from tests.ws_helpers import ORIGIN, session_cookie

    players = await sync_to_async(make_players)(tuple(f"L{watchers}-{i}" for i in range(watchers)))
    lobbies = []
    for player in players:
        lobby = WebsocketCommunicator(application, "/ws/lobby/", headers=[ORIGIN, await session_cookie(player)])
        assert (await lobby.connect())[0]
        assert (await lobby.receive_json_from(5))["type"] == "tables"
        lobbies.append(lobby)
    with StatementCounter() as counter:
        table = await sync_to_async(service.create_table)(players[0], name=f"News for {watchers}")
        for lobby in lobbies:
            tables = (await lobby.receive_json_from(5))["tables"]
            assert table.pk in [t["id"] for t in tables]
    for lobby in lobbies:
        await lobby.disconnect()
    return counter.game_statements()


async def test_the_lobby_is_rendered_once_for_all_its_watchers(stop_runner):
    one = await _lobby_statements(1)
    many = await _lobby_statements(12)
    assert len(one) == len(many), (one, many)
