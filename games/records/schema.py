"""A record's shape: its JSON read once into frozen dataclasses (``parse``), or a ``RecordError``.

Like the websocket's ``games.live.protocol.parse``: every field is read here, with its type, its range and
its own code and message, and nothing after this module looks inside the record's JSON. The one
exception is each round's HSLU log, which ``games.hslu.decode_round`` reads (it is that format's
parser) when ``check`` replays the rounds.

Fields the record does not need are ignored (an export's ``created_at``, a jass-kit log's extras).
A field that is absent or null takes its default; ``winner`` and a round's ``weis_team`` tell
absent (not claimed) from null (a draw, nobody).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum, StrEnum
from typing import Any, TypeGuard

from django.utils import timezone
from django.utils.translation import gettext

from games.catalogue import DIALECTS, SeatKind
from games.engine import CARD_IDS, FAIR, SEAT_NAMES, STANDARD, InvalidConfigError, check_schedule
from games.engine.game import MAX_TARGET
from games.json_depth import nested_deeper_than
from games.live.service import seat_name
from games.models import Fault, Game, GameSeat

TRUMP_KEYS = ("0", "1", "2", "3", "4", "5")

MAX_RECORD_BYTES = 2_000_000  # a 48-round fair record with seats and faults is about 200 kB
MAX_ROUNDS = 200
MAX_FAULTS = 10_000
MAX_DEPTH = 32  # levels of lists and objects (a record uses six); deeper values cannot even be quoted
_MAX_MESSAGE = 600
_MAX_SEED = 2**63 - 1  # Game.seed is a BigIntegerField
_MAX_LATENCY = 2**31 - 1
_SEAT_KINDS = tuple(SeatKind)
_SEAT_NEEDS = {SeatKind.BOT: (True, False), SeatKind.REMOTE: (False, True)}  # kind -> (has a bot name, has a url)


class RecordCode(StrEnum):
    """Why a record is refused (``RecordError.code``): stable for scripts, while the message is for people."""

    # the text and the shape (schema.py)
    TOO_LARGE = "too_large"
    NOT_JSON = "not_json"
    TOO_DEEP = "too_deep"
    MISSING_FIELD = "missing_field"
    WRONG_TYPE = "wrong_type"
    OUT_OF_RANGE = "out_of_range"
    UNKNOWN_VALUE = "unknown_value"
    UNKNOWN_CARD = "unknown_card"
    WRONG_LENGTH = "wrong_length"
    TOO_LONG = "too_long"
    DUPLICATE = "duplicate"
    CONTRADICTION = "contradiction"  # two fields of the record that cannot both be true
    # the game, as the engine replays it (check.py)
    BAD_ROUND = "bad_round"  # a round log that is no round of Jass (wrong winner, points, deal...)
    ILLEGAL_CARD = "illegal_card"
    INCOMPLETE_ROUND = "incomplete_round"
    WRONG_DEALER = "wrong_dealer"
    NOT_FAIR = "not_fair"  # a fair repeat that is not its original's deal
    AFTER_THE_END = "after_the_end"
    BAD_WEIS = "bad_weis"
    BAD_STOECK = "bad_stoeck"
    WRONG_RESULT = "wrong_result"  # points, winner, status or a round's Weis that the rounds do not give
    WRONG_MOVE = "wrong_move"  # a fault or stand-in move that names a move it cannot be


class RecordError(ValueError):
    """A record that cannot be imported: the message says where (round, trick, card) and why.

    ``code`` says which kind of wrong it is; ``place`` is the JSON path of the value at fault
    (``rounds[2].tricks[1].cards[0]``, ``seats[3].name``; empty for the whole record).
    """

    def __init__(self, message: str, *, code: RecordCode, place: str = "") -> None:
        if len(message) > _MAX_MESSAGE:  # messages quote the input; a huge value must not make a huge message
            message = message[: _MAX_MESSAGE - 1] + "…"
        super().__init__(message)
        self.code = code
        self.place = place


class Absent(Enum):
    """A field the record leaves out, where that differs from null."""

    ABSENT = "absent"


ABSENT = Absent.ABSENT


# -- the record ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatEntry:
    """A seat as imported: never linked to a Player, whoever sat there."""

    position: int
    name: str
    bot: str = ""
    remote_url: str = ""
    remote_dialect: str = ""
    kind: str = ""
    left: bool = False  # the person left the game; a stand-in bot played their seat to the end


@dataclass(frozen=True)
class FaultEntry:
    seat: int
    round: int  # 0-based, as in the record
    trick: int | None  # 0-based; None: after the round
    move: int | None  # the Action.seq played in the bot's stead (its range is checked against the game)
    kind: str
    detail: str
    latency_ms: int


@dataclass(frozen=True)
class StandinMove:
    move: int  # the Action.seq (its range is checked against the game)
    seat: int


@dataclass(frozen=True)
class WeisEntry:
    """One Weis a seat declared: its cards as codes, and the points the record says it is worth."""

    seat: int
    cards: tuple[str, ...]
    points: int | None


@dataclass(frozen=True)
class StoeckEntry:
    seat: int
    card: str | None  # the card the record says they came with


@dataclass(frozen=True)
class WeisRound:
    """A round's Weis and Stöck (``weis_rounds[i]``), and who scored how much as the record says."""

    weis: tuple[WeisEntry, ...] = ()
    stoeck: StoeckEntry | None = None
    weis_team: int | Absent | None = ABSENT
    weis_points: int | None = None


@dataclass(frozen=True)
class Record:
    """A record as read: every field typed and in range; whether it is a game of Jass is ``check``'s."""

    rounds: tuple[object, ...]  # HSLU round logs, for games.hslu.decode_round
    mode: str
    fair_schedule: tuple[int, ...] | None
    target: int
    multipliers: tuple[int, int, int, int, int, int] | None
    seed: int | None  # None: absent or unusable, a new one is drawn
    weis: bool
    weis_rounds: tuple[WeisRound, ...] | None  # one per round, in a Weis game
    points: tuple[int, int] | None
    winner: int | Absent | None
    status: str | None
    seats: tuple[SeatEntry, ...]
    faults: tuple[FaultEntry, ...]
    standin_moves: tuple[StandinMove, ...]
    standin_bot: str
    abandon_reason: str
    finished_at: datetime | None
    source_id: int | None  # the game's id where it was exported


# -- decoding the text ---------------------------------------------------------------------------------


def parse_record(text: str | bytes) -> object:
    """Decode a record's JSON text; more than ``MAX_RECORD_BYTES`` or invalid JSON is a ``RecordError``."""
    size = len(text.encode() if isinstance(text, str) else text)
    if size > MAX_RECORD_BYTES:
        raise RecordError(
            gettext("the record is larger than {size} MB").format(size=MAX_RECORD_BYTES // 1_000_000),
            code=RecordCode.TOO_LARGE,
        )
    if nested_deeper_than(text, MAX_DEPTH):  # the messages quote values, and json.loads and repr would recurse
        raise RecordError(
            gettext("the record is not usable: a value in it is nested too deeply"), code=RecordCode.TOO_DEEP
        )
    try:
        data = json.loads(text)
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
        raise RecordError(
            gettext("the record is not JSON: {problem}").format(problem=exc), code=RecordCode.NOT_JSON
        ) from None
    try:  # an escaped lone surrogate ("\\ud800") is no character: no page or database could hold it
        json.dumps(data, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        raise RecordError(
            gettext("the record is not valid JSON text: it escapes a lone surrogate"), code=RecordCode.NOT_JSON
        ) from None
    return data


# -- reading fields ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _At:
    """Where a value is: its JSON path (``seats[3]``) and the place its messages name (``seats[3]``,
    ``round 2, Weis 1``, or empty for the record itself)."""

    path: str
    words: str = ""

    def key(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def item(self, index: int, words: str | None = None) -> _At:
        path = f"{self.path}[{index}]"
        return _At(path, path if words is None else words)


_RECORD = _At("")


def _get(entry: dict[str, Any], key: str, default: Any = None) -> Any:
    """A field's value, or ``default`` when it is absent or null."""
    value = entry.get(key)
    return default if value is None else value


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return gettext("true/false")
    if isinstance(value, int | float):
        return gettext("the number {value}").format(value=f"{value!r:.20}")
    if isinstance(value, str):
        return gettext("the string {value}").format(value=f"{value!r:.40}")
    if isinstance(value, list):
        return gettext("a list")
    if isinstance(value, dict):
        return gettext("an object")
    return type(value).__name__


def _is_int(value: object) -> TypeGuard[int]:
    return type(value) is int  # not a bool


def _int_code(value: object) -> RecordCode:
    """An integer field's value is refused for its type, or else for its range."""
    return RecordCode.OUT_OF_RANGE if _is_int(value) else RecordCode.WRONG_TYPE


def _index(entry: dict[str, Any], key: str, at: _At, size: int | None, expected: str, *, optional: bool = False) -> Any:
    """An integer 0 <= value < ``size`` (any integer when ``size`` is None; null too when ``optional``)."""
    value = entry.get(key)
    if value is None and optional:
        return None
    if not _is_int(value) or (size is not None and not 0 <= value < size):
        raise RecordError(
            gettext("{place}: {key} must be {expected}, got {value}").format(
                place=at.words, key=repr(key), expected=expected, value=f"{value!r:.20}"
            ),
            code=RecordCode.MISSING_FIELD if value is None else _int_code(value),
            place=at.key(key),
        )
    return value


def _text(entry: dict[str, Any], key: str, at: _At, max_length: int | None) -> str:
    """A text field with its runs of white space made one space; absent or null is empty."""
    value = _get(entry, key, "")
    if not isinstance(value, str):
        raise RecordError(
            gettext("{place}: {key} must be a string, got {value}").format(
                place=at.words, key=repr(key), value=_json_type(value)
            ),
            place=at.key(key),
            code=RecordCode.WRONG_TYPE,
        )
    value = " ".join(value.split())
    if max_length is not None and len(value) > max_length:
        raise RecordError(
            gettext("{place}: {key} has {count} characters; at most {most}").format(
                place=at.words, key=repr(key), count=len(value), most=max_length
            ),
            code=RecordCode.TOO_LONG,
            place=at.key(key),
        )
    return value


def _object(value: object, at: _At, wrong: str) -> dict[str, Any]:
    """``value`` as an object; else ``wrong`` (a message with ``{place}`` and ``{value}``)."""
    if not isinstance(value, dict):
        raise RecordError(
            wrong.format(place=at.words, value=f"{value!r:.60}"), place=at.path, code=RecordCode.WRONG_TYPE
        )
    return value


def _items(
    value: object, at: _At, read: Callable[[object, _At], Any], words: Callable[[int], str] | None = None
) -> tuple[Any, ...]:
    """Each item of the list ``value`` read by ``read``, at ``at[i]`` (named ``words(i)`` in messages)."""
    assert isinstance(value, list)
    return tuple(read(item, at.item(i, words(i) if words else None)) for i, item in enumerate(value))


def _list(doc: dict[str, Any], key: str, wrong: str) -> list[Any]:
    """A top-level list field (absent or null is empty); ``wrong`` has ``{value}``."""
    value = _get(doc, key, [])
    if not isinstance(value, list):
        raise RecordError(wrong.format(value=_json_type(value)), place=key, code=RecordCode.WRONG_TYPE)
    return value


def _max_length(model: Any, name: str) -> int | None:
    length: int | None = model._meta.get_field(name).max_length
    return length


# -- one reader per part of the record -----------------------------------------------------------------


def _document(data: object) -> dict[str, Any]:
    """The record as an object with its list of round logs (a bare list of logs is one)."""
    if isinstance(data, str | bytes | bytearray):
        data = parse_record(bytes(data) if isinstance(data, bytearray) else data)
    if _nested_deeper_than(data, MAX_DEPTH):  # the messages quote values, and repr would recurse
        raise RecordError(
            gettext("the record is not usable: a value in it is nested too deeply"), code=RecordCode.TOO_DEEP
        )
    if isinstance(data, list):
        data = {"rounds": data}
    if not isinstance(data, dict):
        raise RecordError(
            gettext("a record is a JSON object with 'rounds' or a list of round logs, got {value}").format(
                value=_json_type(data)
            ),
            code=RecordCode.WRONG_TYPE,
        )
    rounds = data.get("rounds")
    if rounds is None:
        raise RecordError(gettext("the record has no 'rounds'"), code=RecordCode.MISSING_FIELD, place="rounds")
    if not isinstance(rounds, list):
        raise RecordError(
            gettext("'rounds' must be a list of round logs, got {value}").format(value=_json_type(rounds)),
            place="rounds",
            code=RecordCode.WRONG_TYPE,
        )
    if not rounds:
        raise RecordError(gettext("the record has no rounds"), code=RecordCode.WRONG_LENGTH, place="rounds")
    if len(rounds) > MAX_ROUNDS:
        raise RecordError(
            gettext("the record has {rounds} rounds; at most {most} can be imported").format(
                rounds=len(rounds), most=MAX_ROUNDS
            ),
            code=RecordCode.WRONG_LENGTH,
            place="rounds",
        )
    return data


def _nested_deeper_than(value: object, limit: int) -> bool:
    """True when lists and objects nest more than ``limit`` levels (checked without recursion)."""
    level = [(value, 1)]
    while level:
        item, depth = level.pop()
        if isinstance(item, list | dict):
            if depth > limit:
                return True
            level.extend((inner, depth + 1) for inner in (item.values() if isinstance(item, dict) else item))
    return False


def _mode(doc: dict[str, Any]) -> str:
    mode = _get(doc, "mode", STANDARD)
    if mode not in (STANDARD, FAIR):
        raise RecordError(
            gettext("mode must be 'standard' or 'fair', got {value}").format(value=f"{mode!r:.40}"),
            code=RecordCode.UNKNOWN_VALUE,
            place="mode",
        )
    return str(mode)


def _schedule(doc: dict[str, Any], mode: str) -> tuple[int, ...] | None:
    raw = doc.get("fair_schedule")
    if mode == STANDARD:
        if raw is not None:
            raise RecordError(
                gettext("fair_schedule is only for fair games, and this record's mode is 'standard'"),
                code=RecordCode.CONTRADICTION,
                place="fair_schedule",
            )
        return None
    if raw is None:
        raise RecordError(
            gettext("a fair record needs its 'fair_schedule' (which round repeats which)"),
            code=RecordCode.MISSING_FIELD,
            place="fair_schedule",
        )
    if not isinstance(raw, list):
        raise RecordError(
            gettext("fair_schedule must be a list of integers, got {value}").format(value=_json_type(raw)),
            place="fair_schedule",
            code=RecordCode.WRONG_TYPE,
        )
    try:
        check_schedule(raw)
    except InvalidConfigError as exc:
        raise RecordError(
            gettext("fair_schedule: {problem}").format(problem=exc),
            code=RecordCode.UNKNOWN_VALUE,
            place="fair_schedule",
        ) from None
    round_count = doc.get("round_count")
    if round_count is not None and not _is_int(round_count):
        raise RecordError(
            gettext("round_count must be an integer, got {value}").format(value=f"{round_count!r:.20}"),
            place="round_count",
            code=RecordCode.WRONG_TYPE,
        )
    if round_count is not None and round_count != len(raw):
        raise RecordError(
            gettext("round_count is {value} but fair_schedule has {entries} entries").format(
                value=f"{round_count!r:.20}", entries=len(raw)
            ),
            code=RecordCode.CONTRADICTION,
            place="round_count",
        )
    return tuple(raw)


def _target(doc: dict[str, Any], mode: str) -> int:
    """A standard game's target (``MAX_TARGET`` when absent: complete rounds are not cut off)."""
    if mode != STANDARD:
        return 1000
    target = _get(doc, "target", MAX_TARGET)
    if not _is_int(target) or not 1 <= target <= MAX_TARGET:
        raise RecordError(
            gettext("target must be an integer from 1 to {most}, got {value}").format(
                most=MAX_TARGET, value=f"{target!r:.40}"
            ),
            code=_int_code(target),
            place="target",
        )
    return int(target)


def _multipliers(raw: object) -> tuple[int, int, int, int, int, int] | None:
    """Six factors from ``{"0": 1, ..., "5": 3}`` (as exported), a list of six, or null (off)."""
    if raw is None:
        return None
    problem = gettext(
        "multipliers must be six integers 1..10 for the trumps D H S C O U, as {example} or a list, got {value}"
    ).format(example='{"0": 1, ..., "5": 3}', value=f"{raw!r:.80}")
    if isinstance(raw, dict):
        if set(raw) != set(TRUMP_KEYS):
            raise RecordError(problem, code=RecordCode.WRONG_LENGTH, place="multipliers")
        raw = [raw[key] for key in TRUMP_KEYS]
    if not isinstance(raw, list):
        raise RecordError(problem, place="multipliers", code=RecordCode.WRONG_TYPE)
    if len(raw) != 6:
        raise RecordError(problem, code=RecordCode.WRONG_LENGTH, place="multipliers")
    wrong = next((x for x in raw if not _is_int(x) or not 1 <= x <= 10), None)
    if wrong is not None:
        raise RecordError(problem, code=_int_code(wrong), place="multipliers")
    return (raw[0], raw[1], raw[2], raw[3], raw[4], raw[5])


def _weis_option(doc: dict[str, Any]) -> bool:
    weis = _get(doc, "weis", False)
    if type(weis) is not bool:
        raise RecordError(
            gettext("weis must be true (a game with Weis and Stöck) or false, got {value}").format(
                value=f"{weis!r:.20}"
            ),
            place="weis",
            code=RecordCode.WRONG_TYPE,
        )
    if not weis and doc.get("weis_rounds"):
        raise RecordError(
            gettext("weis_rounds are given but the record's 'weis' is not true: a game without Weis and Stöck"),
            code=RecordCode.CONTRADICTION,
            place="weis_rounds",
        )
    return weis


def _weis_rounds(doc: dict[str, Any], rounds: int) -> tuple[WeisRound, ...]:
    raw = doc.get("weis_rounds")
    if raw is None:
        return tuple(WeisRound() for _ in range(rounds))
    if not isinstance(raw, list):
        raise RecordError(
            gettext("weis_rounds must be a list with one entry per round, got {value}").format(value=_json_type(raw)),
            place="weis_rounds",
            code=RecordCode.WRONG_TYPE,
        )
    if len(raw) != rounds:
        raise RecordError(
            gettext("weis_rounds has {entries} entries but the record has {rounds} rounds").format(
                entries=len(raw), rounds=rounds
            ),
            code=RecordCode.WRONG_LENGTH,
            place="weis_rounds",
        )
    words = gettext("round {number}")
    return _items(raw, _At("weis_rounds"), _weis_round, lambda i: words.format(number=i + 1))


def _weis_round(value: object, at: _At) -> WeisRound:
    entry = _object(value, at, gettext("{place}: a round's Weis are an object with 'weis' and 'stoeck', got {value}"))
    raw = _get(entry, "weis", [])
    if not isinstance(raw, list) or len(raw) > 24:
        raise RecordError(
            gettext("{place}: 'weis' must be a list of declared Weis, got {value}").format(
                place=at.words, value=f"{raw!r:.60}"
            ),
            code=RecordCode.WRONG_LENGTH if isinstance(raw, list) else RecordCode.WRONG_TYPE,
            place=at.key("weis"),
        )
    words = gettext("{place}, Weis {number}")
    declared = _items(raw, _At(at.key("weis")), _weis_entry, lambda i: words.format(place=at.words, number=i + 1))
    weis_team = entry.get("weis_team", ABSENT)
    if weis_team is not ABSENT and weis_team is not None and (not _is_int(weis_team) or weis_team not in (0, 1)):
        raise RecordError(
            gettext("{place}: {key} must be {expected}, got {value}").format(
                place=at.words,
                key=repr("weis_team"),
                expected=gettext("0 (North/South), 1 (East/West) or null"),
                value=f"{weis_team!r:.20}",
            ),
            code=_int_code(weis_team),
            place=at.key("weis_team"),
        )
    return WeisRound(
        weis=declared,
        stoeck=_stoeck(entry.get("stoeck"), _At(at.key("stoeck"), gettext("{place}, Stöck").format(place=at.words))),
        weis_team=weis_team,
        weis_points=_points_or_null(entry, "weis_points", at),
    )


def _points_or_null(entry: dict[str, Any], key: str, at: _At) -> int | None:
    value: int | None = _index(entry, key, at, None, gettext("a number of points or null"), optional=True)
    return value


def _weis_entry(value: object, at: _At) -> WeisEntry:
    entry = _object(value, at, gettext("{place}: a Weis is an object with 'seat' and 'cards', got {value}"))
    seat = _index(entry, "seat", at, 4, gettext("a seat 0-3"))
    cards = entry.get("cards")
    if not isinstance(cards, list) or not all(isinstance(c, str) and c in CARD_IDS for c in cards):
        raise RecordError(
            gettext("{place}: 'cards' must be a list of card codes like 'HA', got {value}").format(
                place=at.words, value=f"{cards!r:.60}"
            ),
            code=RecordCode.UNKNOWN_CARD if isinstance(cards, list) else RecordCode.WRONG_TYPE,
            place=at.key("cards"),
        )
    return WeisEntry(seat, tuple(cards), _points_or_null(entry, "points", at))


def _stoeck(value: object, at: _At) -> StoeckEntry | None:
    if value is None:
        return None
    entry = _object(value, at, gettext("{place}: Stöck are an object with 'seat' and 'card', or null, got {value}"))
    seat = _index(entry, "seat", at, 4, gettext("a seat 0-3"))
    card = entry.get("card")
    if card is not None and (not isinstance(card, str) or card not in CARD_IDS):
        raise RecordError(
            gettext("{place}: {key} must be {expected}, got {value}").format(
                place=at.words,
                key=repr("card"),
                expected=gettext("a card code like 'HA' or null"),
                value=f"{card!r:.20}",
            ),
            code=RecordCode.UNKNOWN_CARD if isinstance(card, str) else RecordCode.WRONG_TYPE,
            place=at.key("card"),
        )
    return StoeckEntry(seat, card)


def _points(doc: dict[str, Any]) -> tuple[int, int] | None:
    points = doc.get("points")
    if points is None:
        return None
    if not isinstance(points, list) or len(points) != 2 or any(not _is_int(p) for p in points):
        raise RecordError(
            gettext("points must be two integers [North/South, East/West], got {value}").format(
                value=f"{points!r:.60}"
            ),
            code=RecordCode.WRONG_LENGTH if isinstance(points, list) and len(points) != 2 else RecordCode.WRONG_TYPE,
            place="points",
        )
    return (points[0], points[1])


def _winner(doc: dict[str, Any]) -> int | Absent | None:
    winner = doc.get("winner", ABSENT)
    if winner not in (ABSENT, None) and (not _is_int(winner) or winner not in (0, 1)):
        raise RecordError(
            gettext("winner must be 0 (North/South), 1 (East/West) or null, got {value}").format(
                value=f"{winner!r:.40}"
            ),
            code=_int_code(winner),
            place="winner",
        )
    return winner


def _status(doc: dict[str, Any]) -> str | None:
    status = doc.get("status")
    if status is not None and status not in (Game.FINISHED, Game.ABANDONED, Game.RUNNING):
        raise RecordError(
            gettext("status must be 'finished', 'abandoned' or 'running', got {value}").format(value=f"{status!r:.40}"),
            code=RecordCode.UNKNOWN_VALUE,
            place="status",
        )
    return status


def _seats(doc: dict[str, Any]) -> tuple[SeatEntry, ...]:
    raw = doc.get("seats")
    if raw is None:
        return tuple(SeatEntry(position, SEAT_NAMES[position]) for position in range(4))
    if not isinstance(raw, list) or len(raw) != 4:
        raise RecordError(
            gettext("seats must be a list of the four seats, got {value}").format(value=f"{raw!r:.80}"),
            code=RecordCode.WRONG_LENGTH if isinstance(raw, list) else RecordCode.WRONG_TYPE,
            place="seats",
        )
    seats: dict[int, SeatEntry] = {}
    for index, value in enumerate(raw):
        at = _At("seats").item(index)
        seat = _seat(value, at, index)
        if seat.position in seats:
            raise RecordError(
                gettext("{place}: position {seat} is listed twice").format(
                    place=at.words, seat=seat_words(seat.position)
                ),
                code=RecordCode.DUPLICATE,
                place=at.key("position"),
            )
        seats[seat.position] = seat
    return tuple(seats[position] for position in range(4))


def _seat(value: object, at: _At, index: int) -> SeatEntry:
    entry = _object(value, at, gettext("{place}: a seat is an object with 'position' and 'name', got {value}"))
    position = _get(entry, "position", index)
    if not _is_int(position) or not 0 <= position <= 3:
        raise RecordError(
            gettext("{place}: 'position' must be 0 (North), 1 (East), 2 (South) or 3 (West), got {value}").format(
                place=at.words, value=f"{position!r:.20}"
            ),
            code=_int_code(position),
            place=at.key("position"),
        )
    name = _text(entry, "name", at, _max_length(GameSeat, "name"))
    bot = _text(entry, "bot", at, _max_length(GameSeat, "bot"))
    url = _text(entry, "url", at, _max_length(GameSeat, "remote_url"))
    dialect = _text(entry, "dialect", at, _max_length(GameSeat, "remote_dialect"))
    if url and not url.lower().startswith(("http://", "https://")):
        raise RecordError(
            gettext("{place}: a bot's 'url' starts with http:// or https://, got {value}").format(
                place=at.words, value=f"{url!r:.60}"
            ),
            code=RecordCode.UNKNOWN_VALUE,
            place=at.key("url"),
        )
    if dialect and dialect not in DIALECTS:
        raise RecordError(
            gettext("{place}: 'dialect' must be one of {choices}, got {value}").format(
                place=at.words, choices=", ".join(DIALECTS), value=f"{dialect!r:.20}"
            ),
            code=RecordCode.UNKNOWN_VALUE,
            place=at.key("dialect"),
        )
    default = SeatKind.REMOTE if url else SeatKind.BOT if bot else SeatKind.EMPTY
    kind = _get(entry, "kind", default.value)
    if kind not in _SEAT_KINDS:
        raise RecordError(
            gettext("{place}: 'kind' must be one of {choices}, got {value}").format(
                place=at.words, choices=", ".join(_SEAT_KINDS), value=f"{kind!r:.20}"
            ),
            code=RecordCode.UNKNOWN_VALUE,
            place=at.key("kind"),
        )
    if (bool(bot), bool(url)) != _SEAT_NEEDS.get(kind, (False, False)):
        needs = {
            SeatKind.BOT: gettext("{place}: a {kind} seat needs a 'bot' name and no 'url'"),
            SeatKind.REMOTE: gettext("{place}: a {kind} seat needs a 'url' and no 'bot' name"),
        }
        words = needs.get(kind) or gettext("{place}: a {kind} seat needs neither a bot name nor a url")
        raise RecordError(
            words.format(place=at.words, kind=repr(kind)), code=RecordCode.CONTRADICTION, place=at.key("kind")
        )
    left = _get(entry, "left", False)
    if type(left) is not bool or (left and kind != SeatKind.HUMAN):
        raise RecordError(
            gettext("{place}: 'left' is true only for a person's seat ('kind': 'human'), got {value}").format(
                place=at.words, value=f"{left!r:.20}"
            ),
            code=RecordCode.CONTRADICTION if type(left) is bool else RecordCode.WRONG_TYPE,
            place=at.key("left"),
        )
    return SeatEntry(position, name or SEAT_NAMES[position], bot, url, dialect if url else "", kind, left)


def seat_words(seat: int) -> str:
    """``2 (South)``: a seat's number and its name in the reader's language."""
    return f"{seat} ({seat_name(seat)})"


def _faults(doc: dict[str, Any], rounds: int) -> tuple[FaultEntry, ...]:
    raw = _list(doc, "faults", gettext("faults must be a list, got {value}"))
    if len(raw) > MAX_FAULTS:
        raise RecordError(
            gettext("the record has {faults} faults; at most {most} can be imported").format(
                faults=len(raw), most=MAX_FAULTS
            ),
            code=RecordCode.WRONG_LENGTH,
            place="faults",
        )
    return _items(raw, _At("faults"), lambda value, at: _fault(value, at, rounds))


def _fault(value: object, at: _At, rounds: int) -> FaultEntry:
    entry = _object(value, at, gettext("{place}: a fault is an object with 'seat', 'round', 'kind'…, got {value}"))
    seat = _index(entry, "seat", at, 4, gettext("a seat 0..3"))
    round_index = _index(entry, "round", at, rounds, gettext("a round 0..{last} (0-based)").format(last=rounds - 1))
    trick = _index(entry, "trick", at, 9, gettext("a trick 0..8 (0-based) or null"), optional=True)
    move = _index(entry, "move", at, None, gettext("a move number or null"), optional=True)
    kind = entry.get("kind")
    if not isinstance(kind, str) or not kind.strip():
        raise RecordError(
            gettext("{place}: 'kind' must be a non-empty string, got {value}").format(
                place=at.words, value=f"{kind!r:.40}"
            ),
            code=RecordCode.MISSING_FIELD if kind is None else RecordCode.WRONG_TYPE,
            place=at.key("kind"),
        )
    detail = _get(entry, "detail", "")
    if not isinstance(detail, str):
        raise RecordError(
            gettext("{place}: 'detail' must be a string, got {value}").format(place=at.words, value=_json_type(detail)),
            place=at.key("detail"),
            code=RecordCode.WRONG_TYPE,
        )
    latency = _get(entry, "latency_ms", 0)
    if not _is_int(latency) or latency < 0:
        raise RecordError(
            gettext("{place}: 'latency_ms' must be a non-negative integer, got {value}").format(
                place=at.words, value=f"{latency!r:.20}"
            ),
            code=_int_code(latency),
            place=at.key("latency_ms"),
        )
    kind_length, detail_length = _max_length(Fault, "kind"), _max_length(Fault, "detail")
    return FaultEntry(
        seat, round_index, trick, move, kind.strip()[:kind_length], detail[:detail_length], min(latency, _MAX_LATENCY)
    )


def _standin_moves(doc: dict[str, Any]) -> tuple[StandinMove, ...]:
    raw = _list(doc, "standin_moves", gettext("standin_moves must be a list, got {value}"))
    return _items(raw, _At("standin_moves"), _standin_move)


def _standin_move(value: object, at: _At) -> StandinMove:
    entry = _object(value, at, gettext("{place}: a stand-in move is an object with 'move' and 'seat', got {value}"))
    move = _index(entry, "move", at, None, gettext("a move of the game"))
    return StandinMove(move, _index(entry, "seat", at, 4, gettext("a seat 0-3")))


def _timestamp(value: object) -> datetime | None:
    """A record's ISO 8601 time, or None when it is absent or not one."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment, UTC)


def _usable_int(value: object) -> int | None:
    """A seed or an id: an integer a BigIntegerField holds, else None (a new seed is drawn, no id shown)."""
    return value if _is_int(value) and 0 <= value <= _MAX_SEED else None


# -- parsing a record ----------------------------------------------------------------------------------


def parse(data: object) -> Record:
    """A record (a parsed document, or its JSON text) read into a ``Record``, or a ``RecordError``.

    Three forms are read: the document ``manage.py exportgame`` writes; an object with ``rounds``
    and any of the other fields; a bare list of round logs (e.g. from jass-kit's ``GameState.to_json``).
    """
    doc = _document(data)
    rounds = doc["rounds"]
    mode = _mode(doc)
    schedule = _schedule(doc, mode)
    weis = _weis_option(doc)
    return Record(
        rounds=tuple(rounds),
        mode=mode,
        fair_schedule=schedule,
        target=_target(doc, mode),
        multipliers=_multipliers(doc.get("multipliers")),
        seed=_usable_int(doc.get("seed")),
        weis=weis,
        weis_rounds=_weis_rounds(doc, len(rounds)) if weis else None,
        points=_points(doc),
        winner=_winner(doc),
        status=_status(doc),
        seats=_seats(doc),
        faults=_faults(doc, len(rounds)),
        standin_moves=_standin_moves(doc),
        standin_bot=_text(doc, "standin_bot", _At("", gettext("the record")), _max_length(Game, "standin_bot")),
        abandon_reason=_text(
            doc, "abandon_reason", _At("", gettext("the record")), _max_length(Game, "abandon_reason")
        ),
        finished_at=_timestamp(doc.get("finished_at")),
        source_id=_usable_int(doc.get("id")),
    )
