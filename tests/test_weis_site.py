"""Weis and Stöck beyond the engine: headless games, records, HSLU bots, the service and what views show."""

from __future__ import annotations

import copy
import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command
from django.test import Client as HttpClient
from jass.game.game_state import GameState as JassKitState

from bots.determinize import Sampler
from bots.registry import get_bot
from bots.runner import play_bot_turns
from games.engine import (
    FAIR,
    SEAT_NAMES,
    STANDARD,
    Action,
    GameConfig,
    GamePlan,
    GameState,
    codes_of,
    hand_weis,
    mask_from_codes,
    stoeck_cards,
    weis_cards,
    weis_name,
    weis_points,
)
from games.live import service, snapshot
from games.live.service import forget_cached_states, load_state
from games.models import Action as ActionRow
from games.models import Fault, Game, GameSeat, Seat, Table
from games.pages.replay import replay_data
from games.records import ROUND_LOGS_NOTE, RecordError, game_record, import_record
from tests.bot_servers.counting import CountingBots
from tests.engine_helpers import held_weis
from tests.table_helpers import actor, make_players, make_table, start

pytestmark = pytest.mark.django_db

RULES = ["--seat", "rules", "--seat", "rules", "--seat", "rules", "--seat", "rules"]
MODELS = (Table, Seat, Game, GameSeat, ActionRow, Fault)


def run(*args: str) -> dict:
    out = StringIO()
    call_command(*args, stdout=out)
    return json.loads(out.getvalue())


def weis_seed(mode: str = FAIR, rounds: int = 4) -> int:
    """A seed whose first round deals at least two Weis (found, not hoped for).

    Searched from 70,001 up: a process keeps engine states by game id and seed, and other tests' games
    (whose ids come round again in a fresh database) use small seeds.
    """
    for seed in range(70_001, 70_500):
        plan = GamePlan(GameConfig(mode=mode, round_count=rounds, seed=seed, weis=True))
        hands = plan.deal(0).hands
        if sum(len(hand_weis(h)) for h in hands) >= 2:
            return seed
    raise AssertionError("no seed with Weis")


@pytest.fixture(scope="module")
def weis_game(django_db_setup, django_db_blocker):
    """A finished fair game of four rule bots with Weis and Stöck, played headless (``playgame --weis``)."""
    with django_db_blocker.unblock():
        forget_cached_states()
        played = run("playgame", *RULES, "--mode", "fair", "--rounds", "4", "--weis", "--seed", str(weis_seed()))
        game = Game.objects.get(pk=played["game"])
        yield game, game_record(game)
        Table.objects.filter(pk=game.table_id).delete()


def row_counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in MODELS}


def refused(data: object, message: str) -> None:
    before = row_counts()
    with pytest.raises(RecordError) as excinfo:
        import_record(data)
    assert str(excinfo.value) == message
    assert row_counts() == before


# -- headless ------------------------------------------------------------------------


def test_playgame_with_weis_plays_a_weis_table_where_bots_declare_and_announce(weis_game):
    game, record = weis_game
    assert game.status == Game.FINISHED and game.weis and game.table.weis
    kinds = set(game.actions.values_list("kind", flat=True))
    assert {"weis", "card", "trump"} <= kinds
    state = GameState.replay(game.config(), [(r.seat, r.to_engine()) for r in game.actions.order_by("seq")])
    assert state.scores == tuple(game.points)
    for rnd, points in zip(state.rounds, state.round_scores(), strict=True):
        # Every bot declared every Weis it was dealt.
        assert [tuple(sorted(d)) for d in rnd.declared] == [tuple(sorted(held_weis(rnd, s))) for s in range(4)]
        base = 257 if rnd.is_match else 157
        assert sum(points) == base + sum(rnd.weis_points()) + sum(rnd.stoeck_points())
    assert record["weis"] is True and len(record["weis_rounds"]) == 4


def test_a_table_without_weis_stores_no_weis_key_in_its_record():
    played = run("playgame", *RULES, "--mode", "fair", "--rounds", "2", "--seed", str(weis_seed(rounds=2)))
    game = Game.objects.get(pk=played["game"])
    record = game_record(game)
    assert not game.weis and "weis" not in record and "weis_rounds" not in record
    assert set(game.actions.values_list("kind", flat=True)) == {"trump", "card"}


# -- records ------------------------------------------------------------------------


def test_a_weis_record_exports_and_imports_to_the_identical_replay(weis_game):
    game, record = weis_game
    imported = import_record(json.dumps(record))
    assert imported.weis and imported.table.weis
    assert list(imported.actions.order_by("seq").values_list("seat", "kind", "value")) == list(
        game.actions.order_by("seq").values_list("seat", "kind", "value")
    )
    forget_cached_states()
    original, again = replay_data(game), replay_data(imported)
    for data in (original, again):
        data.pop("id"), data.pop("table")
        for rnd in data["rounds"]:
            for card in rnd["cards"]:
                card.pop("ms")
            rnd.pop("decision_ms")
    assert again == original
    assert any(rnd["announcements"] for rnd in original["rounds"])
    assert {
        k: v for k, v in game_record(imported).items() if k not in ("id", "created_at", "finished_at", "seats")
    } == {k: v for k, v in record.items() if k not in ("id", "created_at", "finished_at", "seats")}


def first_weis(record: dict) -> tuple[int, dict]:
    for index, entry in enumerate(record["weis_rounds"]):
        if entry["weis"]:
            return index, entry["weis"][0]
    raise AssertionError("no Weis in the record")


def test_a_weis_the_hand_does_not_hold_is_refused_with_its_place(weis_game):
    record = copy.deepcopy(weis_game[1])
    index, weis = first_weis(record)
    state = load_state(weis_game[0])
    seat = weis["seat"]
    other = (seat + 1) % 4
    dealt = state.rounds[index].starting_hands()
    weis["seat"] = other
    mask = mask_from_codes(weis["cards"])
    missing = " ".join(codes_of(mask & ~dealt[other]))
    refused(
        record,
        f"round {index + 1}, Weis 1: {SEAT_NAMES[other]} declares {weis['name']} but was not dealt {missing}"
        f" ({SEAT_NAMES[other]} was dealt {' '.join(codes_of(dealt[other]))})",
    )


def test_cards_that_are_no_weis_are_refused_with_their_place(weis_game):
    record = copy.deepcopy(weis_game[1])
    index, weis = first_weis(record)
    weis["cards"] = weis["cards"][:2]
    refused(
        record,
        f"round {index + 1}, Weis 1: {SEAT_NAMES[weis['seat']]}'s {' '.join(weis['cards'])} is not a Weis (three or"
        " more in sequence in one suit, or four Aces, Kings, Queens, Jacks, Tens or Nines)",
    )


def test_a_weis_with_wrong_points_is_refused_with_its_place(weis_game):
    record = copy.deepcopy(weis_game[1])
    index, weis = first_weis(record)
    weis["points"] += 30
    refused(
        record,
        f"round {index + 1}, Weis 1: {SEAT_NAMES[weis['seat']]}'s {weis['name']} is worth {weis['points'] - 30},"
        f" not {weis['points']}",
    )


def test_a_wrong_winner_of_the_weis_is_refused_with_its_place(weis_game):
    record = copy.deepcopy(weis_game[1])
    index, _ = first_weis(record)
    entry = record["weis_rounds"][index]
    right = entry["weis_team"]
    entry["weis_team"] = 1 - right
    names = ["0 (North/South)", "1 (East/West)"]
    with pytest.raises(RecordError) as excinfo:
        import_record(record)
    assert str(excinfo.value).startswith(
        f"round {index + 1}: weis_team is {names[1 - right]} but the Weis go to {names[right]}: "
    )
    assert str(excinfo.value).endswith("is the best Weis")


def test_stoeck_of_a_seat_without_king_and_queen_of_trump_are_refused_with_their_place(weis_game):
    record = copy.deepcopy(weis_game[1])
    state = load_state(weis_game[0])
    index = next(i for i, rnd in enumerate(state.rounds) if rnd.trump < 4)
    rnd = state.rounds[index]
    pair = stoeck_cards(rnd.trump)
    seat = next(s for s in range(4) if rnd.starting_hands()[s] & pair != pair)
    record["weis_rounds"][index]["stoeck"] = {"seat": seat, "card": codes_of(pair)[0]}
    refused(
        record,
        f"round {index + 1}, Stöck: {SEAT_NAMES[seat]} announces Stöck but was not dealt both"
        f" {' and '.join(codes_of(pair))}",
    )


def test_part_of_a_longer_run_and_weis_without_the_option_are_refused(weis_game):
    record = copy.deepcopy(weis_game[1])
    _, weis = first_weis(record)
    no_option = copy.deepcopy(record)
    no_option["weis"] = False
    refused(no_option, "weis_rounds are given but the record's 'weis' is not true: a game without Weis and Stöck")
    if len(weis["cards"]) > 3 and weis["name"][0] != "f":  # a run of four or more: its first three are no Weis
        weis["cards"] = weis["cards"][:3]
        with pytest.raises(RecordError, match=r"is part of the .* was dealt, and a run is one Weis"):
            import_record(record)


def test_bare_round_logs_leave_weis_out_and_say_so(weis_game, client: HttpClient):
    game, record = weis_game
    out, err = StringIO(), StringIO()
    call_command("exportgame", str(game.pk), "--round-logs", stdout=out, stderr=err)
    logs = json.loads(out.getvalue())
    assert logs == record["rounds"]
    assert ROUND_LOGS_NOTE in err.getvalue()
    for log in logs:
        assert JassKitState.from_json(log) is not None
    response = client.get(f"/games/{game.pk}/rounds.json")
    assert response.json() == logs
    assert response["X-Jassweb-Left-Out"].startswith("Weis and Stoeck are left out")
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert 'data-testid="round-logs-note"' in page and 'data-testid="weis-panel"' in page


def test_the_result_page_names_weis_cards_and_bots_in_the_readers_deck_and_language(weis_game, client: HttpClient):
    """Issue 23: the game page listed "Dreiblatt C10-C8 (20)" (card codes, even with Swiss cards) and English bot
    names."""
    import re

    game, _ = weis_game
    lines = []
    for deck, suits in (("french", "♦♥♠♣"), ("swiss", ("Schellen", "Rosen", "Schilten", "Eicheln"))):
        client.post("/settings/deck/", {"deck": deck, "next": "/"})
        page = client.get(f"/games/{game.pk}/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
        found = re.findall(r'data-testid="weis-line">(.*?)</span>(?:<br>|</td>)', page, re.S)
        assert found, "the game declared Weis"
        for line in found:
            text = re.sub(r"<[^>]+>", "", line)
            assert not re.search(r"\b[DHSC](A|K|Q|J|10|9|8|7|6)\b", text), text  # no card codes
            if "blatt" in text:
                assert any(suit in text for suit in suits), text
        lines.append(found)
        assert "Bot «Regelbasiert»" in page and "Rule-based" not in page
    assert lines[0] != lines[1]


# -- HSLU bots ------------------------------------------------------------------------


@pytest.mark.services
def test_hslu_bots_get_only_v02_messages_at_a_weis_table_and_the_server_declares_for_them():
    with CountingBots() as bots:
        table = service.create_table(None, name="Weis bots", mode=FAIR, round_count=4, weis=True, bot_delay_ms=0)
        for position in range(4):
            service.set_remote_bot(table.pk, position, bots.url(f"b{position}"), "", "spec", service.SYSTEM)
        game = service.start_game(table.pk, service.SYSTEM, seed=weis_seed())
        play_bot_turns(game.pk)
        game.refresh_from_db()
        violations, decisions = list(bots.violations), bots.decisions
    assert game.status == Game.FINISHED and not game.faults.exists()
    assert violations == []
    state = load_state(game)
    declared = sum(len(d) for rnd in state.rounds for d in rnd.declared)
    held = sum(len(held_weis(rnd, s)) for rnd in state.rounds for s in range(4))
    assert declared == held > 0  # every Weis of every bot declared for it
    weis = game.actions.filter(kind="weis").count()
    stoeck = game.actions.filter(kind="stoeck").count()
    assert stoeck == sum(1 for rnd in state.rounds if rnd.stoeck >= 0)
    # Asked for trumps and cards only: a Weis is declared without asking, and the card a bot chose when
    # the server announced its Stöck is played without asking again.
    assert decisions == game.action_count - weis - stoeck


# -- bots reading shown Weis ----------------------------------------------------------


def test_sampled_deals_give_shown_weis_cards_to_their_holder():
    for seed in range(1, 200):
        config = GameConfig(mode=STANDARD, seed=seed, weis=True)
        game = GameState.new(config)
        bot, rng = get_bot("rules"), np.random.default_rng(seed)
        while not game.over and not game.current.tricks:
            game = game.apply(game.player, bot.act(game.observation(game.player), rng))
        rnd = game.current
        if rnd.weis_team < 0:
            continue
        viewer = next(s for s in range(4) if s % 2 != rnd.weis_team)
        obs = game.observation(viewer)
        shown = {s: obs.shown_cards(s) for s in range(4) if s != viewer and obs.shown_cards(s)}
        if not shown:
            continue
        sampler = Sampler(obs)
        for _ in range(20):
            hands = sampler.sample(rng)
            for seat, cards in shown.items():
                assert hands[seat] & cards == cards
        return
    raise AssertionError("no deal with a shown Weis")


# -- people: the service, and what views show --------------------------------------


def four_people_at_a_weis_table(seed: int | None = None):
    players = make_players()
    table = make_table(players[0], list(players), weis=True)
    game = start(table, players[0], seed=seed or weis_seed(STANDARD))
    return table, game, players


def test_a_person_declares_with_one_move_and_refusals_change_nothing():
    table, game, players = four_people_at_a_weis_table()
    state = load_state(game)
    state = service.submit(game.pk, state.player, Action.trump(4), actor=actor(players[state.player]), expected_seq=0)
    # Play until someone to move holds a Weis; declare it (all of theirs) in one call.
    while state.current.tricks == () and not state.current.announcements():
        seat = state.player
        card = state.current.legal_cards()[0]
        state = service.submit(game.pk, seat, Action.card(card), actor=actor(players[seat]), expected_seq=None)
    assert not state.current.tricks, "the seed deals Weis: someone is offered one in the first trick"
    seat = state.player
    offers = state.current.announcements()
    game.refresh_from_db()
    before = game.action_count
    with pytest.raises(service.ServiceError) as excinfo:
        service.submit_moves(
            game.pk, seat, [*offers, Action.weis(1003)], actor=actor(players[seat]), expected_seq=before
        )
    assert excinfo.value.code in ("illegal", "bad_action")
    game.refresh_from_db()
    assert game.action_count == before
    after = service.submit_moves(game.pk, seat, offers, actor=actor(players[seat]), expected_seq=before)
    assert after.current.declared[seat] == tuple(a.value for a in offers)
    view = snapshot.table_view(table.pk, players[(seat + 1) % 4])
    shown = view["game"]["weis"]["declared"][seat]
    assert [entry["points"] for entry in shown] == [weis_points(a.value) for a in offers]
    assert all("cards" not in entry for entry in shown)  # said aloud, not shown: no card leaks
    mine = snapshot.table_view(table.pk, players[seat])
    assert [entry["name"] for entry in mine["game"]["announce"]["declared"]] == [weis_name(a.value) for a in offers]


def test_scored_weis_are_shown_to_everyone_after_the_first_trick_and_others_never_before_the_end():
    table, game, players = four_people_at_a_weis_table()
    state = load_state(game)
    state = service.submit(game.pk, state.player, Action.trump(4), actor=actor(players[state.player]), expected_seq=0)
    while not state.current.tricks:
        seat = state.player
        offers = state.current.announcements()
        if offers:
            state = service.submit_moves(game.pk, seat, offers, actor=actor(players[seat]), expected_seq=None)
        state = service.submit(
            game.pk, seat, Action.card(state.current.legal_cards()[0]), actor=actor(players[seat]), expected_seq=None
        )
    rnd = state.current
    spectator = snapshot.table_view(table.pk, None)["game"]["weis"]
    assert spectator["team"] == rnd.weis_team
    for seat, entries in enumerate(spectator["declared"]):
        for entry, code in zip(entries, rnd.declared[seat], strict=True):
            if seat % 2 == rnd.weis_team:
                assert entry["cards"] == codes_of(weis_cards(code))
            else:
                assert "cards" not in entry and "name" not in entry
