"""The HSLU Jass JSON format (``docs/hslu-interface.md``, V0.2).

- Requests to bots: ``encode_observation`` writes one seat's view (all four
  ``player`` entries, only the viewer's hand filled); ``decode_observation``
  reads such a message back (jass-kit's ``GameObservation.to_json`` and the
  spec's examples included).
- Replies from bots: ``parse_reply_body``, ``parse_trump_reply`` and
  ``parse_card_reply`` raise ``InvalidReplyError`` with a ``kind`` for every
  malformed case.
- Logs: ``encode_round`` / ``decode_round`` convert a full round (all hands) to
  and from the format jass-kit's ``GameState.to_json`` writes; decoding replays
  every action through the engine, so an illegal or inconsistent log is refused.

Pure: no Django, no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from games.catalogue import FaultKind
from games.engine import (
    CARD_CODES,
    CARD_IDS,
    PUSH,
    SEAT_NAMES,
    TRUMPS,
    Action,
    IllegalActionError,
    InvalidActionError,
    JassError,
    Observation,
    RoundState,
    Trick,
    codes_of,
    next_seat,
    partner_of,
    trick_points,
    trick_winner,
)
from games.json_depth import nested_deeper_than

VERSION = "V0.2"
SCHIEBER = "SCHIEBER"
SCHIEBER_1000 = "SCHIEBER_1000"
SCHIEBER_2500 = "SCHIEBER_2500"
JASS_TYPES = (SCHIEBER, SCHIEBER_1000, SCHIEBER_2500)
MAX_REPLY_DEPTH = 8  # levels of lists and objects in a bot's reply (the interface's replies use one)


@dataclass(frozen=True)
class Words:
    """A message as a template marked for the catalogues and its values: English here, and in the reader's
    language where a page says it (``gettext(words.template).format(**words.values)``, games/records.py)."""

    template: str
    values: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.template.format(**self.values)


def _(template: str, **values: Any) -> Words:
    """Words to say later, in the reader's language: ``_`` marks ``template`` for ``makemessages``."""
    return Words(template, values)


NOWHERE = Words("")


class InvalidMessageError(JassError):
    """An HSLU message or log that is malformed or contradicts the rules.

    Besides the message (``place: problem``), where it is for callers that word it their own way:
    ``place`` (``"trick 2"``, ``"player 1 hand[3]"``, ``"deal"``; empty for the whole message),
    ``trick`` and ``card`` (1-based, when the problem is one card of a trick) and ``illegal``
    (the engine's refusal, when that card is against the rules); ``place_words`` and
    ``problem_words`` are the same as ``Words`` to translate.
    """

    def __init__(
        self,
        message: str,
        *,
        place: str = "",
        problem: str = "",
        trick: int | None = None,
        card: int | None = None,
        illegal: IllegalActionError | None = None,
        place_words: Words = NOWHERE,
        problem_words: Words | None = None,
    ) -> None:
        super().__init__(message)
        self.place = place
        self.problem = problem or message
        self.trick = trick
        self.card = card
        self.illegal = illegal
        self.place_words = place_words
        self.problem_words = problem_words or Words("{message}", {"message": self.problem})


class InvalidReplyError(InvalidActionError):
    """A bot's reply that is not a usable action; ``kind`` names the fault."""

    def __init__(self, kind: FaultKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def jass_type(mode: str, target: int | None) -> str:
    """Return the ``jassTyp`` for a table: ``SCHIEBER_1000``/``_2500`` by target, else ``SCHIEBER``.

    >>> jass_type("standard", 1000), jass_type("fair", None)
    ('SCHIEBER_1000', 'SCHIEBER')
    """
    if mode == "standard" and target == 1000:
        return SCHIEBER_1000
    if mode == "standard" and target == 2500:
        return SCHIEBER_2500
    return SCHIEBER


# -- encoding ------------------------------------------------------------------


def _encode_tricks(
    tricks: Sequence[Trick], trick: Sequence[int], leader: int, trump: int, over: bool, empty_cards: bool
) -> list[dict[str, Any]]:
    encoded: list[dict[str, Any]] = [
        {"cards": [CARD_CODES[c] for c in t.cards], "points": t.points, "win": t.winner, "first": t.first}
        for t in tricks
    ]
    if trump >= 0 and not over:
        current: dict[str, Any] = {"cards": [CARD_CODES[c] for c in trick], "first": leader}
        if not trick and not empty_cards:
            del current["cards"]  # jass-kit writes only "first" for a trick not yet started
        encoded.append(current)
    return encoded


def encode_observation(obs: Observation, jass_typ: str = SCHIEBER) -> dict[str, Any]:
    """Return the HSLU request message for one seat's observation.

    The current trick, once the trump is declared, is always listed; when no
    card is in it yet it is ``{"cards": [], "first": seat}`` as the spec says.
    """
    if obs.viewer < 0:
        raise InvalidActionError("the public view has no HSLU form: a message is always for one seat")
    players: list[dict[str, list[str]]] = [{"hand": []} for _ in range(4)]
    players[obs.viewer] = {"hand": codes_of(obs.hand)}
    return {
        "version": VERSION,
        "trump": obs.trump,
        "dealer": obs.dealer,
        "currentPlayer": obs.player,
        "playerView": obs.viewer,
        "forehand": obs.forehand,
        "tricks": _encode_tricks(obs.tricks, obs.trick, obs.leader, obs.trump, obs.is_over, True),
        "player": players,
        "jassTyp": jass_typ,
    }


def encode_round(state: RoundState, player_view: int | None = None) -> dict[str, Any]:
    """Return a full-state log of a round in jass-kit's ``GameState.to_json`` format.

    Every seat's remaining hand is filled. ``player_view`` adds a ``playerView``
    field (jass-kit's player service requires it in ``game_info``).
    """
    data: dict[str, Any] = {
        "version": VERSION,
        "trump": state.trump,
        "dealer": state.dealer,
        "currentPlayer": state.player,
        "forehand": state.forehand,
        "tricks": _encode_tricks(state.tricks, state.trick, state.leader, state.trump, state.is_over, False),
        "player": [{"hand": codes_of(hand)} for hand in state.hands],
        "jassTyp": SCHIEBER,
    }
    if player_view is not None:
        data = {**data, "playerView": player_view}
    return data


# -- decoding helpers ----------------------------------------------------------


def _fail(where: Words, problem: Words, **facts: Any) -> InvalidMessageError:
    place, text = str(where), str(problem)
    return InvalidMessageError(
        f"{place}: {text}" if place else text,
        place=place,
        problem=text,
        place_words=where,
        problem_words=problem,
        **facts,
    )


def _require(data: dict[str, Any], key: str, where: Words = NOWHERE) -> Any:
    if key not in data:
        raise _fail(where, _("missing field {key!r}", key=key))
    return data[key]


def _int_field(data: dict[str, Any], key: str, allowed: Sequence[int], where: Words = NOWHERE) -> int:
    value = _require(data, key, where)
    if type(value) is not int or value not in allowed:
        raise _fail(
            where, _("{key!r} must be one of {allowed}, got {value!r}", key=key, allowed=list(allowed), value=value)
        )
    return value


# A list of cards and one card of it, as places in a message.
_INDEXED = {
    "trick {trick} cards": _("trick {trick} cards[{index}]").template,
    "player {seat} hand": _("player {seat} hand[{index}]").template,
}


def _cards_field(value: object, where: Words, trick: int | None = None) -> list[int]:
    """A list of card codes as ids; ``trick``: the (1-based) trick they are the cards of, if any."""
    if not isinstance(value, list):
        raise _fail(where, _("must be a list of card codes, got {value!r}", value=value))
    cards = []
    for i, code in enumerate(value):
        card = CARD_IDS.get(code) if isinstance(code, str) else None
        if card is None:
            at = {"trick": trick, "card": i + 1} if trick is not None else {}
            place = Words(_INDEXED.get(where.template, where.template + "[{index}]"), {**where.values, "index": i})
            raise _fail(place, _("unknown card code {code!r}", code=code), **at)
        cards.append(card)
    return cards


def _check_header(data: object, version_required: bool) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise InvalidMessageError(f"an HSLU message is a JSON object, got {type(data).__name__}")
    if "version" in data or version_required:
        version = _require(data, "version")
        if version != VERSION:
            raise _fail(
                NOWHERE, _("unsupported version {version!r} (expected {expected!r})", version=version, expected=VERSION)
            )
    if "jassTyp" in data and data["jassTyp"] not in JASS_TYPES:
        given, known = data["jassTyp"], list(JASS_TYPES)
        raise _fail(NOWHERE, _("unsupported jassTyp {given!r} (expected one of {known})", given=given, known=known))
    return data


def _check_decision(trump: int, forehand: int) -> None:
    if trump == -1 and forehand == 1:
        raise _fail(NOWHERE, _("forehand 1 says the trump was declared, but trump is -1"))
    if trump >= 0 and forehand == -1:
        raise _fail(NOWHERE, _("trump {trump} is declared, but forehand is -1 (no decision yet)", trump=trump))


class _PublicTricks:
    """The public facts of a round's tricks, checked against the rules (who led, won and scored)."""

    def __init__(self, data: dict[str, Any], dealer: int, trump: int) -> None:
        raw = _require(data, "tricks")
        if not isinstance(raw, list) or len(raw) > 9:
            raise _fail(NOWHERE, _("'tricks' must be a list of at most 9 tricks, got {value!r}", value=raw))
        if trump < 0 and any(isinstance(t, dict) and t.get("cards") for t in raw):
            raise _fail(NOWHERE, _("cards are played but no trump is declared"))
        self.tricks: list[Trick] = []
        self.trick: list[int] = []
        self.leader = next_seat(dealer)  # forehand leads the first trick
        seen: set[int] = set()
        for number, entry in enumerate(raw):
            where = _("trick {trick}", trick=number + 1)
            if not isinstance(entry, dict):
                raise _fail(where, _("must be an object, got {value!r}", value=entry))
            if len(self.tricks) < number:
                raise _fail(where, _("follows a trick that is not complete"))
            cards = _cards_field(entry.get("cards", []), _("trick {trick} cards", trick=number + 1), trick=number + 1)
            if len(cards) > 4:
                raise _fail(where, _("has {count} cards", count=len(cards)))
            for card in cards:
                if card in seen:
                    raise _fail(where, _("card {card} was already played", card=CARD_CODES[card]))
                seen.add(card)
            if trump < 0:
                raise _fail(where, _("a trick is listed before the trump is declared"))
            if "first" in entry and entry["first"] != self.leader:
                given, leader = entry["first"], self._who(self.leader)
                raise _fail(where, _("'first' is {given!r} but {seat} leads it", given=given, seat=leader))
            if len(cards) < 4:
                # The spec's own examples give the current trick arbitrary "points"; only "win" is wrong here.
                if "win" in entry:
                    raise _fail(where, _("an incomplete trick has no winner ('win')"))
                self.trick = cards
                continue
            winner = trick_winner(cards, self.leader, trump)
            points = trick_points(cards, trump, last=number == 8)
            if "win" in entry and entry["win"] != winner:
                given, seat = entry["win"], self._who(winner)
                raise _fail(where, _("'win' is {given!r} but the cards give {seat}", given=given, seat=seat))
            if "points" in entry and entry["points"] != points:
                given = entry["points"]
                raise _fail(where, _("'points' is {given!r} but the cards give {points}", given=given, points=points))
            self.tricks.append(Trick(self.leader, (cards[0], cards[1], cards[2], cards[3]), winner, points))
            self.leader = winner
        self.over = len(self.tricks) == 9
        if self.over:
            self.leader = -1
        self.played = seen

    @staticmethod
    def _who(seat: int) -> Words:
        # The seat's name is a word of the catalogues already (North, East, ...); the form is the same everywhere.
        return Words("{seat} ({name})", {"seat": seat, "name": Words(SEAT_NAMES[seat])})

    def played_by(self, seat: int) -> int:
        count = sum(1 for t in self.tricks for i in range(4) if t.seat_of(i) == seat)
        return count + sum(1 for i in range(len(self.trick)) if (self.leader - i) % 4 == seat)

    def to_move(self, dealer: int, trump: int, forehand: int) -> int:
        if self.over:
            return -1
        if trump < 0:
            return next_seat(dealer) if forehand == -1 else partner_of(next_seat(dealer))
        return (self.leader - len(self.trick)) % 4

    def points(self) -> tuple[int, int]:
        totals = [0, 0]
        for t in self.tricks:
            totals[t.winner % 2] += t.points
        return (totals[0], totals[1])


def _read_players(data: dict[str, Any]) -> list[list[int]]:
    raw = _require(data, "player")
    if not isinstance(raw, list) or len(raw) > 4:
        raise _fail(NOWHERE, _("'player' must be a list of at most 4 entries, got {value!r}", value=raw))
    hands = []
    for seat, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise _fail(_("player {seat}", seat=seat), _("must be an object with a 'hand', got {value!r}", value=entry))
        hands.append(_cards_field(entry.get("hand", []), _("player {seat} hand", seat=seat)))
    return hands + [[] for _ in range(4 - len(hands))]


# -- decoding ------------------------------------------------------------------


def decode_observation(data: object) -> Observation:
    """Read an HSLU request message into the viewer's ``Observation``.

    Checks the message against the rules: trick leaders, winners, points,
    duplicate cards, whose turn it is and the viewer's hand size. The viewer is
    ``playerView``; if that entry is empty and exactly one other entry holds
    cards (the original spec's form, and its second example), the hand and the
    view belong to that entry's seat.

    >>> import random
    >>> from games.engine import HEARTS, SOUTH, WEST, Action, RoundState
    >>> from games.engine.fair import random_deal
    >>> state = RoundState.deal(random_deal(random.Random(1)), dealer=WEST).apply(Action.trump(HEARTS))
    >>> message = encode_observation(state.observation(SOUTH))
    >>> message["playerView"], message["player"][SOUTH]["hand"][:3], message["player"][WEST]
    (2, ['DA', 'DJ', 'D8'], {'hand': []})
    >>> decode_observation(message) == state.observation(SOUTH)
    True
    >>> message["currentPlayer"] = WEST
    >>> decode_observation(message)
    Traceback (most recent call last):
      ...
    games.hslu.InvalidMessageError: ...
    """
    data = _check_header(data, version_required=True)
    dealer = _int_field(data, "dealer", range(4))
    trump = _int_field(data, "trump", (-1, *TRUMPS))
    forehand = _int_field(data, "forehand", (-1, 0, 1))
    _check_decision(trump, forehand)
    public = _PublicTricks(data, dealer, trump)
    player = public.to_move(dealer, trump, forehand)
    if "currentPlayer" in data and data["currentPlayer"] != player:
        raise _fail(NOWHERE, _current_player(data["currentPlayer"], player))
    viewer = _int_field(data, "playerView", range(4)) if "playerView" in data else -1
    hands = _read_players(data)
    holders = [seat for seat, hand in enumerate(hands) if hand]
    if len(holders) > 1:
        raise _fail(NOWHERE, _("an observation holds one hand, but seats {seats} have cards", seats=holders))
    if holders and holders[0] != viewer:
        viewer = holders[0]
    if viewer < 0:
        raise _fail(NOWHERE, _("missing field {key!r}", key="playerView"))
    hand = hands[viewer]
    expected = 9 - public.played_by(viewer)
    where = _("player {seat} hand", seat=viewer)
    if len(hand) != expected:
        raise _fail(where, _("holds {count} cards but should hold {expected}", count=len(hand), expected=expected))
    hand_mask = 0
    for card in hand:
        if card in public.played or hand_mask >> card & 1:
            raise _fail(where, _twice(card))
        hand_mask |= 1 << card
    sizes = tuple(len(hand) if seat == viewer else 9 - public.played_by(seat) for seat in range(4))
    return Observation(
        viewer=viewer,
        dealer=dealer,
        player=player,
        trump=trump,
        forehand=forehand,
        leader=public.leader,
        trick=tuple(public.trick),
        tricks=tuple(public.tricks),
        points=public.points(),
        hand=hand_mask,
        hand_sizes=(sizes[0], sizes[1], sizes[2], sizes[3]),
    )


def decode_round(data: object) -> RoundState:
    """Read a full-state round log and rebuild it by replaying every action through the engine.

    Raises ``InvalidMessageError`` naming the trick and the reason when the log
    is malformed, deals the wrong cards, plays an illegal card or records a
    wrong winner, wrong points or a wrong current player.
    """
    data = _check_header(data, version_required=False)
    dealer = _int_field(data, "dealer", range(4))
    trump = _int_field(data, "trump", (-1, *TRUMPS)) if "trump" in data else -1
    forehand = _int_field(data, "forehand", (-1, 0, 1))
    _check_decision(trump, forehand)
    public = _PublicTricks(data, dealer, trump)
    remaining = _read_players(data)
    starting = [0, 0, 0, 0]
    for seat, hand in enumerate(remaining):
        for card in hand:
            if card in public.played or starting[seat] >> card & 1:
                raise _fail(_("player {seat} hand", seat=seat), _twice(card))
            starting[seat] |= 1 << card
    for trick in public.tricks:
        for i, card in enumerate(trick.cards):
            starting[trick.seat_of(i)] |= 1 << card
    for i, card in enumerate(public.trick):
        starting[(public.leader - i) % 4] |= 1 << card
    try:
        state = RoundState.deal(starting, dealer)
    except InvalidActionError as exc:
        raise _fail(
            _("deal"), _("the hands and played cards are not a deal of 4 x 9 cards: {problem}", problem=str(exc))
        ) from None
    decisions = []
    if forehand == 0:
        decisions.append(Action.push())
    if trump >= 0:
        decisions.append(Action.trump(trump))
    for action in decisions:
        state = state.apply(action)
    for number, cards in enumerate([*(t.cards for t in public.tricks), public.trick]):
        for i, card in enumerate(cards):
            try:
                state = state.apply(Action.card(card))
            except IllegalActionError as exc:
                place = _("trick {trick} card {card}", trick=number + 1, card=i + 1)
                raise _fail(
                    place, Words("{message}", {"message": str(exc)}), trick=number + 1, card=i + 1, illegal=exc
                ) from None
    if "currentPlayer" in data and data["currentPlayer"] != state.player:
        raise _fail(NOWHERE, _current_player(data["currentPlayer"], state.player))
    return state


def _current_player(given: object, player: int) -> Words:
    return _("'currentPlayer' is {given!r} but {player} is to move", given=given, player=player)


def _twice(card: int) -> Words:
    return _("card {card} is also played or listed twice", card=CARD_CODES[card])


# -- replies -------------------------------------------------------------------


def parse_reply_body(body: bytes | str) -> Any:
    """Decode a bot's HTTP reply body as JSON (``InvalidReplyError`` kind ``not_json``)."""
    if nested_deeper_than(body, MAX_REPLY_DEPTH):  # json.loads would recurse into it
        raise InvalidReplyError(
            FaultKind.NOT_JSON, f"reply nests lists and objects more than {MAX_REPLY_DEPTH} levels deep"
        )
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        preview = body[:80] if isinstance(body, str) else body[:80].decode("utf-8", "replace")
        raise InvalidReplyError(FaultKind.NOT_JSON, f"reply is not JSON ({exc}): {preview!r}") from None


def _reply_field(reply: object, key: str) -> object:
    if not isinstance(reply, dict):
        raise InvalidReplyError(FaultKind.NOT_OBJECT, f"reply must be a JSON object with {key!r}, got {reply!r:.80}")
    if key not in reply:
        raise InvalidReplyError(FaultKind.MISSING_FIELD, f"reply has no {key!r} field: {reply!r:.80}")
    return reply[key]


def parse_trump_reply(reply: object) -> int:
    """Return the trump code of a ``{"trump": n}`` reply: 0..5, or 10 to push."""
    value = _reply_field(reply, "trump")
    if type(value) is not int:
        raise InvalidReplyError(FaultKind.WRONG_TYPE, f"'trump' must be an integer, got {value!r:.40}")
    if value not in TRUMPS and value != PUSH:
        raise InvalidReplyError(FaultKind.BAD_TRUMP, f"'trump' must be 0-5 or 10 (push), got {value!r}")
    return value


def parse_card_reply(reply: object) -> int:
    """Return the card id of a ``{"card": "C8"}`` reply.

    >>> parse_card_reply({"card": "HJ"})
    12
    >>> parse_card_reply({"card": "XX"})
    Traceback (most recent call last):
      ...
    games.hslu.InvalidReplyError: 'card' is not a card code: 'XX'
    """
    value = _reply_field(reply, "card")
    if not isinstance(value, str):
        raise InvalidReplyError(FaultKind.WRONG_TYPE, f"'card' must be a card code string, got {value!r:.40}")
    card = CARD_IDS.get(value)
    if card is None:
        raise InvalidReplyError(FaultKind.UNKNOWN_CARD, f"'card' is not a card code: {value!r:.40}")
    return card
