"""Game records: one JSON document per game, exported (``game_record``) and imported (``import_record``).

A record holds the game's options, result, seats and faults, and one HSLU
full-state log per round (exactly what jass-kit's ``GameState.to_json``
writes). Importing checks a record completely with the engine before anything
is stored: every card, every trick's winner and points, the dealer rotation,
the fair pairs' deals, where the game ends and its result. A refused record
raises ``RecordError`` whose message names the round, trick and card (all
1-based) and the reason.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy, ngettext

from games.catalogue import DIALECTS, SeatKind
from games.engine import (
    CARD_CODES,
    CARD_IDS,
    CARD_REFUSALS,
    FAIR,
    SEAT_NAMES,
    STANDARD,
    TRUMP_NAMES,
    Deal,
    GameConfig,
    GamePlan,
    GameState,
    IllegalActionError,
    InvalidConfigError,
    JassError,
    RoundState,
    check_schedule,
    codes_of,
    format_cards,
    hand_weis,
    iter_cards,
    mask_of,
    next_seat,
    repeat_hands,
    stoeck_cards,
    weis_cards,
    weis_name,
    weis_points,
)
from games.engine import Action as EngineAction
from games.engine.fair import SUIT_PERMUTATIONS
from games.engine.game import MAX_TARGET
from games.engine.weis import QUARTET_BASE, QUARTET_POINTS, RUN_POINTS, rank_key
from games.hslu import InvalidMessageError, Words, decode_round, encode_round
from games.live.service import seat_name
from games.live.states import load as load_state
from games.models import Action, Fault, Game, GameSeat, Player, new_game, new_table

TRUMP_KEYS = ("0", "1", "2", "3", "4", "5")

MAX_RECORD_BYTES = 2_000_000  # a 48-round fair record with seats and faults is about 200 kB
MAX_ROUNDS = 200
MAX_FAULTS = 10_000
MAX_TABLE_NAME = 60
_MAX_MESSAGE = 600
_MAX_SEED = 2**63 - 1  # Game.seed is a BigIntegerField
_MAX_LATENCY = 2**31 - 1
_SEAT_KINDS = tuple(SeatKind)
_SEAT_NEEDS = {SeatKind.BOT: (True, False), SeatKind.REMOTE: (False, True)}  # kind -> (has a bot name, has a url)
_TEAM_NAMES = (gettext_lazy("North/South"), gettext_lazy("East/West"))


class RecordError(ValueError):
    """A record that cannot be imported: the message says where (round, trick, card) and why."""

    def __init__(self, message: str) -> None:
        if len(message) > _MAX_MESSAGE:  # messages quote the input; a huge value must not make a huge message
            message = message[: _MAX_MESSAGE - 1] + "…"
        super().__init__(message)


# -- export ----------------------------------------------------------------------


def game_record(game: Game) -> dict[str, Any]:
    """The record of a game: options, result, seats, and one HSLU full-state log per round.

    Each round is exactly what jass-kit's ``GameState.to_json`` writes, so it
    loads with ``GameState.from_json``.
    """
    state = load_state(game)
    record: dict[str, Any] = {"id": game.pk, "mode": game.mode}
    if game.mode == "standard":
        record["target"] = game.target
    else:
        record["round_count"] = game.round_count
    if game.multipliers:
        record["multipliers"] = dict(zip(TRUMP_KEYS, game.multipliers, strict=True))
    if game.fair_schedule:
        record["fair_schedule"] = list(game.fair_schedule)
    record["points"] = list(state.scores)
    record["winner"] = state.winner
    record["status"] = game.status
    record["seed"] = game.seed
    record["seats"] = [
        {"position": s.position, "name": s.name, "kind": s.kind, "bot": s.bot or None}
        | ({"url": s.remote_url, "dialect": s.remote_dialect} if s.remote_url else {})
        | ({"left": True} if s.standin == GameSeat.LEFT else {})
        for s in game.seats.order_by("position")
    ]
    over = game.status != Game.RUNNING
    record["faults"] = [
        {
            "seat": f.seat,
            "round": f.round,
            "trick": f.trick,
            "move": f.seq,
            "kind": f.kind,
            "detail": f.detail + (f" ({f.hidden_detail})" if over and f.hidden_detail else ""),
            "latency_ms": f.latency_ms,
        }
        for f in game.faults.all()
    ]
    record["standin_bot"] = game.standin_bot
    # Moves a stand-in bot made for a person whose turn clock ran out (or who left the game).
    record["standin_moves"] = [
        {"move": seq, "seat": seat} for seq, seat in game.actions.filter(standin=True).values_list("seq", "seat")
    ]
    if game.abandon_reason:
        record["abandon_reason"] = game.abandon_reason
    record["created_at"] = game.created_at.isoformat()
    record["finished_at"] = game.finished_at.isoformat() if game.finished_at else None
    record["rounds"] = [encode_round(rnd) for rnd in state.rounds]
    if state.config.weis:
        record |= weis_record(state)
    return record


def weis_record(state: GameState) -> dict[str, Any]:
    """A Weis game's keys of its record: the option, and per round (beside its HSLU log, which has no
    place for them) the Weis each seat declared, who scored them, and the Stöck."""
    return {"weis": True, "weis_rounds": [_weis_round(rnd) for rnd in state.rounds]}


def _weis_round(rnd: RoundState) -> dict[str, Any]:
    assert rnd.declared is not None, "only for a game with Weis"
    card = rnd.stoeck_card()
    return {
        "weis": [
            {"seat": seat, "cards": codes_of(weis_cards(code)), "points": weis_points(code), "name": weis_name(code)}
            for seat in range(4)
            for code in rnd.declared[seat]
        ],
        "weis_team": rnd.weis_team if rnd.weis_team >= 0 else None,
        "weis_points": sum(rnd.weis_points()),
        "stoeck": {"seat": rnd.stoeck, "card": CARD_CODES[card]} if rnd.stoeck >= 0 else None,
    }


ROUND_LOGS_NOTE = "Weis and Stöck are left out: jass-kit round logs have no place for them"


def round_logs(game: Game) -> tuple[list[dict[str, Any]], str | None]:
    """The game as bare jass-kit round logs (``GameState.to_json`` per round), and a note of what they
    leave out (a Weis game's Weis and Stöck), or None."""
    state = load_state(game)
    return [encode_round(rnd) for rnd in state.rounds], ROUND_LOGS_NOTE if game.weis else None


# -- import: the checked record ----------------------------------------------------


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
    move: int | None  # the Action.seq played in the bot's stead
    kind: str
    detail: str
    latency_ms: int


@dataclass(frozen=True)
class Move:
    """One action of the game, with the round and trick (0-based) it was made in."""

    seat: int
    action: EngineAction
    round: int
    trick: int


@dataclass(frozen=True)
class CheckedRecord:
    """A record that passed every check, ready to be stored (``store_record``)."""

    config: GameConfig
    schedule: tuple[int, ...] | None
    state: GameState  # the game replayed by the engine
    moves: tuple[Move, ...]
    status: str  # "finished" or "abandoned"
    seats: tuple[SeatEntry, ...]
    faults: tuple[FaultEntry, ...]
    standin_moves: frozenset[int]  # moves (Action.seq) a stand-in bot made for a person
    standin_bot: str
    abandon_reason: str
    finished_at: datetime | None
    source_id: int | None  # the game's id where it was exported
    rounds: int  # rounds in the record

    @property
    def deals(self) -> list[Deal]:
        """Every round's deal, as the live service stores them (a dealt, unplayed next round included)."""
        return [self.state.deal(index) for index in range(len(self.state.rounds))]


def parse_record(text: str | bytes) -> object:
    """Decode a record's JSON text; more than ``MAX_RECORD_BYTES`` or invalid JSON is a ``RecordError``."""
    size = len(text.encode() if isinstance(text, str) else text)
    if size > MAX_RECORD_BYTES:
        raise RecordError(gettext("the record is larger than {size} MB").format(size=MAX_RECORD_BYTES // 1_000_000))
    try:
        data = json.loads(text)
    except RecursionError:
        raise RecordError(gettext("the record is not usable JSON: it is nested too deeply")) from None
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
        raise RecordError(gettext("the record is not JSON: {problem}").format(problem=exc)) from None
    try:  # an escaped lone surrogate ("\\ud800") is no character: no page or database could hold it
        json.dumps(data, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        raise RecordError(gettext("the record is not valid JSON text: it escapes a lone surrogate")) from None
    return data


def check_record(data: object) -> CheckedRecord:
    """Check a whole record with the engine, touching no database; raise ``RecordError`` if it is refused.

    ``data`` is a parsed document or its JSON text, in one of three forms:

    - the document ``manage.py exportgame`` writes;
    - an object with ``rounds`` and any of the other fields;
    - a bare list of round logs (e.g. from jass-kit's ``GameState.to_json``).

    Without ``mode`` a record is standard; a standard record without
    ``target`` plays to the engine's ``MAX_TARGET``, so that a series of
    complete rounds is not cut off. A fair record needs its ``fair_schedule``
    (``round_count`` defaults to its length).

    The status is checked, or derived when absent: "finished" when the engine
    says the game is over, else "abandoned". A record saying "finished" must be
    over, one saying "abandoned" or "running" must not be; an imported game is
    never running, so a running game's record imports as abandoned. ``points``
    and ``winner``, when present, must be what the rounds give.
    """
    try:
        return _check(data)
    except RecursionError:  # a value nested deeper than Python's repr (in a message) can go
        raise RecordError(gettext("the record is not usable: a value in it is nested too deeply")) from None


def _check(data: object) -> CheckedRecord:
    doc = _document(data)
    rounds = doc["rounds"]
    mode = _optional(doc, "mode", STANDARD)
    if mode not in (STANDARD, FAIR):
        raise RecordError(gettext("mode must be 'standard' or 'fair', got {value}").format(value=f"{mode!r:.40}"))
    schedule = _schedule(doc, mode)
    config = _config(doc, mode, schedule)

    decoded = [_decode_round(number, log) for number, log in enumerate(rounds, start=1)]
    decoded = _with_weis(doc, decoded, config.weis)
    for index, rnd in enumerate(decoded[:-1]):
        if not rnd.is_over:
            raise RecordError(
                gettext("round {number} is not complete ({tricks} of 9 tricks played) but round {next} follows").format(
                    number=index + 1, tricks=len(rnd.tricks), next=index + 2
                )
            )
    _check_dealers(decoded)
    if schedule is not None and len(decoded) > len(schedule):
        raise RecordError(
            gettext("the record has {rounds} rounds but the fair game has {fair}").format(
                rounds=len(decoded), fair=len(schedule)
            )
        )
    deals = _deals(config, schedule, decoded)
    try:
        plan = GamePlan(config, schedule=schedule, known_deals=deals)
    except InvalidConfigError as exc:  # the checks above should have said it more precisely
        raise RecordError(str(exc)) from None
    state, moves = _replay(config, plan, decoded)
    if config.weis:
        _check_weis_results(doc, state)

    _check_points(doc, state)
    status = _status(doc, state)
    faults = _faults(doc, len(decoded), moves)
    seats = _seats(doc)
    return CheckedRecord(
        config=config,
        schedule=schedule,
        state=state,
        moves=tuple(moves),
        status=status,
        seats=seats,
        faults=faults,
        standin_moves=_standin_moves(doc, moves, seats),
        standin_bot=_text(doc, "standin_bot", gettext("the record"), Game._meta.get_field("standin_bot").max_length)
        or "rules",
        abandon_reason=_abandon_reason(doc, status),
        finished_at=_timestamp(doc.get("finished_at")),
        source_id=doc["id"] if type(doc.get("id")) is int and 0 <= doc["id"] <= _MAX_SEED else None,
        rounds=len(decoded),
    )


def _document(data: object) -> dict[str, Any]:
    if isinstance(data, str | bytes | bytearray):
        data = parse_record(bytes(data) if isinstance(data, bytearray) else data)
    if isinstance(data, list):
        data = {"rounds": data}
    if not isinstance(data, dict):
        raise RecordError(
            gettext("a record is a JSON object with 'rounds' or a list of round logs, got {value}").format(
                value=_json_type(data)
            )
        )
    rounds = data.get("rounds")
    if rounds is None:
        raise RecordError(gettext("the record has no 'rounds'"))
    if not isinstance(rounds, list):
        raise RecordError(
            gettext("'rounds' must be a list of round logs, got {value}").format(value=_json_type(rounds))
        )
    if not rounds:
        raise RecordError(gettext("the record has no rounds"))
    if len(rounds) > MAX_ROUNDS:
        raise RecordError(
            gettext("the record has {rounds} rounds; at most {most} can be imported").format(
                rounds=len(rounds), most=MAX_ROUNDS
            )
        )
    return data


def _optional(doc: dict[str, Any], key: str, default: Any) -> Any:
    """A field's value, or ``default`` when it is absent or null."""
    value = doc.get(key)
    return default if value is None else value


def _schedule(doc: dict[str, Any], mode: str) -> tuple[int, ...] | None:
    raw = doc.get("fair_schedule")
    if mode == STANDARD:
        if raw is not None:
            raise RecordError(gettext("fair_schedule is only for fair games, and this record's mode is 'standard'"))
        return None
    if raw is None:
        raise RecordError(gettext("a fair record needs its 'fair_schedule' (which round repeats which)"))
    if not isinstance(raw, list):
        raise RecordError(
            gettext("fair_schedule must be a list of integers, got {value}").format(value=_json_type(raw))
        )
    try:
        check_schedule(raw)
    except InvalidConfigError as exc:
        raise RecordError(gettext("fair_schedule: {problem}").format(problem=exc)) from None
    round_count = doc.get("round_count")
    if round_count is not None and type(round_count) is not int:
        raise RecordError(gettext("round_count must be an integer, got {value}").format(value=f"{round_count!r:.20}"))
    if round_count is not None and round_count != len(raw):
        raise RecordError(
            gettext("round_count is {value} but fair_schedule has {entries} entries").format(
                value=f"{round_count!r:.20}", entries=len(raw)
            )
        )
    return tuple(raw)


def _config(doc: dict[str, Any], mode: str, schedule: tuple[int, ...] | None) -> GameConfig:
    target = _optional(doc, "target", MAX_TARGET) if mode == STANDARD else 1000
    if type(target) is not int or not 1 <= target <= MAX_TARGET:
        raise RecordError(
            gettext("target must be an integer from 1 to {most}, got {value}").format(
                most=MAX_TARGET, value=f"{target!r:.40}"
            )
        )
    seed = doc.get("seed")
    if type(seed) is not int or not 0 <= seed <= _MAX_SEED:
        seed = secrets.randbits(62)
    try:
        return GameConfig(
            mode=mode,
            target=target,
            round_count=len(schedule) if schedule is not None else 12,
            multipliers=_multipliers(doc.get("multipliers")),
            seed=seed,
            weis=_weis_option(doc),
        )
    except InvalidConfigError as exc:
        raise RecordError(str(exc)) from None


def _multipliers(raw: object) -> tuple[int, int, int, int, int, int] | None:
    """Six factors from ``{"0": 1, ..., "5": 3}`` (as exported), a list of six, or null (off)."""
    problem = gettext(
        "multipliers must be six integers 1..10 for the trumps D H S C O U, as {example} or a list, got {value}"
    ).format(example='{"0": 1, ..., "5": 3}', value=f"{raw!r:.80}")
    if raw is None:
        return None
    if isinstance(raw, dict):
        if set(raw) != set(TRUMP_KEYS):
            raise RecordError(problem)
        raw = [raw[key] for key in TRUMP_KEYS]
    if not isinstance(raw, list) or len(raw) != 6 or any(type(x) is not int or not 1 <= x <= 10 for x in raw):
        raise RecordError(problem)
    return (raw[0], raw[1], raw[2], raw[3], raw[4], raw[5])


# -- rounds --------------------------------------------------------------------------


def _decode_round(number: int, log: object) -> RoundState:
    """Decode and replay one round log with ``decode_round``; its complaint becomes a ``RecordError``."""
    _check_dealt_once(number, log)
    try:
        return decode_round(log)
    except InvalidMessageError as exc:
        raise RecordError(_round_message(number, exc)) from None
    except JassError as exc:
        raise RecordError(gettext("round {number}: {problem}").format(number=number, problem=exc)) from None


def _check_dealt_once(number: int, log: object) -> None:
    """Name both places of a card that appears twice in a round (played or held)."""
    if not isinstance(log, dict):
        return
    seen: dict[str, str] = {}

    def see(code: object, place: str) -> None:
        if not isinstance(code, str) or code not in CARD_IDS:
            return
        if code in seen:
            raise RecordError(
                gettext("round {number}: card {card} is dealt twice ({first} and {second})").format(
                    number=number, card=code, first=seen[code], second=place
                )
            )
        seen[code] = place

    tricks = log.get("tricks")
    if isinstance(tricks, list):
        for t, trick in enumerate(tricks[:9]):
            cards = trick.get("cards") if isinstance(trick, dict) else None
            if isinstance(cards, list):
                for c, code in enumerate(cards[:4]):
                    see(code, gettext("trick {trick}, card {card}").format(trick=t + 1, card=c + 1))
    players = log.get("player")
    if isinstance(players, list):
        for seat, entry in enumerate(players[:4]):
            hand = entry.get("hand") if isinstance(entry, dict) else None
            if isinstance(hand, list):
                for code in hand[:36]:
                    see(code, gettext("{seat}'s hand").format(seat=seat_name(seat)))


def _said(words: Words) -> str:
    """The codec's words (games/hslu.py) in the reader's language (words within them too: a seat's name)."""
    if not words.template:
        return ""
    values = {key: _said(value) if isinstance(value, Words) else value for key, value in words.values.items()}
    return gettext(words.template).format(**values)


def _round_message(number: int, exc: InvalidMessageError) -> str:
    """Put ``decode_round``'s complaint in the record's terms: round, trick, card (1-based)."""
    problem = _said(exc.problem_words)
    if exc.trick is not None and exc.card is not None:
        if exc.illegal is not None:
            problem = _illegal_card_words(exc.illegal)
        return gettext("round {number}, trick {trick}, card {card}: {problem}").format(
            number=number, trick=exc.trick, card=exc.card, problem=problem
        )
    if exc.place:
        place = _said(exc.place_words)
        return gettext("round {number}, {place}: {problem}").format(number=number, place=place, problem=problem)
    return gettext("round {number}: {problem}").format(number=number, problem=problem)


def _illegal_card_words(exc: IllegalActionError) -> str:
    """``HA is not legal for East: must follow Spades (trump …; trick so far …; East holds …)``."""
    state = exc.state
    if exc.reason not in CARD_REFUSALS or exc.card is None or exc.seat is None or state is None:
        return str(exc)
    seat = seat_name(exc.seat)
    facts = [gettext("trump {trump}").format(trump=TRUMP_NAMES[state.trump])]
    if state.trick:
        facts.append(
            gettext("trick so far {cards}, led by {seat}").format(
                cards=format_cards(state.trick), seat=seat_name(state.leader)
            )
        )
    facts.append(
        gettext("{seat} holds {cards}").format(seat=seat, cards=format_cards(iter_cards(state.hands[exc.seat])))
    )
    return gettext("{card} is not legal for {seat}: {why} ({facts})").format(
        card=CARD_CODES[exc.card], seat=seat, why=exc.why, facts="; ".join(facts)
    )


def _check_dealers(rounds: Sequence[RoundState]) -> None:
    """The deal passes to the next seat (in play order) every round."""
    for index in range(1, len(rounds)):
        before, dealer = rounds[index - 1].dealer, rounds[index].dealer
        if dealer != next_seat(before):
            raise RecordError(
                gettext(
                    "round {number}: the dealer is {dealer} but after {before} dealt round {previous} it must be {next}"
                ).format(
                    number=index + 1,
                    dealer=_seat(dealer),
                    before=_seat(before),
                    previous=index,
                    next=_seat(next_seat(before)),
                )
            )


def _deals(config: GameConfig, schedule: tuple[int, ...] | None, rounds: Sequence[RoundState]) -> list[Deal]:
    """The deals of the record's rounds; a fair repeat must be its original's deal, suits permuted."""
    seeded = GamePlan(config, schedule=schedule) if schedule is not None else None
    deals: list[Deal] = []
    for index, rnd in enumerate(rounds):
        hands = rnd.starting_hands()
        repeats = schedule[index] if schedule is not None else 0
        if not repeats:
            deals.append(Deal(index, rnd.dealer, hands))
            continue
        original = deals[repeats - 1]
        # The permutation the seed draws comes first: an exported game keeps its own.
        candidates = [seeded.deal(index).permutation, *SUIT_PERMUTATIONS] if seeded is not None else SUIT_PERMUTATIONS
        permutation = next(
            (p for p in candidates if repeat_hands(original.hands, original.forehand, rnd.forehand_seat, p) == hands),
            None,
        )
        if permutation is None:
            raise RecordError(
                gettext(
                    "round {number}: fair_schedule says it repeats round {original}, but its deal is not round"
                    " {original}'s with the suits permuted and each hand passed on to the same place after forehand"
                ).format(number=index + 1, original=repeats)
            )
        deals.append(Deal(index, rnd.dealer, hands, original.index, permutation))
    return deals


def _replay(config: GameConfig, plan: GamePlan, rounds: Sequence[RoundState]) -> tuple[GameState, list[Move]]:
    """Play the record's actions through the engine as one game; the game must not end early."""
    state = GameState.new(config, plan)
    moves: list[Move] = []
    ended: tuple[int, int] | None = None  # (round, trick) where the game ended, 0-based
    for index, rnd in enumerate(rounds):
        seated = rnd.seated_actions()
        decisions = (rnd.forehand == 0) + (rnd.trump >= 0)
        number = 0  # actions other than Weis and Stöck: decisions, then cards
        for seat, action in seated:
            trick = len(state.current.tricks)
            if action.is_announcement:
                where = _announcement_place(index, trick, seat, action)
            else:
                where = _place(index, number, decisions)
                number += 1
            if state.over:
                assert ended is not None
                raise RecordError(
                    gettext("{place}: the game is already over: {ending}; nothing may follow").format(
                        place=where, ending=_ending(state, *ended)
                    )
                )
            try:
                state = state.apply(seat, action)
            except JassError as exc:  # decode_round replayed the round alone; this should not happen
                raise RecordError(gettext("{place}: {problem}").format(place=where, problem=exc)) from None
            moves.append(Move(seat, action, index, trick))
            if state.over and ended is None:
                ended = (index, len(state.current.tricks))
    if len(rounds) > len(state.rounds):  # a dealt round with no action yet, after the end
        assert ended is not None
        raise RecordError(
            gettext("{place}: the game is already over: {ending}; nothing may follow").format(
                place=gettext("round {number}").format(number=len(state.rounds) + 1), ending=_ending(state, *ended)
            )
        )
    return state, moves


def _announcement_place(round_index: int, trick: int, seat: int, action: EngineAction) -> str:
    """Where a Weis or Stöck is: ``round 3, trick 1, North's Weis Vierblatt HA-HJ`` (1-based)."""
    if action.kind == EngineAction.WEIS:
        return gettext("round {number}, trick {trick}, {seat}'s Weis {weis}").format(
            number=round_index + 1, trick=trick + 1, seat=seat_name(seat), weis=weis_name(action.value)
        )
    return gettext("round {number}, trick {trick}, {seat}'s Stöck").format(
        number=round_index + 1, trick=trick + 1, seat=seat_name(seat)
    )


def _place(round_index: int, number: int, decisions: int) -> str:
    """Where the ``number``-th action of a round is: ``round 3, trick 5, card 2`` (1-based)."""
    if number < decisions:
        return gettext("round {number}, trump decision {decision}").format(number=round_index + 1, decision=number + 1)
    trick, card = divmod(number - decisions, 4)
    return gettext("round {number}, trick {trick}, card {card}").format(
        number=round_index + 1, trick=trick + 1, card=card + 1
    )


def _ending(state: GameState, round_index: int, tricks: int) -> str:
    a, b = state.scores
    if state.config.mode == STANDARD and state.winner is not None:  # a standard game ends with a winner
        return gettext("{team} reached the target of {target} with trick {trick} of round {number} ({a}:{b})").format(
            team=_TEAM_NAMES[state.winner], target=state.config.target, trick=tricks, number=round_index + 1, a=a, b=b
        )
    return gettext("all {rounds} rounds are played ({a}:{b})").format(rounds=state.config.round_count, a=a, b=b)


# -- Weis and Stöck ----------------------------------------------------------------------


def _weis_option(doc: dict[str, Any]) -> bool:
    weis = _optional(doc, "weis", False)
    if type(weis) is not bool:
        raise RecordError(
            gettext("weis must be true (a game with Weis and Stöck) or false, got {value}").format(
                value=f"{weis!r:.20}"
            )
        )
    if not weis and doc.get("weis_rounds"):
        raise RecordError(
            gettext("weis_rounds are given but the record's 'weis' is not true: a game without Weis and Stöck")
        )
    return weis


def _with_weis(doc: dict[str, Any], rounds: list[RoundState], weis: bool) -> list[RoundState]:
    """The decoded rounds with the Weis and Stöck of the record's ``weis_rounds``, each checked against
    its round's deal (the engine checks once more when it replays them)."""
    if not weis:
        return rounds
    raw = _optional(doc, "weis_rounds", [{} for _ in rounds])
    if not isinstance(raw, list):
        raise RecordError(
            gettext("weis_rounds must be a list with one entry per round, got {value}").format(value=_json_type(raw))
        )
    if len(raw) != len(rounds):
        raise RecordError(
            gettext("weis_rounds has {entries} entries but the record has {rounds} rounds").format(
                entries=len(raw), rounds=len(rounds)
            )
        )
    result = []
    for index, (rnd, entry) in enumerate(zip(rounds, raw, strict=True)):
        where = gettext("round {number}").format(number=index + 1)
        if not isinstance(entry, dict):
            raise RecordError(
                gettext("{place}: a round's Weis are an object with 'weis' and 'stoeck', got {value}").format(
                    place=where, value=f"{entry!r:.60}"
                )
            )
        dealt = rnd.starting_hands()
        declared = _declared_weis(where, entry, dealt)
        stoeck = _stoeck_seat(where, entry, rnd, dealt)
        result.append(rnd._replace(declared=(declared[0], declared[1], declared[2], declared[3]), stoeck=stoeck))
    return result


def _declared_weis(where: str, entry: dict[str, Any], dealt: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    raw = _optional(entry, "weis", [])
    if not isinstance(raw, list) or len(raw) > 24:
        raise RecordError(
            gettext("{place}: 'weis' must be a list of declared Weis, got {value}").format(
                place=where, value=f"{raw!r:.60}"
            )
        )
    declared: list[list[int]] = [[], [], [], []]
    for number, item in enumerate(raw, start=1):
        place = gettext("{place}, Weis {number}").format(place=where, number=number)
        if not isinstance(item, dict):
            raise RecordError(
                gettext("{place}: a Weis is an object with 'seat' and 'cards', got {value}").format(
                    place=place, value=f"{item!r:.60}"
                )
            )
        seat = _index(item, "seat", place, 4, gettext("a seat 0-3"))
        cards = item.get("cards")
        if not isinstance(cards, list) or not all(isinstance(c, str) and c in CARD_IDS for c in cards):
            raise RecordError(
                gettext("{place}: 'cards' must be a list of card codes like 'HA', got {value}").format(
                    place=place, value=f"{cards!r:.60}"
                )
            )
        try:
            mask = mask_of(CARD_IDS[c] for c in cards)
        except JassError as exc:
            raise RecordError(gettext("{place}: {problem}").format(place=place, problem=exc)) from None
        who = seat_name(seat)
        code = _weis_code(mask)
        if code is None:
            raise RecordError(
                gettext(
                    "{place}: {seat}'s {cards} is not a Weis (three or more in sequence in one suit, or four"
                    " Aces, Kings, Queens, Jacks, Tens or Nines)"
                ).format(place=place, seat=who, cards=" ".join(cards))
            )
        if mask & ~dealt[seat]:
            raise RecordError(
                gettext("{place}: {seat} declares {weis} but was not dealt {missing} ({seat} was dealt {hand})").format(
                    place=place,
                    seat=who,
                    weis=weis_name(code),
                    missing=" ".join(codes_of(mask & ~dealt[seat])),
                    hand=" ".join(codes_of(dealt[seat])),
                )
            )
        if code not in hand_weis(dealt[seat]):
            longer = next(c for c in hand_weis(dealt[seat]) if weis_cards(c) & mask == mask)
            raise RecordError(
                gettext(
                    "{place}: {seat}'s {weis} is part of the {longer} {seat} was dealt, and a run is one Weis"
                ).format(place=place, seat=who, weis=weis_name(code), longer=weis_name(longer))
            )
        points = item.get("points")
        if points is not None and points != weis_points(code):
            raise RecordError(
                gettext("{place}: {seat}'s {weis} is worth {points}, not {value}").format(
                    place=place, seat=who, weis=weis_name(code), points=weis_points(code), value=f"{points!r:.20}"
                )
            )
        if code in declared[seat]:
            raise RecordError(
                gettext("{place}: {seat} declares {weis} twice").format(place=place, seat=who, weis=weis_name(code))
            )
        declared[seat].append(code)
    return tuple(tuple(codes) for codes in declared)


def _weis_code(mask: int) -> int | None:
    """The Weis whose cards are exactly ``mask``, or None."""
    for rank in QUARTET_POINTS:
        if weis_cards(QUARTET_BASE + rank) == mask:
            return QUARTET_BASE + rank
    length = mask.bit_count()
    if length not in RUN_POINTS:
        return None
    top = (mask & -mask).bit_length() - 1
    code = 100 * length + top
    return code if top % 9 + length <= 9 and weis_cards(code) == mask else None


def _stoeck_seat(where: str, entry: dict[str, Any], rnd: RoundState, dealt: tuple[int, ...]) -> int:
    raw = entry.get("stoeck")
    if raw is None:
        return -1
    place = gettext("{place}, Stöck").format(place=where)
    if not isinstance(raw, dict):
        raise RecordError(
            gettext("{place}: Stöck are an object with 'seat' and 'card', or null, got {value}").format(
                place=place, value=f"{raw!r:.60}"
            )
        )
    seat = _index(raw, "seat", place, 4, gettext("a seat 0-3"))
    pair = stoeck_cards(rnd.trump)
    if not pair:
        if rnd.trump < 0:
            raise RecordError(gettext("{place}: there are no Stöck in a round without trump").format(place=place))
        raise RecordError(gettext("{place}: there are no Stöck in Obe-Abe or Une-Ufe").format(place=place))
    if dealt[seat] & pair != pair:
        first, second = codes_of(pair)
        raise RecordError(
            gettext("{place}: {seat} announces Stöck but was not dealt both {first} and {second}").format(
                place=place, seat=seat_name(seat), first=first, second=second
            )
        )
    card = raw.get("card")
    announced = rnd._replace(stoeck=seat).stoeck_card()
    if card is not None and card != CARD_CODES[announced]:
        first, second = codes_of(pair)
        raise RecordError(
            gettext(
                "{place}: Stöck come with the second of {first} and {second} {seat} played, {card}, not {value}"
            ).format(
                place=place,
                first=first,
                second=second,
                seat=seat_name(seat),
                card=CARD_CODES[announced],
                value=f"{card!r:.10}",
            )
        )
    return seat


def _check_weis_results(doc: dict[str, Any], state: GameState) -> None:
    """Who scored each round's Weis, and how much, as the record says and as the rules give."""
    for index, (rnd, entry) in enumerate(zip(state.rounds, _optional(doc, "weis_rounds", []), strict=False)):
        where = gettext("round {number}").format(number=index + 1)
        team = rnd.weis_team if rnd.weis_team >= 0 else None
        if "weis_team" in entry and entry["weis_team"] != team:
            raise RecordError(
                gettext("{place}: weis_team is {value} but the Weis go to {winner}").format(
                    place=where, value=_team(entry["weis_team"]), winner=_weis_winner_words(rnd)
                )
            )
        points = sum(rnd.weis_points())
        if entry.get("weis_points") is not None and entry["weis_points"] != points:
            raise RecordError(
                gettext("{place}: weis_points is {value} but the Weis scored are {points}").format(
                    place=where, value=f"{entry['weis_points']!r:.20}", points=points
                )
            )


def _weis_winner_words(rnd: RoundState) -> str:
    if not rnd.tricks:
        return gettext("nobody yet (the first trick is not complete)")
    if rnd.weis_team < 0 or rnd.declared is None:
        return gettext("nobody (no Weis declared)")
    order = [(rnd.forehand_seat - k) % 4 for k in range(4)]  # play order of the first trick
    best = max(
        ((s, c) for s in range(4) for c in rnd.declared[s]),
        key=lambda sc: rank_key(sc[1], rnd.trump, order.index(sc[0])),
    )
    return gettext("{team}: {seat}'s {weis} is the best Weis").format(
        team=_team(rnd.weis_team), seat=seat_name(best[0]), weis=weis_name(best[1])
    )


# -- result, status, seats, faults -----------------------------------------------------


def _check_points(doc: dict[str, Any], state: GameState) -> None:
    scores = list(state.scores)
    points = doc.get("points")
    if points is not None:
        if not isinstance(points, list) or len(points) != 2 or any(type(p) is not int for p in points):
            raise RecordError(
                gettext("points must be two integers [North/South, East/West], got {value}").format(
                    value=f"{points!r:.60}"
                )
            )
        if points != scores:
            raise RecordError(
                gettext("points are {value} but the rounds give {scores}").format(value=points, scores=scores)
            )
    if "winner" in doc:
        winner = doc["winner"]
        if winner is not None and (type(winner) is not int or winner not in (0, 1)):
            raise RecordError(
                gettext("winner must be 0 (North/South), 1 (East/West) or null, got {value}").format(
                    value=f"{winner!r:.40}"
                )
            )
        if winner != state.winner:
            raise RecordError(
                gettext("winner is {value} but the rounds give {winner}").format(
                    value=_team(winner), winner=_team(state.winner, state)
                )
            )


def _team(team: int | None, state: GameState | None = None) -> str:
    if team is not None:
        return f"{team} ({_TEAM_NAMES[team]})"
    if state is None:
        return "null"
    return gettext("null (a draw)") if state.over else gettext("null (the game is not over)")


def _status(doc: dict[str, Any], state: GameState) -> str:
    status = doc.get("status")
    if status is None:
        return Game.FINISHED if state.over else Game.ABANDONED
    if status not in (Game.FINISHED, Game.ABANDONED, Game.RUNNING):
        raise RecordError(
            gettext("status must be 'finished', 'abandoned' or 'running', got {value}").format(value=f"{status!r:.40}")
        )
    if status == Game.FINISHED and not state.over:
        raise RecordError(
            gettext("status is 'finished' but the game is not over: {progress}").format(progress=_progress(state))
        )
    if status != Game.FINISHED and state.over:
        raise RecordError(
            gettext("status is {value} but the game is over: {result}").format(
                value=repr(status), result=_result(state)
            )
        )
    return Game.FINISHED if status == Game.FINISHED else Game.ABANDONED


def _progress(state: GameState) -> str:
    a, b = state.scores
    if state.config.mode == STANDARD:
        return gettext("the rounds give {a}:{b}, short of the target of {target}").format(
            a=a, b=b, target=state.config.target
        )
    complete = sum(1 for rnd in state.rounds if rnd.is_over)
    return gettext("{complete} of {rounds} rounds are complete").format(
        complete=complete, rounds=state.config.round_count
    )


def _result(state: GameState) -> str:
    a, b = state.scores
    if state.winner is None:
        return gettext("a draw ({a}:{b})").format(a=a, b=b)
    return gettext("{team} won ({a}:{b})").format(team=_TEAM_NAMES[state.winner], a=a, b=b)


def _seats(doc: dict[str, Any]) -> tuple[SeatEntry, ...]:
    raw = doc.get("seats")
    if raw is None:
        return tuple(SeatEntry(position, SEAT_NAMES[position]) for position in range(4))
    if not isinstance(raw, list) or len(raw) != 4:
        raise RecordError(gettext("seats must be a list of the four seats, got {value}").format(value=f"{raw!r:.80}"))
    seats: dict[int, SeatEntry] = {}
    for index, entry in enumerate(raw):
        where = f"seats[{index}]"
        if not isinstance(entry, dict):
            raise RecordError(
                gettext("{place}: a seat is an object with 'position' and 'name', got {value}").format(
                    place=where, value=f"{entry!r:.60}"
                )
            )
        position = _optional(entry, "position", index)
        if type(position) is not int or not 0 <= position <= 3:
            raise RecordError(
                gettext("{place}: 'position' must be 0 (North), 1 (East), 2 (South) or 3 (West), got {value}").format(
                    place=where, value=f"{position!r:.20}"
                )
            )
        if position in seats:
            raise RecordError(
                gettext("{place}: position {seat} is listed twice").format(place=where, seat=_seat(position))
            )
        name = _text(entry, "name", where, GameSeat._meta.get_field("name").max_length)
        bot = _text(entry, "bot", where, GameSeat._meta.get_field("bot").max_length)
        url = _text(entry, "url", where, GameSeat._meta.get_field("remote_url").max_length)
        dialect = _text(entry, "dialect", where, GameSeat._meta.get_field("remote_dialect").max_length)
        if url and not url.lower().startswith(("http://", "https://")):
            raise RecordError(
                gettext("{place}: a bot's 'url' starts with http:// or https://, got {value}").format(
                    place=where, value=f"{url!r:.60}"
                )
            )
        if dialect and dialect not in DIALECTS:
            raise RecordError(
                gettext("{place}: 'dialect' must be one of {choices}, got {value}").format(
                    place=where, choices=", ".join(DIALECTS), value=f"{dialect!r:.20}"
                )
            )
        default = SeatKind.REMOTE if url else SeatKind.BOT if bot else SeatKind.EMPTY
        kind = _optional(entry, "kind", default.value)
        if kind not in _SEAT_KINDS:
            raise RecordError(
                gettext("{place}: 'kind' must be one of {choices}, got {value}").format(
                    place=where, choices=", ".join(_SEAT_KINDS), value=f"{kind!r:.20}"
                )
            )
        if (bool(bot), bool(url)) != _SEAT_NEEDS.get(kind, (False, False)):
            needs = {
                SeatKind.BOT: gettext("{place}: a {kind} seat needs a 'bot' name and no 'url'"),
                SeatKind.REMOTE: gettext("{place}: a {kind} seat needs a 'url' and no 'bot' name"),
            }
            words = needs.get(kind) or gettext("{place}: a {kind} seat needs neither a bot name nor a url")
            raise RecordError(words.format(place=where, kind=repr(kind)))
        left = _optional(entry, "left", False)
        if type(left) is not bool or (left and kind != SeatKind.HUMAN):
            raise RecordError(
                gettext("{place}: 'left' is true only for a person's seat ('kind': 'human'), got {value}").format(
                    place=where, value=f"{left!r:.20}"
                )
            )
        seats[position] = SeatEntry(
            position, name or SEAT_NAMES[position], bot, url, dialect if url else "", kind if raw else "", left
        )
    return tuple(seats[position] for position in range(4))


def _standin_moves(doc: dict[str, Any], moves: Sequence[Move], seats: tuple[SeatEntry, ...]) -> frozenset[int]:
    """The moves a stand-in bot made for a person: each names a move of a person's seat, once."""
    raw = _optional(doc, "standin_moves", [])
    if not isinstance(raw, list):
        raise RecordError(gettext("standin_moves must be a list, got {value}").format(value=_json_type(raw)))
    found: set[int] = set()
    for index, entry in enumerate(raw):
        where = f"standin_moves[{index}]"
        if not isinstance(entry, dict):
            raise RecordError(
                gettext("{place}: a stand-in move is an object with 'move' and 'seat', got {value}").format(
                    place=where, value=f"{entry!r:.60}"
                )
            )
        move = _index(entry, "move", where, len(moves), gettext("a move of the game"))
        seat = _index(entry, "seat", where, 4, gettext("a seat 0-3"))
        if moves[move].seat != seat:
            raise RecordError(
                gettext("{place}: move {move} was made by {seat}, not {other}").format(
                    place=where, move=move, seat=_seat(moves[move].seat), other=_seat(seat)
                )
            )
        if seats[seat].kind and seats[seat].kind != SeatKind.HUMAN:
            raise RecordError(
                gettext("{place}: a stand-in plays only for a person, but {seat} is a {kind}").format(
                    place=where, seat=_seat(seat), kind=seats[seat].kind
                )
            )
        if move in found:
            raise RecordError(gettext("{place}: move {move} is listed twice").format(place=where, move=move))
        found.add(move)
    return frozenset(found)


def _abandon_reason(doc: dict[str, Any], status: str) -> str:
    reason = _text(doc, "abandon_reason", gettext("the record"), Game._meta.get_field("abandon_reason").max_length)
    if reason and status != Game.ABANDONED:
        raise RecordError(gettext("abandon_reason is given but the game is {status}").format(status=status))
    return reason


def _text(entry: dict[str, Any], key: str, where: str, max_length: int | None) -> str:
    value = _optional(entry, key, "")
    if not isinstance(value, str):
        raise RecordError(
            gettext("{place}: {key} must be a string, got {value}").format(
                place=where, key=repr(key), value=_json_type(value)
            )
        )
    value = " ".join(value.split())
    if max_length is not None and len(value) > max_length:
        raise RecordError(
            gettext("{place}: {key} has {count} characters; at most {most}").format(
                place=where, key=repr(key), count=len(value), most=max_length
            )
        )
    return value


def _faults(doc: dict[str, Any], rounds: int, moves: Sequence[Move]) -> tuple[FaultEntry, ...]:
    raw = _optional(doc, "faults", [])
    if not isinstance(raw, list):
        raise RecordError(gettext("faults must be a list, got {value}").format(value=_json_type(raw)))
    if len(raw) > MAX_FAULTS:
        raise RecordError(
            gettext("the record has {faults} faults; at most {most} can be imported").format(
                faults=len(raw), most=MAX_FAULTS
            )
        )
    kind_length = Fault._meta.get_field("kind").max_length
    detail_length = Fault._meta.get_field("detail").max_length
    faults = []
    for index, entry in enumerate(raw):
        where = f"faults[{index}]"
        if not isinstance(entry, dict):
            raise RecordError(
                gettext("{place}: a fault is an object with 'seat', 'round', 'kind'…, got {value}").format(
                    place=where, value=f"{entry!r:.60}"
                )
            )
        seat = _index(entry, "seat", where, 4, gettext("a seat 0..3"))
        round_index = _index(
            entry, "round", where, rounds, gettext("a round 0..{last} (0-based)").format(last=rounds - 1)
        )
        trick = _index(entry, "trick", where, 9, gettext("a trick 0..8 (0-based) or null"), optional=True)
        move = _index(
            entry,
            "move",
            where,
            len(moves),
            gettext("a move 0..{last} or null").format(last=len(moves) - 1),
            optional=True,
        )
        if move is not None:
            played = moves[move]
            if (seat, round_index) != (played.seat, played.round) or trick not in (None, played.trick):
                raise RecordError(
                    gettext(
                        "{place}: move {move} was {seat}'s in round {round}, trick {trick} (0-based),"
                        " not {other}'s in round {other_round}, trick {other_trick}"
                    ).format(
                        place=where,
                        move=move,
                        seat=seat_name(played.seat),
                        round=played.round,
                        trick=played.trick,
                        other=seat_name(seat),
                        other_round=round_index,
                        other_trick=trick,
                    )
                )
        kind = entry.get("kind")
        if not isinstance(kind, str) or not kind.strip():
            raise RecordError(
                gettext("{place}: 'kind' must be a non-empty string, got {value}").format(
                    place=where, value=f"{kind!r:.40}"
                )
            )
        detail = _optional(entry, "detail", "")
        if not isinstance(detail, str):
            raise RecordError(
                gettext("{place}: 'detail' must be a string, got {value}").format(place=where, value=_json_type(detail))
            )
        latency = _optional(entry, "latency_ms", 0)
        if type(latency) is not int or latency < 0:
            raise RecordError(
                gettext("{place}: 'latency_ms' must be a non-negative integer, got {value}").format(
                    place=where, value=f"{latency!r:.20}"
                )
            )
        faults.append(
            FaultEntry(
                seat,
                round_index,
                trick,
                move,
                kind.strip()[:kind_length],
                detail[:detail_length],
                min(latency, _MAX_LATENCY),
            )
        )
    return tuple(faults)


def _index(entry: dict[str, Any], key: str, where: str, size: int, expected: str, optional: bool = False) -> Any:
    value = entry.get(key)
    if value is None and optional:
        return None
    if type(value) is not int or not 0 <= value < size:
        raise RecordError(
            gettext("{place}: {key} must be {expected}, got {value}").format(
                place=where, key=repr(key), expected=expected, value=f"{value!r:.20}"
            )
        )
    return value


def _timestamp(value: object) -> datetime | None:
    """A record's ISO 8601 time, or None when it is absent or not one."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment, UTC)


def _seat(seat: int) -> str:
    return f"{seat} ({seat_name(seat)})"


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


# -- import: storing ---------------------------------------------------------------------


def import_record(data: object, *, importer: Player | None = None, private: bool = False, name: str = "") -> Game:
    """Check a record (see ``check_record``) and store it as a replayable game at a new imported table.

    Nothing is written unless every check passes; then the table, its game,
    seats, actions and faults are written in one transaction.
    """
    return store_record(check_record(data), importer=importer, private=private, name=name)


def store_record(
    record: CheckedRecord, *, importer: Player | None = None, private: bool = False, name: str = ""
) -> Game:
    """Store a checked record as a game at a new table (``imported=True``), in one transaction."""
    table_name = " ".join((name or "").split()) or _default_name(record)
    if len(table_name) > MAX_TABLE_NAME:
        raise RecordError(gettext("a table name has at most {count} characters").format(count=MAX_TABLE_NAME))
    config, state = record.config, record.state
    with transaction.atomic():
        table = new_table(
            table_name,
            config,
            created_by=importer,
            private=bool(private),
            imported=True,
        )  # its seats stay empty: it never plays
        game = new_game(
            table,
            config,
            record.deals,
            [
                {
                    "position": seat.position,
                    "name": seat.name,
                    "bot": seat.bot,
                    "remote_url": seat.remote_url,
                    "remote_dialect": seat.remote_dialect,
                    "standin": GameSeat.LEFT if seat.left else "",
                    "fault_count": sum(1 for f in record.faults if f.seat == seat.position),
                }
                for seat in record.seats
            ],
            record.schedule,
            status=record.status,
            abandon_reason=record.abandon_reason,
            standin_bot=record.standin_bot,
            action_count=len(record.moves),
            points=list(state.scores),
            winner=state.winner,
            finished_at=record.finished_at or timezone.now(),
        )
        Action.objects.bulk_create(
            [
                Action(
                    game=game,
                    seq=seq,
                    seat=move.seat,
                    kind=move.action.kind,
                    value=move.action.value,
                    standin=seq in record.standin_moves,
                )
                for seq, move in enumerate(record.moves)
            ],
            batch_size=500,
        )
        Fault.objects.bulk_create(
            [
                Fault(
                    game=game,
                    seat=fault.seat,
                    seq=fault.move,
                    round=fault.round,
                    trick=fault.trick,
                    kind=fault.kind,
                    detail=fault.detail,
                    latency_ms=fault.latency_ms,
                )
                for fault in record.faults
            ]
        )
    return game


def _default_name(record: CheckedRecord) -> str:
    if record.source_id is not None:
        return gettext("Imported game (was #{number})").format(number=record.source_id)
    return ngettext("Imported game ({count} round)", "Imported game ({count} rounds)", record.rounds).format(
        count=record.rounds
    )
