"""Game analysis: what a round's analysis holds, storage, resuming, accuracy, and that a running game has none."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from bots.analysis import MARKS, analyse_round, mark_for
from bots.analysis_jobs import analyse_now
from bots.runner import play_bot_turns
from bots.solver import Solver
from games.engine import Action, RoundState
from games.live import service
from games.models import Game, GameAnalysis, Player
from games.pages import stored_analyses as analysis
from tests.table_helpers import actor, make_players, make_table, start

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _test_sized_view_search(monkeypatch):
    """The player's-view search of these analyses with a test-sized budget (the same code; the real budget is
    ``bots.analysis._ViewSearch``'s): these tests are about what an analysis holds, where it is stored and when
    it runs, not about how well the search judges (the browser's blunder test judges with the real budget)."""
    from bots import analysis as analysis_module

    for name, value in (("determinizations", 4), ("iterations", 300), ("trump_determinizations", 4)):
        monkeypatch.setattr(analysis_module._bot, name, value)


def played_game(rounds: int = 2, seed: int = 3) -> Game:
    seats = ["--seat", "rules", "--seat", "random", "--seat", "rules", "--seat", "random"]
    call_command(
        "playgame", *seats, "--mode", "fair", "--rounds", str(rounds), "--seed", str(seed), stdout=io.StringIO()
    )
    return Game.objects.latest("pk")


def test_marks_follow_the_thresholds():
    assert [mark_for(x) for x in (0, 4.9, 5, 9.9, 10, 19.9, 20, 60)] == ["", "", "?!", "?!", "?", "?", "??", "??"]
    assert [threshold for threshold, _ in MARKS] == [20.0, 10.0, 5.0]


def test_a_rounds_analysis_judges_every_card_and_the_trump():
    game = played_game()
    first = analysis.round_inputs(game)[0]
    result = analyse_round(list(first.hands), first.dealer, list(first.actions), first.seed)
    state = RoundState.deal(first.hands, first.dealer)
    solver = Solver(bits=16)
    decisions = [Action.from_code(code) for code in first.actions if code >= 36]
    assert len(result["trump"]) == len(decisions)
    assert len(result["cards"]) == 36 and len(result["eval"]) == 37
    for action in (Action.from_code(code) for code in first.actions):
        if action.is_card:
            entry = result["cards"][state.cards_played]
            assert entry["seat"] == state.player and entry["card"] == action.value
            legal = state.legal_cards()
            assert sorted(int(c) for c in entry["view"]["values"]) == legal
            assert entry["choices"] == len(legal)
            assert entry["view"]["loss"] == pytest.approx(
                max(entry["view"]["values"].values()) - entry["view"]["values"][str(action.value)], abs=0.11
            )
            if entry["open"] is not None:
                # The open-hand values are the solver's exact ones.
                assert entry["open"]["values"] == {str(c): v for c, v in solver.card_values(state).values.items()}
        state = state.apply(action, state.player)
    assert result["eval"][-1] == [float(p) for p in state.score()]
    # Late in the round every position is solved with open hands.
    assert all(entry["open"] is not None for entry in result["cards"][-12:])


def test_analyse_stores_every_round_and_the_accuracy_of_each_player():
    game = played_game()
    out = io.StringIO()
    call_command("analyse", str(game.pk), stdout=out)
    assert "round 2 of 2" in out.getvalue() and "accuracy North" in out.getvalue()
    stored = GameAnalysis.objects.get(game=game)
    assert stored.status == GameAnalysis.DONE and stored.rounds_done == stored.rounds_total == 2
    accuracy = analysis.accuracy_by_player(game)
    assert set(accuracy) == {0, 1, 2, 3}
    assert all(0.0 <= value <= 100.0 for value in accuracy.values())
    assert accuracy == {seat: value for seat, value in enumerate(analysis.accuracy_of_rounds(stored.rounds))}
    view = Client().get(f"/games/{game.pk}/analysis.json").json()
    assert view["status"] == "done" and len(view["rounds"]) == 2 and view["accuracy"] == stored.accuracy


def test_accuracy_is_the_share_of_the_points_at_stake_kept():
    def card(seat, played, values, choices=2):
        return {"seat": seat, "card": played, "choices": choices, "view": {"values": values}}

    rounds = [
        {
            "cards": [
                card(0, 1, {"1": 50.0, "2": 70.0}),  # the worst of two: 0%
                card(0, 2, {"1": 50.0, "2": 70.0}),  # the best: 100%
                card(1, 5, {"3": 40.0, "4": 60.0, "5": 50.0}),  # half way: 50%
                card(2, 6, {"6": 10.0}, choices=1),  # no choice: not counted
            ]
        }
    ]
    assert analysis.accuracy_of_rounds(rounds) == [50.0, 50.0, None, None]


def test_an_interrupted_analysis_resumes_after_its_last_stored_round():
    game = played_game()
    job = analysis.claim(game, "worker-that-died")
    first = analysis.round_inputs(game)[0]
    analysis.store_round(job.pk, 0, analyse_round(list(first.hands), first.dealer, list(first.actions), 1), 1.0)
    GameAnalysis.objects.filter(pk=job.pk).update(updated_at=job.updated_at.replace(year=2000))
    assert analysis.pending("another") == [game.pk]
    analyse_now(game)
    stored = GameAnalysis.objects.get(pk=job.pk)
    assert stored.status == GameAnalysis.DONE and stored.rounds_done == 2
    assert stored.rounds[0]["cards"][0]["view"]["values"]  # the first round was kept, not redone
    assert analysis.claim(game, "x") is None  # done: nothing to claim


def test_a_running_game_is_never_analysed_nor_shown():
    owner, *_ = make_players()
    table = make_table(owner, [owner, "random", "random", "random"])
    game = start(table, owner)
    assert game.status == Game.RUNNING
    with pytest.raises(CommandError, match="still running"):
        call_command("analyse", str(game.pk), stdout=io.StringIO())
    with pytest.raises(ValueError, match="still running"):
        analysis.claim(game, "w")
    assert analysis.analysis_view(game) == {"status": "unavailable"}
    client = Client()
    response = client.get(f"/games/{game.pk}/analysis.json")
    assert response.status_code == 409
    body = json.dumps(response.json())
    assert "values" not in body and "hands" not in body
    assert not GameAnalysis.objects.exists()
    assert service  # the game was started through the service


def test_an_imported_game_can_be_analysed():
    from games.records import game_record, import_record

    game = played_game(seed=9)
    imported = import_record(json.loads(json.dumps(game_record(game))))
    analyse_now(imported)
    assert analysis.accuracy_by_player(imported) is not None


# -- every kind of game (issue 23, finding 1) ------------------------------------------------------------

WEIS_SEED = 70_049  # a 2-round fair game of rule bots with Weis: four declared, and Stöck announced


def weis_game() -> Game:
    """A finished fair game of rule bots with Weis and Stöck in which both were announced."""
    service.forget_cached_states()  # a process keeps engine states by game id and seed
    seats = ["--seat", "rules"] * 4
    call_command(
        "playgame", *seats, "--mode", "fair", "--rounds", "2", "--weis", "--seed", str(WEIS_SEED), stdout=io.StringIO()
    )
    game = Game.objects.latest("pk")
    kinds = list(game.actions.values_list("kind", flat=True))
    assert kinds.count("weis") >= 2 and kinds.count("stoeck") >= 1, kinds
    return game


def abandoned_game() -> Game:
    """A Weis game stopped by its one person in the second round, after its first trick."""
    service.forget_cached_states()
    owner = Player.objects.create(name="Quitter")
    table = make_table(owner, [owner, "rules", "rules", "rules"], mode="fair", round_count=4, weis=True)
    game = start(table, owner, seed=WEIS_SEED)
    while True:
        play_bot_turns(game.pk)
        game.refresh_from_db()
        state = service.load_state(game)
        if state.round_index == 1 and state.current.cards_played >= 5:
            break
        move = min(state.current.legal_actions(), key=lambda a: (a.is_push, a.value))
        service.submit(game.pk, 0, move, actor=actor(owner), expected_seq=game.action_count)
    service.abandon_game(table.pk, actor(owner))
    game.refresh_from_db()
    assert game.status == Game.ABANDONED
    return game


def test_a_weis_game_with_declarations_and_stoeck_is_analysed():
    game = weis_game()
    analyse_now(game)
    stored = GameAnalysis.objects.get(game=game)
    assert stored.status == GameAnalysis.DONE and stored.error == "" and stored.rounds_done == 2
    state = service.load_state(game)
    for rnd, result in zip(state.rounds, stored.rounds, strict=True):
        played = [a for a in rnd.actions() if a.is_card]
        assert [entry["card"] for entry in result["cards"]] == [a.value for a in played]
        # The graph ends on the round's score with its Weis and Stöck.
        assert result["eval"][-1] == [float(p) for p in rnd.score()]
    # A card said with Stöck is judged where its player chose it: among every card it could play then
    # (after the announcement only that card is legal).
    choices = {}
    for index, rnd in enumerate(state.rounds):
        position = RoundState.deal(rnd.starting_hands(), rnd.dealer, weis=True)
        for action in rnd.actions():
            if action.kind == Action.STOECK:
                choices[index, action.value] = bin(position.legal_mask()).count("1")
            position = position.apply(action, position.player)
    assert choices and max(choices.values()) > 1
    judged = {(index, entry["card"]): entry for index, rnd in enumerate(stored.rounds) for entry in rnd["cards"]}
    assert {key: judged[key]["choices"] for key in choices} == choices
    assert analysis.accuracy_by_player(game) is not None


def test_an_abandoned_game_is_analysed_up_to_its_last_card():
    game = abandoned_game()
    analyse_now(game)
    stored = GameAnalysis.objects.get(game=game)
    assert stored.status == GameAnalysis.DONE and stored.rounds_done == 2
    last = stored.rounds[-1]
    assert len(last["cards"]) == service.load_state(game).current.cards_played
    assert len(last["eval"]) == len(last["cards"])  # no final score: the round never ended


@pytest.mark.parametrize("kind", ["standard", "fair", "weis", "imported", "abandoned"])
def test_manage_analyse_succeeds_on_every_kind_of_game(kind):
    from games.records import game_record, import_record
    from tests.stats_helpers import finished_game

    if kind == "standard":
        owner = Player.objects.create(name="Owner")
        game = finished_game(owner, ["rules", "random", "rules", "random"], mode="standard", target=300)
    elif kind == "fair":
        game = played_game()
    elif kind == "weis":
        game = weis_game()
    elif kind == "imported":
        game = import_record(json.loads(json.dumps(game_record(weis_game()))))
    else:
        game = abandoned_game()
    out = io.StringIO()
    call_command("analyse", str(game.pk), stdout=out)
    assert f"game {game.pk} analysed" in out.getvalue()
    view = Client().get(f"/games/{game.pk}/analysis.json").json()
    assert view["status"] == "done" and view["done"] == view["total"] == len(analysis.round_inputs(game))


def test_a_failed_analysis_is_logged_with_its_traceback_and_never_shows_the_raw_error(monkeypatch, caplog):
    game = played_game()

    def broken(*args, **kwargs):
        raise RuntimeError("secret internals: solver table at 0xdeadbeef")

    # The one seam between the stored job and the search: a fault there must not reach the page.
    monkeypatch.setattr("bots.analysis_jobs.analyse_round", broken)
    with pytest.raises(RuntimeError):
        analyse_now(game)
    stored = GameAnalysis.objects.get(game=game)
    assert stored.status == GameAnalysis.FAILED and "RuntimeError" in stored.error  # kept for the admin
    logged = [r for r in caplog.records if r.levelname == "ERROR" and f"game {game.pk}" in r.getMessage()]
    assert logged and logged[0].exc_info is not None, "the traceback is logged"
    view = Client().get(f"/games/{game.pk}/analysis.json").json()
    assert view["status"] == "failed"
    assert "deadbeef" not in json.dumps(view) and "RuntimeError" not in json.dumps(view)
    page = Client().get(f"/games/{game.pk}/replay", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "deadbeef" not in page and "RuntimeError" not in page


# -- asking for an analysis from the page (issue 23, finding 17) --------------------------------------------


def test_an_analysis_asked_for_is_queued_once_and_a_failed_one_again():
    game = abandoned_game()
    assert analysis.analysis_view(game) == {"status": "none", "may_ask": False}  # analysis off in tests
    assert analysis.wanted(game) and analysis.request(game)
    job = GameAnalysis.objects.get(game=game)
    assert job.status == GameAnalysis.QUEUED and job.rounds_total == 2
    assert not analysis.wanted(game) and not analysis.request(game)  # on its way: not twice
    analyse_now(game)
    assert not analysis.wanted(game) and not analysis.request(game)  # done
    GameAnalysis.objects.filter(game=game).update(status=GameAnalysis.FAILED, error="RuntimeError: x")
    assert analysis.wanted(game) and analysis.request(game)
    job.refresh_from_db()
    assert job.status == GameAnalysis.QUEUED and job.error == ""


def test_asking_for_an_analysis_keeps_private_games_private_and_running_ones_secret(settings):
    nora, emil = Client(), Client()
    for client, name in ((nora, "Nora"), (emil, "Emil")):
        assert client.post("/guest/", {"nickname": name}).status_code == 302
    owner = Player.objects.get(name="Nora")
    table = make_table(owner, [owner, "random", "random", "random"], private=True)
    game = start(table, owner)
    # A running game is never analysed: its hands are secret.
    running = nora.post(f"/games/{game.pk}/analyse")
    assert running.status_code == 409 and running.json()["error"] == "running"
    service.abandon_game(table.pk, service.SYSTEM, "test: over")
    # A stranger does not learn that the game exists.
    assert emil.post(f"/games/{game.pk}/analyse").status_code == 404
    assert nora.get(f"/games/{game.pk}/analyse").status_code == 405  # asking changes something: POST only
    # A server that runs no analyses says so in the page's language, and queues nothing.
    off = nora.post(f"/games/{game.pk}/analyse", HTTP_ACCEPT_LANGUAGE="de")
    assert off.status_code == 409 and off.json()["error"] == "analysis_off"
    assert off.json()["message"] == "Dieser Server analysiert keine Spiele auf Anfrage."
    assert not GameAnalysis.objects.exists()
