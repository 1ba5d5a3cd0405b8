"""The HSLU JSON codec against jass-kit 2.0.5 and the interface spec's own examples."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import numpy as np
import pytest
from jass.game.game_observation import GameObservation
from jass.game.game_sim import GameSim
from jass.game.game_state import GameState as JassKitState
from jass.game.game_state_util import observation_from_state
from jass.game.rule_schieber import RuleSchieber

from games.engine import PUSH, RoundState, codes_of, iter_cards, mask_from_codes
from games.engine.fair import random_deal
from games.hslu import (
    SCHIEBER,
    SCHIEBER_1000,
    SCHIEBER_2500,
    InvalidMessageError,
    InvalidReplyError,
    decode_observation,
    decode_round,
    encode_observation,
    encode_round,
    jass_type,
    parse_card_reply,
    parse_reply_body,
    parse_trump_reply,
)

SPEC = json.loads((Path(__file__).parent / "data" / "hslu_spec_examples.json").read_text())
RULE = RuleSchieber()


def wire(message: dict) -> dict:
    """What the other side reads: the message through JSON text."""
    return json.loads(json.dumps(message))


def random_states(seed: int, rounds: int):
    """Every state of ``rounds`` random rounds (trump phase, pushes and all cards)."""
    rng = random.Random(seed)
    for _ in range(rounds):
        state = RoundState.deal(random_deal(rng), rng.randrange(4))
        yield state
        if rng.random() < 0.5:
            state = state.choose_trump(PUSH)
            yield state
        state = state.choose_trump(rng.randrange(6))
        yield state
        while not state.is_over:
            state = state.play(rng.choice(state.legal_cards()))
            yield state


def jasskit_sim_for(state: RoundState) -> GameSim:
    """A jass-kit simulation that took the same actions as our ``state``."""
    sim = GameSim(RULE)
    hands = np.zeros((4, 36), dtype=np.int32)
    for seat, mask in enumerate(state.starting_hands()):
        hands[seat, list(iter_cards(mask))] = 1
    sim.init_from_cards(hands, state.dealer)
    for action in state.actions():
        if action.is_card:
            sim.action_play_card(action.value)
        else:
            sim.action_trump(action.value)
    return sim


def one_hot(mask: int) -> np.ndarray:
    array = np.zeros(36, dtype=np.int32)
    array[list(iter_cards(mask))] = 1
    return array


# -- what we emit, jass-kit reads ----------------------------------------------


def test_every_message_we_emit_is_accepted_by_jasskit_and_means_the_same():
    checked = 0
    for state in random_states(seed=1, rounds=60):
        for seat in range(4):
            obs = state.observation(seat)
            message = wire(encode_observation(obs, SCHIEBER_1000))
            theirs = GameObservation.from_json(message)
            assert theirs is not None
            assert (theirs.hand == one_hot(obs.hand)).all()
            assert theirs.trump == state.trump
            assert theirs.player == state.player
            assert theirs.player_view == seat
            assert theirs.dealer == state.dealer
            assert theirs.forehand == state.forehand
            assert theirs.declared_trump == state.declarer
            assert theirs.nr_played_cards == state.cards_played
            assert list(theirs.points) == list(state.points)
            for i, trick in enumerate(state.tricks):
                assert list(theirs.tricks[i]) == list(trick.cards)
                assert theirs.trick_winner[i] == trick.winner
                assert theirs.trick_points[i] == trick.points
                assert theirs.trick_first_player[i] == trick.first
            if not state.is_over:
                assert [c for c in theirs.current_trick if c >= 0] == list(state.trick)
                if state.trump >= 0:
                    assert theirs.trick_first_player[len(state.tricks)] == state.leader
            # ...and reads back to the very same observation with our own codec.
            assert decode_observation(message) == obs
            checked += 1
    assert checked > 5000


def test_our_round_logs_load_with_jasskit_as_the_same_state():
    for state in random_states(seed=2, rounds=40):
        log = wire(encode_round(state))
        assert log["jassTyp"] == SCHIEBER
        loaded = JassKitState.from_json(log)
        assert loaded == jasskit_sim_for(state).state
        assert decode_round(log) == state


# -- what jass-kit emits, we read ----------------------------------------------


def test_jasskit_observations_and_logs_parse_with_our_codec():
    rng = random.Random(3)
    for state in random_states(seed=3, rounds=40):
        sim = jasskit_sim_for(state)
        assert decode_round(wire(sim.state.to_json())) == state
        seat = rng.randrange(4)
        if state.is_over:
            continue  # jass-kit cannot build an observation of a finished round
        theirs = observation_from_state(sim.state, seat).to_json()
        assert decode_observation(wire(theirs)) == state.observation(seat)


def test_spec_trump_requests_parse():
    first, after_push = (decode_observation(m) for m in SPEC["trump_requests"])
    assert first.viewer == first.player == 3
    assert first.forehand == -1 and first.trump == -1
    assert codes_of(first.hand) == ["D10", "HA", "HJ", "SQ", "S10", "S7", "S6", "CK", "C7"]
    assert len(first.legal_actions()) == 7
    assert after_push.player == 1 and after_push.forehand == 0
    assert len(after_push.legal_actions()) == 6  # no second push


def test_spec_play_card_requests_parse():
    obs = [decode_observation(m) for m in SPEC["play_card_requests"]]
    assert [o.player for o in obs] == [1, 2, 1, 1]
    assert [len(o.tricks) for o in obs] == [1, 2, 3, 8]
    assert obs[0].trick == tuple(mask_from_codes([c]).bit_length() - 1 for c in ["DQ", "DA", "D8"])
    assert codes_of(obs[0].legal_mask()) == ["D7", "D6"]  # Obe-Abe, diamonds led: follow suit
    # The spec's second example lists the hand under player 2 with playerView 1: the hand is player 2's.
    assert obs[1].viewer == 2 and codes_of(obs[1].hand)[0] == "DK"
    assert obs[3].trump == 5 and obs[3].points == (15 + 3 + 25 + 13 + 19 + 29, 8 + 32)
    assert codes_of(obs[3].legal_mask()) == ["SJ"]


def test_spec_examples_load_in_jasskit_too():
    for message in SPEC["trump_requests"] + SPEC["play_card_requests"]:
        assert GameObservation.from_json(copy.deepcopy(message)) is not None


# -- malformed and contradictory input -----------------------------------------


def finished_log(seed: int = 5) -> dict:
    *_, last = random_states(seed=seed, rounds=1)
    return wire(encode_round(last))


def _make_incomplete(trick: dict) -> None:
    del trick["win"], trick["points"]
    trick["cards"].pop()


@pytest.mark.parametrize(
    ("mutate", "match"),
    [
        (lambda d: d.update(version="V0.1"), "unsupported version 'V0.1'"),
        (lambda d: d.update(jassTyp="HEARTS"), "unsupported jassTyp"),
        (lambda d: d.update(dealer=4), "'dealer' must be one of"),
        (lambda d: d.update(forehand=-1), "forehand is -1"),
        (lambda d: d["tricks"][3]["cards"].__setitem__(1, "X9"), r"trick 4 cards\[1\]: unknown card code 'X9'"),
        (lambda d: d["tricks"][2].update(win=(d["tricks"][2]["win"] + 1) % 4), "trick 3: 'win' is"),
        (lambda d: d["tricks"][5].update(points=d["tricks"][5]["points"] + 1), "trick 6: 'points' is"),
        (lambda d: d["tricks"][4].update(first=(d["tricks"][4]["first"] + 1) % 4), "trick 5: 'first' is"),
        (lambda d: d["tricks"][7]["cards"].__setitem__(0, d["tricks"][0]["cards"][0]), "already played"),
        (lambda d: d.update(currentPlayer=2), "'currentPlayer' is 2"),
        (lambda d: _make_incomplete(d["tricks"][1]), "trick 3: follows a trick that is not complete"),
        (lambda d: d["tricks"][8]["cards"].pop(), "trick 9: an incomplete trick has no winner"),
        (lambda d: d.update(tricks="none"), "'tricks' must be a list"),
        (lambda d: d.update(player=[{"hand": []}] * 5), "at most 4 entries"),
        (lambda d: d.pop("dealer"), "missing field 'dealer'"),
    ],
)
def test_malformed_logs_are_refused_with_the_reason(mutate, match):
    log = finished_log()
    mutate(log)
    with pytest.raises(InvalidMessageError, match=match):
        decode_round(log)


def test_a_log_dealing_the_wrong_cards_is_refused():
    partial = None
    for partial in random_states(seed=6, rounds=1):
        if partial.cards_played == 10:
            break
    log = wire(encode_round(partial))
    log["player"][0]["hand"].append(log["player"][1]["hand"].pop())
    with pytest.raises(InvalidMessageError, match="not a deal of 4 x 9 cards"):
        decode_round(log)


def test_a_jasskit_log_with_its_undertrump_bug_is_refused_as_illegal():
    rng = np.random.default_rng(7)
    for _ in range(500):
        sim = GameSim(RULE)
        deal = random_deal(random.Random(int(rng.integers(1 << 30))))
        hands = np.zeros((4, 36), dtype=np.int32)
        for seat, mask in enumerate(deal):
            hands[seat, list(iter_cards(mask))] = 1
        sim.init_from_cards(hands, 0)
        sim.action_trump(int(rng.integers(4)))
        ours = RoundState.deal(deal, 0).choose_trump(sim.state.trump)
        bug = None
        while not sim.is_done():
            theirs = np.flatnonzero(RULE.get_valid_cards_from_state(sim.state))
            extra = [int(c) for c in theirs if not ours.legal_mask() >> int(c) & 1]
            card = extra[0] if extra else int(rng.choice(theirs))
            if extra and bug is None:
                bug = (len(ours.tricks) + 1, len(ours.trick) + 1)
            sim.action_play_card(card)
            if bug is None:
                ours = ours.play_unchecked(card)
        if bug:
            with pytest.raises(InvalidMessageError, match=f"trick {bug[0]} card {bug[1]}: .*may not under-trump"):
                decode_round(wire(sim.state.to_json()))
            return
    pytest.fail("jass-kit never under-trumped")


@pytest.mark.parametrize(
    ("mutate", "match"),
    [
        (lambda d: d.pop("version"), "missing field 'version'"),
        (lambda d: d["player"][0].update(hand=["DA"]), "seats .* have cards"),
        (lambda d: d["player"][3]["hand"].pop(), "holds 8 cards but should hold 9"),
        (lambda d: d["player"][3]["hand"].__setitem__(1, "D10"), "also played or listed twice"),
        (lambda d: d.update(trump=7), "'trump' must be one of"),
        (lambda d: d.update(currentPlayer=0), "'currentPlayer' is 0 but 3 is to move"),
    ],
)
def test_malformed_requests_are_refused(mutate, match):
    message = copy.deepcopy(SPEC["trump_requests"][0])
    mutate(message)
    with pytest.raises(InvalidMessageError, match=match):
        decode_observation(message)


def test_a_message_is_not_an_object():
    with pytest.raises(InvalidMessageError, match="JSON object, got list"):
        decode_observation([])


# -- replies -------------------------------------------------------------------


def test_good_replies_parse():
    assert parse_trump_reply(parse_reply_body(b'{"trump": 3}')) == 3
    assert parse_trump_reply({"trump": 10}) == PUSH
    assert parse_card_reply(parse_reply_body('{"card": "C8"}')) == mask_from_codes(["C8"]).bit_length() - 1


@pytest.mark.parametrize(
    ("body", "parse", "kind", "match"),
    [
        (b"<html>oops</html>", parse_trump_reply, "not_json", "reply is not JSON"),
        (b"\xff\xfe", parse_card_reply, "not_json", "reply is not JSON"),
        (b"[" * 5000 + b"]" * 5000, parse_card_reply, "not_json", "more than 8 levels deep"),  # not parsed
        (b"[3]", parse_trump_reply, "not_object", "must be a JSON object with 'trump'"),
        (b'"C8"', parse_card_reply, "not_object", "must be a JSON object with 'card'"),
        (b'{"trumpf": 3}', parse_trump_reply, "missing_field", "no 'trump' field"),
        (b"{}", parse_card_reply, "missing_field", "no 'card' field"),
        (b'{"trump": "3"}', parse_trump_reply, "wrong_type", "must be an integer"),
        (b'{"trump": 3.0}', parse_trump_reply, "wrong_type", "must be an integer"),
        (b'{"trump": true}', parse_trump_reply, "wrong_type", "must be an integer"),
        (b'{"trump": 6}', parse_trump_reply, "bad_trump", "0-5 or 10"),
        (b'{"trump": -1}', parse_trump_reply, "bad_trump", "0-5 or 10"),
        (b'{"card": 33}', parse_card_reply, "wrong_type", "card code string"),
        (b'{"card": "c8"}', parse_card_reply, "unknown_card", "not a card code"),
        (b'{"card": "C11"}', parse_card_reply, "unknown_card", "not a card code"),
    ],
)
def test_malformed_replies_name_their_fault(body, parse, kind, match):
    with pytest.raises(InvalidReplyError, match=match) as excinfo:
        parse(parse_reply_body(body))
    assert excinfo.value.kind == kind


def test_jass_type_follows_the_table_target():
    assert jass_type("standard", 1000) == SCHIEBER_1000
    assert jass_type("standard", 2500) == SCHIEBER_2500
    assert jass_type("standard", 1500) == SCHIEBER
    assert jass_type("fair", None) == SCHIEBER
