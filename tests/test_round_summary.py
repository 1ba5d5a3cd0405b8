"""The end of a round holds the next deal until everyone is ready or the table's round pause runs out.

A round's summary (``game.pause`` in the view) lasts from the round's last card until the pause
runs out, or until every person playing who has the table open pressed *Continue* (``ready``), or
until someone makes the new deal's first move. The bot driver waits for the same thing.
"""

from __future__ import annotations

import asyncio
import random
import time

import pytest
from asgiref.sync import sync_to_async

from bots.runner import BotTurn, Driver, GameInfo, LiveGame, SeatInfo
from games.engine import GameConfig, GameState
from games.live import service, snapshot, states
from games.models import Game, Player, Table
from tests.table_helpers import make_players, make_table, start
from tests.ws_helpers import Client


def _finish_round(game: Game, rng: random.Random) -> GameState:
    """Play random legal moves for whoever is to move until the current round has ended."""
    state = states.load(Game.objects.get(pk=game.pk))
    target = state.round_index + 1
    while state.round_index < target and not state.over:
        move = rng.choice(state.observation(state.player).legal_actions())
        state = service.submit(game.pk, state.player, move, actor=_actor_of(game, state.player), expected_seq=None)
    return state


def _actor_of(game: Game, seat: int) -> service.Actor:
    player_id = game.seats.get(position=seat).player_id
    return service.Actor(player_id=player_id) if player_id else service.BOT_RUNNER


def _pause(table: Table) -> dict | None:
    view = snapshot.table_view(table.pk, None)
    assert view is not None
    return view["game"].get("pause")


@pytest.mark.django_db
def test_the_summary_waits_for_the_people_playing_and_shows_who_is_ready():
    nora, emil, sara, _ = make_players()
    table = make_table(nora, [nora, emil, sara, "random"], round_pause_s=5)
    game = start(table, nora, seed=3)
    assert _pause(table) is None  # nothing has ended yet
    state = _finish_round(game, random.Random(1))
    assert state.round_index == 1

    pause = _pause(table)
    assert pause["round"] == 1 and pause["people"] == [0, 1, 2] and pause["ready"] == []
    finished_at = Game.objects.get(pk=game.pk).turn_started_at.timestamp()
    assert pause["until"] == pytest.approx((finished_at + 5) * 1000, abs=2)

    service.mark_ready(table.pk, sara, 1)
    assert _pause(table)["ready"] == [2]
    version = Table.objects.get(pk=table.pk).version
    service.mark_ready(table.pk, sara, 1)  # closing it again changes nothing
    assert Table.objects.get(pk=table.pk).version == version
    service.mark_ready(table.pk, nora, 1)
    assert _pause(table)["ready"] == [0, 2]

    # The first move of the new deal ends the moment for everyone.
    _move_once(game)
    assert _pause(table) is None


def _move_once(game: Game) -> None:
    state = states.load(Game.objects.get(pk=game.pk))
    move = state.observation(state.player).legal_actions()[0]
    service.submit(game.pk, state.player, move, actor=_actor_of(game, state.player), expected_seq=None)


@pytest.mark.django_db
def test_ready_is_refused_to_strangers_and_for_rounds_that_have_not_ended():
    nora, emil, sara, wim = make_players()
    stranger = Player.objects.create(name="Zoe")
    table = make_table(nora, [nora, emil, sara, wim], round_pause_s=5)
    game = start(table, nora, seed=4)
    with pytest.raises(service.ServiceError) as refused:
        service.mark_ready(table.pk, nora, 1)
    assert refused.value.code == "bad_round"
    _finish_round(game, random.Random(2))
    for who, number, code in ((stranger, 1, "not_seated"), (nora, 2, "bad_round"), (nora, 0, "bad_round")):
        with pytest.raises(service.ServiceError) as refused:
            service.mark_ready(table.pk, who, number)
        assert refused.value.code == code
    with pytest.raises(service.ServiceError) as refused:
        service.mark_ready(table.pk, nora, "1")
    assert refused.value.code == "bad_message"
    assert _pause(table)["ready"] == []


@pytest.mark.django_db
def test_no_summary_holds_a_table_without_a_pause_or_without_people():
    nora, emil, sara, wim = make_players()
    table = make_table(nora, [nora, emil, sara, wim], round_pause_s=0)
    game = start(table, nora, seed=5)
    _finish_round(game, random.Random(3))
    assert _pause(table) is None
    bots = make_table(nora, ["random", "random", "random", "random"], round_pause_s=10, name="Bots")
    game = service.start_game(bots.pk, service.SYSTEM, seed=6)
    _finish_round(game, random.Random(4))
    assert _pause(bots) is None


def test_everyone_ready_means_every_person_playing_who_is_online():
    assert snapshot.pause_over(people=[0, 2], ready=[0, 2], online_seats=[0, 2])
    assert not snapshot.pause_over(people=[0, 2], ready=[0], online_seats=[0, 2])
    assert snapshot.pause_over(people=[0, 2], ready=[0], online_seats=[0])  # South closed the tab
    assert not snapshot.pause_over(people=[0, 2], ready=[], online_seats=[])  # nobody there: the time runs out


# -- the driver --------------------------------------------------------------------------------


def _round_two_game(people: dict[int, int], online: set[int], pause: float) -> tuple[LiveGame, BotTurn]:
    """A driver's game at the start of round two, with persons (seat -> player id) and a bot to move."""
    rng = random.Random(5)
    state = GameState.new(GameConfig(seed=5))
    while state.round_index == 0:
        state = state.apply(state.player, rng.choice(state.observation(state.player).legal_actions()))
    seats = [SeatInfo(people.get(s), "" if s in people else "random", "", "", "") for s in range(4)]
    seats[state.player] = SeatInfo(None, "random", "", "", "")  # a bot opens the new deal
    info = GameInfo(
        table_id=1, seed=5, status="running", seq=0, seats=seats, clock_s=0, standin_bot="rules",
        delay=0.1, timeout=5.0, jass_typ="SCHIEBER", turn_started_at=time.time(), round_pause=pause,
        online=online,
    )  # fmt: skip
    game = LiveGame(Driver(), 1, info, state)  # a driver never started: next_turn() does not use it
    turn = game.next_turn()
    assert turn is not None and turn.pause == pause
    return game, turn


@pytest.mark.asyncio
async def test_the_bots_play_on_as_soon_as_every_person_at_the_table_is_ready():
    game, turn = _round_two_game({0: 10, 2: 12}, online={10, 12}, pause=60.0)
    seat_a, seat_b = [s for s in (0, 2) if game.info.seats[s].person]
    held = asyncio.create_task(game.hold(turn))
    await asyncio.sleep(0.05)
    assert not held.done()
    game.info.seats[seat_a].ready_round = 1
    game.changed.set()
    await asyncio.sleep(0.05)
    assert not held.done()  # one of two is ready
    game.info.seats[seat_b].ready_round = 1
    game.changed.set()
    await asyncio.wait_for(held, 5)  # a minute's pause, over at once


@pytest.mark.asyncio
async def test_a_person_who_closed_the_table_is_not_waited_for_but_nobody_online_waits_the_pause():
    game, turn = _round_two_game({0: 10, 2: 12}, online={10}, pause=60.0)
    seat = next(s for s in (0, 2) if game.info.seats[s].player_id == 10)
    held = asyncio.create_task(game.hold(turn))
    await asyncio.sleep(0.05)
    assert not held.done()
    game.info.seats[seat].ready_round = 1
    game.changed.set()
    await asyncio.wait_for(held, 5)

    game, turn = _round_two_game({0: 10, 2: 12}, online=set(), pause=0.3)
    for s in (0, 2):
        game.info.seats[s].ready_round = 1
    await asyncio.wait_for(game.hold(turn), 5)  # ready but nobody online: the pause runs out on its own


def test_the_pause_belongs_to_the_first_move_of_a_deal_and_only_with_people_playing():
    game, turn = _round_two_game({0: 10, 2: 12}, online=set(), pause=5.0)
    assert turn.pause == 5.0 and turn.delay == pytest.approx(0.1)
    for seat in (0, 2):
        game.info.seats[seat].standin = "clock"  # stand-in bots play for both: nobody reads the summary
    assert game.next_turn().pause == 0.0


# -- over the websocket ------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.usefixtures("redis_layer")
async def test_continue_over_the_websocket_tells_every_viewer_who_is_ready(stop_runner):
    nora, emil, sara, wim = await sync_to_async(make_players)()
    table = await sync_to_async(make_table)(nora, [nora, emil, sara, wim], round_pause_s=10)
    game = await sync_to_async(start)(table, nora, seed=7)
    await sync_to_async(_finish_round)(game, random.Random(6))
    north = await Client.open(table.pk, nora)
    spectator = await Client.open(table.pk, None)
    assert north.view["game"]["pause"]["ready"] == []

    refused = await north.error({"type": "ready", "round": 5})
    assert refused["code"] == "bad_round"
    refused = await spectator.error({"type": "ready", "round": 1})
    assert refused["code"] == "no_identity"
    await north.send({"type": "ready", "round": 1})
    for client in (north, spectator):
        view = await client.state(lambda v: v["game"]["pause"]["ready"] == [0])
        assert view["game"]["pause"]["people"] == [0, 1, 2, 3]
