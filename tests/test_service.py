"""The one writer: tables, seats, games, and every move through games.live.service.submit."""

from __future__ import annotations

import pytest

from bots.runner import play_bot_turns
from games.engine import Action, GameState, IllegalReason
from games.live import service
from games.models import Action as ActionRow
from games.models import Game
from tests.table_helpers import actor, make_players, make_table, start

pytestmark = pytest.mark.django_db


@pytest.fixture
def four():
    return make_players()


def refused(code: str, call, *args, **kwargs) -> service.ServiceError:
    with pytest.raises(service.ServiceError) as excinfo:
        call(*args, **kwargs)
    assert excinfo.value.code == code, excinfo.value.message
    return excinfo.value


def test_a_table_starts_with_four_empty_seats(four):
    table = service.create_table(four[0], name="Stammtisch", mode="fair", round_count=8)
    assert [s.kind for s in table.seats.order_by("position")] == ["empty"] * 4
    assert (table.mode, table.round_count, table.version) == ("fair", 8, 1)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"name": ""}, "name"),
        ({"name": "x" * 61}, "name"),
        ({"mode": "fair", "round_count": 7}, "even number of rounds"),
        ({"target": 0}, "target must be"),
        ({"mode": "poker"}, "mode must be"),
        ({"bot_delay_ms": 99999}, "bot delay"),
    ],
)
def test_bad_table_options_are_refused(four, options, message):
    error = refused("bad_options", service.create_table, four[0], **{"name": "T", **options})
    assert message in error.message


def test_seats_take_one_person_each_and_bots_only_from_managers(four):
    nora, emil, _, _ = four
    table = make_table(nora, [nora, None, None, None])
    refused("seat_taken", service.take_seat, table.pk, 0, emil)
    refused("already_seated", service.take_seat, table.pk, 1, nora)
    refused("not_allowed", service.set_bot, table.pk, 1, "random", actor(emil))  # not seated, not creator
    refused("unknown_bot", service.set_bot, table.pk, 1, "deep-blue", actor(nora))
    refused("bad_seat", service.take_seat, table.pk, 4, emil)
    service.take_seat(table.pk, 1, emil)
    service.set_bot(table.pk, 2, "random", actor(emil))  # a seated player may add bots
    refused("seat_taken", service.set_bot, table.pk, 1, "random", actor(nora))
    refused("seats_empty", service.start_game, table.pk, actor(nora))
    service.set_bot(table.pk, 3, "random", actor(nora))
    service.clear_seat(table.pk, 3, actor(nora))
    refused("not_a_bot", service.clear_seat, table.pk, 3, actor(nora))


def test_seats_are_frozen_while_a_game_runs(four):
    nora, emil, _, _ = four
    table = make_table(nora, [nora, "random", "random", "random"])
    start(table, nora)
    refused("game_running", service.leave_seat, table.pk, emil)  # Emil does not play: nothing to leave
    refused("game_running", service.take_seat, table.pk, 1, emil)
    refused("game_running", service.start_game, table.pk, actor(nora))


def test_starting_stores_the_seats_deals_and_schedule(four):
    nora, emil, sara, wim = four
    table = make_table(nora, [nora, emil, sara, wim], mode="fair", round_count=4)
    game = start(table, nora, seed=42)
    assert [s.name for s in game.seats.order_by("position")] == ["Nora", "Emil", "Sara", "Wim"]
    assert len(game.deals) == 4 and len(game.fair_schedule) == 4
    assert GameState.new(game.config(), game.plan()).current.hands == game.plan().deal(0).hands


def _mover(game: Game, players):
    state = service.load_state(game)
    return state, players[state.player]


def _snapshot(game: Game):
    game.refresh_from_db()
    return game.action_count, list(ActionRow.objects.filter(game=game).values_list("seq", "kind", "value"))


def test_every_refused_move_changes_nothing(four):
    nora = four[0]
    table = make_table(nora, list(four))
    game = start(table, nora)
    state, mover = _mover(game, four)
    state = service.submit(game.pk, state.player, Action.trump(0), actor=actor(mover), expected_seq=0)
    before = _snapshot(game)
    seat = state.player
    mover = four[seat]
    other = (seat + 1) % 4
    held = state.current.hands[seat]
    not_held = next(c for c in range(36) if not held >> c & 1)
    refused("not_your_turn", service.submit, game.pk, other, Action.card(0), actor=actor(four[other]), expected_seq=1)
    refused("not_your_seat", service.submit, game.pk, seat, Action.card(0), actor=actor(four[other]), expected_seq=1)
    gone = refused("illegal", service.submit, game.pk, seat, Action.card(not_held), actor=actor(mover), expected_seq=1)
    assert (gone.seat, gone.card, gone.reason) == (seat, not_held, IllegalReason.ABSENT)
    declared = refused("illegal", service.submit, game.pk, seat, Action.trump(1), actor=actor(mover), expected_seq=1)
    assert (declared.seat, declared.card, declared.reason) == (seat, None, IllegalReason.TRUMP_DECLARED)
    legal = state.current.legal_cards()[0]
    refused("stale", service.submit, game.pk, seat, Action.card(legal), actor=actor(mover), expected_seq=0)
    refused(
        "not_your_seat", service.submit, game.pk, seat, Action.card(legal), actor=service.BOT_RUNNER, expected_seq=1
    )
    refused("bad_action", service.submit, game.pk, seat, "HA", actor=actor(mover), expected_seq=1)
    refused("no_game", service.submit, 999999, seat, Action.card(legal), actor=actor(mover), expected_seq=1)
    assert _snapshot(game) == before
    service.submit(game.pk, seat, Action.card(legal), actor=actor(mover), expected_seq=1)
    assert _snapshot(game)[0] == before[0] + 1


def _play_until_seat(game: Game, seat: int) -> GameState:
    """Let the bots move until ``seat`` (a person) is to act; return that state."""
    play_bot_turns(game.pk)
    game.refresh_from_db()
    state = service.load_state(game)
    assert state.player == seat
    return state


def test_the_state_is_rebuilt_from_the_database_alone(four):
    nora = four[0]
    table = make_table(nora, [nora, "random", "random", "random"])
    game = start(table, nora, seed=9)
    for _ in range(3):  # Nora's moves interleaved with the bots'
        state = _play_until_seat(game, 0)
        service.submit(game.pk, 0, state.current.legal_actions()[0], actor=actor(nora), expected_seq=game.action_count)
    play_bot_turns(game.pk)
    game.refresh_from_db()
    cached = service.load_state(game)
    service.forget_cached_states()
    rebuilt = service.load_state(game)
    assert rebuilt == cached
    actions = [(row.seat, row.to_engine()) for row in game.actions.order_by("seq")]
    assert GameState.replay(game.config(), actions, game.plan()) == rebuilt


def test_a_finished_game_records_its_result_and_refuses_more_moves(four):
    table = make_table(four[0], ["random", "random", "random", "random"], mode="fair", round_count=2)
    game = service.start_game(table.pk, service.SYSTEM, seed=3)
    moves = play_bot_turns(game.pk)
    game.refresh_from_db()
    assert moves == game.action_count == ActionRow.objects.filter(game=game).count()
    assert 2 * 37 <= moves <= 2 * 38  # per round: a trump (maybe after a push) and 36 cards
    assert game.status == Game.FINISHED and game.finished_at is not None
    assert sum(game.points) in range(314, 515)
    assert game.winner == (None if game.points[0] == game.points[1] else int(game.points[1] > game.points[0]))
    refused("game_over", service.submit, game.pk, 0, Action.card(0), actor=service.BOT_RUNNER, expected_seq=None)


def test_abandoning_frees_the_table(four):
    nora, emil, _, _ = four
    table = make_table(nora, [nora, "random", "random", "random"])
    start(table, nora)
    refused("not_allowed", service.abandon_game, table.pk, actor(emil))
    game = service.abandon_game(table.pk, actor(nora))
    assert game.status == Game.ABANDONED
    service.leave_seat(table.pk, nora)


def test_every_change_bumps_the_table_event_number(four):
    nora = four[0]
    table = make_table(nora, [nora, "random", "random", "random"])
    versions = [table.version]
    game = start(table, nora)
    table.refresh_from_db()
    versions.append(table.version)
    state = _play_until_seat(game, 0)
    table.refresh_from_db()
    versions.append(table.version)
    service.submit(game.pk, 0, state.current.legal_actions()[0], actor=actor(nora), expected_seq=game.action_count)
    table.refresh_from_db()
    versions.append(table.version)
    assert versions[0] < versions[1] <= versions[2] < versions[3]
    assert versions[3] == versions[1] + game.actions.count()
