"""Fair play: a game other people play in ends only when they agree; alone with bots, it ends at once."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from games.live import service, snapshot
from games.models import Game, Player
from tests.table_helpers import actor, make_players, make_table, start
from tests.ws_helpers import Client

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def two_people_two_bots() -> tuple[Player, Player, Player, int, Game]:
    nora, emil, wim = make_players(("Nora", "Emil", "Wim"))
    table = make_table(nora, [nora, "random", emil, "random"])
    return nora, emil, wim, table.pk, start(table, nora)


def status(game: Game) -> str:
    game.refresh_from_db()
    return game.status


def test_abandoning_with_another_person_asks_them_and_ends_only_when_they_agree(two_people_two_bots):
    nora, emil, _, table_id, game = two_people_two_bots
    service.abandon_game(table_id, actor(nora))
    assert status(game) == Game.RUNNING
    vote = snapshot.load_public(table_id).game_json
    assert '"abandon_vote":{"by":0,"by_name":"Nora","voters":[2],"agreed":[],"refused_by":null' in vote
    with pytest.raises(service.ServiceError, match="you asked already"):
        service.abandon_game(table_id, actor(nora))
    with pytest.raises(service.ServiceError) as refused:
        service.answer_abandon(table_id, nora, True)  # the asker does not vote on their own request
    assert refused.value.code == "not_allowed"

    service.answer_abandon(table_id, emil, False)
    assert status(game) == Game.RUNNING
    assert '"refused_by":2' in snapshot.load_public(table_id).game_json
    with pytest.raises(service.ServiceError) as lapsed:
        service.answer_abandon(table_id, emil, True)  # a refused request is over
    assert lapsed.value.code == "no_vote"

    service.abandon_game(table_id, actor(nora))  # asked again
    service.answer_abandon(table_id, emil, True)
    assert status(game) == Game.ABANDONED
    assert game.abandon_reason == "Nora asked and the other players agreed"


def test_asking_while_another_request_is_open_agrees_to_it(two_people_two_bots):
    nora, emil, _, table_id, game = two_people_two_bots
    service.abandon_game(table_id, actor(emil))
    service.abandon_game(table_id, actor(nora))
    assert status(game) == Game.ABANDONED


def test_a_request_lapses(two_people_two_bots, settings):
    nora, emil, _, table_id, game = two_people_two_bots
    service.abandon_game(table_id, actor(nora))
    game.refresh_from_db()
    Game.objects.filter(pk=game.pk).update(abandon_vote={**game.abandon_vote, "until": 1})  # long ago
    assert '"abandon_vote":null' in snapshot.load_public(table_id).game_json
    with pytest.raises(service.ServiceError) as lapsed:
        service.answer_abandon(table_id, emil, True)
    assert lapsed.value.code == "no_vote" and status(game) == Game.RUNNING
    service.abandon_game(table_id, actor(nora))  # a new request may follow
    service.answer_abandon(table_id, emil, True)
    assert status(game) == Game.ABANDONED


def test_the_creator_who_does_not_play_needs_everyone_playing(settings):
    nora, emil, sara = make_players(("Nora", "Emil", "Sara"))
    table = make_table(nora, ["random", emil, "random", sara])
    game = start(table, emil)
    service.abandon_game(table.pk, actor(nora))
    service.answer_abandon(table.pk, emil, True)
    assert status(game) == Game.RUNNING
    service.answer_abandon(table.pk, sara, True)
    assert status(game) == Game.ABANDONED


def test_alone_with_bots_or_after_the_others_left_the_game_ends_at_once(two_people_two_bots):
    nora, emil, _, table_id, game = two_people_two_bots
    service.leave_seat(table_id, emil)  # a stand-in bot plays Emil's seat to the end
    service.abandon_game(table_id, actor(nora))
    assert status(game) == Game.ABANDONED


def test_when_the_last_voter_leaves_having_agreed_or_not(two_people_two_bots):
    nora, emil, _, table_id, game = two_people_two_bots
    service.abandon_game(table_id, actor(nora))
    service.leave_seat(table_id, nora)  # the asker leaves: the request goes with them
    game.refresh_from_db()
    assert game.abandon_vote is None and game.status == Game.RUNNING
    with pytest.raises(service.ServiceError):
        service.answer_abandon(table_id, emil, True)


@pytest.mark.asyncio
@pytest.mark.usefixtures("redis_layer")
async def test_the_vote_over_websockets(stop_runner):
    nora, emil, wim = await sync_to_async(make_players)(("Nora", "Emil", "Wim"))
    table = await sync_to_async(make_table)(nora, [nora, "random", emil, "random"])
    await sync_to_async(start)(table, nora)
    north, south, watcher = [await Client.open(table.pk, p) for p in (nora, emil, wim)]
    await north.send({"type": "abandon"})
    for client in (north, south, watcher):
        view = await client.state(lambda v: v["game"]["abandon_vote"] is not None)
        assert view["game"]["abandon_vote"]["voters"] == [2] and view["game"]["status"] == "running"
    assert (await watcher.error({"type": "abandon_vote", "agree": True}))["code"] == "not_allowed"
    assert (await south.error({"type": "abandon_vote", "agree": "yes"}))["code"] == "bad_message"
    await south.send({"type": "abandon_vote", "agree": True})
    view = await north.state(lambda v: v["game"]["status"] == "abandoned")
    assert view["game"]["abandon_vote"] is None
