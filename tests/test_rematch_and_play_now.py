"""Play again with the same four, and play now: a seat at a table waiting for people, or one that bots fill."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bots.runner import play_bot_turns
from games.errors import ErrorCode
from games.live import protocol, service
from games.models import Competitor, Game, Player, Seat, Table
from games.pages import history
from tests.table_helpers import make_players, make_table, start

pytestmark = pytest.mark.django_db


def finished_game(people: int = 2) -> tuple[Table, Game, list]:
    """A table with ``people`` people (Nora North, Emil South) and bots, whose first game is over."""
    players = make_players(("Nora", "Emil")[:people])
    seats: list[Player | str | None] = [players[0], "random", players[1] if people > 1 else "random", "random"]
    table = make_table(players[0], seats, mode="fair", round_count=2)
    game = start(table, players[0])
    for _ in range(200):  # the people's moves: the service's checked path, like a page's
        game.refresh_from_db()
        if game.status != Game.RUNNING:
            break
        state = service.load_state(game)
        if game.seats.get(position=state.player).player_id:
            move = state.observation(state.player).legal_actions()[0]
            service.submit(game.pk, state.player, move, actor=service.Actor(player_id=game.seats.get(
                position=state.player).player_id), expected_seq=game.action_count)  # fmt: skip
        else:
            play_bot_turns(game.pk)
    game.refresh_from_db()
    assert game.status == Game.FINISHED
    return table, game, players


def refused(code: ErrorCode, call, *args) -> None:
    with pytest.raises(service.ServiceError) as caught:
        call(*args)
    assert caught.value.code == code, caught.value.message


def test_everyone_seated_accepts_and_the_same_four_play_again_with_the_deal_moved_on():
    table, first, (nora, emil) = finished_game()
    assert service.rematch(table.pk, nora, True) is None  # offered: Emil has not accepted yet
    table.refresh_from_db()
    assert table.rematch["voters"] == [nora.pk, emil.pk] and table.rematch["accepted"] == [nora.pk]
    second = service.rematch(table.pk, emil, True)
    assert second is not None and second.previous_id == first.pk
    assert [s.player_id for s in second.seats.order_by("position")] == [
        s.player_id for s in first.seats.order_by("position")
    ]
    assert second.deals[0]["dealer"] == (first.deals[-1]["dealer"] - 1) % 4  # the deal moves on
    table.refresh_from_db()
    assert table.rematch is None
    assert [g.pk for g in history.series(first)] == [first.pk, second.pk] == [g.pk for g in history.series(second)]


def test_one_refusal_and_no_game_starts():
    table, _, (nora, emil) = finished_game()
    service.rematch(table.pk, nora, True)
    assert service.rematch(table.pk, emil, False) is None
    assert not table.games.filter(status=Game.RUNNING).exists()
    refused(ErrorCode.NO_VOTE, service.rematch, table.pk, nora, False)  # nothing open to refuse now
    assert service.rematch(table.pk, nora, True) is None  # a new offer may follow


def test_an_offer_lapses_after_its_minute():
    table, _, (nora, emil) = finished_game()
    service.rematch(table.pk, nora, True)
    Table.objects.filter(pk=table.pk).update(rematch={**Table.objects.get(pk=table.pk).rematch, "until": 0})
    assert service.rematch(table.pk, emil, True) is None  # a lapsed offer: Emil's press makes a new one
    assert Table.objects.get(pk=table.pk).rematch["by"] == emil.pk


def test_alone_with_bots_playing_again_starts_at_once_and_strangers_and_tournaments_are_refused():
    table, first, (nora,) = finished_game(people=1)
    stranger = make_players(("Mallory",))[0]
    refused(ErrorCode.NOT_SEATED, service.rematch, table.pk, stranger, True)
    answer = protocol.parse('{"type": "rematch", "accept": "yes"}')  # a frame's shape is the protocol's
    assert isinstance(answer, protocol.ProtocolError) and answer.code == ErrorCode.BAD_MESSAGE
    second = service.rematch(table.pk, nora, True)
    assert second is not None and second.previous_id == first.pk
    refused(ErrorCode.GAME_RUNNING, service.rematch, table.pk, nora, True)
    managed = service.create_table(None, name="Cup table", managed_by="/tournaments/1/")
    refused(ErrorCode.MANAGED, service.rematch, managed.pk, nora, True)


def test_two_people_pressing_play_now_meet_at_one_table_that_bots_fill_when_the_wait_is_over(settings):
    settings.JASSWEB_PLAY_NOW_WAIT_S = 30
    nora, emil = make_players(("Nora", "Emil"))
    first = service.play_now(nora, "mcts-fast")
    assert first.open_until is not None and first.mode == "fair" and first.rated
    assert service.play_now(nora) == first  # pressing again: back to the same table
    assert service.play_now(emil) == first
    seats = list(Seat.objects.filter(table=first).order_by("position"))
    assert {s.player_id for s in seats} == {nora.pk, emil.pk, None}
    assert service.play_now_due() == []  # the wait is not over
    Table.objects.filter(pk=first.pk).update(open_until=timezone.now() - timedelta(seconds=1))
    assert service.play_now_due() == [first.pk]
    game = first.games.get()
    assert [s.bot for s in game.seats.order_by("position") if not s.player_id] == ["mcts-fast", "mcts-fast"]
    assert Table.objects.get(pk=first.pk).open_until is None


def test_play_now_prefers_the_waiting_table_closest_in_rating_and_four_people_start_at_once():
    strong, weak, newcomer, *others = make_players(("Strong", "Weak", "Newcomer", "A", "B", "C"))
    Competitor.objects.create(key=f"person:{strong.pk}", kind="person", player=strong, name="Strong",
                              mu=40, sigma=2, ordinal=34)  # fmt: skip
    Competitor.objects.create(key=f"person:{weak.pk}", kind="person", player=weak, name="Weak",
                              mu=20, sigma=2, ordinal=14)  # fmt: skip
    service.play_now(strong)  # Strong's table waits
    weak_table = service.create_table(weak, name="Weak's game", mode="fair", round_count=4)  # and Weak's
    Table.objects.filter(pk=weak_table.pk).update(
        open_until=timezone.now() + timedelta(seconds=30), play_now_bot="rules"
    )
    Seat.objects.filter(table=weak_table, position=2).update(player=weak)
    assert service.play_now(newcomer) == weak_table  # unrated (0) is closer to 14 than to 34
    for person in others[:2]:
        assert service.play_now(person) == weak_table
    started = Table.objects.get(pk=weak_table.pk)
    assert started.open_until is None and started.games.filter(status=Game.RUNNING).exists()  # four people


def test_a_bot_gives_its_seat_to_a_person_between_games_at_a_play_now_table():
    nora, emil = make_players(("Nora", "Emil"))
    table = service.play_now(nora)
    Table.objects.filter(pk=table.pk).update(open_until=timezone.now() - timedelta(seconds=1))
    service.play_now_due()
    game = table.games.get()
    refused(ErrorCode.GAME_RUNNING, service.take_seat, table.pk, 0, emil)
    service.abandon_game(table.pk, service.SYSTEM)
    assert game.pk
    service.take_seat(table.pk, 0, emil)
    assert Seat.objects.get(table=table, position=0).player == emil
    plain = make_table(nora, [None, "random", None, None])
    refused(ErrorCode.SEAT_TAKEN, service.take_seat, plain.pk, 1, emil)  # elsewhere a bot keeps its seat
