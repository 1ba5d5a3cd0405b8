"""The websocket's protocol: every client frame parsed once into a typed message, every frame sent built here.

``parse(text)`` turns one text frame into one of the message classes below, or a
``ProtocolError`` (its ``code``, a message in the current language, and the request's
``id`` when it had a usable one); it never raises. Consumers dispatch on the message's
class and never look inside raw JSON. The functions at the end build the frames a
socket sends (``error``, ``pong``, ``bot_test``, ``state``, ...), so that the wire
format is written down in one place. Like lila-ws's ``ClientOut.parse``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar

from django.utils.translation import gettext

from games.catalogue import DIALECTS, Dialect
from games.engine import CARD_CODES, Action, InvalidActionError
from games.engine.game import GameState
from games.errors import ErrorCode
from games.json_depth import nested_deeper_than
from games.live import snapshot
from games.live.chat import PHRASES

MAX_FRAME = 4096  # bytes of one websocket message (UTF-8); the transport refuses larger ones
MAX_DEPTH = 8  # levels of lists and objects in a message (the protocol uses two)

Ref = str | int | None  # a request's ``id``, echoed by its reply


# -- client messages ---------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Message:
    """A client's request; ``ref`` is its ``id`` (a string or an integer), echoed by the reply."""

    TYPE: ClassVar[str]
    ref: Ref = None


@dataclass(frozen=True, kw_only=True)
class Join(Message):
    TYPE = "join"
    seat: int


@dataclass(frozen=True, kw_only=True)
class Leave(Message):
    TYPE = "leave"


@dataclass(frozen=True, kw_only=True)
class AddBot(Message):
    TYPE = "add_bot"
    seat: int
    bot: str


@dataclass(frozen=True, kw_only=True)
class RemoveBot(Message):
    TYPE = "remove_bot"
    seat: int


@dataclass(frozen=True, kw_only=True)
class AddRemoteBot(Message):
    """Seat an HSLU bot by URL (the service checks the dialect and the URL's form; the consumer its address)."""

    TYPE = "add_remote_bot"
    seat: int
    url: str
    name: str = ""
    dialect: str = Dialect.AUTO


@dataclass(frozen=True, kw_only=True)
class TestBot(Message):
    """Probe a bot as if it were invited to ``seat``."""

    __test__ = False  # not a pytest test class, despite its name
    TYPE = "test_bot"
    url: str
    dialect: str = Dialect.AUTO
    seat: int = 2


@dataclass(frozen=True, kw_only=True)
class SetBotTimeout(Message):
    TYPE = "set_bot_timeout"
    seconds: int


@dataclass(frozen=True, kw_only=True)
class Start(Message):
    TYPE = "start"


@dataclass(frozen=True, kw_only=True)
class Abandon(Message):
    TYPE = "abandon"


@dataclass(frozen=True, kw_only=True)
class AbandonVote(Message):
    TYPE = "abandon_vote"
    agree: bool


@dataclass(frozen=True, kw_only=True)
class Move(Message):
    """A move at ``seq``; ``seat``, if given, is the seat the page believes it plays (checked by the consumer)."""

    seq: int
    seat: int | None = None

    def actions(self) -> Action | list[Action]:
        """The engine's action, or the actions in a row, this message asks for."""
        raise NotImplementedError


@dataclass(frozen=True, kw_only=True)
class ChooseTrump(Move):
    TYPE = "choose_trump"
    trump: int

    def actions(self) -> Action:
        return Action.trump(self.trump)


@dataclass(frozen=True, kw_only=True)
class PlayCard(Move):
    """Play ``card``; with ``stoeck`` it is announced as Stöck first."""

    TYPE = "play_card"
    card: str
    stoeck: bool = False

    def actions(self) -> Action | list[Action]:
        return [Action.stoeck(self.card), Action.card(self.card)] if self.stoeck else Action.card(self.card)


@dataclass(frozen=True, kw_only=True)
class AnnounceStoeck(Move):
    TYPE = "announce_stoeck"
    card: str

    def actions(self) -> Action:
        return Action.stoeck(self.card)


@dataclass(frozen=True, kw_only=True)
class DeclareWeis(Move):
    TYPE = "declare_weis"
    weis: tuple[int, ...]

    def actions(self) -> list[Action]:
        return [Action.weis(code) for code in self.weis]


@dataclass(frozen=True, kw_only=True)
class Resync(Message):
    TYPE = "resync"


@dataclass(frozen=True, kw_only=True)
class Ping(Message):
    """A keep-alive; a table's page sends the number of the last event it saw (``version``)."""

    TYPE = "ping"
    version: int | None = None


@dataclass(frozen=True, kw_only=True)
class Back(Message):
    TYPE = "back"


@dataclass(frozen=True, kw_only=True)
class Ready(Message):
    TYPE = "ready"
    round: int


@dataclass(frozen=True, kw_only=True)
class SetTurnClock(Message):
    TYPE = "set_turn_clock"
    seconds: int
    bot: str = "rules"
    round_pause: int | None = None


@dataclass(frozen=True, kw_only=True)
class Rematch(Message):
    TYPE = "rematch"
    accept: bool


@dataclass(frozen=True, kw_only=True)
class Chat(Message):
    """Words typed (``text``) or a quick phrase's key (``phrase``): exactly one of them is set."""

    TYPE = "chat"
    text: str | None = None
    phrase: str | None = None


@dataclass(frozen=True, kw_only=True)
class ChatHistory(Message):
    TYPE = "chat_history"


@dataclass(frozen=True, kw_only=True)
class Mute(Message):
    TYPE = "mute"
    player: int
    muted: bool


@dataclass(frozen=True, kw_only=True)
class Report(Message):
    TYPE = "report"
    message: int


@dataclass(frozen=True)
class ProtocolError:
    """A frame that is no message: the ``error`` reply's code and message, and the request's ``id`` if usable."""

    code: ErrorCode
    message: str
    ref: Ref = None


class _Refused(Exception):
    def __init__(self, code: ErrorCode, message: str) -> None:
        self.code, self.message = code, message


# -- reading fields ----------------------------------------------------------------------------------


def _int(content: dict[str, Any], key: str) -> int:
    value = content.get(key)
    if type(value) is not int:
        raise _Refused(
            ErrorCode.BAD_MESSAGE,
            gettext("{type} needs an integer {field}, got {value}").format(
                type=repr(content["type"]), field=repr(key), value=f"{value!r:.40}"
            ),
        )
    return value


def _optional_int(content: dict[str, Any], key: str) -> int | None:
    return _int(content, key) if key in content else None


def _text(content: dict[str, Any], key: str) -> str:
    value = content.get(key)
    if not isinstance(value, str) or not value.strip():
        raise _Refused(
            ErrorCode.BAD_MESSAGE,
            gettext("{type} needs a text {field}").format(type=repr(content["type"]), field=repr(key)),
        )
    return value


def _bool(content: dict[str, Any], key: str, wrong: str) -> bool:
    value = content.get(key)
    if type(value) is not bool:
        raise _Refused(ErrorCode.BAD_MESSAGE, wrong)
    return value


def _card(content: dict[str, Any]) -> str:
    card = content.get("card")
    if not isinstance(card, str) or card not in CARD_CODES:
        raise _Refused(
            ErrorCode.BAD_ACTION,
            gettext("{type} needs a card code like 'HA' in 'card', got {value}").format(
                type=repr(content["type"]), value=f"{card!r:.20}"
            ),
        )
    return card


def _move(content: dict[str, Any]) -> dict[str, Any]:
    """The fields every move has: its ``seq``, and the seat the page believes it plays."""
    return {"seq": _int(content, "seq"), "seat": _optional_int(content, "seat")}


# -- one reader per message type -----------------------------------------------------------------------


def _add_remote_bot(content: dict[str, Any]) -> AddRemoteBot:
    url, name, dialect = _text(content, "url"), content.get("name") or "", content.get("dialect", Dialect.AUTO)
    if not isinstance(name, str) or not isinstance(dialect, str):
        raise _Refused(ErrorCode.BAD_MESSAGE, gettext("'add_remote_bot' takes text 'url', 'name' and 'dialect'"))
    return AddRemoteBot(seat=_int(content, "seat"), url=url, name=name, dialect=dialect)


def _test_bot(content: dict[str, Any]) -> TestBot:
    url, dialect = _text(content, "url"), content.get("dialect", Dialect.AUTO)
    if not isinstance(dialect, str) or dialect not in DIALECTS:
        raise _Refused(
            ErrorCode.BAD_MESSAGE, gettext("'dialect' is one of {dialects}").format(dialects=", ".join(DIALECTS))
        )
    seat = _int(content, "seat") if "seat" in content else 2  # the seat the bot is invited to
    if not 0 <= seat <= 3:
        raise _Refused(ErrorCode.BAD_MESSAGE, gettext("'seat' is 0 (North) to 3 (West)"))
    return TestBot(url=url, dialect=str(dialect), seat=seat)


def _add_bot(content: dict[str, Any]) -> AddBot:
    bot = content.get("bot")
    if not isinstance(bot, str):
        raise _Refused(ErrorCode.BAD_MESSAGE, gettext("'add_bot' needs a bot name in 'bot'"))
    return AddBot(seat=_int(content, "seat"), bot=bot)


def _choose_trump(content: dict[str, Any]) -> ChooseTrump:
    trump = _int(content, "trump")
    try:
        Action.trump(trump)
    except InvalidActionError:
        raise _Refused(
            ErrorCode.BAD_ACTION, gettext("not a trump code (0-5, or 10 to push): {value}").format(value=repr(trump))
        ) from None
    return ChooseTrump(trump=trump, **_move(content))


def _play_card(content: dict[str, Any]) -> PlayCard:
    card = _card(content)
    stoeck = content.get("stoeck", False)
    if not isinstance(stoeck, bool):
        raise _Refused(
            ErrorCode.BAD_ACTION,
            gettext("'stoeck' is true (Stöck with this card) or false, got {value}").format(value=f"{stoeck!r:.20}"),
        )
    return PlayCard(card=card, stoeck=stoeck, **_move(content))


def _declare_weis(content: dict[str, Any]) -> DeclareWeis:
    codes = content.get("weis")
    if not isinstance(codes, list) or not 1 <= len(codes) <= 9:
        raise _Refused(ErrorCode.BAD_ACTION, gettext("'declare_weis' needs a list of one to nine Weis codes in 'weis'"))
    for code in codes:
        try:
            Action.weis(code)
        except InvalidActionError:
            raise _Refused(
                ErrorCode.BAD_ACTION,
                gettext("not a Weis code (runs 100*length+top card, four of a kind 1000+rank): {value}").format(
                    value=f"{code!r:.20}"
                ),
            ) from None
    return DeclareWeis(weis=tuple(codes), **_move(content))


def _set_turn_clock(content: dict[str, Any]) -> SetTurnClock:
    bot = content.get("bot", "rules")
    if not isinstance(bot, str):
        raise _Refused(ErrorCode.BAD_MESSAGE, gettext("'set_turn_clock' takes a stand-in bot name in 'bot'"))
    return SetTurnClock(seconds=_int(content, "seconds"), bot=bot, round_pause=_optional_int(content, "round_pause"))


def _chat(content: dict[str, Any]) -> Chat:
    if "text" in content and "phrase" in content:
        raise _Refused(ErrorCode.BAD_MESSAGE, gettext("'chat' takes 'text' or 'phrase', not both"))
    phrase = content.get("phrase")
    if phrase is not None:
        if not isinstance(phrase, str) or phrase not in PHRASES:
            raise _Refused(
                ErrorCode.BAD_MESSAGE,
                gettext("'phrase' is one of {phrases}, got {value}").format(
                    phrases=", ".join(PHRASES), value=f"{phrase!r:.30}"
                ),
            )
        return Chat(phrase=phrase)
    text = content.get("text")
    if not isinstance(text, str):
        raise _Refused(
            ErrorCode.BAD_MESSAGE, gettext("'chat' needs the words in 'text' (or a quick phrase in 'phrase')")
        )
    return Chat(text=text)


def _mute(content: dict[str, Any]) -> Mute:
    player, muted = content.get("player"), content.get("muted")
    if type(player) is not int or type(muted) is not bool:
        raise _Refused(
            ErrorCode.BAD_MESSAGE, gettext("'mute' needs a person's id in 'player' and true or false in 'muted'")
        )
    return Mute(player=player, muted=muted)


def _report(content: dict[str, Any]) -> Report:
    message = content.get("message")
    if type(message) is not int:
        raise _Refused(ErrorCode.BAD_MESSAGE, gettext("'report' needs the message's id in 'message'"))
    return Report(message=message)


def _ping(content: dict[str, Any]) -> Ping:
    version = content.get("version")
    return Ping(version=version if type(version) is int else None)  # an old page's ping carries none


_READERS: dict[type[Message], Callable[[dict[str, Any]], Message]] = {
    Join: lambda c: Join(seat=_int(c, "seat")),
    Leave: lambda c: Leave(),
    AddBot: _add_bot,
    RemoveBot: lambda c: RemoveBot(seat=_int(c, "seat")),
    AddRemoteBot: _add_remote_bot,
    TestBot: _test_bot,
    SetBotTimeout: lambda c: SetBotTimeout(seconds=_int(c, "seconds")),
    Start: lambda c: Start(),
    Abandon: lambda c: Abandon(),
    AbandonVote: lambda c: AbandonVote(agree=_bool(c, "agree", gettext("'abandon_vote' needs 'agree': true or false"))),
    ChooseTrump: _choose_trump,
    PlayCard: _play_card,
    DeclareWeis: _declare_weis,
    AnnounceStoeck: lambda c: AnnounceStoeck(card=_card(c), **_move(c)),
    Resync: lambda c: Resync(),
    Ping: _ping,
    Back: lambda c: Back(),
    Ready: lambda c: Ready(round=_int(c, "round")),
    SetTurnClock: _set_turn_clock,
    Rematch: lambda c: Rematch(accept=_bool(c, "accept", gettext("'rematch' needs 'accept': true or false"))),
    Chat: _chat,
    ChatHistory: lambda c: ChatHistory(),
    Mute: _mute,
    Report: _report,
}
MESSAGES: tuple[type[Message], ...] = tuple(_READERS)


# -- parsing a frame -----------------------------------------------------------------------------------


def _is_ref(value: Any) -> bool:
    """Whether a request's ``id`` is one a reply may echo: a string or an integer."""
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _encodable(content: Any) -> bool:
    """False when a parsed frame holds a lone surrogate (``"\\ud800"``), which no database or page can store."""
    try:
        json.dumps(content, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return False
    return True


def _decode(text: str | None) -> Any:
    """The JSON value of a text frame, refused if the frame is binary, too large, no JSON or JSON we do not read."""
    if text is None:
        raise _Refused(ErrorCode.BAD_FRAME, gettext("send JSON text frames, not binary ones"))
    if len(text) > MAX_FRAME // 4 and len(text.encode(errors="surrogatepass")) > MAX_FRAME:
        raise _Refused(ErrorCode.BAD_FRAME, gettext("a message is at most {count} bytes").format(count=MAX_FRAME))
    if nested_deeper_than(text, MAX_DEPTH):  # no message needs it; json.loads would recurse into it
        raise _Refused(
            ErrorCode.BAD_JSON,
            gettext("not JSON we read: nested too deeply (at most {count} levels)").format(count=MAX_DEPTH),
        )
    try:
        content = json.loads(text)
    except ValueError as exc:
        raise _Refused(ErrorCode.BAD_JSON, gettext("not JSON: {problem}").format(problem=exc)) from None
    if "\\u" in text and not _encodable(content):
        raise _Refused(
            ErrorCode.BAD_JSON, gettext("not JSON we read: it escapes a lone surrogate, which is no character")
        )
    return content


def parse(text: str | None, accepts: Collection[type[Message]] = MESSAGES) -> Message | ProtocolError:
    """One frame as the message it asks for (one of ``accepts``, the types a socket serves), or why it is none.

    Never raises. A frame that is no JSON object cannot name its request: its error carries no ``ref``.
    (Under daphne a frame above ``MAX_FRAME`` bytes never gets here: ``jassweb.websocket_transport``
    closes the socket with 1009 first.)
    """
    ref: Ref = None
    try:
        content = _decode(text)
        if isinstance(content, dict) and _is_ref(content.get("id")):
            ref = content["id"]
        if not isinstance(content, dict) or not isinstance(content.get("type"), str):
            raise _Refused(ErrorCode.BAD_MESSAGE, gettext("a message is a JSON object with a string 'type'"))
        kind = next((k for k in accepts if content["type"] == k.TYPE), None)
        if kind is None:
            raise _Refused(
                ErrorCode.UNKNOWN_TYPE,
                gettext("unknown message type {type}; known: {known}").format(
                    type=f"{content['type']!r:.40}", known=", ".join(sorted(k.TYPE for k in accepts))
                ),
            )
        message = _READERS[kind](content)
    except _Refused as refused:
        return ProtocolError(refused.code, refused.message, ref)
    return message if ref is None else replace(message, ref=ref)


# -- frames sent -----------------------------------------------------------------------------------------


def error(code: str, message: str, ref: Ref = None) -> dict[str, Any]:
    """The one refusal reply; it echoes the request's ``id`` (``ref``), if it had one."""
    reply: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if ref is not None:
        reply["id"] = ref
    return reply


def pong(ref: Ref) -> dict[str, Any]:
    return {"type": "pong", "id": ref}


def bot_test(ref: Ref, result: Any) -> dict[str, Any]:
    """A bot test's answer (``bothooks.probe_bot``'s result: its dialect, latency, trump or fault)."""
    return {"type": "bot_test", "id": ref, **asdict(result)}


def muted(players: Collection[int]) -> dict[str, Any]:
    return {"type": "muted", "players": sorted(players)}


def chat_history(room: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "chat_history", "room": room, "messages": messages}


def reported(message: int) -> dict[str, Any]:
    return {"type": "reported", "message": message}


def chat(message: dict[str, Any]) -> dict[str, Any]:
    """A message said at the table (``chat.as_frame``)."""
    return {"type": "chat", **message}


def chat_hidden(message: int) -> dict[str, Any]:
    return {"type": "chat_hidden", "message": message}


def tables(listed: list[dict[str, Any]]) -> dict[str, Any]:
    """The lobby's list of tables."""
    return {"type": "tables", "tables": listed}


def live(version: int, status: str, html: str) -> dict[str, Any]:
    """A tournament page's live part."""
    return {"type": "live", "version": version, "status": status, "html": html}


def state(public: snapshot.Public, viewer_id: int | None, viewer_name: str | None, game_state: GameState | None) -> str:
    """A table's ``state`` frame for one viewer, as text (rendered by ``snapshot.render`` from the public view)."""
    return snapshot.render(public, viewer_id, viewer_name, game_state)
