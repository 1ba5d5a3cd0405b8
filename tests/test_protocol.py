"""The websocket protocol: every frame parsed once into a typed message, or refused with its own code and words."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import Action
from games.live import protocol
from games.live.protocol import (
    MAX_DEPTH,
    MAX_FRAME,
    Abandon,
    AbandonVote,
    AddBot,
    AddRemoteBot,
    AnnounceStoeck,
    Back,
    Chat,
    ChatHistory,
    ChooseTrump,
    DeclareWeis,
    Join,
    Leave,
    Message,
    Mute,
    Ping,
    PlayCard,
    ProtocolError,
    Ready,
    Rematch,
    RemoveBot,
    Report,
    Resync,
    SetBotTimeout,
    SetTurnClock,
    Start,
    TestBot,
    parse,
)


def frame(**fields: Any) -> str:
    return json.dumps(fields)


GOOD: list[tuple[dict[str, Any], Message | None]] = [
    ({"type": "join", "seat": 2}, Join(seat=2)),
    ({"type": "leave"}, Leave()),
    ({"type": "add_bot", "seat": 1, "bot": "rules"}, AddBot(seat=1, bot="rules")),
    ({"type": "remove_bot", "seat": 3}, RemoveBot(seat=3)),
    (
        {"type": "add_remote_bot", "seat": 0, "url": "http://bot.example/b"},
        AddRemoteBot(seat=0, url="http://bot.example/b", name="", dialect="auto"),
    ),
    (
        {"type": "add_remote_bot", "seat": 0, "url": "http://b.example", "name": "Bo", "dialect": "spec"},
        AddRemoteBot(seat=0, url="http://b.example", name="Bo", dialect="spec"),
    ),
    ({"type": "add_remote_bot", "seat": 0, "url": "http://b.example", "name": None}, None),  # no name: ""
    ({"type": "test_bot", "url": "http://b.example"}, TestBot(url="http://b.example", dialect="auto", seat=2)),
    (
        {"type": "test_bot", "url": "http://b.example", "dialect": "jass-kit", "seat": 0},
        TestBot(url="http://b.example", dialect="jass-kit", seat=0),
    ),
    ({"type": "set_bot_timeout", "seconds": 7}, SetBotTimeout(seconds=7)),
    ({"type": "start"}, Start()),
    ({"type": "abandon"}, Abandon()),
    ({"type": "abandon_vote", "agree": False}, AbandonVote(agree=False)),
    ({"type": "choose_trump", "trump": 10, "seq": 0}, ChooseTrump(trump=10, seq=0)),
    ({"type": "play_card", "card": "HA", "seq": 5}, PlayCard(card="HA", seq=5)),
    (
        {"type": "play_card", "card": "SQ", "seq": 5, "stoeck": True, "seat": 1},
        PlayCard(card="SQ", seq=5, stoeck=True, seat=1),
    ),
    ({"type": "declare_weis", "weis": [302, 1003], "seq": 4}, DeclareWeis(weis=(302, 1003), seq=4)),
    ({"type": "announce_stoeck", "card": "DK", "seq": 9}, AnnounceStoeck(card="DK", seq=9)),
    ({"type": "resync"}, Resync()),
    ({"type": "ping"}, Ping()),
    ({"type": "ping", "version": 12, "id": "p1"}, Ping(version=12, ref="p1")),
    ({"type": "ping", "version": "12"}, Ping()),  # an old page's ping: no number, no resync
    ({"type": "back"}, Back()),
    ({"type": "ready", "round": 2}, Ready(round=2)),
    ({"type": "set_turn_clock", "seconds": 30}, SetTurnClock(seconds=30, bot="rules", round_pause=None)),
    (
        {"type": "set_turn_clock", "seconds": 0, "bot": "strong", "round_pause": 5},
        SetTurnClock(seconds=0, bot="strong", round_pause=5),
    ),
    ({"type": "rematch", "accept": True}, Rematch(accept=True)),
    ({"type": "chat", "text": "Guet gspielt"}, Chat(text="Guet gspielt")),
    ({"type": "chat", "phrase": "thanks"}, Chat(phrase="thanks")),
    ({"type": "chat_history"}, ChatHistory()),
    ({"type": "mute", "player": 4, "muted": True}, Mute(player=4, muted=True)),
    ({"type": "report", "message": 17, "id": 3}, Report(message=17, ref=3)),
]


@pytest.mark.parametrize(("content", "expected"), GOOD, ids=[c["type"] for c, _ in GOOD])
def test_every_message_type_is_parsed_into_its_class(content, expected):
    message = parse(json.dumps(content))
    assert not isinstance(message, ProtocolError), message
    assert content["type"] == message.TYPE
    if expected is not None:
        assert message == expected


def test_every_message_type_has_a_good_example_and_the_wire_names_are_unique():
    assert {c["type"] for c, _ in GOOD} == {kind.TYPE for kind in protocol.MESSAGES}
    assert len({kind.TYPE for kind in protocol.MESSAGES}) == len(protocol.MESSAGES)


def test_a_move_names_the_engine_actions_it_asks_for():
    assert PlayCard(card="HA", seq=1).actions() == Action.card("HA")
    assert PlayCard(card="SQ", seq=1, stoeck=True).actions() == [Action.stoeck("SQ"), Action.card("SQ")]
    assert ChooseTrump(trump=4, seq=0).actions() == Action.trump(4)
    assert AnnounceStoeck(card="DK", seq=2).actions() == Action.stoeck("DK")
    weis = parse(frame(type="declare_weis", weis=[302], seq=3))
    assert isinstance(weis, DeclareWeis) and weis.actions() == [Action.weis(302)]


def test_an_unused_name_becomes_empty_and_a_message_reads_like_code():
    message = parse(frame(type="add_remote_bot", seat=0, url="http://b.example", name=None))
    assert message == AddRemoteBot(seat=0, url="http://b.example", name="", dialect="auto")
    assert repr(Join(seat=2, ref=7)) == "Join(ref=7, seat=2)"


BAD: list[tuple[str, str, str]] = [
    # (frame, code, words the refusal says)
    ("not json", "bad_json", "not JSON: Expecting value"),
    ("[" * 10 + "]" * 10, "bad_json", f"nested too deeply (at most {MAX_DEPTH} levels)"),
    ("[" * 100_000, "bad_frame", f"a message is at most {MAX_FRAME} bytes"),
    ('{"type": "ping", "id": "\\ud800"}', "bad_json", "lone surrogate"),
    ("[1, 2]", "bad_message", "a message is a JSON object with a string 'type'"),
    ('{"type": 5}', "bad_message", "a JSON object with a string 'type'"),
    ("{}", "bad_message", "a JSON object with a string 'type'"),
    (frame(type="dance"), "unknown_type", "unknown message type 'dance'; known: abandon, abandon_vote,"),
    (frame(type="join"), "bad_message", "'join' needs an integer 'seat', got None"),
    (frame(type="join", seat="2"), "bad_message", "'join' needs an integer 'seat', got '2'"),
    (frame(type="join", seat=True), "bad_message", "'join' needs an integer 'seat', got True"),
    (frame(type="add_bot", seat=1), "bad_message", "'add_bot' needs a bot name in 'bot'"),
    (frame(type="add_bot", bot="rules"), "bad_message", "'add_bot' needs an integer 'seat'"),
    (frame(type="remove_bot", seat=1.0), "bad_message", "'remove_bot' needs an integer 'seat', got 1.0"),
    (frame(type="add_remote_bot", seat=0), "bad_message", "'add_remote_bot' needs a text 'url'"),
    (frame(type="add_remote_bot", seat=0, url="  "), "bad_message", "'add_remote_bot' needs a text 'url'"),
    (frame(type="add_remote_bot", seat=0, url="http://b", name=5), "bad_message", "text 'url', 'name' and"),
    (frame(type="add_remote_bot", seat=0, url="http://b", dialect=[]), "bad_message", "'name' and 'dialect'"),
    (frame(type="add_remote_bot", url="http://b"), "bad_message", "'add_remote_bot' needs an integer 'seat'"),
    (frame(type="test_bot", url=7), "bad_message", "'test_bot' needs a text 'url'"),
    (frame(type="test_bot", url="http://b", dialect="x"), "bad_message", "'dialect' is one of auto, spec, jass-kit"),
    (frame(type="test_bot", url="http://b", dialect=["auto"]), "bad_message", "'dialect' is one of"),
    (frame(type="test_bot", url="http://b", seat=4), "bad_message", "'seat' is 0 (North) to 3 (West)"),
    (frame(type="test_bot", url="http://b", seat="1"), "bad_message", "'test_bot' needs an integer 'seat'"),
    (frame(type="set_bot_timeout"), "bad_message", "'set_bot_timeout' needs an integer 'seconds'"),
    (frame(type="abandon_vote", agree="yes"), "bad_message", "'abandon_vote' needs 'agree': true or false"),
    (frame(type="abandon_vote", agree=1), "bad_message", "'abandon_vote' needs 'agree': true or false"),
    (frame(type="choose_trump", seq=0), "bad_message", "'choose_trump' needs an integer 'trump'"),
    (frame(type="choose_trump", trump=7, seq=0), "bad_action", "not a trump code (0-5, or 10 to push): 7"),
    (frame(type="choose_trump", trump=1), "bad_message", "'choose_trump' needs an integer 'seq'"),
    (frame(type="play_card", card="HA"), "bad_message", "'play_card' needs an integer 'seq', got None"),
    (frame(type="play_card", card="HA", seq="7"), "bad_message", "'play_card' needs an integer 'seq', got '7'"),
    (frame(type="play_card", card="ZZ", seq=1), "bad_action", "'play_card' needs a card code like 'HA' in 'card'"),
    (frame(type="play_card", card=5, seq=1), "bad_action", "like 'HA' in 'card', got 5"),
    (frame(type="play_card", card="HA", seq=1, stoeck="yes"), "bad_action", "'stoeck' is true (Stöck"),
    (frame(type="play_card", card="HA", seq=1, seat="N"), "bad_message", "'play_card' needs an integer 'seat'"),
    (frame(type="announce_stoeck", seq=1), "bad_action", "'announce_stoeck' needs a card code like 'HA'"),
    (frame(type="declare_weis", weis="all", seq=1), "bad_action", "a list of one to nine Weis codes in 'weis'"),
    (frame(type="declare_weis", weis=[], seq=1), "bad_action", "a list of one to nine Weis codes"),
    (frame(type="declare_weis", weis=[302] * 10, seq=1), "bad_action", "a list of one to nine Weis codes"),
    (frame(type="declare_weis", weis=[1006], seq=1), "bad_action", "four of a kind 1000+rank): 1006"),
    (frame(type="declare_weis", weis=["x"], seq=1), "bad_action", "not a Weis code (runs 100*length"),
    (frame(type="declare_weis", weis=[302]), "bad_message", "'declare_weis' needs an integer 'seq'"),
    (frame(type="ready"), "bad_message", "'ready' needs an integer 'round'"),
    (frame(type="set_turn_clock", seconds=30, bot=1), "bad_message", "a stand-in bot name in 'bot'"),
    (frame(type="set_turn_clock", bot="rules"), "bad_message", "'set_turn_clock' needs an integer 'seconds'"),
    (frame(type="set_turn_clock", seconds=30, round_pause=None), "bad_message", "an integer 'round_pause'"),
    (frame(type="rematch"), "bad_message", "'rematch' needs 'accept': true or false"),
    (frame(type="chat", text="hi", phrase="thanks"), "bad_message", "'chat' takes 'text' or 'phrase', not both"),
    (frame(type="chat", phrase="boo"), "bad_message", "'phrase' is one of well_played, sorry, hurry, thanks"),
    (frame(type="chat", phrase=3), "bad_message", "'phrase' is one of"),
    (frame(type="chat"), "bad_message", "'chat' needs the words in 'text'"),
    (frame(type="chat", text=["hi"]), "bad_message", "'chat' needs the words in 'text'"),
    (frame(type="mute", player=4), "bad_message", "'mute' needs a person's id in 'player'"),
    (frame(type="mute", player="4", muted=True), "bad_message", "'mute' needs a person's id"),
    (frame(type="report", message="17"), "bad_message", "'report' needs the message's id in 'message'"),
]


@pytest.mark.parametrize(("text", "code", "words"), BAD, ids=[f"{i}-{code}" for i, (_, code, _) in enumerate(BAD)])
def test_every_way_a_frame_is_wrong_has_its_code_and_words(text, code, words):
    refused = parse(text)
    assert isinstance(refused, ProtocolError), refused
    assert refused.code == code
    assert words in refused.message


def test_a_binary_frame_is_refused():
    assert parse(None) == ProtocolError("bad_frame", "send JSON text frames, not binary ones")


def test_a_refusal_echoes_a_usable_id_and_only_that():
    assert parse(frame(type="join", id="j1")).ref == "j1"
    assert parse(frame(type="join", id=9)).ref == 9
    assert parse(frame(type="dance", id=9)).ref == 9
    assert parse(frame(type="join", id=True)).ref is None  # a boolean is no request id
    assert parse(frame(type="join", id=[1])).ref is None
    assert parse("[1]").ref is None
    assert parse(frame(type="ping", id={"x": 1})) == Ping()


def test_a_socket_knows_only_its_own_messages():
    refused = parse(frame(type="join", seat="x"), (TestBot, protocol.Resync, Ping))
    assert refused == ProtocolError("unknown_type", "unknown message type 'join'; known: ping, resync, test_bot")


@pytest.mark.parametrize(
    ("language", "text", "words"),
    [
        ("de", frame(type="join"), "'join' braucht eine ganze Zahl in 'seat', erhalten: None"),
        ("fr", frame(type="abandon_vote"), "'abandon_vote' demande 'agree' : true ou false"),
        ("it", frame(type="dance"), "tipo di messaggio sconosciuto 'dance'; noti:"),
        ("de", "not json", "kein JSON: Expecting value"),
        ("fr", None, "envoie du JSON en trames de texte"),
    ],
)
def test_a_refusal_is_worded_in_the_sockets_language(language, text, words):
    with translation.override(language):
        refused = parse(text)
    assert isinstance(refused, ProtocolError) and words in refused.message


def test_the_frames_sent_are_built_in_one_place():
    assert protocol.error("busy", "wait", None) == {"type": "error", "code": "busy", "message": "wait"}
    assert protocol.error("stale", "late", "m4") == {"type": "error", "code": "stale", "message": "late", "id": "m4"}
    assert protocol.pong(None) == {"type": "pong", "id": None}
    assert protocol.muted({3, 1}) == {"type": "muted", "players": [1, 3]}
    assert protocol.reported(5) == {"type": "reported", "message": 5}
    assert protocol.chat({"id": 1, "text": "hi"}) == {"type": "chat", "id": 1, "text": "hi"}
    assert protocol.chat_hidden(1) == {"type": "chat_hidden", "message": 1}
    assert protocol.chat_history("players", []) == {"type": "chat_history", "room": "players", "messages": []}
    assert protocol.tables([]) == {"type": "tables", "tables": []}
    assert protocol.live(3, "running", "<p>") == {"type": "live", "version": 3, "status": "running", "html": "<p>"}


# -- parse never raises -----------------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
FIELDS = st.sampled_from(
    ["seat", "bot", "url", "name", "dialect", "seconds", "agree", "trump", "seq", "card", "stoeck", "weis",
     "version", "round", "round_pause", "accept", "text", "phrase", "player", "muted", "message", "id"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_parse_never_raises_on_any_text(text):
    assert isinstance(parse(text), (Message, ProtocolError))


@settings(max_examples=500, deadline=None)
@given(st.sampled_from([kind.TYPE for kind in protocol.MESSAGES]), st.dictionaries(FIELDS, JSON, max_size=6))
def test_parse_never_raises_on_any_message_with_any_fields(kind, fields):
    text = json.dumps({**fields, "type": kind})
    result = parse(text)
    assert isinstance(result, (Message, ProtocolError))
    if isinstance(result, Message):
        assert kind == result.TYPE
