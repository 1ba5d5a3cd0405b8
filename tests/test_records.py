"""Game records: export -> import -> export, jass-kit round logs, and every refusal said precisely."""

from __future__ import annotations

import contextlib
import copy
import json
import random
import re
from collections.abc import Callable
from io import StringIO
from typing import Any

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jass.game.const import PUSH as JASSKIT_PUSH
from jass.game.const import next_player
from jass.game.game_sim import GameSim
from jass.game.rule_schieber import RuleSchieber

from games.engine import (
    HEARTS,
    NORTH,
    SEAT_NAMES,
    Deal,
    GameConfig,
    GamePlan,
    GameState,
    RoundState,
    card_from_code,
    iter_cards,
    legal_mask,
    next_seat,
)
from games.engine.fair import random_deal
from games.engine.game import MAX_TARGET
from games.hslu import encode_round
from games.live import service
from games.live.service import forget_cached_states, load_state
from games.models import Action, Fault, Game, GameSeat, Seat, Table
from games.records import MAX_RECORD_BYTES, RecordCode, RecordError, check_record, game_record, import_record
from tests.engine_helpers import hands_from_codes, play_random_game, play_random_round, seat_of_action
from tests.table_helpers import actor, make_players, make_table, start

pytestmark = pytest.mark.django_db

BOTS = ["--seat", "rules", "--seat", "random", "--seat", "rules", "--seat", "random"]
MODELS = (Table, Seat, Game, GameSeat, Action, Fault)


def run(*args: str, **options) -> dict:
    out = StringIO()
    call_command(*args, stdout=out, **options)
    lines = out.getvalue().strip().splitlines()
    assert len(lines) == 1, "one JSON line / document"
    return json.loads(lines[0])


def row_counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in MODELS}


def refused(data: object, message: str) -> None:
    """Importing ``data`` fails with exactly ``message`` and adds no row anywhere."""
    before = row_counts()
    with pytest.raises(RecordError) as excinfo:
        import_record(data)
    assert str(excinfo.value) == message
    assert row_counts() == before


def action_rows(game: Game) -> list[tuple]:
    return list(game.actions.order_by("seq").values_list("seq", "seat", "kind", "value"))


def comparable(record: dict) -> dict:
    """A record without what an import may change: its id, times, and which seats were people."""
    record = {k: v for k, v in record.items() if k not in ("id", "created_at", "finished_at")}
    record["seats"] = [{k: v for k, v in s.items() if k != "kind"} for s in record["seats"]]
    return record


def engine_record(config: GameConfig, seed: int, plan: GamePlan | None = None) -> tuple[dict, GameState]:
    """A finished game played at random by the engine alone, as a record (options, result, rounds)."""
    game = play_random_game(GameState.new(config, plan), random.Random(seed))
    record: dict = {"mode": config.mode}
    if config.mode == "standard":
        record["target"] = config.target
    else:
        record["round_count"] = config.round_count
        record["fair_schedule"] = list(game.plan.schedule or ())
    record |= {"points": list(game.scores), "winner": game.winner, "status": "finished"}
    record["rounds"] = [encode_round(rnd) for rnd in game.rounds]
    return record, game


@pytest.fixture(scope="module")
def standard():
    """A finished standard game to 1000 that ends before the ninth trick of its last round."""
    record, game = engine_record(GameConfig(target=1000, seed=3), seed=3)
    assert len(game.rounds) >= 3 and len(game.current.tricks) < 9
    return record, game


# -- round trips ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [["--mode", "standard", "--target", "1000"], ["--mode", "fair", "--rounds", "4", "--multipliers"]],
)
def test_export_import_export_gives_the_same_record_actions_and_deals(options):
    played = run("playgame", *BOTS, "--seed", "23", *options)
    original = Game.objects.get(pk=played["game"])
    exported = run("exportgame", str(original.pk))

    imported = import_record(json.dumps(exported))

    again = run("exportgame", str(imported.pk))
    assert comparable(again) == comparable(exported)
    assert again["finished_at"] == exported["finished_at"] and again["id"] != exported["id"]
    assert action_rows(imported) == action_rows(original)
    assert imported.deals == original.deals
    assert (imported.status, imported.points, imported.winner) == (Game.FINISHED, original.points, original.winner)
    assert (imported.seed, imported.fair_schedule, imported.multipliers) == (
        original.seed,
        original.fair_schedule,
        original.multipliers,
    )
    forget_cached_states()
    one, two = load_state(original), load_state(imported)
    assert one.scores == two.scores and one.round_scores() == two.round_scores()
    table = imported.table
    assert table.imported and not table.private and table.created_by is None
    assert table.name == f"Imported game (was #{original.pk})"
    assert (table.mode, table.multipliers) == (original.mode, "--multipliers" in options)
    assert table.seats.count() == 4 and not imported.seats.filter(player__isnull=False).exists()


def test_a_running_game_imports_as_abandoned_with_its_faults():
    owner = make_players(("Olga",))[0]
    players = make_players(("Nina", "Sven"))
    table = make_table(owner, [players[0], "rules", players[1], "random"])
    game = start(table, owner, seed=11)
    movers = [actor(players[0]), service.BOT_RUNNER, actor(players[1]), service.BOT_RUNNER]
    state = load_state(game)
    for seq in range(45):  # into the second round
        seat, action = state.player, state.current.legal_actions()[0]
        if seq == 20:
            fault = {"seat": seat, "round": state.round_index, "trick": len(state.current.tricks), "seq": seq}
        state = service.submit(game.pk, seat, action, actor=movers[seat], expected_seq=seq)
    Fault.objects.create(game=game, kind="timeout", detail="no answer in 5 s", latency_ms=5004, **fault)
    Fault.objects.create(game=game, seat=1, round=0, trick=None, kind="game_info", detail="HTTP 500")
    exported = game_record(Game.objects.get(pk=game.pk))
    assert exported["status"] == "running" and exported["seats"][0]["kind"] == "human"

    imported = import_record(exported, importer=owner, private=True, name="  Friday   night ")

    assert imported.status == Game.ABANDONED and imported.finished_at is not None
    again = game_record(imported)
    assert again["status"] == "abandoned"
    assert comparable(again) == comparable(exported) | {"status": "abandoned"}
    assert [s["kind"] for s in again["seats"]] == ["empty", "bot", "empty", "bot"]  # people are never linked
    assert [s.name for s in imported.seats.all()] == ["Nina", "Rule-based bot", "Sven", "Random bot"]
    assert action_rows(imported) == action_rows(game) and len(action_rows(imported)) == 45
    assert imported.table.private and imported.table.created_by == owner and imported.table.name == "Friday night"
    assert list(imported.faults.values_list("seq", "round", "trick", "kind", "latency_ms")) == [
        (20, fault["round"], fault["trick"], "timeout", 5004),
        (None, 0, None, "game_info", 0),
    ]


# -- jass-kit round logs -----------------------------------------------------------------


def jasskit_rounds(count: int, seed: int, dealer: int = NORTH, last_cards: int | None = None) -> list[dict]:
    """Rounds played by jass-kit's GameSim (cards legal under our rules too), as ``GameState.to_json`` logs.

    With ``last_cards`` the last round stops after that many cards.
    """
    rng = random.Random(seed)
    rule, sim = RuleSchieber(), GameSim(RuleSchieber())
    logs = []
    for number in range(count):
        hands = np.zeros((4, 36), dtype=np.int32)
        for seat, mask in enumerate(random_deal(rng)):
            hands[seat, list(iter_cards(mask))] = 1
        sim.init_from_cards(hands, dealer)
        if rng.random() < 0.3:
            sim.action_trump(JASSKIT_PUSH)
        sim.action_trump(rng.randrange(6))
        limit = last_cards if number == count - 1 and last_cards is not None else 36
        while not sim.is_done() and sim.state.nr_played_cards < limit:
            state = sim.state
            hand = sum(1 << int(card) for card in np.flatnonzero(state.hands[state.player]))
            trick = tuple(int(card) for card in state.current_trick[: state.nr_cards_in_trick])
            ours = legal_mask(hand, trick, int(state.trump))  # jass-kit allows some under-trumps we forbid
            valid = [int(c) for c in np.flatnonzero(rule.get_valid_cards_from_state(state)) if ours >> int(c) & 1]
            sim.action_play_card(rng.choice(valid))
        logs.append(json.loads(json.dumps(sim.state.to_json())))
        dealer = next_player[dealer]
    return logs


def jasskit_points(log: dict) -> tuple[int, int]:
    """jass-kit's own points of a complete round, plus the match bonus it leaves out."""
    points = [0, 0]
    for trick in log["tricks"]:
        points[trick["win"] % 2] += trick["points"]
    winners = {trick["win"] % 2 for trick in log["tricks"]}
    if len(winners) == 1:
        points[winners.pop()] += 100
    return points[0], points[1]


def test_jasskit_gamesim_rounds_import_with_jasskits_points():
    logs = jasskit_rounds(6, seed=5)
    assert all(log["currentPlayer"] == -1 and len(log["tricks"]) == 9 for log in logs)

    game = import_record(logs)

    state = load_state(game)
    assert state.round_scores()[:6] == [jasskit_points(log) for log in logs]
    assert game.points == [sum(p[0] for p in map(jasskit_points, logs)), sum(p[1] for p in map(jasskit_points, logs))]
    assert (game.mode, game.target, game.status, game.winner) == ("standard", MAX_TARGET, Game.ABANDONED, None)
    assert len(game.deals) == 7  # as live: the next round is dealt when one ends
    assert [s.name for s in game.seats.all()] == list(SEAT_NAMES)
    assert game.table.name == "Imported game (6 rounds)"
    assert [encode_round(rnd) for rnd in state.rounds[:6]] == logs


def test_jasskit_rounds_with_a_target_and_an_unfinished_last_round():
    logs = jasskit_rounds(3, seed=8, dealer=2, last_cards=13)
    record = {"rounds": logs, "target": 2500, "multipliers": [1, 1, 2, 2, 3, 3]}

    game = import_record(record)

    assert game.status == Game.ABANDONED and game.target == 2500 and game.multipliers == [1, 1, 2, 2, 3, 3]
    state = load_state(game)
    assert len(state.rounds) == 3 and state.current.cards_played == 13
    assert game_record(game)["rounds"] == logs


def test_jasskit_rounds_past_a_target_end_where_the_engine_says():
    logs = jasskit_rounds(4, seed=9)
    record, ended = _cut_at_target(logs, target=300)

    game = import_record(record)

    assert (game.status, game.points, game.winner) == (Game.FINISHED, list(ended.scores), ended.winner)
    number, tricks = len(ended.rounds), len(ended.current.tricks)
    place = f"round {number}, trick {tricks + 1}, card 1" if tricks < 9 else f"round {number + 1}, trump decision 1"
    refused(
        {"target": 300, "rounds": logs},
        f"{place}: the game is already over: {['North/South', 'East/West'][ended.winner]} reached the target"
        f" of 300 with trick {tricks} of round {number} ({ended.scores[0]}:{ended.scores[1]}); nothing may follow",
    )


def _cut_at_target(logs: list[dict], target: int) -> tuple[dict, GameState]:
    """The logs cut where a standard game to ``target`` ends, as the engine plays them."""
    rounds = check_record(logs).state.rounds[: len(logs)]
    config = GameConfig(target=target, seed=0)
    plan = GamePlan(config, known_deals=[Deal(i, rnd.dealer, rnd.starting_hands()) for i, rnd in enumerate(rounds)])
    game = GameState.new(config, plan)
    for rnd in rounds:
        for number, action in enumerate(rnd.actions()):
            if not game.over:
                game = game.apply(seat_of_action(rnd, number), action)
    assert game.over
    return {"target": target, "rounds": [encode_round(rnd) for rnd in game.rounds]}, game


# -- refusals ----------------------------------------------------------------------------


def test_an_illegal_card_is_refused_with_its_place_and_reason():
    hands = hands_from_codes(
        "S9 S10 SJ H9 H10 HJ C9 C10 CJ",  # North deals
        "S7 S8 DA H6 H7 H8 C6 C7 C8",
        "S6 D6 D7 D8 D9 D10 DJ DQ DK",
        "SA SK SQ HA HK HQ CA CK CQ",  # West is forehand
    )
    state = RoundState.deal(hands, NORTH).choose_trump(HEARTS).play("SA")
    state = state.play_unchecked(card_from_code("D6"))  # South holds S6: must follow spades
    rng = random.Random(1)
    while not state.is_over:
        state = state.play_unchecked(rng.choice(list(iter_cards(state.legal_mask()))))
    refused(
        [encode_round(state)],
        "round 1, trick 1, card 2: D6 is not legal for South: must follow Spades (trump Hearts; trick so far SA,"
        " led by West; South holds DK DQ DJ D10 D9 D8 D7 D6 S6)",
    )


def test_a_card_dealt_twice_is_refused(standard):
    record = copy.deepcopy(standard[0])
    tricks = record["rounds"][0]["tricks"]
    tricks[2]["cards"][1] = tricks[0]["cards"][0]
    refused(record, f"round 1: card {tricks[0]['cards'][0]} is dealt twice (trick 1, card 1 and trick 3, card 2)")


def test_a_wrong_trick_winner_is_refused(standard):
    record = copy.deepcopy(standard[0])
    trick = record["rounds"][1]["tricks"][3]
    winner, trick["win"] = trick["win"], (trick["win"] + 1) % 4
    refused(record, f"round 2, trick 4: 'win' is {trick['win']} but the cards give {winner} ({SEAT_NAMES[winner]})")


def test_an_import_error_is_all_in_the_readers_language(standard):
    """Issue 23: "Runde 1, trick 1: 'win' is 0 but the cards give 1 (East)" mixed German and English."""
    from django.utils import translation

    record = copy.deepcopy(standard[0])
    trick = record["rounds"][1]["tricks"][3]
    winner, trick["win"] = trick["win"], (trick["win"] + 1) % 4
    seat = {0: "Nord", 1: "Ost", 2: "Süd", 3: "West"}[winner]
    with translation.override("de"):
        refused(record, f"Runde 2, Stich 4: 'win' ist {trick['win']}, aber die Karten ergeben {winner} ({seat})")
    record = copy.deepcopy(standard[0])
    record["rounds"][0]["tricks"][0]["cards"][0] = "X9"
    with translation.override("fr"):
        refused(record, "manche 1, levée 1, carte 1 : code de carte inconnu 'X9'")


def test_wrong_trick_points_are_refused(standard):
    record = copy.deepcopy(standard[0])
    trick = record["rounds"][1]["tricks"][3]
    trick["points"] += 1
    refused(record, f"round 2, trick 4: 'points' is {trick['points']} but the cards give {trick['points'] - 1}")


def test_wrong_total_points_are_refused(standard):
    record, game = copy.deepcopy(standard[0]), standard[1]
    a, b = game.scores
    record["points"] = [a, b + 2]
    refused(record, f"points are [{a}, {b + 2}] but the rounds give [{a}, {b}]")


def test_a_wrong_winner_is_refused(standard):
    record, game = copy.deepcopy(standard[0]), standard[1]
    record["winner"] = 1 - game.winner
    names = ["0 (North/South)", "1 (East/West)"]
    refused(record, f"winner is {names[1 - game.winner]} but the rounds give {names[game.winner]}")


def test_cards_after_a_standard_game_ended_are_refused(standard):
    record, game = copy.deepcopy(standard[0]), standard[1]
    last = game.current
    record["rounds"][-1] = encode_round(play_random_round(last, random.Random(2))[-1])
    number, tricks = len(game.rounds), len(last.tricks)
    team = ["North/South", "East/West"][game.winner]
    refused(
        record,
        f"round {number}, trick {tricks + 1}, card 1: the game is already over: {team} reached the target of 1000"
        f" with trick {tricks} of round {number} ({game.scores[0]}:{game.scores[1]}); nothing may follow",
    )


def test_a_fair_twin_that_is_not_a_permutation_of_its_original_is_refused():
    config = GameConfig(mode="fair", round_count=2, seed=4)
    rng = random.Random(4)
    first = Deal(0, NORTH, random_deal(rng))
    twin = Deal(1, next_seat(NORTH), random_deal(rng), repeats=0, permutation=(1, 0, 2, 3))
    record, _ = engine_record(config, seed=4, plan=GamePlan(config, schedule=[0, 1], known_deals=[first, twin]))
    refused(
        record,
        "round 2: fair_schedule says it repeats round 1, but its deal is not round 1's with the suits permuted"
        " and each hand passed on to the same place after forehand",
    )


def test_a_fair_record_keeps_its_schedule_and_permutations():
    record, game = engine_record(GameConfig(mode="fair", round_count=4, seed=6), seed=6)
    record["multipliers"] = {"0": 1, "1": 1, "2": 1, "3": 1, "4": 1, "5": 1}
    del record["status"]
    imported = import_record(record)
    assert imported.status == Game.FINISHED and imported.fair_schedule == list(game.plan.schedule)
    assert [(d["repeats"], d["permutation"]) for d in imported.deals] == [
        (game.deal(i).repeats, list(game.deal(i).permutation)) for i in range(4)
    ]


def test_the_dealer_must_move_on_every_round():
    logs = jasskit_rounds(2, seed=3)
    logs[1] = jasskit_rounds(1, seed=4, dealer=NORTH)[0]
    refused(logs, "round 2: the dealer is 0 (North) but after 0 (North) dealt round 1 it must be 3 (West)")
    skipped = jasskit_rounds(3, seed=5, dealer=2)
    refused(skipped[::2], "round 2: the dealer is 0 (North) but after 2 (South) dealt round 1 it must be 1 (East)")


def test_statuses_must_agree_with_the_game(standard):
    record = copy.deepcopy(standard[0])
    record["status"] = "abandoned"
    a, b = standard[1].scores
    team = ["North/South", "East/West"][standard[1].winner]
    refused(record, f"status is 'abandoned' but the game is over: {team} won ({a}:{b})")
    short = {"status": "finished", "target": 1000, "rounds": record["rounds"][:2]}
    x, y = check_record({"rounds": short["rounds"], "target": 1000}).state.scores
    refused(
        short, f"status is 'finished' but the game is not over: the rounds give {x}:{y}, short of the target of 1000"
    )
    record["status"] = "running"
    refused(record, f"status is 'running' but the game is over: {team} won ({a}:{b})")


def test_an_unfinished_round_cannot_be_followed():
    partial = jasskit_rounds(1, seed=2, last_cards=10)[0]
    following = jasskit_rounds(1, seed=3, dealer=next_seat(NORTH))[0]
    refused([partial, following], "round 1 is not complete (2 of 9 tricks played) but round 2 follows")


def test_a_fault_must_match_its_move(standard):
    record, game = copy.deepcopy(standard[0]), standard[1]
    first = game.rounds[0]
    decisions = len(first.actions()) - first.cards_played
    seat, trick = seat_of_action(first, 5), (5 - decisions) // 4
    wrong = (seat + 1) % 4
    record["faults"] = [{"seat": wrong, "round": 0, "trick": trick, "move": 5, "kind": "timeout"}]
    refused(
        record,
        f"faults[0]: move 5 was {SEAT_NAMES[seat]}'s in round 0, trick {trick} (0-based),"
        f" not {SEAT_NAMES[wrong]}'s in round 0, trick {trick}",
    )


def test_jasskits_undertrump_bug_is_refused():
    """jass-kit 2.0.5 lets North play HA under East's HJ (hearts trump, clubs led); the rules do not."""
    hands = hands_from_codes(
        "HA H9 CA C9 C8 C7 C6 S7 S6",  # North deals
        "HJ HK HQ SK SQ SJ S10 S9 S8",
        "H10 H8 H7 H6 D9 D8 D7 D6 SA",
        "CK CQ CJ C10 DA DK DQ DJ D10",  # West is forehand
    )
    one_hot = np.zeros((4, 36), dtype=np.int32)
    for seat, mask in enumerate(hands):
        one_hot[seat, list(iter_cards(mask))] = 1
    rule, sim = RuleSchieber(), GameSim(RuleSchieber())
    sim.init_from_cards(one_hot, NORTH)
    sim.action_trump(HEARTS)
    for code in ("CK", "H10", "HJ"):
        sim.action_play_card(card_from_code(code))
    assert rule.get_valid_cards_from_state(sim.state)[card_from_code("HA")] == 1  # the bug
    sim.action_play_card(card_from_code("HA"))
    rng = random.Random(3)
    while not sim.is_done():
        sim.action_play_card(rng.choice(list(np.flatnonzero(rule.get_valid_cards_from_state(sim.state)))))
    refused(
        [sim.state.to_json()],
        "round 1, trick 1, card 4: HA is not legal for North: may not under-trump HJ (trump Hearts; trick so far"
        " CK H10 HJ, led by West; North holds HA H9 S7 S6 CA C9 C8 C7 C6)",
    )


def test_a_deeply_nested_value_is_a_record_error(standard):
    nested: list = []
    for _ in range(5000):
        nested = [nested]
    refused(
        {"rounds": [round_one(standard)], "seats": nested},
        "the record is not usable: a value in it is nested too deeply",
    )


def round_one(standard) -> dict:
    return copy.deepcopy(standard[0]["rounds"][0])


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda r: 42, "a record is a JSON object with 'rounds' or a list of round logs, got the number 42"),
        (
            lambda r: "{not json",
            "the record is not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        ),
        (lambda r: "[" * 100_000, "the record is not usable: a value in it is nested too deeply"),
        (lambda r: " " * MAX_RECORD_BYTES + "[]", "the record is larger than 2 MB"),
        (lambda r: {}, "the record has no 'rounds'"),
        (lambda r: {"rounds": {"1": r}}, "'rounds' must be a list of round logs, got an object"),
        (lambda r: [], "the record has no rounds"),
        (lambda r: [r] * 201, "the record has 201 rounds; at most 200 can be imported"),
        (lambda r: [7], "round 1: an HSLU message is a JSON object, got int"),
        (lambda r: [{}], "round 1: missing field 'dealer'"),
        (lambda r: [r | {"tricks": "all"}], "round 1: 'tricks' must be a list of at most 9 tricks, got 'all'"),
        (lambda r: [r | {"dealer": "N"}], "round 1: 'dealer' must be one of [0, 1, 2, 3], got 'N'"),
        (lambda r: [r | {"player": [{"hand": ["Joker"]}]}], "round 1, player 0 hand[0]: unknown card code 'Joker'"),
        (lambda r: [r | {"player": [5]}], "round 1, player 0: must be an object with a 'hand', got 5"),
        (
            lambda r: [r | {"tricks": [{"cards": ["HA", "Joker"]}]}],
            "round 1, trick 1, card 2: unknown card code 'Joker'",
        ),
        (lambda r: {"rounds": [r], "mode": "blitz"}, "mode must be 'standard' or 'fair', got 'blitz'"),
        (lambda r: {"rounds": [r], "target": 0}, "target must be an integer from 1 to 100000, got 0"),
        (
            lambda r: {"rounds": [r], "mode": "fair"},
            "a fair record needs its 'fair_schedule' (which round repeats which)",
        ),
        (
            lambda r: {"rounds": [r], "mode": "fair", "fair_schedule": [0, 0]},
            "fair_schedule: every round must belong to exactly one pair: [0, 0]",
        ),
        (
            lambda r: {"rounds": [r], "fair_schedule": [0, 1]},
            "fair_schedule is only for fair games, and this record's mode is 'standard'",
        ),
        (
            lambda r: {"rounds": [r], "multipliers": {"0": 11}},
            "multipliers must be six integers 1..10 for the trumps D H S C O U,"
            ' as {"0": 1, ..., "5": 3} or a list, got {\'0\': 11}',
        ),
        (
            lambda r: {"rounds": [r], "points": "lots"},
            "points must be two integers [North/South, East/West], got 'lots'",
        ),
        (lambda r: {"rounds": [r], "winner": 2}, "winner must be 0 (North/South), 1 (East/West) or null, got 2"),
        (
            lambda r: {"rounds": [r], "status": "paused"},
            "status must be 'finished', 'abandoned' or 'running', got 'paused'",
        ),
        (lambda r: {"rounds": [r], "seats": [{}] * 3}, "seats must be a list of the four seats, got [{}, {}, {}]"),
        (lambda r: {"rounds": [r], "seats": [{"position": 1}] * 4}, "seats[1]: position 1 (East) is listed twice"),
        (
            lambda r: {"rounds": [r], "seats": [{}, {}, {}, {"name": "x" * 61}]},
            "seats[3]: 'name' has 61 characters; at most 60",
        ),
        (
            lambda r: {"rounds": [r], "seats": [{}, {}, {}, {"kind": "remote", "url": "javascript:alert(1)"}]},
            "seats[3]: a bot's 'url' starts with http:// or https://, got 'javascript:alert(1)'",
        ),
        (
            lambda r: {"rounds": [r], "seats": [{"kind": "bot"}, {}, {}, {}]},
            "seats[0]: a 'bot' seat needs a 'bot' name and no 'url'",
        ),
        (lambda r: {"rounds": [r], "faults": [{"seat": 4}]}, "faults[0]: 'seat' must be a seat 0..3, got 4"),
        (
            lambda r: {"rounds": [r], "faults": [{"seat": 0, "round": 3}]},
            "faults[0]: 'round' must be a round 0..0 (0-based), got 3",
        ),
    ],
)
def test_malformed_records_are_refused_precisely(standard, make, message):
    before = row_counts()
    with pytest.raises(RecordError) as excinfo:
        import_record(make(round_one(standard)))
    assert str(excinfo.value) == message
    assert row_counts() == before


def test_any_damage_to_a_record_is_a_record_error_or_harmless(standard):
    """Replace each field of a small record by junk: the result is a RecordError or a clean import check."""
    record = {**copy.deepcopy(standard[0]), "rounds": copy.deepcopy(standard[0]["rounds"][:2])}
    del record["points"], record["winner"], record["status"]
    record["seats"] = [
        {"position": 0, "name": "Ann", "kind": "human", "bot": None},
        {"position": 1, "name": "Rules", "kind": "bot", "bot": "rules"},
        {"position": 2, "name": "Bo", "kind": "human", "bot": None},
        {"position": 3, "name": "alice", "kind": "remote", "bot": None, "url": "http://x.org/a", "dialect": "spec"},
    ]
    first = standard[1].rounds[0]
    record["faults"] = [
        {"seat": seat_of_action(first, 0), "round": 0, "trick": 0, "move": 0, "kind": "timeout", "latency_ms": 9}
    ]
    assert check_record(record).status == Game.ABANDONED
    junk = [None, -1, 10**30, "x", [], {}, True, 2.5, [[[]]]]
    paths = [[key] for key in (*record, "multipliers", "seed", "finished_at", "round_count", "fair_schedule")]
    paths += [["seats", 3, key] for key in record["seats"][3]] + [["faults", 0, key] for key in record["faults"][0]]
    for number, log in enumerate(record["rounds"]):
        paths += [["rounds", number, key] for key in log]
        paths += [["rounds", number, "tricks", 1, key] for key in ("cards", "points", "win", "first")]
        paths += [["rounds", number, "tricks", 2, "cards", 1], ["rounds", number, "player", 0]]
    checked = 0
    for path in paths:
        for value in junk:
            damaged = copy.deepcopy(record)
            target = damaged
            for key in path[:-1]:
                target = target[key]
            if isinstance(target, list) and path[-1] >= len(target):
                continue
            target[path[-1]] = value
            with contextlib.suppress(RecordError):
                check_record(damaged)
            checked += 1
    assert checked > 200


# -- the schema: each kind of shape error with its code and JSON place ----------------------------


def with_weis_round(r: dict, weis_round: dict) -> dict:
    return {"rounds": [r], "weis": True, "weis_rounds": [weis_round]}


def nested_lists(depth: int) -> list[object]:
    """``[[[...]]]``, ``depth`` lists deep (built, not written: mypy took minutes over the literal)."""
    value: list[object] = []
    for _ in range(depth - 1):
        value = [value]
    return value


# (how to make the record from round one, code, place, message or None)
SHAPE_ERRORS: list[tuple[Callable[[dict[str, Any]], object], str, str, str | None]] = [
    (  # the old code crashed here (IndexError) instead of refusing
        lambda r: with_weis_round(r, {"weis_team": 5}),
        "out_of_range",
        "weis_rounds[0].weis_team",
        "round 1: 'weis_team' must be 0 (North/South), 1 (East/West) or null, got 5",
    ),
    (lambda r: {}, "missing_field", "rounds", "the record has no 'rounds'"),
    (
        lambda r: {"rounds": [r], "mode": "fair"},
        "missing_field",
        "fair_schedule",
        "a fair record needs its 'fair_schedule' (which round repeats which)",
    ),
    (
        lambda r: {"rounds": [r], "faults": [{"seat": 0, "round": 0}]},
        "missing_field",
        "faults[0].kind",
        "faults[0]: 'kind' must be a non-empty string, got None",
    ),
    (lambda r: [{k: v for k, v in r.items() if k != "dealer"}], "missing_field", "rounds[0].dealer", None),
    (
        lambda r: 42,
        "wrong_type",
        "",
        "a record is a JSON object with 'rounds' or a list of round logs, got the number 42",
    ),
    (lambda r: {"rounds": {"1": r}}, "wrong_type", "rounds", "'rounds' must be a list of round logs, got an object"),
    (
        lambda r: {"rounds": [r], "seats": [{}, {}, {"name": 5}, {}]},
        "wrong_type",
        "seats[2].name",
        "seats[2]: 'name' must be a string, got the number 5",
    ),
    (
        lambda r: {"rounds": [r], "faults": [{"seat": 0, "round": 0, "kind": "timeout", "move": "x"}]},
        "wrong_type",
        "faults[0].move",
        "faults[0]: 'move' must be a move number or null, got 'x'",
    ),
    (
        lambda r: {"rounds": [r], "weis": "yes"},
        "wrong_type",
        "weis",
        "weis must be true (a game with Weis and Stöck) or false, got 'yes'",
    ),
    (
        lambda r: [r | {"tricks": [{"cards": ["HA", "X9"]}]}],
        "unknown_card",
        "rounds[0].tricks[0].cards[1]",
        "round 1, trick 1, card 2: unknown card code 'X9'",
    ),
    (
        lambda r: [r | {"player": [{}, {"hand": [None, "Joker"]}]}],
        "unknown_card",
        "rounds[0].player[1].hand[0]",
        "round 1, player 1 hand[0]: unknown card code None",
    ),
    (
        lambda r: with_weis_round(r, {"weis": [{"seat": 0, "cards": ["HA", "HK", "X9"]}]}),
        "unknown_card",
        "weis_rounds[0].weis[0].cards",
        "round 1, Weis 1: 'cards' must be a list of card codes like 'HA', got ['HA', 'HK', 'X9']",
    ),
    (
        lambda r: with_weis_round(r, {"stoeck": {"seat": 1, "card": "Q"}}),
        "unknown_card",
        "weis_rounds[0].stoeck.card",
        "round 1, Stöck: 'card' must be a card code like 'HA' or null, got 'Q'",
    ),
    (
        lambda r: {"rounds": [r], "faults": [{"seat": 4}]},
        "out_of_range",
        "faults[0].seat",
        "faults[0]: 'seat' must be a seat 0..3, got 4",
    ),
    (
        lambda r: {"rounds": [r], "seats": [{"position": 7}, {}, {}, {}]},
        "out_of_range",
        "seats[0].position",
        "seats[0]: 'position' must be 0 (North), 1 (East), 2 (South) or 3 (West), got 7",
    ),
    (
        lambda r: with_weis_round(r, {"weis": [{"seat": -1, "cards": ["HA", "HK", "HQ"]}]}),
        "out_of_range",
        "weis_rounds[0].weis[0].seat",
        "round 1, Weis 1: 'seat' must be a seat 0-3, got -1",
    ),
    (
        lambda r: {"rounds": [r], "target": 0},
        "out_of_range",
        "target",
        "target must be an integer from 1 to 100000, got 0",
    ),
    (
        lambda r: {"rounds": [r], "seats": [{}] * 3},
        "wrong_length",
        "seats",
        "seats must be a list of the four seats, got [{}, {}, {}]",
    ),
    (
        lambda r: {"rounds": [r], "points": [1, 2, 3]},
        "wrong_length",
        "points",
        "points must be two integers [North/South, East/West], got [1, 2, 3]",
    ),
    (
        lambda r: {"rounds": [r], "weis": True, "weis_rounds": []},
        "wrong_length",
        "weis_rounds",
        "weis_rounds has 0 entries but the record has 1 rounds",
    ),
    (lambda r: [], "wrong_length", "rounds", "the record has no rounds"),
    (
        lambda r: {"rounds": [r], "mode": "blitz"},
        "unknown_value",
        "mode",
        "mode must be 'standard' or 'fair', got 'blitz'",
    ),
    (
        lambda r: {"rounds": [r], "seats": [{}, {"kind": "alien"}, {}, {}]},
        "unknown_value",
        "seats[1].kind",
        "seats[1]: 'kind' must be one of human, bot, remote, empty, got 'alien'",
    ),
    (
        lambda r: {"rounds": [r], "seats": [{}, {}, {}, {"name": "x" * 61}]},
        "too_long",
        "seats[3].name",
        "seats[3]: 'name' has 61 characters; at most 60",
    ),
    (
        lambda r: {"rounds": [r], "seats": [{"position": 1}] * 4},
        "duplicate",
        "seats[1].position",
        "seats[1]: position 1 (East) is listed twice",
    ),
    (
        lambda r: {"rounds": [r], "fair_schedule": [0, 1]},
        "contradiction",
        "fair_schedule",
        "fair_schedule is only for fair games, and this record's mode is 'standard'",
    ),
    (
        lambda r: {"rounds": [r], "seats": [{"kind": "bot"}, {}, {}, {}]},
        "contradiction",
        "seats[0].kind",
        "seats[0]: a 'bot' seat needs a 'bot' name and no 'url'",
    ),
    (lambda r: "{not json", "not_json", "", None),
    (lambda r: " " * MAX_RECORD_BYTES + "[]", "too_large", "", "the record is larger than 2 MB"),
    (
        lambda r: {"rounds": [r], "x": nested_lists(33)},
        "too_deep",
        "",
        None,
    ),
]


@pytest.mark.parametrize(
    ("make", "code", "place", "message"), SHAPE_ERRORS, ids=[f"{i}-{e[1]}" for i, e in enumerate(SHAPE_ERRORS)]
)
def test_each_kind_of_shape_error_has_its_code_and_place(standard, make, code, place, message):
    with pytest.raises(RecordError) as excinfo:
        check_record(make(round_one(standard)))
    assert (excinfo.value.code, excinfo.value.place) == (code, place), str(excinfo.value)
    assert message is None or str(excinfo.value) == message


def test_the_game_checks_have_their_codes_and_places_too(standard):
    record = copy.deepcopy(standard[0])
    record["rounds"][1]["tricks"][3]["win"] = (record["rounds"][1]["tricks"][3]["win"] + 1) % 4
    with pytest.raises(RecordError) as excinfo:
        check_record(record)
    assert (excinfo.value.code, excinfo.value.place) == (RecordCode.BAD_ROUND, "rounds[1].tricks[3]")
    record = copy.deepcopy(standard[0])
    record["points"] = [0, 0]
    with pytest.raises(RecordError) as excinfo:
        check_record(record)
    assert (excinfo.value.code, excinfo.value.place) == (RecordCode.WRONG_RESULT, "points")
    record = copy.deepcopy(standard[0])
    tricks = record["rounds"][0]["tricks"]
    tricks[2]["cards"][1] = tricks[0]["cards"][0]
    with pytest.raises(RecordError) as excinfo:
        check_record(record)
    assert (excinfo.value.code, excinfo.value.place) == (RecordCode.DUPLICATE, "rounds[0].tricks[2].cards[1]")


def _containers(inner: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4))


# one_of() and a typed function, not chains of |: mypy's inference of those took minutes.
JSON: st.SearchStrategy[object] = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8)),
    _containers,
    max_leaves=16,
)


def imported_or_refused(value: object) -> None:
    """Importing ``value`` stores a game or raises a ``RecordError`` with a code: nothing else."""
    try:
        game = import_record(value)
    except RecordError as exc:
        assert str(exc) and isinstance(exc.code, RecordCode)
    else:
        assert isinstance(game, Game) and game.table.imported


@settings(max_examples=200, deadline=None)
@given(JSON)
def test_any_json_value_is_imported_or_refused_cleanly(value):
    imported_or_refused(value)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_json_value_anywhere_in_a_record_is_imported_or_refused_cleanly(standard, data):
    record = {**copy.deepcopy(standard[0]), "rounds": copy.deepcopy(standard[0]["rounds"][:2])}
    del record["points"], record["winner"], record["status"]
    if data.draw(st.booleans()):
        record |= {"weis": True, "weis_rounds": [{"weis": [{"seat": 0, "cards": ["HA", "HK", "HQ"]}]}, {}]}
    target: object = record
    while True:
        keys = (
            list(target) if isinstance(target, dict) else list(range(len(target))) if isinstance(target, list) else []
        )
        if not keys:
            break
        key = data.draw(st.sampled_from([*keys, None]))
        if key is None or data.draw(st.booleans()):
            if key is None and isinstance(target, dict):
                key = data.draw(st.text(max_size=8))
            elif key is None:
                break
            target[key] = data.draw(JSON)
            break
        target = target[key]
    imported_or_refused(record)


# -- the command ---------------------------------------------------------------------------


def test_importgame_reads_a_file(tmp_path, standard):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(standard[0]))
    result = run("importgame", str(path), "--private", "--name", "Cup final")
    game = Game.objects.get(pk=result["game"])
    assert result == {
        "game": game.pk,
        "mode": "standard",
        "points": list(standard[1].scores),
        "winner": standard[1].winner,
        "rounds": len(standard[1].rounds),
    }
    assert game.table.private and game.table.imported and game.table.name == "Cup final"


def test_importgame_reads_standard_input():
    logs = jasskit_rounds(2, seed=12)
    result = run("importgame", "-", stdin=StringIO(json.dumps(logs)))
    assert result["rounds"] == 2 and result["winner"] is None
    assert result["points"] == [
        sum(p[0] for p in map(jasskit_points, logs)),
        sum(p[1] for p in map(jasskit_points, logs)),
    ]


def test_importgame_fails_with_the_reason_and_stores_nothing(tmp_path, standard):
    record = copy.deepcopy(standard[0])
    record["rounds"][1]["tricks"][3]["points"] += 1
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    before = row_counts()
    with pytest.raises(CommandError, match=r"^round 2, trick 4: 'points' is \d+ but the cards give \d+$") as excinfo:
        call_command("importgame", str(path), stdout=StringIO())
    assert excinfo.value.returncode == 1
    with pytest.raises(CommandError, match=r"^the record is not JSON: "):
        call_command("importgame", "-", stdin=StringIO("{oops"), stdout=StringIO())
    with pytest.raises(CommandError, match=r"^cannot read .*missing\.json: No such file or directory$"):
        call_command("importgame", str(tmp_path / "missing.json"), stdout=StringIO())
    assert row_counts() == before


def test_damaged_stand_in_moves_are_refused_with_their_place(db):
    players = make_players(("Nora",))
    table = make_table(players[0], ["random"] * 4, mode="fair", round_count=2)
    game = start(table, players[0], seed=2)
    from bots.runner import play_bot_turns

    play_bot_turns(game.pk)
    record = game_record(Game.objects.get(pk=game.pk))
    record["seats"][1]["kind"] = "human"
    record["seats"][1]["bot"] = None
    seats = list(Action.objects.filter(game=game).order_by("seq").values_list("seat", flat=True))
    first_of_east, first_of_north = seats.index(1), seats.index(0)
    cases = [
        ({"move": 9999, "seat": 1}, "standin_moves[0]: 'move' must be a move of the game"),
        ({"move": 0, "seat": 3}, "standin_moves[0]: move 0 was made by"),
        ({"move": first_of_north, "seat": 0}, "a stand-in plays only for a person, but 0 (North) is a bot"),
        ("x", "a stand-in move is an object"),
    ]
    for entry, message in cases:
        damaged = {**record, "standin_moves": [entry]}
        with pytest.raises(RecordError, match=re.escape(message)):
            check_record(damaged)
    twice = {**record, "standin_moves": [{"move": first_of_east, "seat": 1}] * 2}
    with pytest.raises(RecordError, match="listed twice"):
        check_record(twice)
    fine = {**record, "standin_moves": [{"move": first_of_east, "seat": 1}]}
    assert check_record(fine).standin_moves == frozenset({first_of_east})
