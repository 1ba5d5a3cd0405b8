"""One round of Schieber: actions, tricks, the immutable round state and observations.

``RoundState`` is immutable: every action returns a new state. ``apply`` (and
``play`` / ``choose_trump``) validate against the rules and raise
``IllegalActionError``; the ``*_unchecked`` methods skip all validation and are
the fast path for search and replay of already-validated actions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
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
    four,
    iter_cards,
    mask_of,
    next_seat,
    partner_of,
    team_of,
)
from .errors import IllegalActionError, IllegalReason, InvalidActionError
from .rules import (
    CARD_POINTS,
    LAST_TRICK_BONUS,
    MATCH_BONUS,
    WIN_RANK,
    illegal_card_reason,
    legal_mask_after,
    refusal,
    winning_card,
)
from .weis import (
    STOECK_POINTS,
    cards_of_weis,
    check_weis,
    hand_weis,
    scoring_team,
    stoeck_cards,
    team_weis_points,
    weis_name,
    weis_points,
)

TRUMP_ACTION_OFFSET = 36  # action codes: cards 0..35, trumps 36..41, push 42
PUSH_CODE = TRUMP_ACTION_OFFSET + 6
STOECK_ACTION_OFFSET = 100  # Stöck announced with a card: 100..135
WEIS_ACTION_OFFSET = 2000  # a Weis declared: 2000 + its code (2303..3005)
_TRUMP_CONSTANTS = ("DIAMONDS", "HEARTS", "SPADES", "CLUBS", "OBE_ABE", "UNE_UFE")


@dataclass(frozen=True, slots=True)
class Action:
    """A move: choosing a trump (0..5), pushing (trump 10) or playing a card (0..35).

    At a table with Weis and Stöck two announcements come before a card:
    ``weis`` (a Weis code, see ``games.engine.weis``) in the first trick, and
    ``stoeck`` (the King or Queen of trump about to be played as the second of
    the two). They do not pass the turn on.
    """

    kind: str
    value: int

    CARD = "card"
    TRUMP = "trump"
    WEIS = "weis"
    STOECK = "stoeck"

    def __post_init__(self) -> None:
        if self.kind == Action.CARD or self.kind == Action.STOECK:
            check_card(self.value)
        elif self.kind == Action.WEIS:
            check_weis(self.value)
        elif self.kind == Action.TRUMP:
            if type(self.value) is not int or (self.value not in TRUMPS and self.value != PUSH):
                raise InvalidActionError(f"not a trump code (0-5, or 10 to push): {self.value!r}")
        else:
            raise InvalidActionError(f"unknown action kind: {self.kind!r}")

    @classmethod
    def card(cls, card: int | str) -> Action:
        """Return the action of playing ``card`` (an id or an HSLU code).

        >>> Action.card("HJ"), Action.card("HJ").code, Action.from_code(12)
        (Action.card('HJ'), 12, Action.card('HJ'))
        """
        return cls(cls.CARD, card_from_code(card) if isinstance(card, str) else card)

    @classmethod
    def trump(cls, trump: int) -> Action:
        """Return the action of declaring ``trump`` (0..5, or 10 to push)."""
        return cls(cls.TRUMP, trump)

    @classmethod
    def push(cls) -> Action:
        """Return the action of pushing the trump choice to the partner."""
        return cls(cls.TRUMP, PUSH)

    @classmethod
    def weis(cls, code: int) -> Action:
        """Return the action of declaring the Weis ``code`` (first trick, before one's card)."""
        return cls(cls.WEIS, code)

    @classmethod
    def stoeck(cls, card: int | str) -> Action:
        """Return the action of announcing Stöck with ``card``, the second of King and Queen of trump."""
        return cls(cls.STOECK, card_from_code(card) if isinstance(card, str) else card)

    @property
    def is_card(self) -> bool:
        return self.kind == Action.CARD

    @property
    def is_announcement(self) -> bool:
        """A Weis or Stöck: said before a card, the same player then moves again."""
        return self.kind == Action.WEIS or self.kind == Action.STOECK

    @property
    def is_push(self) -> bool:
        return self.kind == Action.TRUMP and self.value == PUSH

    @property
    def code(self) -> int:
        """A compact int for this action: card 0..35, trump 36..41, push 42."""
        if self.kind == Action.CARD:
            return self.value
        if self.kind == Action.STOECK:
            return STOECK_ACTION_OFFSET + self.value
        if self.kind == Action.WEIS:
            return WEIS_ACTION_OFFSET + self.value
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
        if type(code) is int and STOECK_ACTION_OFFSET <= code < STOECK_ACTION_OFFSET + 36:
            return cls(cls.STOECK, code - STOECK_ACTION_OFFSET)
        if type(code) is int and code > WEIS_ACTION_OFFSET:
            return cls(cls.WEIS, code - WEIS_ACTION_OFFSET)
        raise InvalidActionError(f"not an action code (0-42, 100-135 Stöck, 2000+ Weis): {code!r}")

    def __str__(self) -> str:
        if self.kind == Action.CARD:
            return CARD_CODES[self.value]
        if self.kind == Action.STOECK:
            return f"Stöck {CARD_CODES[self.value]}"
        if self.kind == Action.WEIS:
            return f"Weis {weis_name(self.value)}"
        return TRUMP_NAMES[self.value]

    def __repr__(self) -> str:
        if self.kind == Action.CARD:
            return f"Action.card({CARD_CODES[self.value]!r})"
        if self.kind == Action.STOECK:
            return f"Action.stoeck({CARD_CODES[self.value]!r})"
        if self.kind == Action.WEIS:
            return f"Action.weis({self.value})"
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
    # Weis and Stöck (a table option): the Weis codes each seat declared, in order; None when the
    # table plays without them (then nothing below changes the round).
    declared: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None = None
    stoeck: int = -1  # the seat that announced Stöck, -1 if nobody did (yet)

    # -- construction -------------------------------------------------------

    @classmethod
    def deal(cls, hands: Sequence[int | Iterable[int]], dealer: int, weis: bool = False) -> RoundState:
        """Start a round from four hands of nine cards (masks or card ids) and a dealer.

        ``weis``: the table plays with Weis and Stöck.
        """
        if type(dealer) is not int or not 0 <= dealer < 4:
            raise InvalidActionError(f"not a seat (0-3): {dealer!r}")
        masks = tuple(h if isinstance(h, int) else mask_of(h) for h in hands)
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
        declared = ((), (), (), ()) if weis else None
        return cls(dealer, four(masks), -1, -1, forehand_seat, forehand_seat, (), -1, (), (0, 0), declared, -1)

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

    @property
    def weis_on(self) -> bool:
        """The round is played with Weis and Stöck."""
        return self.declared is not None

    @property
    def weis_team(self) -> int:
        """The team that scores the Weis (decided with the first trick), or -1 (not yet, or nobody declared)."""
        if self.declared is None or not self.tricks:
            return -1
        return scoring_team(self.declared, self.trump, self.forehand_seat)

    def weis_points(self) -> tuple[int, int]:
        """The Weis each team scored (0 before the first trick is complete)."""
        team = self.weis_team
        if team < 0 or self.declared is None:
            return (0, 0)
        points = team_weis_points(self.declared, team)
        return (points, 0) if team == 0 else (0, points)

    def stoeck_points(self) -> tuple[int, int]:
        """The Stöck each team announced."""
        if self.stoeck < 0:
            return (0, 0)
        return (STOECK_POINTS, 0) if self.stoeck % 2 == 0 else (0, STOECK_POINTS)

    def score(self) -> tuple[int, int]:
        """Return the points of each team: cards, the match bonus once the round is over, Weis and Stöck."""
        if self.is_match:
            team = team_of(self.tricks[0].winner)
            cards = (self.points[0] + MATCH_BONUS, 0) if team == 0 else (0, self.points[1] + MATCH_BONUS)
        else:
            cards = self.points
        if self.declared is None:
            return cards
        weis, stoeck = self.weis_points(), self.stoeck_points()
        return (cards[0] + weis[0] + stoeck[0], cards[1] + weis[1] + stoeck[1])

    def starting_hands(self) -> tuple[int, int, int, int]:
        """Return the four hands as dealt (masks)."""
        hands = list(self.hands)
        for trick in self.tricks:
            for index, card in enumerate(trick.cards):
                hands[trick.seat_of(index)] |= 1 << card
        for index, card in enumerate(self.trick):
            hands[(self.leader - index) % 4] |= 1 << card
        return four(hands)

    def actions(self) -> list[Action]:
        """Return the actions taken in this round, in order; replaying them from the deal rebuilds it."""
        return [action for _, action in self.seated_actions()]

    def seated_actions(self) -> list[tuple[int, Action]]:
        """Return ``(seat, action)`` of every action taken in this round, in order."""
        fh = self.forehand_seat
        actions = []
        if self.forehand == 0:
            actions.append((fh, Action.push()))
        if self.trump >= 0:
            actions.append((fh if self.forehand == 1 else partner_of(fh), Action.trump(self.trump)))
        stoeck_card = self._stoeck_card()
        played: list[tuple[int, tuple[int, ...]]] = [(t.first, t.cards) for t in self.tricks]
        if self.trick:
            played.append((self.leader, self.trick))
        for trick_no, (first, cards) in enumerate(played):
            for index, card in enumerate(cards):
                seat = (first - index) % 4
                if trick_no == 0 and self.declared is not None:
                    actions.extend((seat, Action.weis(code)) for code in self.declared[seat])
                if card == stoeck_card:
                    actions.append((seat, Action.stoeck(card)))
                actions.append((seat, Action.card(card)))
        if not self.tricks and self.declared is not None and self.player >= 0 and self.trump >= 0:
            # Weis declared by the player to move, who has not played yet.
            actions.extend((self.player, Action.weis(code)) for code in self.declared[self.player])
        if self.stoeck >= 0 and stoeck_card < 0:
            # Stöck announced by the player to move, whose card is still to come.
            actions.append((self.stoeck, Action.stoeck(self._stoeck_pending())))
        return actions

    def stoeck_card(self) -> int:
        """The card Stöck were announced with (played, or still to be played), or -1."""
        if self.stoeck < 0:
            return -1
        played = self._stoeck_card()
        return played if played >= 0 else self._stoeck_pending()

    def _stoeck_card(self) -> int:
        """The card Stöck were announced with, once played; -1 otherwise."""
        if self.stoeck < 0:
            return -1
        pair = stoeck_cards(self.trump)
        if self.hands[self.stoeck] & pair:
            return -1
        # Both are played: the one played second.
        last = -1
        for trick in self.tricks:
            for card in trick.cards:
                if pair >> card & 1:
                    last = card
        for card in self.trick:
            if pair >> card & 1:
                last = card
        return last

    def _stoeck_pending(self) -> int:
        """The card Stöck were announced with and that is still to be played."""
        return (self.hands[self.stoeck] & stoeck_cards(self.trump)).bit_length() - 1

    # -- legal moves --------------------------------------------------------

    def stoeck_due(self) -> int:
        """The card the player to move announced Stöck with and must play now, or -1."""
        if self.trump < 0 or self.player < 0 or self.stoeck != self.player:
            return -1
        return (self.hands[self.player] & stoeck_cards(self.trump)).bit_length() - 1

    def legal_mask(self) -> int:
        """Return the cards the player to move may play, as a mask (0 in the trump phase)."""
        if self.trump < 0 or self.player < 0:
            return 0
        hand = self.hands[self.player]
        if self.stoeck == self.player and hand & stoeck_cards(self.trump):
            return hand & stoeck_cards(self.trump)  # Stöck announced: the card comes now
        if not self.trick:
            return hand
        return legal_mask_after(hand, self.trick[0] // 9, self.top, self.trump)

    def legal_cards(self) -> list[int]:
        """Return the card ids the player to move may play (none before the trump is declared).

        >>> from games.engine import EAST, HEARTS, codes_of, mask_of, mask_from_codes
        >>> north = mask_from_codes(["DA", "DK", "DQ", "DJ", "D10", "D9", "D8", "D7", "D6"])
        >>> east = mask_from_codes(["HA", "HK", "HQ", "S6", "S7", "S8", "S9", "S10", "SJ"])
        >>> south = mask_from_codes(["HJ", "H10", "H9", "H8", "H7", "H6", "SQ", "SK", "SA"])
        >>> state = RoundState.deal([north, east, south, FULL_DECK ^ north ^ east ^ south], dealer=EAST)
        >>> state = state.choose_trump(HEARTS).play("DA")        # North leads a Diamond
        >>> codes_of(mask_of(state.legal_cards()))              # West holds the Clubs: any of them
        ['CA', 'CK', 'CQ', 'CJ', 'C10', 'C9', 'C8', 'C7', 'C6']
        >>> state = state.play("C6").play("HJ")                 # South has no Diamond: trumps with the Puur
        >>> codes_of(mask_of(state.legal_cards()))              # East may not under-trump, so no HA, HK, HQ
        ['SJ', 'S10', 'S9', 'S8', 'S7', 'S6']
        """
        return list(iter_cards(self.legal_mask()))

    def legal_actions(self) -> list[Action]:
        """Return every legal action of the player to move: announcements (Weis, Stöck) first, then cards."""
        if self.player < 0:
            return []
        cards = _legal_actions(self.trump, self.forehand, self.legal_mask())
        if self.declared is None or self.trump < 0:
            return cards
        return self.announcements() + cards

    def announcements(self) -> list[Action]:
        """The Weis and Stöck the player to move may announce now (none at a table without them)."""
        if self.declared is None or self.trump < 0 or self.player < 0:
            return []
        player = self.player
        return _announcements(
            self.declared,
            self.stoeck,
            self.trump,
            player,
            len(self.tricks),
            self.hands[player],
            self.legal_mask(),
            lambda: self.starting_hands()[player],
        )

    # -- checked actions ----------------------------------------------------

    def apply(self, action: Action, seat: int | None = None) -> RoundState:
        """Return the state after ``action``; raise ``IllegalActionError`` if it is not allowed.

        With ``seat`` given, also check that it is that seat's turn.
        """
        if not isinstance(action, Action):
            raise InvalidActionError(f"not an action: {action!r}")
        if self.player < 0:
            raise IllegalActionError(
                f"illegal {action!r}: the round is over in {self.describe()}",
                reason=IllegalReason.ROUND_OVER,
                state=self,
            )
        if seat is not None:
            if type(seat) is not int or not 0 <= seat < 4:
                raise InvalidActionError(f"not a seat (0-3): {seat!r}")
            if seat != self.player:
                raise self._refused(
                    action,
                    f"it is {SEAT_NAMES[self.player]}'s turn, not {SEAT_NAMES[seat]}'s, in {self.describe()}",
                    IllegalReason.NOT_YOUR_TURN,
                    seat,
                )
        if self.trump < 0:
            if action.kind != Action.TRUMP:
                raise self._refused(
                    action, f"a trump must be declared first in {self.describe()}", IllegalReason.TRUMP_FIRST
                )
            if action.value == PUSH and self.forehand != -1:
                raise self._refused(
                    action, f"only forehand may push, and only once, in {self.describe()}", IllegalReason.PUSH
                )
            return self.choose_trump_unchecked(action.value)
        if action.is_announcement:
            self._check_announcement(action)
            return self.announce_unchecked(action)
        if action.kind != Action.CARD:
            raise self._refused(
                action, f"the trump is already declared in {self.describe()}", IllegalReason.TRUMP_DECLARED
            )
        card = action.value
        if not self.legal_mask() >> card & 1:
            due = self.stoeck_due()
            why = illegal_card_reason(self.hands[self.player], self.trick, self.trump, card, due)
            raise IllegalActionError(
                f"illegal {action!r} by {SEAT_NAMES[self.player]}: {why} in {self.describe(self.player)}",
                reason=IllegalReason(refusal(self.hands[self.player], self.trick, self.trump, card, due)[0]),
                seat=self.player,
                card=card,
                why=why,
                state=self,
            )
        return self.play_unchecked(card)

    def _refused(
        self, action: Action, message: str, reason: IllegalReason, seat: int | None = None
    ) -> IllegalActionError:
        """``illegal <action>: <message>``, with its reason and seat (the player to move unless given)."""
        who = self.player if seat is None else seat
        return IllegalActionError(f"illegal {action!r}: {message}", reason=reason, seat=who, state=self)

    def _check_announcement(self, action: Action) -> None:
        """Raise ``IllegalActionError`` unless the player to move may announce this Weis or Stöck now."""
        who = SEAT_NAMES[self.player]

        if self.declared is None:
            raise self._refused(action, "this table plays without Weis and Stöck", IllegalReason.NO_WEIS)
        if action.kind == Action.WEIS:
            if self.tricks:
                raise self._refused(
                    action, "Weis are declared in the first trick only", IllegalReason.WEIS_AFTER_FIRST_TRICK
                )
            if action.value in self.declared[self.player]:
                raise self._refused(
                    action, f"{who} already declared {weis_name(action.value)}", IllegalReason.WEIS_DECLARED
                )
            if action.value not in hand_weis(self.hands[self.player]):
                raise self._refused(
                    action,
                    f"{who} does not hold {weis_name(action.value)} in {self.describe(self.player)}",
                    IllegalReason.WEIS_NOT_HELD,
                )
            return
        if Action.stoeck(action.value) not in self.announcements():
            raise self._refused(
                action,
                "Stöck are announced by the holder of King and Queen of trump as the"
                f" second of them is played, in {self.describe(self.player)}",
                IllegalReason.STOECK,
            )

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
        if action.is_announcement:
            return self.announce_unchecked(action)
        return self.choose_trump_unchecked(action.value)

    def announce_unchecked(self, action: Action) -> RoundState:
        """Record a Weis or Stöck of the player to move without validation; the turn stays."""
        if action.kind == Action.STOECK:
            return self._replace(stoeck=self.player)
        assert self.declared is not None, "the caller checked that this table plays with Weis"
        declared = list(self.declared)
        declared[self.player] = (*declared[self.player], action.value)
        return self._replace(declared=(declared[0], declared[1], declared[2], declared[3]))

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
        dealer, hands, trump, forehand, player, leader, trick, top, tricks, points, declared, stoeck = self
        following = (player + 3) % 4
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
        if len(trick) != 4:  # "!=", not "<": mypy narrows a full trick to four cards
            return tuple.__new__(
                RoundState,
                (dealer, hands, trump, forehand, following, leader, trick, top, tricks, points, declared, stoeck),
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
            RoundState,
            (dealer, hands, trump, forehand, next_player, next_player, (), -1, tricks, points, declared, stoeck),
        )

    # -- views --------------------------------------------------------------

    def observation(self, seat: int | None) -> Observation:
        """Return what ``seat`` may know of this round; ``None`` gives the public (spectator) view."""
        viewer = -1 if seat is None else seat
        if viewer != -1 and (type(viewer) is not int or not 0 <= viewer < 4):
            raise InvalidActionError(f"not a seat (0-3): {seat!r}")
        declared = self.declared
        shown_weis: tuple[tuple[int, ...], ...] | None = None
        announced_weis: tuple[tuple[int, ...], ...] | None = None
        weis_team = stoeck = -1
        if declared is not None:
            weis_team, stoeck = self.weis_team, self.stoeck
            shown_weis = tuple(
                codes if seat == viewer or team_of(seat) == weis_team else () for seat, codes in enumerate(declared)
            )
            announced_weis = tuple(tuple(weis_points(code) for code in codes) for codes in declared)
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
            hand_sizes=four(h.bit_count() for h in self.hands),
            shown_weis=shown_weis,
            announced_weis=announced_weis,
            weis_team=weis_team,
            stoeck=stoeck,
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
    # Weis and Stöck, at a table with them (None otherwise). ``shown_weis``: per seat, the Weis
    # codes whose cards the viewer may see (its own; everyone's of the scoring team once the first
    # trick decided it). ``announced_weis``: per seat, the points of each Weis it declared (said
    # aloud, so public; the cards are not).
    shown_weis: tuple[tuple[int, ...], ...] | None = None
    announced_weis: tuple[tuple[int, ...], ...] | None = None
    weis_team: int = -1
    stoeck: int = -1

    @property
    def forehand_seat(self) -> int:
        return next_seat(self.dealer)

    @property
    def weis_on(self) -> bool:
        return self.shown_weis is not None

    def shown_cards(self, seat: int) -> int:
        """Cards ``seat`` still holds that the viewer knows of from its shown Weis (a mask)."""
        if self.shown_weis is None:
            return 0
        return cards_of_weis(self.shown_weis[seat]) & ~self.played_mask

    def dealt_hand(self) -> int:
        """The viewer's hand as dealt: what it holds and what it played."""
        hand = self.hand
        for trick in self.tricks:
            for index, card in enumerate(trick.cards):
                if trick.seat_of(index) == self.viewer:
                    hand |= 1 << card
        for index, card in enumerate(self.trick):
            if (self.leader - index) % 4 == self.viewer:
                hand |= 1 << card
        return hand

    def weis_points(self) -> tuple[int, int]:
        """The Weis each team scored (decided with the first trick)."""
        if self.weis_team < 0 or self.announced_weis is None:
            return (0, 0)
        t = self.weis_team
        points = sum(self.announced_weis[t]) + sum(self.announced_weis[t + 2])
        return (points, 0) if t == 0 else (0, points)

    def stoeck_points(self) -> tuple[int, int]:
        if self.stoeck < 0:
            return (0, 0)
        return (STOECK_POINTS, 0) if self.stoeck % 2 == 0 else (0, STOECK_POINTS)

    def announcements(self) -> list[Action]:
        """The Weis and Stöck the viewer may announce now (none unless it is the viewer's turn to play)."""
        if self.shown_weis is None or self.viewer != self.player or self.trump < 0 or self.player < 0:
            return []
        # The viewer's own declarations are all in shown_weis.
        return _announcements(
            self.shown_weis,
            self.stoeck,
            self.trump,
            self.viewer,
            len(self.tricks),
            self.hand,
            self.legal_mask(),
            self.dealt_hand,
        )

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

    def stoeck_due(self) -> int:
        """The card the viewer announced Stöck with and must play now (its turn), or -1."""
        if self.viewer != self.player or self.trump < 0 or self.player < 0 or self.stoeck != self.viewer:
            return -1
        return (self.hand & stoeck_cards(self.trump)).bit_length() - 1

    def legal_mask(self) -> int:
        """Return the viewer's legal cards when it is the viewer's turn to play, else 0."""
        if self.viewer != self.player or self.trump < 0 or self.player < 0:
            return 0
        if self.stoeck == self.viewer and self.hand & stoeck_cards(self.trump):
            return self.hand & stoeck_cards(self.trump)  # Stöck announced: the card comes now
        if not self.trick:
            return self.hand
        return legal_mask_after(self.hand, self.trick[0] // 9, self.top, self.trump)

    def legal_cards(self) -> list[int]:
        return list(iter_cards(self.legal_mask()))

    def legal_actions(self) -> list[Action]:
        """Return the viewer's legal actions when it is the viewer's turn (announcements first), else []."""
        if self.viewer != self.player or self.player < 0:
            return []
        return self.announcements() + _legal_actions(self.trump, self.forehand, self.legal_mask())

    def __repr__(self) -> str:
        who = "public" if self.viewer < 0 else SEAT_NAMES[self.viewer]
        return f"<Observation {who}: {_describe(self, self.hand if self.viewer >= 0 else None, self.viewer)[6:-1]}>"


def _declarer(dealer: int, trump: int, forehand: int) -> int:
    if trump < 0:
        return -1
    forehand_seat = next_seat(dealer)
    return forehand_seat if forehand == 1 else partner_of(forehand_seat)


def _announcements(
    declared: Sequence[Sequence[int]],
    stoeck: int,
    trump: int,
    player: int,
    tricks_done: int,
    hand: int,
    legal: int,
    dealt: Callable[[], int],
) -> list[Action]:
    """The Weis and Stöck ``player`` may announce before its next card (``dealt()``: its hand as dealt)."""
    if tricks_done == 0:
        return [Action.weis(code) for code in hand_weis(hand) if code not in declared[player]]
    pair = stoeck_cards(trump)
    held = hand & pair
    if stoeck >= 0 or not held or held == pair or not legal & held or dealt() & pair != pair:
        return []
    return [Action.stoeck(held.bit_length() - 1)]


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
