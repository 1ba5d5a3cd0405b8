"""Whether a record is a game of Jass: its rounds replayed by the engine, touching no database.

``check_record`` reads the record with the schema (``schema.parse``), then checks what only the
engine can tell: every card, every trick's winner and points, the dealer rotation, the fair pairs'
deals, each Weis and Stöck, where the game ends and its result, and the moves that faults and
stand-in moves name. A refusal is a ``RecordError`` whose message names the round, trick and card
(all 1-based) and the reason, with its ``code`` and the JSON ``place`` of the value at fault.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.utils.translation import gettext, gettext_lazy

from games.catalogue import SeatKind
from games.engine import (
    CARD_CODES,
    CARD_IDS,
    CARD_REFUSALS,
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
from games.engine.weis import QUARTET_BASE, QUARTET_POINTS, RUN_POINTS, rank_key
from games.hslu import InvalidMessageError, Words, decode_round
from games.live.service import seat_name
from games.models import Game
from games.records.schema import (
    ABSENT,
    FaultEntry,
    Record,
    RecordCode,
    RecordError,
    SeatEntry,
    StandinMove,
    StoeckEntry,
    WeisEntry,
    WeisRound,
    parse,
    seat_words,
)

_TEAM_NAMES = (gettext_lazy("North/South"), gettext_lazy("East/West"))


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
        return _check(parse(data))
    except RecursionError:  # a round log nested deeper than Python's repr (in a message) can go
        raise RecordError(
            gettext("the record is not usable: a value in it is nested too deeply"), code=RecordCode.TOO_DEEP
        ) from None


def _check(record: Record) -> CheckedRecord:
    config = _config(record)
    schedule = record.fair_schedule
    decoded = [_decode_round(index, log) for index, log in enumerate(record.rounds)]
    if record.weis_rounds is not None:
        decoded = _with_weis(record.weis_rounds, decoded)
    for index, rnd in enumerate(decoded[:-1]):
        if not rnd.is_over:
            raise RecordError(
                gettext("round {number} is not complete ({tricks} of 9 tricks played) but round {next} follows").format(
                    number=index + 1, tricks=len(rnd.tricks), next=index + 2
                ),
                code=RecordCode.INCOMPLETE_ROUND,
                place=f"rounds[{index}]",
            )
    _check_dealers(decoded)
    if schedule is not None and len(decoded) > len(schedule):
        raise RecordError(
            gettext("the record has {rounds} rounds but the fair game has {fair}").format(
                rounds=len(decoded), fair=len(schedule)
            ),
            code=RecordCode.WRONG_LENGTH,
            place="rounds",
        )
    deals = _deals(config, schedule, decoded)
    try:
        plan = GamePlan(config, schedule=schedule, known_deals=deals)
    except InvalidConfigError as exc:  # the checks above should have said it more precisely
        raise RecordError(str(exc), code=RecordCode.BAD_ROUND) from None
    state, moves = _replay(config, plan, decoded)
    if record.weis_rounds is not None:
        _check_weis_results(record.weis_rounds, state)
    _check_points(record, state)
    status = _status(record, state)
    if record.abandon_reason and status != Game.ABANDONED:
        raise RecordError(
            gettext("abandon_reason is given but the game is {status}").format(status=status),
            code=RecordCode.CONTRADICTION,
            place="abandon_reason",
        )
    _check_faults(record.faults, moves)
    return CheckedRecord(
        config=config,
        schedule=schedule,
        state=state,
        moves=tuple(moves),
        status=status,
        seats=record.seats,
        faults=record.faults,
        standin_moves=_standin_moves(record.standin_moves, moves, record.seats),
        standin_bot=record.standin_bot or "rules",
        abandon_reason=record.abandon_reason,
        finished_at=record.finished_at,
        source_id=record.source_id,
        rounds=len(decoded),
    )


def _config(record: Record) -> GameConfig:
    try:
        return GameConfig(
            mode=record.mode,
            target=record.target,
            round_count=len(record.fair_schedule) if record.fair_schedule is not None else 12,
            multipliers=record.multipliers,
            seed=record.seed if record.seed is not None else secrets.randbits(62),
            weis=record.weis,
        )
    except InvalidConfigError as exc:  # the schema should have said it more precisely
        raise RecordError(str(exc), code=RecordCode.CONTRADICTION) from None


# -- rounds --------------------------------------------------------------------------


def _decode_round(index: int, log: object) -> RoundState:
    """Decode and replay one round log with ``decode_round``; its complaint becomes a ``RecordError``."""
    _check_dealt_once(index, log)
    try:
        return decode_round(log)
    except InvalidMessageError as exc:
        raise RecordError(
            _round_message(index + 1, exc), code=_round_code(exc), place=_round_place(index, exc)
        ) from None
    except JassError as exc:
        raise RecordError(
            gettext("round {number}: {problem}").format(number=index + 1, problem=exc),
            code=RecordCode.BAD_ROUND,
            place=f"rounds[{index}]",
        ) from None


def _check_dealt_once(index: int, log: object) -> None:
    """Name both places of a card that appears twice in a round (played or held)."""
    if not isinstance(log, dict):
        return
    seen: dict[str, str] = {}

    def see(code: object, place: str, path: str) -> None:
        if not isinstance(code, str) or code not in CARD_IDS:
            return
        if code in seen:
            raise RecordError(
                gettext("round {number}: card {card} is dealt twice ({first} and {second})").format(
                    number=index + 1, card=code, first=seen[code], second=place
                ),
                code=RecordCode.DUPLICATE,
                place=f"rounds[{index}].{path}",
            )
        seen[code] = place

    tricks = log.get("tricks")
    if isinstance(tricks, list):
        for t, trick in enumerate(tricks[:9]):
            cards = trick.get("cards") if isinstance(trick, dict) else None
            if isinstance(cards, list):
                for c, code in enumerate(cards[:4]):
                    place = gettext("trick {trick}, card {card}").format(trick=t + 1, card=c + 1)
                    see(code, place, f"tricks[{t}].cards[{c}]")
    players = log.get("player")
    if isinstance(players, list):
        for seat, entry in enumerate(players[:4]):
            hand = entry.get("hand") if isinstance(entry, dict) else None
            if isinstance(hand, list):
                for h, code in enumerate(hand[:36]):
                    see(code, gettext("{seat}'s hand").format(seat=seat_name(seat)), f"player[{seat}].hand[{h}]")


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


# The codec's complaints that are a kind of their own; any other is a round that is no round of Jass.
_ROUND_CODES = {
    "unknown card code {code!r}": RecordCode.UNKNOWN_CARD,
    "missing field {key!r}": RecordCode.MISSING_FIELD,
}


def _round_code(exc: InvalidMessageError) -> RecordCode:
    if exc.illegal is not None:
        return RecordCode.ILLEGAL_CARD
    return _ROUND_CODES.get(exc.problem_words.template, RecordCode.BAD_ROUND)


# The codec's places (games/hslu.py) as JSON paths within a round log.
_ROUND_PATHS = (
    (re.compile(r"trick (\d+) cards?\[?(\d+)\]?$"), lambda m: f"tricks[{int(m[1]) - 1}].cards[{m[2]}]"),
    (re.compile(r"trick (\d+)$"), lambda m: f"tricks[{int(m[1]) - 1}]"),
    (re.compile(r"player (\d+) hand\[(\d+)\]$"), lambda m: f"player[{m[1]}].hand[{m[2]}]"),
    (re.compile(r"player (\d+)(?: hand)?$"), lambda m: f"player[{m[1]}]"),
)


def _round_place(index: int, exc: InvalidMessageError) -> str:
    """The JSON path of what ``decode_round`` refused: ``rounds[2].tricks[1].cards[0]`` (0-based)."""
    path = f"rounds[{index}]"
    if exc.trick is not None and exc.card is not None:
        return f"{path}.tricks[{exc.trick - 1}].cards[{exc.card - 1}]"
    if exc.problem_words.template == "missing field {key!r}" and not exc.place:
        return f"{path}.{exc.problem_words.values['key']}"
    for pattern, place in _ROUND_PATHS:
        match = pattern.match(exc.place)
        if match:
            return f"{path}.{place(match)}"
    return path


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
                    dealer=seat_words(dealer),
                    before=seat_words(before),
                    previous=index,
                    next=seat_words(next_seat(before)),
                ),
                code=RecordCode.WRONG_DEALER,
                place=f"rounds[{index}].dealer",
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
                ).format(number=index + 1, original=repeats),
                code=RecordCode.NOT_FAIR,
                place=f"rounds[{index}]",
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
                where, path = _announcement_place(index, trick, seat, action), f"rounds[{index}]"
            else:
                where, path = _place(index, number, decisions)
                number += 1
            if state.over:
                assert ended is not None
                raise RecordError(
                    gettext("{place}: the game is already over: {ending}; nothing may follow").format(
                        place=where, ending=_ending(state, *ended)
                    ),
                    code=RecordCode.AFTER_THE_END,
                    place=path,
                )
            try:
                state = state.apply(seat, action)
            except JassError as exc:  # decode_round replayed the round alone; this should not happen
                raise RecordError(
                    gettext("{place}: {problem}").format(place=where, problem=exc),
                    code=RecordCode.BAD_ROUND,
                    place=path,
                ) from None
            moves.append(Move(seat, action, index, trick))
            if state.over and ended is None:
                ended = (index, len(state.current.tricks))
    if len(rounds) > len(state.rounds):  # a dealt round with no action yet, after the end
        assert ended is not None
        raise RecordError(
            gettext("{place}: the game is already over: {ending}; nothing may follow").format(
                place=gettext("round {number}").format(number=len(state.rounds) + 1), ending=_ending(state, *ended)
            ),
            code=RecordCode.AFTER_THE_END,
            place=f"rounds[{len(state.rounds)}]",
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


def _place(round_index: int, number: int, decisions: int) -> tuple[str, str]:
    """Where the ``number``-th action of a round is: ``round 3, trick 5, card 2`` (1-based), and its JSON path."""
    if number < decisions:
        where = gettext("round {number}, trump decision {decision}").format(number=round_index + 1, decision=number + 1)
        return where, f"rounds[{round_index}].trump"
    trick, card = divmod(number - decisions, 4)
    where = gettext("round {number}, trick {trick}, card {card}").format(
        number=round_index + 1, trick=trick + 1, card=card + 1
    )
    return where, f"rounds[{round_index}].tricks[{trick}].cards[{card}]"


def _ending(state: GameState, round_index: int, tricks: int) -> str:
    a, b = state.scores
    if state.config.mode == STANDARD and state.winner is not None:  # a standard game ends with a winner
        return gettext("{team} reached the target of {target} with trick {trick} of round {number} ({a}:{b})").format(
            team=_TEAM_NAMES[state.winner], target=state.config.target, trick=tricks, number=round_index + 1, a=a, b=b
        )
    return gettext("all {rounds} rounds are played ({a}:{b})").format(rounds=state.config.round_count, a=a, b=b)


# -- Weis and Stöck ----------------------------------------------------------------------


def _with_weis(weis_rounds: Sequence[WeisRound], rounds: list[RoundState]) -> list[RoundState]:
    """The decoded rounds with the Weis and Stöck of the record's ``weis_rounds``, each checked against
    its round's deal (the engine checks once more when it replays them)."""
    result = []
    for index, (rnd, entry) in enumerate(zip(rounds, weis_rounds, strict=True)):
        where = gettext("round {number}").format(number=index + 1)
        dealt = rnd.starting_hands()
        declared = _declared_weis(index, where, entry.weis, dealt)
        stoeck = _stoeck_seat(index, where, entry.stoeck, rnd, dealt)
        result.append(rnd._replace(declared=(declared[0], declared[1], declared[2], declared[3]), stoeck=stoeck))
    return result


def _declared_weis(
    round_index: int, where: str, entries: Sequence[WeisEntry], dealt: tuple[int, ...]
) -> tuple[tuple[int, ...], ...]:
    declared: list[list[int]] = [[], [], [], []]
    for number, item in enumerate(entries, start=1):
        place = gettext("{place}, Weis {number}").format(place=where, number=number)
        path = f"weis_rounds[{round_index}].weis[{number - 1}]"
        seat, cards = item.seat, item.cards
        try:
            mask = mask_of(CARD_IDS[c] for c in cards)
        except JassError as exc:
            raise RecordError(
                gettext("{place}: {problem}").format(place=place, problem=exc),
                code=RecordCode.DUPLICATE,
                place=f"{path}.cards",
            ) from None
        who = seat_name(seat)
        code = _weis_code(mask)
        if code is None:
            raise RecordError(
                gettext(
                    "{place}: {seat}'s {cards} is not a Weis (three or more in sequence in one suit, or four"
                    " Aces, Kings, Queens, Jacks, Tens or Nines)"
                ).format(place=place, seat=who, cards=" ".join(cards)),
                code=RecordCode.BAD_WEIS,
                place=f"{path}.cards",
            )
        if mask & ~dealt[seat]:
            raise RecordError(
                gettext("{place}: {seat} declares {weis} but was not dealt {missing} ({seat} was dealt {hand})").format(
                    place=place,
                    seat=who,
                    weis=weis_name(code),
                    missing=" ".join(codes_of(mask & ~dealt[seat])),
                    hand=" ".join(codes_of(dealt[seat])),
                ),
                code=RecordCode.BAD_WEIS,
                place=f"{path}.cards",
            )
        if code not in hand_weis(dealt[seat]):
            longer = next(c for c in hand_weis(dealt[seat]) if weis_cards(c) & mask == mask)
            raise RecordError(
                gettext(
                    "{place}: {seat}'s {weis} is part of the {longer} {seat} was dealt, and a run is one Weis"
                ).format(place=place, seat=who, weis=weis_name(code), longer=weis_name(longer)),
                code=RecordCode.BAD_WEIS,
                place=f"{path}.cards",
            )
        if item.points is not None and item.points != weis_points(code):
            raise RecordError(
                gettext("{place}: {seat}'s {weis} is worth {points}, not {value}").format(
                    place=place, seat=who, weis=weis_name(code), points=weis_points(code), value=f"{item.points!r:.20}"
                ),
                code=RecordCode.WRONG_RESULT,
                place=f"{path}.points",
            )
        if code in declared[seat]:
            raise RecordError(
                gettext("{place}: {seat} declares {weis} twice").format(place=place, seat=who, weis=weis_name(code)),
                code=RecordCode.DUPLICATE,
                place=path,
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


def _stoeck_seat(
    round_index: int, where: str, entry: StoeckEntry | None, rnd: RoundState, dealt: tuple[int, ...]
) -> int:
    if entry is None:
        return -1
    place = gettext("{place}, Stöck").format(place=where)
    path = f"weis_rounds[{round_index}].stoeck"
    seat = entry.seat
    pair = stoeck_cards(rnd.trump)
    if not pair:
        if rnd.trump < 0:
            message = gettext("{place}: there are no Stöck in a round without trump")
        else:
            message = gettext("{place}: there are no Stöck in Obe-Abe or Une-Ufe")
        raise RecordError(message.format(place=place), code=RecordCode.BAD_STOECK, place=path)
    first, second = codes_of(pair)
    if dealt[seat] & pair != pair:
        raise RecordError(
            gettext("{place}: {seat} announces Stöck but was not dealt both {first} and {second}").format(
                place=place, seat=seat_name(seat), first=first, second=second
            ),
            code=RecordCode.BAD_STOECK,
            place=f"{path}.seat",
        )
    announced = rnd._replace(stoeck=seat).stoeck_card()
    if entry.card is not None and entry.card != CARD_CODES[announced]:
        raise RecordError(
            gettext(
                "{place}: Stöck come with the second of {first} and {second} {seat} played, {card}, not {value}"
            ).format(
                place=place,
                first=first,
                second=second,
                seat=seat_name(seat),
                card=CARD_CODES[announced],
                value=f"{entry.card!r:.10}",
            ),
            code=RecordCode.BAD_STOECK,
            place=f"{path}.card",
        )
    return seat


def _check_weis_results(weis_rounds: Sequence[WeisRound], state: GameState) -> None:
    """Who scored each round's Weis, and how much, as the record says and as the rules give."""
    for index, (rnd, entry) in enumerate(zip(state.rounds, weis_rounds, strict=False)):
        where = gettext("round {number}").format(number=index + 1)
        team = rnd.weis_team if rnd.weis_team >= 0 else None
        if entry.weis_team is not ABSENT and entry.weis_team != team:
            raise RecordError(
                gettext("{place}: weis_team is {value} but the Weis go to {winner}").format(
                    place=where, value=_team(entry.weis_team), winner=_weis_winner_words(rnd)
                ),
                code=RecordCode.WRONG_RESULT,
                place=f"weis_rounds[{index}].weis_team",
            )
        points = sum(rnd.weis_points())
        if entry.weis_points is not None and entry.weis_points != points:
            raise RecordError(
                gettext("{place}: weis_points is {value} but the Weis scored are {points}").format(
                    place=where, value=f"{entry.weis_points!r:.20}", points=points
                ),
                code=RecordCode.WRONG_RESULT,
                place=f"weis_rounds[{index}].weis_points",
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


# -- result, status, faults, stand-in moves ---------------------------------------------------


def _check_points(record: Record, state: GameState) -> None:
    scores = list(state.scores)
    if record.points is not None and list(record.points) != scores:
        raise RecordError(
            gettext("points are {value} but the rounds give {scores}").format(value=list(record.points), scores=scores),
            code=RecordCode.WRONG_RESULT,
            place="points",
        )
    if record.winner is not ABSENT and record.winner != state.winner:
        raise RecordError(
            gettext("winner is {value} but the rounds give {winner}").format(
                value=_team(record.winner), winner=_team(state.winner, state)
            ),
            code=RecordCode.WRONG_RESULT,
            place="winner",
        )


def _team(team: int | None, state: GameState | None = None) -> str:
    if team is not None:
        return f"{team} ({_TEAM_NAMES[team]})"
    if state is None:
        return "null"
    return gettext("null (a draw)") if state.over else gettext("null (the game is not over)")


def _status(record: Record, state: GameState) -> str:
    status = record.status
    if status is None:
        return Game.FINISHED if state.over else Game.ABANDONED
    if status == Game.FINISHED and not state.over:
        raise RecordError(
            gettext("status is 'finished' but the game is not over: {progress}").format(progress=_progress(state)),
            code=RecordCode.WRONG_RESULT,
            place="status",
        )
    if status != Game.FINISHED and state.over:
        raise RecordError(
            gettext("status is {value} but the game is over: {result}").format(
                value=repr(status), result=_result(state)
            ),
            code=RecordCode.WRONG_RESULT,
            place="status",
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


def _move_index(move: int, at: str, moves: Sequence[Move], expected: str) -> None:
    """A move the record names must be one of the game's (its type the schema checked)."""
    if not 0 <= move < len(moves):
        raise RecordError(
            gettext("{place}: {key} must be {expected}, got {value}").format(
                place=at, key=repr("move"), expected=expected, value=f"{move!r:.20}"
            ),
            code=RecordCode.OUT_OF_RANGE,
            place=f"{at}.move",
        )


def _check_faults(faults: Sequence[FaultEntry], moves: Sequence[Move]) -> None:
    """A fault that names a move names one of its seat, round and trick."""
    for index, fault in enumerate(faults):
        if fault.move is None:
            continue
        where = f"faults[{index}]"
        _move_index(fault.move, where, moves, gettext("a move 0..{last} or null").format(last=len(moves) - 1))
        played = moves[fault.move]
        if (fault.seat, fault.round) != (played.seat, played.round) or fault.trick not in (None, played.trick):
            raise RecordError(
                gettext(
                    "{place}: move {move} was {seat}'s in round {round}, trick {trick} (0-based),"
                    " not {other}'s in round {other_round}, trick {other_trick}"
                ).format(
                    place=where,
                    move=fault.move,
                    seat=seat_name(played.seat),
                    round=played.round,
                    trick=played.trick,
                    other=seat_name(fault.seat),
                    other_round=fault.round,
                    other_trick=fault.trick,
                ),
                code=RecordCode.WRONG_MOVE,
                place=f"{where}.move",
            )


def _standin_moves(
    entries: Sequence[StandinMove], moves: Sequence[Move], seats: tuple[SeatEntry, ...]
) -> frozenset[int]:
    """The moves a stand-in bot made for a person: each names a move of a person's seat, once."""
    found: set[int] = set()
    for index, entry in enumerate(entries):
        where = f"standin_moves[{index}]"
        move, seat = entry.move, entry.seat
        _move_index(move, where, moves, gettext("a move of the game"))
        if moves[move].seat != seat:
            raise RecordError(
                gettext("{place}: move {move} was made by {seat}, not {other}").format(
                    place=where, move=move, seat=seat_words(moves[move].seat), other=seat_words(seat)
                ),
                code=RecordCode.WRONG_MOVE,
                place=f"{where}.seat",
            )
        if seats[seat].kind and seats[seat].kind != SeatKind.HUMAN:
            raise RecordError(
                gettext("{place}: a stand-in plays only for a person, but {seat} is a {kind}").format(
                    place=where, seat=seat_words(seat), kind=seats[seat].kind
                ),
                code=RecordCode.WRONG_MOVE,
                place=f"{where}.seat",
            )
        if move in found:
            raise RecordError(
                gettext("{place}: move {move} is listed twice").format(place=where, move=move),
                code=RecordCode.DUPLICATE,
                place=f"{where}.move",
            )
        found.add(move)
    return frozenset(found)
