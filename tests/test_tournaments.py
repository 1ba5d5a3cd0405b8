"""Tournaments through their writer: registration, the start, rounds of ordinary games, forfeits, limits, the end.

The games are played headless through the same service and bot driver as live
tables (``play_bot_turns``); each game's end moves its tournament on inside the
transaction that ends the game.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from datetime import timedelta

import pytest
from django.db.models import Q
from django.utils import timezone

from games.errors import ErrorCode
from games.live import service as games
from games.models import Connection, Game, GameSeat, Table, Worker
from tests.table_helpers import make_players
from tests.tournament_helpers import bot_tournament, play_out, running_games, standings_from_records
from tournaments import report, service
from tournaments.models import Entrant, Match, MatchGame, Tournament
from tournaments.service import SeatSpec, TournamentError

pytestmark = pytest.mark.django_db

FOUR = {"Alpha": "rules", "Bravo": "random", "Charlie": "rules", "Delta": "random"}


def refused(code: str, call, *args, **kwargs) -> str:
    with pytest.raises(TournamentError) as caught:
        call(*args, **kwargs)
    assert caught.value.code == code, caught.value.message
    return caught.value.message


# -- registration ------------------------------------------------------------------------------------


def test_a_person_registers_with_a_bot_partner_or_invites_a_person_who_joins_by_link():
    anna, beat, carla = make_players(("Anna", "Beat", "Carla"))
    tournament = service.create(anna, service.Options(name="Club evening"))
    solo = service.add_team(tournament.pk, carla, "", (SeatSpec(player=carla), service.bot_spec("rules")))
    assert (solo.status, solo.name) == (Entrant.READY, "Carla & Rule-based")
    pair = service.add_team(tournament.pk, anna, "Die Trümpfe", (SeatSpec(player=anna), None))
    assert pair.status == Entrant.PENDING
    refused("bad_invitation", service.join_team, tournament.pk, "not-the-token", beat)
    refused("already_registered", service.join_team, tournament.pk, pair.invite_token, carla)
    service.join_team(tournament.pk, pair.invite_token, beat)
    pair.refresh_from_db()
    assert pair.status == Entrant.READY
    assert [m.player for m in pair.members.order_by("slot")] == [anna, beat]
    refused("bad_invitation", service.join_team, tournament.pk, pair.invite_token, beat)  # complete now


def test_registration_refuses_others_in_your_name_a_second_team_and_a_taken_name():
    anna, beat = make_players(("Anna", "Beat"))
    tournament = service.create(anna, service.Options(name="Cup"))
    refused("not_allowed", service.add_team, tournament.pk, anna, "", (SeatSpec(player=beat), None))
    service.add_team(tournament.pk, anna, "Team", (SeatSpec(player=anna), service.bot_spec("random")))
    refused("already_registered", service.add_team, tournament.pk, anna, "Other", (SeatSpec(player=anna), None))
    refused("bad_team", service.add_team, tournament.pk, beat, "Team", (SeatSpec(player=beat), None))
    refused("unknown_bot", service.bot_spec, "no-such-bot")
    refused("bad_bot_url", service.bot_spec, "http://")


def test_only_the_organiser_starts_with_two_ready_teams_and_teams_without_a_partner_are_dropped():
    anna, beat, carla = make_players(("Anna", "Beat", "Carla"))
    tournament = service.create(anna, service.Options(name="Cup"))
    service.add_team(tournament.pk, beat, "", (SeatSpec(player=beat), None))  # never completed
    service.add_team(tournament.pk, None, "Bots", (service.bot_spec("rules"), service.bot_spec("rules")))
    refused("not_allowed", service.start, tournament.pk, carla)
    refused("too_few", service.start, tournament.pk, anna)
    service.add_team(tournament.pk, carla, "", (SeatSpec(player=carla), service.bot_spec("rules")))
    service.start(tournament.pk, anna)
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.RUNNING
    assert Entrant.objects.get(tournament=tournament, registered_by=beat).status == Entrant.DROPPED
    refused("registration_closed", service.add_team, tournament.pk, None, "Late", (service.bot_spec("rules"),) * 2)


def test_the_options_are_checked_with_their_reason():
    for options, words in (
        ({"name": ""}, "name"),
        ({"format": "knockout"}, "format"),
        ({"format": "swiss", "rounds": 0}, "rounds"),
        ({"round_count": 3}, "even"),
        ({"match_mode": "standard", "target": 0}, "target"),
        ({"max_games": 0}, "at once"),
        ({"turn_clock_s": 5000}, "clock"),
    ):
        message = refused("bad_options", service.create, None, service.Options(**{"name": "Cup", **options}))
        assert words in message


# -- playing ---------------------------------------------------------------------------------------------


def test_a_round_robin_plays_every_pairing_once_and_its_standings_are_the_games_records():
    tournament = bot_tournament(FOUR)
    service.start(tournament.pk, None)
    tournament = play_out(tournament.pk)
    assert tournament.status == Tournament.FINISHED and tournament.rounds == 3
    matches = Match.objects.filter(tournament=tournament)
    pairs = Counter(frozenset((m.a_id, m.b_id)) for m in matches)
    assert len(pairs) == 6 and set(pairs.values()) == {1}
    games = Game.objects.filter(tournament_game__match__tournament=tournament)
    assert games.count() == 6 and set(games.values_list("status", flat=True)) == {Game.FINISHED}
    assert all(t.managed_by == f"/tournaments/{tournament.pk}/" for t in Table.objects.filter(games__in=games))
    data = report.summary(tournament)
    shown = [(s["team"], s["match_points"], s["point_advantage"]) for s in data["standings"]]
    assert shown == standings_from_records(tournament)
    assert sum(s["played"] for s in data["standings"]) == 12
    assert sum(s["match_points"] for s in data["standings"]) == 6 * 2  # every match gives 2 points in all


def test_the_same_seed_plays_the_same_tournament():
    results = []
    for _ in range(2):
        tournament = bot_tournament(FOUR, seed=99, format=Tournament.SWISS, rounds=2)
        service.start(tournament.pk, None)
        data = report.summary(play_out(tournament.pk))
        results.append(
            ([(s["team"], s["match_points"]) for s in data["standings"]], [g["points"] for g in data["games"]])
        )
    assert results[0] == results[1]


def test_a_swiss_tournament_pairs_each_round_after_the_last_with_byes_and_no_rematch():
    teams = {name: bot for name, bot in zip("ABCDE", ["rules", "random", "rules", "random", "rules"], strict=True)}
    tournament = bot_tournament(teams, format=Tournament.SWISS, rounds=3)
    service.start(tournament.pk, None)
    assert Match.objects.filter(tournament=tournament).count() == 3  # round 1 only: two matches and a bye
    tournament = play_out(tournament.pk)
    assert tournament.status == Tournament.FINISHED and tournament.current_round == 3
    matches = list(Match.objects.filter(tournament=tournament))
    byes = [m.a_id for m in matches if m.b_id is None]
    assert len(byes) == 3 and len(set(byes)) == 3  # one bye a round, never twice to one team
    met = [frozenset((m.a_id, m.b_id)) for m in matches if m.b_id is not None]
    assert len(met) == len(set(met)) == 6
    data = report.summary(tournament)
    shown = [(s["team"], s["match_points"], s["point_advantage"]) for s in data["standings"]]
    assert shown == standings_from_records(tournament)
    by_team = {s["team"]: s for s in data["standings"]}
    for s in data["standings"]:  # Buchholz: the match points of the teams met, byes not counted
        entrant = Entrant.objects.get(tournament=tournament, name=s["team"])
        opponents = [m.b if m.a_id == entrant.pk else m.a for m in matches if entrant.pk in (m.a_id, m.b_id) and m.b_id]
        assert s["buchholz"] == sum(by_team[o.name]["match_points"] for o in opponents)


def test_a_standard_match_is_two_games_on_the_same_deals_with_the_seats_swapped():
    tournament = bot_tournament({"A": "rules", "B": "random"}, match_mode=Tournament.STANDARD_MATCH, target=300)
    service.start(tournament.pk, None)
    assert len(running_games(tournament.pk)) == 1  # the second game waits for the first
    tournament = play_out(tournament.pk)
    first, second = (mg.game for mg in MatchGame.objects.filter(match__tournament=tournament).order_by("index"))
    assert first.seed == second.seed and first.deals[0] == second.deals[0]
    # A plays rules: North/South in the first game, East/West in the second.
    sides = [[s.bot for s in game.seats.order_by("position")] for game in (first, second)]
    assert sides == [["rules", "random", "rules", "random"], ["random", "rules", "random", "rules"]]
    data = report.summary(tournament)
    a = next(s for s in data["standings"] if s["team"] == "A")
    assert a["point_advantage"] == (first.points[0] - first.points[1]) + (second.points[1] - second.points[0])


def test_games_at_once_and_per_bot_url_stay_within_their_limits():
    tournament = bot_tournament(FOUR, max_games=1)
    service.start(tournament.pk, None)
    assert len(running_games(tournament.pk)) == 1
    url = "http://127.0.0.1:9/bot"  # never called: the games are only started here
    limited = bot_tournament({"A": url, "B": url, "C": "rules", "D": url}, max_games_per_url=1)
    service.start(limited.pk, None)
    running = running_games(limited.pk)
    assert len(running) == 1
    assert GameSeat.objects.filter(game_id__in=running, remote_url=url).values("game_id").distinct().count() == 1


def test_a_team_of_bots_plays_many_games_at_once_and_a_team_with_people_one():
    tournament = bot_tournament({n: "random" for n in "ABCDEF"}, max_games=50)
    service.start(tournament.pk, None)
    assert len(running_games(tournament.pk)) == 15  # every match of the round robin: bots need no rest
    anna = make_players(("Anna",))[0]
    mixed = service.create(None, service.Options(name="Mixed", round_count=2, max_games=50))
    service.add_team(mixed.pk, anna, "Anna", (SeatSpec(player=anna), service.bot_spec("rules")))
    for name in "BCDE":
        service.add_team(mixed.pk, None, name, (service.bot_spec("random"),) * 2)
    service.start(mixed.pk, None)
    running = running_games(mixed.pk)
    with_anna = [g for g in running if GameSeat.objects.filter(game_id=g, player=anna).exists()]
    assert len(with_anna) == 1 and len(running) == 1 + 6  # Anna's one match, and every match of bots alone


def test_a_failed_step_never_undoes_the_move_that_ended_a_game_and_the_heartbeat_repairs_it(monkeypatch):
    tournament = bot_tournament(FOUR, max_games=1)
    service.start(tournament.pk, None)
    (first,) = running_games(tournament.pk)
    real = service._dispatch
    monkeypatch.setattr(service, "_dispatch", lambda *a: (_ for _ in ()).throw(RuntimeError("boom")))
    from bots.runner import play_bot_turns

    play_bot_turns(first)
    assert Game.objects.get(pk=first).status == Game.FINISHED  # the game's end stands
    assert running_games(tournament.pk) == []  # nothing followed from it
    monkeypatch.setattr(service, "_dispatch", real)
    service.tick(force=True)
    assert len(running_games(tournament.pk)) == 1
    assert play_out(tournament.pk).status == Tournament.FINISHED


def test_a_tournament_starts_at_its_time_on_a_servers_heartbeat():
    tournament = bot_tournament(FOUR)
    Tournament.objects.filter(pk=tournament.pk).update(starts_at=timezone.now() + timedelta(hours=1))
    service.tick(force=True)
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.REGISTRATION
    Tournament.objects.filter(pk=tournament.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    service.tick(force=True)
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.RUNNING
    assert running_games(tournament.pk)


# -- people, forfeits, withdrawals ---------------------------------------------------------------------


def _people_against_bots() -> tuple[Tournament, Game, int]:
    anna, beat = make_players(("Anna", "Beat"))
    tournament = service.create(anna, service.Options(name="Evening", round_count=2, turn_clock_s=30, seed=3))
    team = service.add_team(tournament.pk, anna, "People", (SeatSpec(player=anna), None))
    service.join_team(tournament.pk, team.invite_token, beat)
    service.add_team(tournament.pk, None, "Bots", (service.bot_spec("rules"), service.bot_spec("rules")))
    service.start(tournament.pk, anna)
    (game_id,) = running_games(tournament.pk)
    game = Game.objects.get(pk=game_id)
    seat = next(s.position for s in game.seats.all() if s.player_id)
    return tournament, game, seat


def _run_out_the_clock(game: Game) -> int:
    """Play the bots up to a person's turn, then let that person's clock run out; return the seat."""
    from bots.runner import play_bot_turns
    from games.live.states import load

    play_bot_turns(game.pk)
    game.refresh_from_db()
    seat = load(game).player
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(seconds=31))
    assert games.clock_ran_out(game.pk, seat, Game.objects.get(pk=game.pk).action_count)
    return seat


def test_a_team_that_does_not_show_loses_by_forfeit_when_its_clock_runs_out():
    tournament, game, _ = _people_against_bots()
    assert game.table.managed_by and game.turn_clock_s == 30 and game.table.bot_delay_ms > 0
    _run_out_the_clock(game)
    game.refresh_from_db()
    assert game.status == Game.ABANDONED and "did not show" in game.abandon_reason
    data = report.summary(Tournament.objects.get(pk=tournament.pk))
    assert data["status"] == Tournament.FINISHED
    assert [(s["team"], s["match_points"], s["point_advantage"]) for s in data["standings"]] == [
        ("Bots", 2, 0),
        ("People", 0, 0),
    ]
    assert data["matches"][0]["forfeit"] == ["People"]


def test_a_team_at_its_table_gets_a_stand_in_when_its_clock_runs_out_not_a_forfeit():
    tournament, game, _ = _people_against_bots()
    people = [s.player_id for s in game.seats.all() if s.player_id]
    worker = Worker.objects.create(id="w-test", heartbeat_at=timezone.now())
    Connection.objects.create(channel_name="c1", worker=worker, table_id=game.table_id, player_id=people[0])
    seat = _run_out_the_clock(game)
    game.refresh_from_db()
    assert game.status == Game.RUNNING and GameSeat.objects.get(game=game, position=seat).standin == GameSeat.CLOCK
    assert not Match.objects.get(tournament=tournament).forfeit


def test_people_cannot_rearrange_start_or_abandon_a_tournament_table_but_may_leave_their_game():
    _, game, _ = _people_against_bots()
    anna = next(s.player for s in game.seats.all() if s.player_id)
    table_id = game.table_id
    me = games.Actor(player_id=anna.pk)
    for call in (
        lambda: games.abandon_game(table_id, me),
        lambda: games.set_bot(table_id, 1, "random", me),
        lambda: games.start_game(table_id, me),
    ):
        with pytest.raises(games.ServiceError) as caught:
            call()
        assert caught.value.code == ErrorCode.MANAGED
    games.leave_seat(table_id, anna)  # leaving the game: the stand-in plays on
    assert GameSeat.objects.get(game=game, player=anna).standin == GameSeat.LEFT
    assert Game.objects.get(pk=game.pk).status == Game.RUNNING


def test_a_withdrawn_team_forfeits_its_game_and_is_not_paired_again():
    anna = make_players(("Anna",))[0]
    tournament = service.create(anna, service.Options(name="Cup", format=Tournament.SWISS, rounds=3, round_count=2))
    for name, bot in FOUR.items():
        service.add_team(tournament.pk, anna if name == "Alpha" else None, name, (service.bot_spec(bot),) * 2)
    service.start(tournament.pk, anna)
    alpha = Entrant.objects.get(tournament=tournament, name="Alpha")
    refused("not_allowed", service.withdraw, tournament.pk, alpha.pk, make_players(("Mallory",))[0])
    service.withdraw(tournament.pk, alpha.pk, anna)
    first = Match.objects.get(Q(round_number=1) & (Q(a=alpha) | Q(b=alpha)))
    assert "a" in first.forfeit or "b" in first.forfeit
    assert Game.objects.get(tournament_game__match=first).status == Game.ABANDONED
    tournament = play_out(tournament.pk)
    assert tournament.status == Tournament.FINISHED
    later = Match.objects.filter(tournament=tournament, round_number__gt=1)
    assert not later.filter(a=alpha).exists() and not later.filter(b=alpha).exists()
    assert later.filter(b__isnull=True).count() == 2  # three teams left: a bye each round
    alpha_line = next(s for s in report.summary(tournament)["standings"] if s["team"] == "Alpha")
    assert alpha_line["withdrawn"] and alpha_line["played"] == 1 and alpha_line["match_points"] == 0


def test_cancelling_abandons_the_running_games_and_ends_the_tournament():
    anna = make_players(("Anna",))[0]
    tournament = bot_tournament(FOUR, owner=anna)
    service.start(tournament.pk, anna)
    running = running_games(tournament.pk)
    assert running
    service.cancel(tournament.pk, anna)
    assert set(Game.objects.filter(pk__in=running).values_list("status", flat=True)) == {Game.ABANDONED}
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.CANCELLED
    refused("over", service.cancel, tournament.pk, anna)


# -- what it shows -------------------------------------------------------------------------------------


def test_the_standings_json_and_csv_hold_every_documented_field():
    tournament = bot_tournament(FOUR)
    service.start(tournament.pk, None)
    data = report.summary(play_out(tournament.pk))
    assert set(data) >= {"tournament", "standings", "games", "matches"}
    for line in data["standings"]:
        assert set(line) >= {"team", "played", "won", "drawn", "lost", "match_points", "point_advantage", "faults"}
    for game in data["games"]:
        assert set(game) >= {"game", "teams", "points"} and len(game["teams"]) == len(game["points"]) == 2
        stored = Game.objects.get(pk=game["game"])
        assert game["points"] == stored.points
    rows = list(csv.DictReader(io.StringIO(report.csv_text(data))))
    assert [r["team"] for r in rows] == [s["team"] for s in data["standings"]]
    assert rows[0]["match_points"] == str(data["standings"][0]["match_points"])


def test_a_rated_tournament_moves_the_ratings_and_a_casual_one_does_not():
    from games.models import Competitor, RatingChange

    rated = bot_tournament({"A": "rules", "B": "random"}, rated=True)
    service.start(rated.pk, None)
    play_out(rated.pk)
    games = Game.objects.filter(tournament_game__match__tournament=rated)
    assert all(games.values_list("rated", flat=True))
    assert RatingChange.objects.filter(game__in=games).count() == 2  # one rating per competitor of the game
    assert Competitor.objects.get(key="bot:rules").rated_games == 1
    casual = bot_tournament({"A": "rules", "B": "random"})
    service.start(casual.pk, None)
    play_out(casual.pk)
    assert not RatingChange.objects.filter(game__tournament_game__match__tournament=casual).exists()


def test_the_lobby_lists_a_tournament_table_only_for_the_people_playing_there():
    from games.live import snapshot

    _, game, _ = _people_against_bots()
    anna = next(s.player for s in game.seats.all() if s.player_id)
    assert game.table_id not in [t["id"] for t in snapshot.lobby_tables(None)]
    assert game.table_id in [t["id"] for t in snapshot.lobby_tables(anna)]
    public, personal = snapshot.lobby_lists({anna.pk})
    assert game.table_id not in [t["id"] for t in public]
    assert game.table_id in [t["id"] for t in personal[anna.pk]]
