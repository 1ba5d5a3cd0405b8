"""The replay data: every round as dealt and played, checked against the engine's own account of the game."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from games.engine import CARD_CODES, SUIT_LETTERS, Action, team_of
from games.live import service
from games.models import Fault, Game, Player
from games.pages.replay import replay_data
from games.records import game_record, import_record

pytestmark = pytest.mark.django_db


def played_game(*args: str) -> Game:
    call_command("playgame", *args, stdout=open("/dev/null", "w"))  # noqa: SIM115 - closed with the process
    return Game.objects.latest("pk")


def fair_game(rounds: int = 4, seed: int = 5, multipliers: bool = False) -> Game:
    seats = ["--seat", "rules", "--seat", "random", "--seat", "rules", "--seat", "random"]
    extra = ["--multipliers"] if multipliers else []
    return played_game(*seats, "--mode", "fair", "--rounds", str(rounds), "--seed", str(seed), *extra)


def permuted(hand: list[str], suits: dict[str, str]) -> set[str]:
    return {suits[card[0]] + card[1:] for card in hand}


def test_every_round_replays_to_the_engines_state():
    game = fair_game(multipliers=True)
    state = service.load_state(game)
    data = replay_data(game)
    assert [r["round"] for r in data["rounds"]] == list(range(1, len(state.rounds) + 1))
    assert data["points"] == list(state.scores) == game.points
    totals = [0, 0]
    for rnd, entry in zip(state.rounds, data["rounds"], strict=True):
        assert entry["scores_before"] == totals
        assert [set(h) for h in entry["hands"]] == [
            {CARD_CODES[c] for c in range(36) if hand >> c & 1} for hand in rnd.starting_hands()
        ]
        assert entry["dealer"] == rnd.dealer and entry["trump"] == rnd.trump and entry["declarer"] == rnd.declarer
        assert len(entry["cards"]) == 36 and len(entry["running"]) == 37
        # Each card leaves the hand of the seat that played it, and the tricks are the engine's.
        for trick_number, trick in enumerate(rnd.tricks):
            four = entry["cards"][4 * trick_number : 4 * trick_number + 4]
            assert [c["card"] for c in four] == [CARD_CODES[c] for c in trick.cards]
            assert [c["seat"] for c in four] == [trick.seat_of(i) for i in range(4)]
            assert entry["tricks"][trick_number]["winner"] == trick.winner
        assert entry["running"][0] == [0, 0]
        assert entry["running"][36] == entry["points"]
        # Points change only when a trick is complete.
        for card in range(1, 37):
            if card % 4:
                assert entry["running"][card] == entry["running"][card - 1]
        totals = [totals[0] + entry["points"][0], totals[1] + entry["points"][1]]
    assert totals == list(state.scores)


def test_fair_pairs_name_their_twin_the_permutation_and_the_rpa():
    game = fair_game(rounds=4, seed=11)
    state = service.load_state(game)
    data = replay_data(game)
    rpa = state.round_point_advantages()
    assert len(data["pairs"]) == 2
    for first, second in state.plan.pairs():
        one, two = data["rounds"][first], data["rounds"][second]
        assert one["pair"]["twin"] == second + 1 and two["pair"]["twin"] == first + 1
        assert one["pair"]["original"] and not two["pair"]["original"]
        assert one["pair"]["rpa"] == rpa[first] == -two["pair"]["rpa"]
        suits = one["pair"]["suits"]
        assert suits == two["pair"]["suits"]
        deal = state.plan.deal(second)
        assert suits == {SUIT_LETTERS[s]: SUIT_LETTERS[deal.permutation[s]] for s in range(4)}
        for seat in range(4):
            twin_seat = one["pair"]["seat_map"][seat]
            assert set(two["hands"][twin_seat]) == permuted(one["hands"][seat], suits)
            assert two["pair"]["seat_map"][twin_seat] == seat
            # The same hand goes to the other team: that is the point of a fair pair.
            assert team_of(twin_seat) != team_of(seat)


def test_pairs_are_numbered_in_play_order():
    game = fair_game(rounds=4, seed=5)  # this schedule repeats round 2 before round 1
    state = service.load_state(game)
    assert state.plan.pairs() != sorted(state.plan.pairs())
    data = replay_data(game)
    assert [p["rounds"] for p in data["pairs"]] == sorted([a + 1, b + 1] for a, b in state.plan.pairs())
    assert data["pairs"][0]["rounds"][0] == 1 and data["pairs"][0]["number"] == 1
    for pair in data["pairs"]:
        for number in pair["rounds"]:
            assert data["rounds"][number - 1]["pair"]["number"] == pair["number"]


def test_pair_scores_agree_with_the_rpa_for_each_team():
    game = fair_game(rounds=4, seed=5)
    state = service.load_state(game)
    rpa = state.round_point_advantages()
    data = replay_data(game)
    for pair in data["pairs"]:
        for index in (pair["rounds"][0] - 1, pair["rounds"][1] - 1):
            starting = team_of(state.rounds[index].forehand_seat)
            # The round's RPA is its starting team's pair score; the other team's is its negative.
            assert pair["scores"][starting] == rpa[index] == -pair["scores"][1 - starting]
            assert data["rounds"][index]["pair"]["scores"] == pair["scores"]
    assert sum(abs(p["scores"][0]) for p in data["pairs"]) > 0  # not a trivially even game


def test_the_replay_takes_the_side_of_the_viewer_who_played():
    game = fair_game(rounds=2, seed=3)
    east, stranger = Player.objects.create(name="Vreni"), Player.objects.create(name="Godi")
    game.seats.filter(position=1).update(player=east, bot="", name="Vreni")
    assert replay_data(game, viewer=east)["viewer"] == {"seat": 1, "team": 1}
    assert replay_data(game, viewer=stranger)["viewer"] == {"seat": None, "team": 0}
    assert replay_data(game)["viewer"] == {"seat": None, "team": 0}


def test_a_standard_game_ends_mid_round_in_the_replay():
    game = played_game(*("--seat", "rules") * 4, "--target", "400", "--seed", "3")
    data = replay_data(game)
    last = data["rounds"][-1]
    assert data["mode"] == "standard" and data["pairs"] == []
    assert max(data["points"]) >= 400
    assert len(last["cards"]) % 4 == 0 and len(last["running"]) == len(last["cards"]) + 1
    assert [a + b for a, b in zip(last["scores_before"], last["running"][-1], strict=True)] == data["points"]


def test_faults_sit_on_the_card_played_in_the_bots_stead():
    game = fair_game(rounds=2, seed=2)
    state = service.load_state(game)
    actions = state.actions()
    first_card = next(i for i, (_, a) in enumerate(actions) if a.is_card)
    tenth_card = first_card + 9
    decision_seat = actions[0][0]
    Fault.objects.create(
        game=game,
        seat=actions[tenth_card][0],
        seq=tenth_card,
        round=0,
        trick=2,
        kind="timeout",
        detail="no answer in 5 s",
        latency_ms=5000,
    )
    Fault.objects.create(game=game, seat=decision_seat, seq=0, round=0, trick=0, kind="bad_reply", detail="not JSON")
    Fault.objects.create(game=game, seat=1, seq=None, round=1, trick=None, kind="game_info_failed", detail="HTTP 500")
    faults = {f["kind"]: f for entry in replay_data(game)["rounds"] for f in entry["faults"]}
    assert faults["timeout"]["card"] == 10 and faults["timeout"]["latency_ms"] == 5000
    assert faults["bad_reply"]["card"] == 0
    assert faults["game_info_failed"]["card"] == 36
    assert Action.card(CARD_CODES.index(replay_data(game)["rounds"][0]["cards"][9]["card"])) == actions[tenth_card][1]


def test_bot_thinking_times_ride_along_with_their_cards():
    game = fair_game(rounds=2, seed=4)
    data = replay_data(game)
    times = [c["ms"] for entry in data["rounds"] for c in entry["cards"]]
    assert all(t is not None and t >= 0 for t in times)  # every seat is a bot here


def without_timing(data: dict) -> dict:
    """The replay minus what a record does not carry: ids, names of tables, bot thinking times."""
    rounds = [
        {**r, "cards": [{k: v for k, v in c.items() if k != "ms"} for c in r["cards"]], "decision_ms": None}
        for r in data["rounds"]
    ]
    return {**{k: v for k, v in data.items() if k not in ("id", "table", "players")}, "rounds": rounds}


@pytest.mark.parametrize("mode", ["standard", "fair"])
def test_export_then_import_gives_the_identical_replay(mode):
    if mode == "fair":
        game = fair_game(rounds=4, seed=8, multipliers=True)
    else:
        game = played_game(*("--seat", "rules") * 4, "--target", "500", "--seed", "9")
    imported = import_record(json.loads(json.dumps(game_record(game))))
    assert imported.pk != game.pk
    original, again = replay_data(game), replay_data(imported)
    assert without_timing(again) == without_timing(original)
    assert [p["name"] for p in again["players"]] == [p["name"] for p in original["players"]]
