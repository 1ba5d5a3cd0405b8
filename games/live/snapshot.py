"""What each viewer of a table sees: the public state, rendered once per event, plus their own hand.

A table's view has a public part — the table, its seats, who is online, the
game without any hand — and a private part: ``you`` (who the viewer is at the
table) and, for a seated player, ``hand``, ``legal`` and ``legal_trumps``.

The public part is built once per event by the process that made the change
(``Public``: JSON text plus the few facts needed to personalize it), and every
connection adds only its own private part, from the engine state the process
already holds. So the cost of an event does not grow with its watchers, and no
watcher reads the database to render a move.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import OuterRef, Prefetch, Q, Subquery
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from games import access
from games.catalogue import SeatKind, abandon_parts, bot_choices, builtin_bots
from games.decks import Deck
from games.engine import (
    CARD_CODES,
    FAIR,
    PUSH,
    TRUMPS,
    Action,
    GameState,
    RoundState,
    Trick,
    codes_of,
    iter_cards,
    refusal,
    stoeck_cards,
    team_of,
    weis_cards,
    weis_name,
    weis_points,
)
from games.engine.weis import QUARTET_BASE, RUN_NAMES
from games.live import fastpath, states
from games.live.fastpath import TableSeatRow
from games.models import ROUND_PAUSES, Connection, Fault, Game, GameSeat, Player, Seat, SeatFields, Table


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _trick_cards(cards: tuple[int, ...], first: int) -> list[dict[str, Any]]:
    return [{"seat": (first - i) % 4, "card": CARD_CODES[c]} for i, c in enumerate(cards)]


def _trick(trick: Trick) -> dict[str, Any]:
    return {"cards": _trick_cards(trick.cards, trick.first), "winner": trick.winner, "points": trick.points}


def _previous_trick(state: GameState) -> dict[str, Any] | None:
    """The game's most recently completed trick, even when it ended the previous round."""
    for index in range(state.round_index, -1, -1):
        if state.rounds[index].tricks:
            return {**_trick(state.rounds[index].tricks[-1]), "round": index + 1}
    return None


def weis_entry(code: int, shown: bool = True) -> dict[str, Any]:
    """One declared Weis: its points, and (when the viewer may see its cards) what it is."""
    if not shown:
        return {"points": weis_points(code)}
    return {"points": weis_points(code), "code": code, "name": weis_name(code), "cards": codes_of(weis_cards(code))}


def weis_part(rnd: RoundState, factor: int, reveal: bool) -> dict[str, Any] | None:
    """A round's Weis and Stöck for everyone: every declared Weis's points (said aloud), the cards of
    those the scoring team showed (``reveal``: all of them, once the game is over), who scores them."""
    if rnd.declared is None:
        return None
    shown = rnd.observation(None).shown_weis
    assert shown is not None, "a round with Weis has a shown_weis view"
    return {
        "declared": [
            [weis_entry(code, reveal or code in shown[seat]) for code in codes]
            for seat, codes in enumerate(rnd.declared)
        ],
        "team": rnd.weis_team,  # -1: not decided yet (first trick), or nobody declared
        "points": list(rnd.weis_points()),
        "stoeck": rnd.stoeck,  # the seat that announced Stöck, or -1
        "stoeck_points": list(rnd.stoeck_points()),
        "factor": factor,  # the round's multiplier, applied to Weis and Stöck as to cards
    }


# The engine's names of four of a kind in the page's language (runs keep their Swiss names: Dreiblatt...).
_QUARTET_WORDS = {
    "four Jacks": gettext_lazy("four Jacks"),
    "four Nines": gettext_lazy("four Nines"),
    "four Aces": gettext_lazy("four Aces"),
    "four Kings": gettext_lazy("four Kings"),
    "four Queens": gettext_lazy("four Queens"),
    "four Tens": gettext_lazy("four Tens"),
}


def local_weis_name(entry: dict[str, Any], deck: Deck) -> str:
    """A shown Weis for a page, its cards in the deck's names: "Vierblatt ♥A-♥10", "Dreiblatt Eicheln Banner-8"
    (with an en dash), "vier Bauern"."""
    cards = entry["cards"]
    if entry["code"] >= QUARTET_BASE:
        return str(_QUARTET_WORDS.get(entry["name"], entry["name"]))
    run = RUN_NAMES[len(cards)]  # Swiss names in every language
    top, low = cards[0], cards[-1]  # codes_of lists a suit's cards from the Ace down
    if deck.symbols:
        return f"{run} {deck.card_text(top)}\N{EN DASH}{deck.card_text(low)}"
    return f"{run} {deck.suit_name(top[0])} {deck.rank_name(top[1:])}\N{EN DASH}{deck.rank_name(low[1:])}"


def weis_rounds(view: dict[str, Any], deck: Deck) -> list[dict[str, Any]]:
    """Each round's Weis and Stöck of a game view, as lines to read (the result page), cards in ``deck``'s names."""
    rows = []
    for r in view.get("rounds") or []:
        weis = r.get("weis")
        if weis is None:
            continue
        lines = []
        for seat, entries in enumerate(weis["declared"]):
            for entry in entries:
                points = entry["points"]
                if "name" in entry:
                    shown = f"{local_weis_name(entry, deck)} ({points})"
                else:
                    shown = gettext("{points} (cards not shown)").format(points=points)
                lines.append({"seat": seat, "text": shown, "scored": team_of(seat) == weis["team"]})
        team = weis["team"]
        rows.append(
            {
                "round": r["round"],
                "lines": lines,
                "team": team,
                "points": sum(weis["points"]),
                "stoeck": weis["stoeck"],
                "factor": weis["factor"],
            }
        )
    return rows


def _factor(state: GameState, rnd: RoundState) -> int:
    return state.config.multiplier(rnd.trump) if rnd.trump >= 0 else 1


def _round_summary(index: int, rnd: RoundState, scores: tuple[int, int], state: GameState) -> dict[str, Any]:
    deal = state.plan.deal(index)
    weis = weis_part(rnd, _factor(state, rnd), state.over)
    return {
        **({"weis": weis} if weis else {}),
        "round": index + 1,
        "dealer": rnd.dealer,
        "trump": rnd.trump,
        "declarer": rnd.declarer,
        "pushed": rnd.pushed,
        "points": list(scores),
        "match": rnd.is_match,
        "complete": rnd.is_over,
        # Fair mode: the round (1-based) whose hands this deal repeats, and the suit swap (suit -> suit).
        "repeats": None if deal.repeats is None else deal.repeats + 1,
        "permutation": None if deal.repeats is None else list(deal.permutation),
    }


def bot_label(name: str) -> str:
    bot = builtin_bots().get(name)
    return f"{bot.label} bot" if bot else name


# -- the public game -------------------------------------------------------------------------------


def clock_seat(game: Game, state: GameState, seats: Sequence[SeatFields]) -> int | None:
    """The seat whose turn clock runs: a person to move, playing themselves, at a table with a clock."""
    if game.status != Game.RUNNING or state.over or not game.turn_clock_s:
        return None
    seat = seats[state.player]
    return state.player if seat.player_id and not seat.standin else None


def game_part(game: Game, state: GameState, seats: Sequence[SeatFields], faults: list[Fault]) -> dict[str, Any]:
    """The public view of one game: everything but the hands (``seats`` in position order)."""
    rnd = state.current
    running = game.status == Game.RUNNING
    round_scores = state.round_scores()
    clocked = clock_seat(game, state, seats)
    view: dict[str, Any] = {
        "id": game.pk,
        "seq": game.action_count,
        "status": game.status,
        "mode": game.mode,
        "target": game.target,
        "round_count": game.round_count,
        "round": state.round_index + 1,
        "scores": list(state.scores),
        "winner": state.winner,
        "over": state.over,
        "dealer": rnd.dealer,
        "forehand": rnd.forehand_seat,
        "player": -1 if state.over or not running else rnd.player,
        "phase": "over" if state.over or rnd.is_over else ("trump" if rnd.in_trump_phase else "play"),
        "trump": rnd.trump,
        "declarer": rnd.declarer,
        "pushed": rnd.pushed,
        "leader": rnd.leader,
        "trick": _trick_cards(rnd.trick, rnd.leader),
        "last_trick": _trick(rnd.tricks[-1]) if rnd.tricks else None,
        "previous_trick": _previous_trick(state),
        "tricks_played": len(rnd.tricks),
        "round_points": list(round_scores[-1]),
        "hand_sizes": [h.bit_count() for h in rnd.hands],
        "rounds": [
            _round_summary(i, r, s, state) for i, (r, s) in enumerate(zip(state.rounds, round_scores, strict=True))
        ],
        "multipliers": game.multipliers,
        "players": [_player(s, game.standin_bot) for s in seats],
        "faults": _faults(faults, over=not running),
        "clock": {
            "seconds": game.turn_clock_s,
            "seat": clocked,
            "deadline": _epoch_ms(game.turn_started_at) + game.turn_clock_s * 1000 if clocked is not None else None,
        },
        "standin_bot": game.standin_bot,
        "abandon_reason": game.abandon_reason or None,
        "abandon": abandon_parts(game.abandon_reason),  # the same, to word in the page's language
        "abandon_vote": _abandon_vote(game, seats) if running else None,
    }
    pause = round_pause(game, state, seats)
    if pause is not None:
        view["pause"] = pause
    if game.mode == FAIR:
        view["pairs"] = fair_pairs(state)
    if state.config.weis:
        view["weis"] = weis_part(rnd, _factor(state, rnd), state.over)
    return view


def round_pause(game: Game, state: GameState, seats: Sequence[SeatFields]) -> dict[str, Any] | None:
    """The summary of the round just ended, while it holds the next deal back; else None.

    It holds from the round's last card until ``until`` (epoch ms, the table's round pause later),
    or until every person in ``people`` (those playing their seat themselves) who has the table open
    is in ``ready`` — the browser and the bot driver apply the same rule (``pause_over``) — or until
    anyone makes the new round's first move.
    """
    rnd = state.current
    fresh = state.round_index > 0 and rnd.trump < 0 and not rnd.pushed
    if game.status != Game.RUNNING or state.over or not fresh or not game.round_pause_s:
        return None
    people = [s.position for s in seats if s.player_id and not s.standin]
    if not people:
        return None
    ended = state.round_index  # rounds are numbered from 1: the one that ended is the current index
    return {
        "round": ended,
        "until": _epoch_ms(game.turn_started_at) + game.round_pause_s * 1000,
        "people": people,
        "ready": [s.position for s in seats if s.position in people and s.ready_round >= ended],
    }


def pause_over(people: list[int], ready: list[int], online_seats: list[int]) -> bool:
    """Whether everyone a round's summary waits for is ready: every person playing who is online.

    With nobody of them online it is never over early (it runs out with its time).
    """
    waiting = [p for p in people if p in online_seats]
    return bool(waiting) and all(p in ready for p in waiting)


def _abandon_vote(game: Game, seats: Sequence[SeatFields]) -> dict[str, Any] | None:
    """A person's request to abandon the game, by seats: who asked, who answers, who agreed or refused."""
    vote = game.abandon_vote
    if not vote or vote["until"] <= time.time() * 1000:
        return None
    seat_of = {s.player_id: s.position for s in seats if s.player_id}
    return {
        "by": seat_of.get(vote["by"]),
        "by_name": vote["by_name"],
        "voters": sorted(seat_of[p] for p in vote["voters"] if p in seat_of),
        "agreed": sorted(seat_of[p] for p in vote["agreed"] if p in seat_of),
        "refused_by": seat_of.get(vote["refused_by"]),
        "until": vote["until"],
    }


def fair_pairs(state: GameState) -> list[dict[str, Any]]:
    """Fair mode: the round pairs numbered in play order, with each team's point advantage once complete.

    ``rpa`` is the thesis's RPA of the first round (its starting team's view); ``advantage`` is
    ``[North & South, East & West]``: what each team made more than the other team did with the
    same cards (``None`` until the pair's second round is over).
    """
    rpa = state.round_point_advantages()
    pairs = []
    for number, (first, second) in enumerate(sorted(state.plan.pairs()), start=1):
        value = rpa.get(first)
        advantage = None
        if value is not None:
            north_south = value if team_of(state.rounds[first].forehand_seat) == 0 else -value
            advantage = [north_south, -north_south]
        pairs.append({"number": number, "rounds": [first + 1, second + 1], "rpa": value, "advantage": advantage})
    return pairs


def _epoch_ms(moment) -> int:
    return round(moment.timestamp() * 1000) if moment else 0


def _player(seat: SeatFields, standin_bot: str) -> dict[str, Any]:
    """Who plays a seat in a game: name, kind, a bot's last answer time and faults, a person's stand-in."""
    return {
        "seat": seat.position,
        "name": seat.name,
        "kind": seat.kind,
        "player_id": seat.player_id,
        "bot": seat.bot or None,
        "remote_url": seat.remote_url or None,
        "dialect": seat.remote_dialect or None,
        "latency_ms": seat.last_latency_ms,
        "faults": seat.fault_count,
        "standin": seat.standin or None,  # "clock" or "left": a stand-in bot plays for this person
        "standin_label": bot_label(standin_bot) if seat.standin else None,
    }


def _faults(faults: list[Fault], *, over: bool) -> list[dict[str, Any]]:
    """A remote bot's faults; what would show its hand only once the game is over."""
    return [
        {
            "seat": f.seat,
            "seq": f.seq,
            "round": f.round + 1,
            "trick": None if f.trick is None else f.trick + 1,  # None: after the round (game_info)
            "kind": f.kind,
            "detail": f.detail + (f" ({f.hidden_detail})" if over and f.hidden_detail else ""),
            "latency_ms": f.latency_ms,
        }
        for f in faults
    ]


def game_faults(game: Game, seats: Sequence[SeatFields]) -> list[Fault]:
    """The game's faults (no query when no seat has any)."""
    if not any(s.fault_count for s in seats):
        return []
    return list(Fault.objects.filter(game=game).order_by("created_at", "pk"))


def game_meta(game: Game, seats: Sequence[SeatFields]) -> dict[str, Any]:
    """What a connection needs besides the text to personalize a game: whose seats, which state."""
    return {
        "id": game.pk,
        "seed": game.seed,
        "seq": game.action_count,
        "status": game.status,
        "players": [s.player_id for s in seats],
    }


def game_view(game: Game, state: GameState, seats: list[GameSeat], viewer_seat: int | None) -> dict[str, Any]:
    """The view of one game for ``viewer_seat`` (``None``: a spectator), as a dict (pages)."""
    view = game_part(game, state, seats, game_faults(game, seats))
    if viewer_seat is not None:
        view.update(json.loads("{" + private_part(state, viewer_seat)[1:] + "}"))
    return view


# -- the private part -------------------------------------------------------------------------------


def private_part(state: GameState, seat: int) -> str:
    """A seated player's own part of a game view, as JSON members to append: hand and legal moves."""
    rnd = state.current
    obs = rnd.observation(seat)
    my_turn = not state.over and rnd.player == seat
    legal_mask = obs.legal_mask() if my_turn and rnd.trump >= 0 else 0
    legal = codes_of(legal_mask)
    # Why each other card may not be played now, for a click on a greyed card: the rule and the suit or
    # card it names, which the page words in the viewer's deck (static/js/cards.js reasonText).
    refused = obs.hand & ~legal_mask if legal_mask else 0
    due = obs.stoeck_due()
    why = {CARD_CODES[c]: _reason(obs.hand, rnd.trick, rnd.trump, c, due) for c in iter_cards(refused)}
    actions = obs.legal_actions() if my_turn else []
    legal_trumps = [a.value for a in actions if a.kind == Action.TRUMP]
    text = (
        f',"hand":{_dumps(codes_of(obs.hand))},"legal":{_dumps(legal)},"why_not":{_dumps(why)}'
        f',"legal_trumps":{_dumps(legal_trumps)}'
    )
    if rnd.declared is None:
        return text
    # Weis and Stöck: what this seat may announce now, what it declared, and the Weis its hand was dealt.
    offer = {
        "weis": [weis_entry(a.value) for a in actions if a.kind == Action.WEIS],
        "stoeck": next((CARD_CODES[a.value] for a in actions if a.kind == Action.STOECK), None),
        "stoeck_pending": rnd.stoeck == seat and bool(obs.hand & stoeck_cards(rnd.trump)),
        "declared": [weis_entry(code) for code in rnd.declared[seat]],
    }
    return text + f',"announce":{_dumps(offer)}'


def _reason(hand: int, trick: tuple[int, ...], trump: int, card: int, stoeck: int = -1) -> dict[str, str]:
    """A refused card's reason for the page: ``{"rule": "follow", "suit": "H"}`` or ``{"rule": "under_trump",
    "card": "HJ"}`` (the engine's ``refusal`` with codes instead of numbers)."""
    rule, which = refusal(hand, trick, trump, card, stoeck)
    if rule in ("follow", "follow_trump"):
        return {"rule": rule, "suit": "DHSC"[which]}
    return {"rule": rule, "card": CARD_CODES[which]}


# -- the public table ------------------------------------------------------------------------------


def _seat_view(seat: Seat | TableSeatRow) -> dict[str, Any]:
    if seat.player:
        name = seat.player.name
    elif seat.remote_url:
        name = seat.remote_name
    else:
        name = bot_label(seat.bot) if seat.bot else ""
    return {
        "position": seat.position,
        "team": team_of(seat.position),
        "kind": seat.kind,
        "name": name,
        "bot": seat.bot or None,
        "remote_url": seat.remote_url or None,
        "dialect": seat.remote_dialect or None,
        "player_id": seat.player_id,
    }


def _table_options(table: Table) -> dict[str, Any]:
    return {
        "id": table.pk,
        "name": table.name,
        "mode": table.mode,
        "target": table.target,
        "round_count": table.round_count,
        "multipliers": table.multipliers,
        "weis": table.weis,
        "private": table.private,
        "rated": table.rated,
        "turn_clock_s": table.turn_clock_s,
        "standin_bot": table.standin_bot,
        "round_pause_s": table.round_pause_s,
        "managed_by": table.managed_by,  # a tournament's page: it arranges seats and games here
    }


def table_part(table: Table, seats: Sequence[Seat | TableSeatRow], online: list[int]) -> dict[str, Any]:
    """The public view of a table without its game: options, seats, bots to choose, who is online."""
    return {
        "table": {
            **_table_options(table),
            "bot_delay_ms": table.bot_delay_ms,
            "bot_timeout_s": table.bot_timeout_s,
            "creator": table.created_by.name if table.created_by else None,
        },
        "seats": [_seat_view(s) for s in seats],
        "rematch": rematch_view(table),
        "online": online,  # the player ids with a connection to this table
        "bots": bot_choices(),
        "trumps": [*TRUMPS, PUSH],
        "turn_clocks": settings.JASSWEB_TURN_CLOCK_CHOICES,
        "round_pauses": list(ROUND_PAUSES),
    }


def rematch_view(table: Table) -> dict[str, Any] | None:
    """The offer to play again while it is shown: open, or refused a moment ago (``Table.rematch``)."""
    vote = table.rematch
    if not vote or vote["until"] <= time.time() * 1000:
        return None
    return {key: vote[key] for key in ("by", "by_name", "voters", "accepted", "refused_by", "until")}


def table_meta(table: Table, seats: Sequence[Seat | TableSeatRow]) -> dict[str, Any]:
    return {
        "creator": table.created_by_id,
        "private": table.private,
        "seats": [s.player_id for s in seats],
        "managed": bool(table.managed_by),
    }


def online_players(table_id: int) -> list[int]:
    """The people with an open connection to a table (any server process)."""
    return sorted(fastpath.online_players_of([table_id])[table_id])


def current_game(table: Table) -> Game | None:
    """The running game of a table, else its most recent one (a running game is always the newest)."""
    return table.games.order_by("-created_at", "-pk").first()


# -- a whole public view, and its personal renderings ----------------------------------------------


@dataclass(frozen=True)
class Public:
    """A table's public view at one event number: JSON text, and the facts to personalize it."""

    version: int
    table_json: str  # the table part's members, without the braces
    meta: dict[str, Any]
    game_json: str  # the game part as a JSON object, or "null"
    game_meta: dict[str, Any] | None

    def message(self) -> dict[str, Any]:
        """As a channel-layer event (strings and small dicts: cheap to copy and to send)."""
        return {
            "type": "table.state",
            "version": self.version,
            "table_json": self.table_json,
            "meta": self.meta,
            "game_json": self.game_json,
            "game_meta": self.game_meta,
        }

    @classmethod
    def from_message(cls, event: dict[str, Any]) -> Public:
        return cls(event["version"], event["table_json"], event["meta"], event["game_json"], event["game_meta"])

    def with_game(self, version: int, game_json: str, game_meta: dict[str, Any]) -> Public:
        """This view after a move: the same table, a new game part."""
        return Public(version, self.table_json, self.meta, game_json, game_meta)


def move_message(version: int, game: Game, state: GameState, seats, move: list[int]) -> dict[str, Any]:
    """A move as a channel-layer event: the game part after it (the table part is unchanged) and the move
    ``[seq, seat, code]``, with which a socket's process brings the state it holds up to date."""
    return {
        "type": "table.move",
        "version": version,
        "game_json": _dumps(game_part(game, state, seats, game_faults(game, seats))),
        "game_meta": game_meta(game, seats),
        "move": move,
    }


def build_public(
    table: Table, seats: Sequence[Seat | TableSeatRow], online: list[int], game: Game | None, game_seats, state
) -> Public:
    part = table_part(table, seats, online)
    if game is None:
        return Public(table.version, _dumps(part)[1:-1], table_meta(table, seats), "null", None)
    faults = game_faults(game, game_seats)
    return Public(
        table.version,
        _dumps(part)[1:-1],
        table_meta(table, seats),
        _dumps(game_part(game, state, game_seats, faults)),
        game_meta(game, game_seats),
    )


def load_public(table_id: int) -> Public | None:
    """A table's public view from the database (one per event, or for a new connection)."""
    table = Table.objects.filter(pk=table_id).select_related("created_by").first()
    if table is None:
        return None
    seats = list(table.seats.select_related("player").order_by("position"))
    game = current_game(table)
    game_seats = list(game.seats.order_by("position")) if game else []
    state = states.load(game) if game else None
    return build_public(table, seats, online_players(table_id), game, game_seats, state)


def you(public: Public, viewer_id: int | None, viewer_name: str | None) -> dict[str, Any]:
    """Who the viewer is at this table: their seat, whether they may arrange it, their seat in the game."""
    seat = next((i for i, p in enumerate(public.meta["seats"]) if viewer_id and p == viewer_id), None)
    players = public.game_meta["players"] if public.game_meta else []
    return {
        "player_id": viewer_id,
        "name": viewer_name,
        "seat": seat,
        # At a managed table (a tournament's) nobody arranges seats or starts and abandons games: the system does.
        "can_manage": viewer_id is not None
        and not public.meta.get("managed")
        and (public.meta["creator"] == viewer_id or seat is not None),
        "game_seat": next((i for i, p in enumerate(players) if viewer_id and p == viewer_id), None),
    }


def render(public: Public, viewer_id: int | None, viewer_name: str | None, state: GameState | None) -> str:
    """The ``state`` frame for one viewer, as text: the public view plus their own part.

    ``state`` is the engine state at ``public.game_meta["seq"]`` (needed for a seated player's hand).
    """
    me = you(public, viewer_id, viewer_name)
    game_text, hidden = public.game_json, ""
    if public.game_meta is not None:
        meta = public.meta
        if not access.shows_game(meta["private"], meta["creator"], public.game_meta["players"], viewer_id):
            game_text, hidden = "null", f',"hidden_game":{_dumps(public.game_meta["status"])}'
        elif me["game_seat"] is not None and state is not None:
            game_text = game_text[:-1] + private_part(state, me["game_seat"]) + "}"
    now = round(time.time() * 1000)  # the server's clock, for the turn clock's countdown in the browser
    return (
        f'{{"type":"state","version":{public.version},"now":{now},"view":{{"version":{public.version},'
        f'{public.table_json},"game":{game_text}{hidden},"you":{_dumps(me)}}}}}'
    )


def table_view(table_id: int, viewer: Player | None) -> dict[str, Any] | None:
    """Everything ``viewer`` may see at a table, as JSON-ready data (``None`` if no such table)."""
    public = load_public(table_id)
    if public is None:
        return None
    state = None
    if public.game_meta is not None:
        meta = public.game_meta
        state = states.peek(meta["id"], meta["seed"], meta["seq"])
    frame = render(public, viewer.pk if viewer else None, viewer.name if viewer else None, state)
    return json.loads(frame)["view"]


# -- the lobby -------------------------------------------------------------------------------------


def people_at_tables() -> int:
    """How many people have a table open now (any server process)."""
    return Connection.objects.values("player_id").distinct().count()


def top_games(count: int = 3) -> list[dict[str, Any]]:
    """The running public games whose players are rated highest (people and bots alike), to watch."""
    from games.models import Competitor

    running = list(
        Game.objects.filter(status=Game.RUNNING, table__private=False, table__imported=False)
        .select_related("table")
        .prefetch_related("seats")
        .order_by("-pk")[:200]
    )
    if not running:
        return []

    def key(seat: GameSeat) -> str:
        if seat.player_id:
            return f"person:{seat.player_id}"
        return f"bot:{seat.bot}" if seat.bot else ""

    keys = {key(s) for g in running for s in g.seats.all()}
    ordinals = dict(Competitor.objects.filter(key__in=keys).values_list("key", "ordinal"))
    scored = []
    for game in running:
        seats = list(game.seats.all())
        rating = sum(ordinals.get(key(s), 0.0) for s in seats) / 4
        scored.append((rating, game.pk, game, seats))
    scored.sort(key=lambda row: (-row[0], -row[1]))
    return [
        {
            "table": game.table_id,
            "name": game.table.name,
            "players": [s.name for s in seats],
            "rating": round(rating, 1),
        }
        for rating, _, game, seats in scored[:count]
    ]


def lobby_tables(viewer: Player | None = None, limit: int = 50) -> list[dict[str, Any]]:
    """Tables for the lobby, most recently active first, in a fixed number of queries.

    Private tables are listed only for their creator and the players seated there, and so are a
    tournament's tables (its page lists them; a bot tournament would flood the lobby).
    """
    listed = Q(private=False, managed_by="")
    if viewer is not None:
        listed |= Q(created_by=viewer) | Q(seats__player=viewer)
    return _lobby_rows(Table.objects.filter(listed, imported=False), limit)


def lobby_lists(viewer_ids: set[int], limit: int = 50) -> tuple[list[dict[str, Any]], dict[int, list[dict[str, Any]]]]:
    """The lobby for many viewers at once, in a fixed number of queries whatever their number.

    Returns the public tables, and for each viewer with private or tournament tables of their own
    (created or seated at) the list they see: both merged, most recently active first.
    """
    public = _lobby_rows(Table.objects.filter(private=False, managed_by="", imported=False), limit)
    if not viewer_ids:
        return public, {}
    private = _lobby_rows(
        Table.objects.filter(
            Q(created_by__in=viewer_ids) | Q(seats__player__in=viewer_ids),
            Q(private=True) | ~Q(managed_by=""),
            imported=False,
        ),
        None,
    )
    personal: dict[int, list[dict[str, Any]]] = {}
    for row in private:
        for viewer in row["managers"]:
            if viewer in viewer_ids:
                personal.setdefault(viewer, []).append(row)
    for viewer, rows in personal.items():
        personal[viewer] = sorted(public + rows, key=lambda r: r["updated"], reverse=True)[:limit]
    return public, personal


def _lobby_rows(tables_query, limit: int | None) -> list[dict[str, Any]]:
    newest_game = Game.objects.filter(table=OuterRef("pk")).order_by("-created_at", "-pk")
    # A table whose last game is over drops off the list once nothing happened there for a while
    # (anything at a table, a seat taken after the game too, moves its updated_at); in the query,
    # so that the limit counts only listed tables and one query serves every watcher.
    quiet_since = timezone.now() - timedelta(minutes=settings.JASSWEB_LOBBY_FINISHED_MINUTES)
    query = (
        tables_query.distinct()
        .annotate(
            current_game_id=Subquery(newest_game.values("pk")[:1]),
            current_status=Subquery(newest_game.values("status")[:1]),
        )
        .filter(Q(current_status=Game.RUNNING) | Q(current_status__isnull=True) | Q(updated_at__gte=quiet_since))
        .order_by("-updated_at")
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position")))
    )
    tables = list(query[:limit] if limit else query)
    games = Game.objects.in_bulk([t.current_game_id for t in tables if t.current_game_id])
    result = []
    for table in tables:
        seats = list(table.seats.all())
        game = games.get(table.current_game_id)
        managers = {s.player_id for s in seats if s.player_id} | ({table.created_by_id} - {None})
        seat_views = [_seat_view(s) for s in seats]
        result.append(
            {
                **_table_options(table),
                "seats": seat_views,
                "free_seats": sum(1 for s in seat_views if s["kind"] == SeatKind.EMPTY),
                "managers": sorted(managers),  # who may add bots: the creator and seated players
                "status": game.status if game else "waiting",
                # A private table's row is shared by all who may list it, newcomers too: no game's points.
                "points": game.points if game and not table.private else None,
                "game": game.pk if game else None,
                "updated": table.updated_at.isoformat(),
            }
        )
    return result
