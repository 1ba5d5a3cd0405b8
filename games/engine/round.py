"""One round of Schieber: actions, tricks, the immutable round state and observations.

``RoundState`` is immutable: every action returns a new state. ``apply`` (and
``play`` / ``choose_trump``) validate against the rules and raise
``IllegalActionError``; the ``*_unchecked`` methods skip all validation and are
the fast path for search and replay of already-validated actions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .cards import (
    CARD_CODES,
    FULL_DECK,
    PUSH,
    SEAT_NAMES,
    TRUMP_NAMES,
    TRUMPS,
    card_from_code,
    check_card,
    codes_of,
    format_cards,
    iter_cards,
    mask_of,
    next_seat,
    partner_of,
    team_of,
)
from .errors import IllegalActionError, InvalidActionError
from .rules import (
    CARD_POINTS,
    LAST_TRICK_BONUS,
    MATCH_BONUS,
    WIN_RANK,
    illegal_card_reason,
    legal_mask_after,
    winning_card,
)

TRUMP_ACTION_OFFSET = 36  # action codes: cards 0..35, trumps 36..41, push 42
PUSH_CODE = TRUMP_ACTION_OFFSET + 6
_TRUMP_CONSTANTS = ("DIAMONDS", "HEARTS", "SPADES", "CLUBS", "OBE_ABE", "UNE_UFE")


@dataclass(frozen=True, slots=True)
class Action:
    """A move: choosing a trump (0..5), pushing (trump 10) or playing a card (0..35)."""

    kind: str
    value: int

    CARD = "card"
    TRUMP = "trump"

    def __post_init__(self) -> None:
        if self.kind == Action.CARD:
            check_card(self.value)
        elif self.kind == Action.TRUMP:
            if type(self.value) is not int or (self.value not in TRUMPS and self.value != PUSH):
                raise InvalidActionError(f"not a trump code (0-5, or 10 to push): {self.value!r}")
        else:
            raise InvalidActionError(f"unknown action kind: {self.kind!r}")

    @classmethod
    def card(cls, card: int | str) -> Action:
        """Return the action of playing ``card`` (an id or an HSLU code)."""
        return cls(cls.CARD, card_from_code(card) if isinstance(card, str) else card)

    @classmethod
    def trump(cls, trump: int) -> Action:
        """Return the action of declaring ``trump`` (0..5, or 10 to push)."""
        return cls(cls.TRUMP, trump)

    @classmethod
    def push(cls) -> Action:
        """Return the action of pushing the trump choice to the partner."""
        return cls(cls.TRUMP, PUSH)

    @property
    def is_card(self) -> bool:
        return self.kind == Action.CARD

    @property
    def is_push(self) -> bool:
        return self.kind == Action.TRUMP and self.value == PUSH

    @property
    def code(self) -> int:
        """A compact int for this action: card 0..35, trump 36..41, push 42."""
        if self.kind == Action.CARD:
            return self.value
        return PUSH_CODE if self.value == PUSH else TRUMP_ACTION_OFFSET + self.value

    @classmethod
    def from_code(cls, code: int) -> Action:
        """Return the action for a compact code (see ``code``)."""
        if type(code) is int and 0 <= code < TRUMP_ACTION_OFFSET:
            return cls(cls.CARD, code)
        if code == PUSH_CODE:
            return cls.push()
        if type(code) is int and TRUMP_ACTION_OFFSET <= code < PUSH_CODE:
            return cls(cls.TRUMP, code - TRUMP_ACTION_OFFSET)
        raise InvalidActionError(f"not an action code (0-42): {code!r}")

    def __str__(self) -> str:
        if self.kind == Action.CARD:
            return CARD_CODES[self.value]
        return TRUMP_NAMES[self.value]

    def __repr__(self) -> str:
        if self.kind == Action.CARD:
            return f"Action.card({CARD_CODES[self.value]!r})"
        if self.value == PUSH:
            return "Action.push()"
        return f"Action.trump({_TRUMP_CONSTANTS[self.value]})"


@dataclass(frozen=True, slots=True)
class Trick:
    """A completed trick: who led, the four cards in play order, the winner and its points."""

    first: int
    cards: tuple[int, int, int, int]
    winner: int
    points: int

    def seat_of(self, index: int) -> int:
        """Return the seat that played the ``index``-th card of this trick."""
        return (self.first - index) % 4

    def __repr__(self) -> str:
        return (
            f"Trick(first={SEAT_NAMES[self.first]}, cards=[{format_cards(self.cards)}], "
            f"winner={SEAT_NAMES[self.winner]}, points={self.points})"
        )


class RoundState(NamedTuple):
    """The full state of one round, including every hand. Immutable.

    A tuple underneath so that each card played costs one allocation (the
    engine's speed budget); compare and hash it like a value.
    """

    dealer: int
    hands: tuple[int, int, int, int]  # card masks of the cards still held
    trump: int  # -1 until declared
    forehand: int  # HSLU: -1 undecided, 1 declared by forehand, 0 pushed
    player: int  # seat to act, -1 when the round is over
    leader: int  # seat that leads the current trick, -1 when over
    trick: tuple[int, ...]  # cards of the current trick in play order
    top: int  # card winning the current trick so far, -1 if empty
    tricks: tuple[Trick, ...]  # completed tricks
    points: tuple[int, int]  # card points won so far (incl. last-trick bonus)

    # -- construction -------------------------------------------------------

    @classmethod
    def deal(cls, hands: Sequence[int | Iterable[int]], dealer: int) -> RoundState:
        """Start a round from four hands of nine cards (masks or card ids) and a dealer."""
        if type(dealer) is not int or not 0 <= dealer < 4:
            raise InvalidActionError(f"not a seat (0-3): {dealer!r}")
        masks = tuple(h if type(h) is int else mask_of(h) for h in hands)
        if len(masks) != 4:
            raise InvalidActionError(f"a deal has four hands, got {len(masks)}")
        seen = 0
        for seat, mask in enumerate(masks):
            if not 0 <= mask <= FULL_DECK or mask.bit_count() != 9:
                raise InvalidActionError(f"{SEAT_NAMES[seat]} must hold nine cards: {codes_of(mask & FULL_DECK)}")
            if seen & mask:
                raise InvalidActionError(f"cards dealt twice: {codes_of(seen & mask)}")
            seen |= mask
        forehand_seat = next_seat(dealer)
        return cls(dealer, masks, -1, -1, forehand_seat, forehand_seat, (), -1, (), (0, 0))

    # -- derived facts ------------------------------------------------------

    @property
    def forehand_seat(self) -> int:
        """The seat after the dealer: declares (or pushes) and leads the first trick."""
        return next_seat(self.dealer)

    @property
    def declarer(self) -> int:
        """The seat that declared the trump, or -1 before it is declared."""
        return _declarer(self.dealer, self.trump, self.forehand)

    @property
    def pushed(self) -> bool:
        return self.forehand == 0

    @property
    def is_over(self) -> bool:
        return self.player < 0

    @property
    def in_trump_phase(self) -> bool:
        return self.trump < 0

    @property
    def cards_played(self) -> int:
        return 4 * len(self.tricks) + len(self.trick)

    @property
    def is_match(self) -> bool:
        """True when the round is over and one team took all nine tricks."""
        return self.is_over and len({team_of(t.winner) for t in self.tricks}) == 1

    def score(self) -> tuple[int, int]:
        """Return the points of each team, including the match bonus once the round is over."""
        if self.is_match:
            team = team_of(self.tricks[0].winner)
            return (self.points[0] + MATCH_BONUS, 0) if team == 0 else (0, self.points[1] + MATCH_BONUS)
        return self.points

    def starting_hands(self) -> tuple[int, int, int, int]:
        """Return the four hands as dealt (masks)."""
        hands = list(self.hands)
        for trick in self.tricks:
            for index, card in enumerate(trick.cards):
                hands[trick.seat_of(index)] |= 1 << card
        for index, card in enumerate(self.trick):
            hands[(self.leader - index) % 4] |= 1 << card
        return tuple(hands)

    def actions(self) -> list[Action]:
        """Return the actions taken in this round, in order; replaying them from the deal rebuilds it."""
        actions = []
        if self.forehand == 0:
            actions.append(Action.push())
        if self.trump >= 0:
            actions.append(Action.trump(self.trump))
        for trick in self.tricks:
            actions.extend(Action.card(card) for card in trick.cards)
        actions.extend(Action.card(card) for card in self.trick)
        return actions

    def seat_of_action(self, index: int) -> int:
        """Return the seat that took the ``index``-th action of ``actions()``."""
        fh = self.forehand_seat
        decisions = (self.forehand == 0) + (self.trump >= 0)
        if index < decisions:
            return fh if index == 0 else partner_of(fh)
        card_index = index - decisions
        trick_no, position = divmod(card_index, 4)
        first = self.tricks[trick_no].first if trick_no < len(self.tricks) else self.leader
        return (first - position) % 4

    # -- legal moves --------------------------------------------------------

    def legal_mask(self) -> int:
        """Return the cards the player to move may play, as a mask (0 in the trump phase)."""
        if self.trump < 0 or self.player < 0:
            return 0
        hand = self.hands[self.player]
        if not self.trick:
            return hand
        return legal_mask_after(hand, self.trick[0] // 9, self.top, self.trump)

    def legal_cards(self) -> list[int]:
        return list(iter_cards(self.legal_mask()))

    def legal_actions(self) -> list[Action]:
        """Return every legal action of the player to move."""
        if self.player < 0:
            return []
        return _legal_actions(self.trump, self.forehand, self.legal_mask())

    # -- checked actions ----------------------------------------------------

    def apply(self, action: Action, seat: int | None = None) -> RoundState:
        """Return the state after ``action``; raise ``IllegalActionError`` if it is not allowed.

        With ``seat`` given, also check that it is that seat's turn.
        """
        if not isinstance(action, Action):
            raise InvalidActionError(f"not an action: {action!r}")
        if self.player < 0:
            raise IllegalActionError(f"illegal {action!r}: the round is over in {self.describe()}")
        if seat is not None:
            if type(seat) is not int or not 0 <= seat < 4:
                raise InvalidActionError(f"not a seat (0-3): {seat!r}")
            if seat != self.player:
                raise IllegalActionError(
                    f"illegal {action!r}: it is {SEAT_NAMES[self.player]}'s turn, not {SEAT_NAMES[seat]}'s,"
                    f" in {self.describe()}"
                )
        if self.trump < 0:
            if action.kind != Action.TRUMP:
                raise IllegalActionError(f"illegal {action!r}: a trump must be declared first in {self.describe()}")
            if action.value == PUSH and self.forehand != -1:
                raise IllegalActionError(
                    f"illegal {action!r}: only forehand may push, and only once, in {self.describe()}"
                )
            return self.choose_trump_unchecked(action.value)
        if action.kind != Action.CARD:
            raise IllegalActionError(f"illegal {action!r}: the trump is already declared in {self.describe()}")
        card = action.value
        if not self.legal_mask() >> card & 1:
            reason = illegal_card_reason(self.hands[self.player], self.trick, self.trump, card)
            raise IllegalActionError(
                f"illegal {action!r} by {SEAT_NAMES[self.player]}: {reason} in {self.describe(self.player)}"
            )
        return self.play_unchecked(card)

    def play(self, card: int | str, seat: int | None = None) -> RoundState:
        """Play ``card`` (an id or code) for the player to move, checked."""
        return self.apply(Action.card(card), seat)

    def choose_trump(self, trump: int, seat: int | None = None) -> RoundState:
        """Declare ``trump`` (0..5) or push (10) for the player to move, checked."""
        return self.apply(Action.trump(trump), seat)

    # -- unchecked fast path ------------------------------------------------

    def apply_unchecked(self, action: Action) -> RoundState:
        """Apply an action known to be legal (fast path: no validation)."""
        if action.kind == Action.CARD:
            return self.play_unchecked(action.value)
        return self.choose_trump_unchecked(action.value)

    def apply_code_unchecked(self, code: int) -> RoundState:
        """Apply a compact action code known to be legal (fast path: no validation)."""
        if code < TRUMP_ACTION_OFFSET:
            return self.play_unchecked(code)
        return self.choose_trump_unchecked(PUSH if code == PUSH_CODE else code - TRUMP_ACTION_OFFSET)

    def choose_trump_unchecked(self, trump: int) -> RoundState:
        """Declare a trump or push without validation (fast path)."""
        if trump == PUSH:
            return self._replace(forehand=0, player=partner_of(self.player))
        forehand_seat = next_seat(self.dealer)
        return self._replace(
            trump=trump, forehand=1 if self.forehand == -1 else 0, player=forehand_seat, leader=forehand_seat
        )

    def play_unchecked(self, card: int) -> RoundState:
        """Play ``card`` for the player to move without validation (fast path for search).

        The caller guarantees the trump is declared and the card is legal.
        """
        dealer, hands, trump, forehand, player, leader, trick, top, tricks, points = self
        if player == 0:
            hands = (hands[0] ^ (1 << card), hands[1], hands[2], hands[3])
        elif player == 1:
            hands = (hands[0], hands[1] ^ (1 << card), hands[2], hands[3])
        elif player == 2:
            hands = (hands[0], hands[1], hands[2] ^ (1 << card), hands[3])
        else:
            hands = (hands[0], hands[1], hands[2], hands[3] ^ (1 << card))
        if trick:
            if WIN_RANK[trump][trick[0] // 9][card] > WIN_RANK[trump][trick[0] // 9][top]:
                top = card
        else:
            top = card
        trick = trick + (card,)
        if len(trick) < 4:
            return tuple.__new__(
                RoundState, (dealer, hands, trump, forehand, (player + 3) % 4, leader, trick, top, tricks, points)
            )
        # The trick is complete: score it and let the winner lead.
        winner = (leader - trick.index(top)) % 4
        row = CARD_POINTS[trump]
        won = row[trick[0]] + row[trick[1]] + row[trick[2]] + row[trick[3]]
        if len(tricks) == 8:
            won += LAST_TRICK_BONUS
            next_player = -1
        else:
            next_player = winner
        points = (points[0] + won, points[1]) if winner % 2 == 0 else (points[0], points[1] + won)
        tricks = tricks + (Trick(leader, trick, winner, won),)
        return tuple.__new__(
            RoundState, (dealer, hands, trump, forehand, next_player, next_player, (), -1, tricks, points)
        )

    # -- views --------------------------------------------------------------

    def observation(self, seat: int | None) -> Observation:
        """Return what ``seat`` may know of this round; ``None`` gives the public (spectator) view."""
        viewer = -1 if seat is None else seat
        if viewer != -1 and (type(viewer) is not int or not 0 <= viewer < 4):
            raise InvalidActionError(f"not a seat (0-3): {seat!r}")
        return Observation(
            viewer=viewer,
            dealer=self.dealer,
            player=self.player,
            trump=self.trump,
            forehand=self.forehand,
            leader=self.leader,
            trick=self.trick,
            tricks=self.tricks,
            points=self.points,
            hand=self.hands[viewer] if viewer >= 0 else 0,
            hand_sizes=tuple(h.bit_count() for h in self.hands),
        )

    def describe(self, seat: int | None = None) -> str:
        """Summarize the public state (and ``seat``'s hand, if given) for messages and logs."""
        return _describe(self, None if seat is None else self.hands[seat], seat)

    def __repr__(self) -> str:
        hands = ", ".join(f"{SEAT_NAMES[s]}=[{format_cards(iter_cards(h))}]" for s, h in enumerate(self.hands))
        return f"<RoundState {_describe(self, None, None)[6:-1]}, hands: {hands}>"


@dataclass(frozen=True, slots=True)
class Observation:
    """What one seat may know of a round: the public state plus its own hand.

    ``viewer`` is -1 for the public view (spectators), whose ``hand`` is empty.
    """

    viewer: int
    dealer: int
    player: int
    trump: int
    forehand: int
    leader: int
    trick: tuple[int, ...]
    tricks: tuple[Trick, ...]
    points: tuple[int, int]
    hand: int
    hand_sizes: tuple[int, int, int, int]

    @property
    def forehand_seat(self) -> int:
        return next_seat(self.dealer)

    @property
    def declarer(self) -> int:
        return _declarer(self.dealer, self.trump, self.forehand)

    @property
    def is_over(self) -> bool:
        return self.player < 0

    @property
    def played_mask(self) -> int:
        """All cards already played in this round."""
        mask = mask_of(self.trick)
        for trick in self.tricks:
            mask |= mask_of(trick.cards)
        return mask

    @property
    def top(self) -> int:
        """The card winning the current trick so far, or -1."""
        return winning_card(self.trick, self.trump) if self.trick else -1

    def legal_mask(self) -> int:
        """Return the viewer's legal cards when it is the viewer's turn to play, else 0."""
        if self.viewer != self.player or self.trump < 0 or self.player < 0:
            return 0
        if not self.trick:
            return self.hand
        return legal_mask_after(self.hand, self.trick[0] // 9, self.top, self.trump)

    def legal_cards(self) -> list[int]:
        return list(iter_cards(self.legal_mask()))

    def legal_actions(self) -> list[Action]:
        """Return the viewer's legal actions when it is the viewer's turn, else an empty list."""
        if self.viewer != self.player or self.player < 0:
            return []
        return _legal_actions(self.trump, self.forehand, self.legal_mask())

    def __repr__(self) -> str:
        who = "public" if self.viewer < 0 else SEAT_NAMES[self.viewer]
        return f"<Observation {who}: {_describe(self, self.hand if self.viewer >= 0 else None, self.viewer)[6:-1]}>"


def _declarer(dealer: int, trump: int, forehand: int) -> int:
    if trump < 0:
        return -1
    forehand_seat = next_seat(dealer)
    return forehand_seat if forehand == 1 else partner_of(forehand_seat)


def _legal_actions(trump: int, forehand: int, legal_cards: int) -> list[Action]:
    if trump < 0:
        trumps = [Action.trump(t) for t in TRUMPS]
        return [*trumps, Action.push()] if forehand == -1 else trumps
    return [Action.card(card) for card in iter_cards(legal_cards)]


def _describe(state: RoundState | Observation, hand: int | None, seat: int | None) -> str:
    parts = [f"dealer={SEAT_NAMES[state.dealer]}"]
    if state.trump >= 0:
        declarer = state.declarer
        pushed = ", pushed" if state.forehand == 0 else ""
        parts.append(f"trump={TRUMP_NAMES[state.trump]} by {SEAT_NAMES[declarer]}{pushed}")
    elif state.forehand == 0:
        parts.append("pushed")
    parts.append(f"tricks={len(state.tricks)}")
    if state.trick:
        parts.append(f"trick=[{format_cards(state.trick)}] led by {SEAT_NAMES[state.leader]}")
    parts.append(f"to move={SEAT_NAMES[state.player]}" if state.player >= 0 else "over")
    if hand is not None and seat is not None and seat >= 0:
        parts.append(f"{SEAT_NAMES[seat]} holds [{format_cards(iter_cards(hand))}]")
    parts.append(f"points={state.points[0]}:{state.points[1]}")
    return "round(" + ", ".join(parts) + ")"
