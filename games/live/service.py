"""The one writer of tables and games.

Every change — a browser click, a built-in bot's move, a remote bot's reply, a
seat taken, a person coming online — goes through a function here that, in one
transaction, locks the table row, validates the change (the engine decides
what is legal), writes it, and bumps the table's event number. The public view
of the table after the change is built once, inside the transaction; only
after commit is it published to the table's watchers (channel-layer group
``table.<id>``), each of whom adds only their own hand, and the game's driver
(the one process that plays its bots, runs its clock and ends it when nobody
plays any more) is told.

The engine state of a game is rebuilt from its ``Action`` rows; ``games.live.states``
keeps recent states per process and moves them on with the moves it hears of.
"""

from __future__ import annotations

import copy
import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from games import signals
from games.catalogue import (
    BOT_KINDS,
    DIALECTS,
    MAX_TIMEOUT,
    BotUrlError,
    Dialect,
    SeatKind,
    builtin_bots,
    check_bot_url,
    known_bots,
)
from games.engine import (
    FAIR,
    SEAT_NAMES,
    STANDARD,
    GameConfig,
    GamePlan,
    GameState,
    IllegalActionError,
    InvalidActionError,
    InvalidConfigError,
)
from games.engine import (
    Action as EngineAction,
)
from games.errors import ErrorCode, ServiceError
from games.live import fastpath, metrics, oplog, snapshot, states, workers
from games.live.events import Send, publisher
from games.models import (
    LOBBY_GROUP,
    ROUND_PAUSES,
    Connection,
    Fault,
    Game,
    GameSeat,
    Player,
    Seat,
    SeatFields,
    Table,
    deal_to_json,
    new_game,
    new_table,
    table_group,
)
from games.summaries import rows as summaries

log = logging.getLogger(__name__)

MAX_TABLE_NAME = 60
MAX_BOT_TIMEOUT = int(MAX_TIMEOUT)
MAX_TURN_CLOCK = 600  # seconds a move; the pages offer JASSWEB_TURN_CLOCK_CHOICES
REFUSAL_SHOWN_S = 8  # seconds a refused request to abandon a game stays in view


# Refusals of a seat change to someone who may not make it, in the page's language (by ``_seat_change``'s verb).
NOT_ALLOWED = {
    "add bots": gettext_lazy("only the table's creator or a seated player can add bots"),
    "invite bots": gettext_lazy("only the table's creator or a seated player can invite bots"),
    "remove bots": gettext_lazy("only the table's creator or a seated player can remove bots"),
    "change the turn clock": gettext_lazy("only the table's creator or a seated player can change the turn clock"),
    "change the bot timeout": gettext_lazy("only the table's creator or a seated player can change the bot timeout"),
}
_SEAT_WORDS = (gettext_lazy("North"), gettext_lazy("East"), gettext_lazy("South"), gettext_lazy("West"))


def seat_name(position: int) -> str:
    """A seat's name (North, East, South, West) in the page's language."""
    return str(_SEAT_WORDS[position])


@dataclass(frozen=True)
class Actor:
    """Who asks for a change: a person (``player_id``), the bot driver, or the operator (``system``)."""

    player_id: int | None = None
    bot: bool = False
    system: bool = False  # management commands: may arrange seats and start games, never move for a person


BOT_RUNNER = Actor(bot=True)
SYSTEM = Actor(system=True)

# The engine state of a game after its stored moves (kept per process; see games.live.states).
load_state = states.load
forget_cached_states = states.forget_all


# -- events ----------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """A committed change, as a game's driver hears of it (in its process, or over the channel layer)."""

    table_id: int
    game_id: int | None
    # created, seats, started, action, round_over, finished, abandoned, fault, presence, standin, ready, redelivered
    reason: str
    version: int = 0
    round_index: int | None = None  # for round_over and finished: the round that ended
    seq: int | None = None  # the game's number of moves after the change
    move: tuple[int, int] | None = None  # (seat, action code) of the move that made the change
    seed: int | None = None
    driver: str = ""  # the worker that drives the game
    online: tuple[int, ...] | None = None  # for presence: the people with an open connection to the table now

    def message(self) -> dict[str, Any]:
        return {
            "type": "driver.change",
            "table": self.table_id,
            "game": self.game_id,
            "reason": self.reason,
            "version": self.version,
            "round_index": self.round_index,
            "seq": self.seq,
            "move": list(self.move) if self.move else None,
            "seed": self.seed,
            "driver": self.driver,
            "online": list(self.online) if self.online is not None else None,
        }

    @classmethod
    def from_message(cls, event: dict[str, Any]) -> Change:
        move = event.get("move")
        return cls(
            event["table"],
            event["game"],
            event["reason"],
            event["version"],
            event.get("round_index"),
            event.get("seq"),
            (move[0], move[1]) if move else None,
            event.get("seed"),
            event.get("driver", ""),
            tuple(event["online"]) if event.get("online") is not None else None,
        )


_listeners: list[Callable[[Change], None]] = []


def add_listener(listener: Callable[[Change], None]) -> None:
    """Call ``listener(change)`` after every committed change to a game this process drives."""
    if listener not in _listeners:
        _listeners.append(listener)


def remove_listener(listener: Callable[[Change], None]) -> None:
    if listener in _listeners:
        _listeners.remove(listener)


LOBBY_REASONS = frozenset({"created", "seats", "started", "finished", "abandoned", "redelivered"})


def _after_commit(table_id: int, watchers: dict[str, Any] | None, change: Change) -> None:
    """Publish a committed change: to the table's watchers, the lobby, and the game's driver."""
    sends: list[Send] = []
    if watchers is not None:
        sends.append(("group", table_group(table_id), watchers))
    if change.reason in LOBBY_REASONS:
        sends.append(("group", LOBBY_GROUP, {"type": "lobby.event", "table": table_id}))
    local = workers.local_worker_id()
    if change.game_id is not None and change.driver and change.driver != local:
        sends.append(("channel", workers.driver_channel(change.driver), change.message()))
    publisher.publish(sends)
    if change.game_id is not None and (change.driver == local or not change.driver):
        for listener in list(_listeners):
            try:
                listener(change)
            except Exception:
                log.exception("table listener %r failed", listener)


def _bump(table: Table) -> int:
    now = timezone.now()
    version = fastpath.bump_version(table.pk, now)
    assert version is not None, f"table {table.pk} is gone"  # it is locked by the caller's transaction
    table.version, table.updated_at = version, now
    return version


def _changed(table: Table, game_id: int | None, reason: str, round_index: int | None = None) -> snapshot.Public:
    """Bump the table's event number, build its public view once, and publish both after commit; the view."""
    version = _bump(table)
    seats = fastpath.read_table_seats(table.pk)
    # The game's columns that the views read, and its seats, as the move path reads them; its deals only when
    # this process does not hold the game's state.
    game = fastpath.read_current_game(table.pk)
    game_seats = fastpath.read_seats(game.pk) if game else []
    state = _state_of(game) if game else None
    online = snapshot.online_players(table.pk)
    public = snapshot.build_public(table, seats, online, game, game_seats, state)
    concerned = game_id if game_id is not None else (game.pk if game and game.status == Game.RUNNING else None)
    change = Change(
        table.pk,
        concerned,
        reason,
        version,
        round_index,
        seq=game.action_count if game else None,
        seed=game.seed if game else None,
        driver=game.driver if game is not None and game.pk == concerned else "",
        # The driver needs nothing else of a presence change: it need not read the game again for one.
        online=tuple(online) if reason == "presence" else None,
    )
    message = public.message()
    transaction.on_commit(lambda: _after_commit(table.pk, message, change))
    return public


def _state_of(game: Game) -> GameState:
    """The engine state of a game read by ``fastpath`` (without its deals: the ORM reads them if needed)."""
    return states.peek(game.pk, game.seed, game.action_count) or states.load(Game.objects.get(pk=game.pk))


def _lock_table(table_id: int) -> Table:
    try:
        # With its creator, whom the table's view names (only the table's row is locked).
        return Table.objects.select_related("created_by").select_for_update(of=("self",)).get(pk=table_id)
    except Table.DoesNotExist:
        raise ServiceError(ErrorCode.NO_TABLE, gettext("there is no table {number}").format(number=table_id)) from None


def running_game(table: Table) -> Game | None:
    return table.games.filter(status=Game.RUNNING).first()


def _seats(table: Table) -> list[Seat]:
    return list(table.seats.select_related("player").order_by("position"))


def _check_position(position: object) -> int:
    if type(position) is not int or not 0 <= position <= 3:
        raise ServiceError(
            ErrorCode.BAD_SEAT,
            gettext("a seat is 0 (North), 1 (East), 2 (South) or 3 (West), got {position}").format(
                position=repr(position)
            ),
        )
    return position


def may_manage(table_id: int, actor: Actor) -> bool:
    """Whether ``actor`` may arrange a table (its creator or a seated player); reads only."""
    table = Table.objects.filter(pk=table_id).first()
    return table is not None and _may_manage(table, _seats(table), actor)


def _may_manage(table: Table, seats: list[Seat], actor: Actor) -> bool:
    if actor.system:
        return True
    if actor.bot or actor.player_id is None:
        return False
    return table.created_by_id == actor.player_id or any(s.player_id == actor.player_id for s in seats)


# -- tables and seats ------------------------------------------------------------


def create_table(
    player: Player | None,
    *,
    name: str,
    mode: str = STANDARD,
    target: int = 1000,
    round_count: int = 12,
    multipliers: bool = False,
    weis: bool = False,
    private: bool = False,
    bot_delay_ms: int | None = None,
    bot_timeout_s: int = 5,
    turn_clock_s: int = 0,
    standin_bot: str = "rules",
    round_pause_s: int | None = None,
    rated: bool | None = None,
    managed_by: str = "",
) -> Table:
    """Open a table with four empty seats; the options are checked by the engine.

    ``turn_clock_s``: seconds a person has per move before ``standin_bot`` plays for them (0: no clock).
    ``rated`` None: fair tables are rated, standard ones casual; a private table is always casual.
    ``managed_by``: the page of what arranges this table (a tournament): only the system seats and starts.
    """
    name = (name or "").strip()
    if not name or len(name) > MAX_TABLE_NAME:
        raise ServiceError(
            ErrorCode.BAD_OPTIONS, gettext("a table name has 1 to {count} characters").format(count=MAX_TABLE_NAME)
        )
    try:
        table_config = GameConfig(
            mode=mode,
            target=target,
            round_count=round_count,
            multipliers=GameConfig.multipliers_from("classic" if multipliers else None),
            weis=bool(weis),
        )
    except InvalidConfigError as exc:
        raise ServiceError(ErrorCode.BAD_OPTIONS, str(exc)) from None
    if bot_delay_ms is None:
        from django.conf import settings

        bot_delay_ms = settings.JASSWEB_BOT_DELAY_MS
    if type(bot_delay_ms) is not int or not 0 <= bot_delay_ms <= 5000:
        raise ServiceError(ErrorCode.BAD_OPTIONS, f"bot delay is 0 to 5000 ms, got {bot_delay_ms!r}")
    _check_timeout(bot_timeout_s)
    _check_clock(turn_clock_s, standin_bot)
    if round_pause_s is None:
        from django.conf import settings

        round_pause_s = settings.JASSWEB_ROUND_PAUSE_S
    _check_pause(round_pause_s)
    with transaction.atomic():
        table = new_table(
            name,
            table_config,
            private=bool(private),
            bot_delay_ms=bot_delay_ms,
            bot_timeout_s=bot_timeout_s,
            turn_clock_s=turn_clock_s,
            standin_bot=standin_bot,
            round_pause_s=round_pause_s,
            rated=(table_config.mode == FAIR if rated is None else bool(rated)) and not private,
            created_by=player,
            managed_by=managed_by,
        )
        _changed(table, None, "created")
    return table


def _check_unmanaged(table: Table, actor: Actor | None) -> None:
    """Refuse a change that only the system makes at a managed table (a tournament's)."""
    if table.managed_by and not (actor is not None and actor.system):
        raise ServiceError(
            ErrorCode.MANAGED, gettext("this is a tournament table: its seats and games are arranged by the tournament")
        )


@contextmanager
def _seat_change(table_id: int, actor: Actor | None = None, verb: str = "") -> Iterator[tuple[Table, list[Seat]]]:
    """Lock a table for a change of seats; refused while a game runs, and to ``actor`` unless it manages."""
    with transaction.atomic():
        table = _lock_table(table_id)
        _check_unmanaged(table, actor)
        if running_game(table):
            raise ServiceError(ErrorCode.GAME_RUNNING, gettext("seats cannot change while a game is running"))
        seats = _seats(table)
        if actor is not None and not _may_manage(table, seats, actor):
            raise ServiceError(ErrorCode.NOT_ALLOWED, str(NOT_ALLOWED.get(verb, verb)))
        yield table, seats
        _changed(table, None, "seats")


def take_seat(table_id: int, position: int, player: Player) -> None:
    """Seat ``player`` at an empty position (one seat per person per table)."""
    position = _check_position(position)
    with _seat_change(table_id) as (table, seats):
        if any(s.player_id == player.pk for s in seats):
            raise ServiceError(ErrorCode.ALREADY_SEATED, gettext("you already have a seat at this table"))
        seat = seats[position]
        # At a play-now table a built-in bot gives its seat to a person between games.
        gives_way = seat.kind == SeatKind.BOT and bool(table.play_now_bot)
        if seat.kind != SeatKind.EMPTY and not gives_way:
            raise ServiceError(ErrorCode.SEAT_TAKEN, gettext("{seat} is taken").format(seat=seat_name(position)))
        seat.player, seat.bot = player, ""
        seat.save(update_fields=["player", "bot"])


def leave_seat(table_id: int, player: Player) -> None:
    """Free the seat ``player`` holds at a table; during their game, a stand-in bot takes it (``leave_game``)."""
    with transaction.atomic():
        table = _lock_table(table_id)
        game = running_game(table)
        playing = GameSeat.objects.filter(game=game, player=player).exclude(standin=GameSeat.LEFT)
        if game is not None and playing.exists():
            _leave_game(table, game, player)
            return
    with _seat_change(table_id) as (table, _):
        if not Seat.objects.filter(table=table, player=player).update(player=None):
            raise ServiceError(ErrorCode.NOT_SEATED, gettext("you have no seat at this table"))


def set_bot(table_id: int, position: int, bot: str, actor: Actor) -> None:
    """Put a built-in bot on an empty seat (the table's creator or a seated player may)."""
    position = _check_position(position)
    if bot not in builtin_bots():
        raise ServiceError(ErrorCode.UNKNOWN_BOT, f"unknown bot {bot!r}; {known_bots()}")
    with _seat_change(table_id, actor, "add bots") as (_, seats):
        seat = seats[position]
        if seat.player is not None:  # a person sits here
            raise ServiceError(
                ErrorCode.SEAT_TAKEN,
                gettext("{seat} is taken by {name}").format(seat=seat_name(position), name=seat.player.name),
            )
        seat.bot = bot
        seat.save(update_fields=["bot"])


def set_remote_bot(table_id: int, position: int, url: str, name: str, dialect: str, actor: Actor) -> None:
    """Seat an HSLU bot by URL (the table's creator or a seated player may).

    The URL's form is checked here; its address is checked by the adapter's
    guard before every request (an address can change).
    """
    position = _check_position(position)
    try:
        url = check_bot_url(url)
    except BotUrlError as exc:
        raise ServiceError(ErrorCode.BAD_BOT_URL, exc.translated(gettext)) from None
    if dialect not in DIALECTS:
        raise ServiceError(
            ErrorCode.BAD_BOT_URL, f"the path dialect is one of {', '.join(DIALECTS)}, got {dialect!r:.20}"
        )
    name = " ".join((name or "").split()) or default_bot_name(url)
    if len(name) > 40:
        raise ServiceError(ErrorCode.BAD_BOT_URL, gettext("a bot name has at most 40 characters"))
    with _seat_change(table_id, actor, "invite bots") as (_, seats):
        seat = seats[position]
        if seat.player is not None:  # a person sits here
            raise ServiceError(
                ErrorCode.SEAT_TAKEN,
                gettext("{seat} is taken by {name}").format(seat=seat_name(position), name=seat.player.name),
            )
        seat.bot, seat.remote_url, seat.remote_name, seat.remote_dialect = "", url, name, dialect
        seat.save(update_fields=["bot", "remote_url", "remote_name", "remote_dialect"])


def arrange_seats(table_id: int, seats: list[dict[str, Any]], actor: Actor) -> None:
    """Fill all four seats at once (North first): each ``{"player": Player}``, ``{"bot": name}`` or
    ``{"remote_url": url, "remote_name": name, "remote_dialect": dialect}``. The system arranges a
    managed table this way (a tournament's match); the bots and URLs are checked as when added one by one."""
    if len(seats) != 4:
        raise ServiceError(ErrorCode.BAD_SEAT, f"arrange four seats, got {len(seats)}")
    checked = []
    for spec in seats:
        player, bot, url = spec.get("player"), spec.get("bot", ""), spec.get("remote_url", "")
        if bot and bot not in builtin_bots():
            raise ServiceError(ErrorCode.UNKNOWN_BOT, f"unknown bot {bot!r}; {known_bots()}")
        if url:
            try:
                url = check_bot_url(url)
            except BotUrlError as exc:
                raise ServiceError(ErrorCode.BAD_BOT_URL, exc.translated(gettext)) from None
        if sum(bool(x) for x in (player, bot, url)) != 1:
            raise ServiceError(ErrorCode.BAD_SEAT, "each seat is one person, one built-in bot or one bot URL")
        name = (spec.get("remote_name") or default_bot_name(url))[:40] if url else ""
        checked.append((player, bot, url, name, spec.get("remote_dialect") or Dialect.AUTO))
    people = [c[0].pk for c in checked if c[0] is not None]
    if len(set(people)) != len(people):
        raise ServiceError(ErrorCode.ALREADY_SEATED, "one person holds one seat")
    if not actor.system:
        raise ServiceError(ErrorCode.NOT_ALLOWED, "only the system arranges all seats at once")
    with _seat_change(table_id, actor) as (_, rows):
        for row, (player, bot, url, name, dialect) in zip(rows, checked, strict=True):
            row.player, row.bot, row.remote_url, row.remote_name, row.remote_dialect = player, bot, url, name, dialect
            row.save(update_fields=["player", "bot", "remote_url", "remote_name", "remote_dialect"])


def default_bot_name(url: str) -> str:
    """A name for a bot from its URL: its last path part, else its host."""
    parts = urlsplit(url)
    return (parts.path.rstrip("/").rsplit("/", 1)[-1] or parts.hostname or "HSLU bot")[:40]


def clear_seat(table_id: int, position: int, actor: Actor) -> None:
    """Remove a bot (built-in or remote) from a seat (the table's creator or a seated player may)."""
    position = _check_position(position)
    with _seat_change(table_id, actor, "remove bots") as (_, seats):
        seat = seats[position]
        if seat.kind not in BOT_KINDS:
            raise ServiceError(
                ErrorCode.NOT_A_BOT, gettext("there is no bot at {seat}").format(seat=seat_name(position))
            )
        seat.bot, seat.remote_url, seat.remote_name, seat.remote_dialect = "", "", "", ""
        seat.save(update_fields=["bot", "remote_url", "remote_name", "remote_dialect"])


def _check_clock(seconds: object, standin_bot: object) -> None:
    if type(seconds) is not int or not 0 <= seconds <= MAX_TURN_CLOCK:
        raise ServiceError(
            ErrorCode.BAD_OPTIONS, f"the turn clock is off (0) or 1 to {MAX_TURN_CLOCK} seconds, got {seconds!r:.10}"
        )
    if standin_bot not in builtin_bots():
        raise ServiceError(ErrorCode.BAD_OPTIONS, f"unknown stand-in bot {standin_bot!r:.40}; {known_bots()}")


def _check_pause(seconds: object) -> None:
    if seconds not in ROUND_PAUSES:
        raise ServiceError(
            ErrorCode.BAD_OPTIONS,
            f"the round summary stays {', '.join(map(str, ROUND_PAUSES))} seconds, got {seconds!r:.10}",
        )


def set_turn_clock(
    table_id: int, seconds: int, standin_bot: str, actor: Actor, round_pause_s: int | None = None
) -> None:
    """Change a table's turn clock, stand-in bot and, if given, round summary pause (between games)."""
    _check_clock(seconds, standin_bot)
    if round_pause_s is not None:
        _check_pause(round_pause_s)
    with _seat_change(table_id, actor, "change the turn clock") as (table, _):
        table.turn_clock_s, table.standin_bot = seconds, standin_bot
        fields = ["turn_clock_s", "standin_bot"]
        if round_pause_s is not None:
            table.round_pause_s = round_pause_s
            fields.append("round_pause_s")
        table.save(update_fields=fields)


def _check_timeout(seconds: object) -> int:
    if type(seconds) is not int or not 1 <= seconds <= MAX_BOT_TIMEOUT:
        raise ServiceError(
            ErrorCode.BAD_OPTIONS, f"the bot timeout is 1 to {MAX_BOT_TIMEOUT} seconds, got {seconds!r:.10}"
        )
    return seconds


def set_bot_timeout(table_id: int, seconds: int, actor: Actor) -> None:
    """Change how long remote bots may think per answer at a table (between games)."""
    seconds = _check_timeout(seconds)
    with _seat_change(table_id, actor, "change the bot timeout") as (table, _):
        table.bot_timeout_s = seconds
        table.save(update_fields=["bot_timeout_s"])


# -- games -----------------------------------------------------------------------


def start_game(table_id: int, actor: Actor, seed: int | None = None) -> Game:
    """Deal a new game at a table whose four seats are filled; this process's driver (if any) drives it."""
    with transaction.atomic():
        table = _lock_table(table_id)
        if table.imported:
            raise ServiceError(ErrorCode.IMPORTED, gettext("this table holds an imported game and plays no new ones"))
        _check_unmanaged(table, actor)
        if running_game(table):
            raise ServiceError(ErrorCode.GAME_RUNNING, gettext("a game is already running at this table"))
        seats = _seats(table)
        if not (actor.bot or _may_manage(table, seats, actor)):
            raise ServiceError(
                ErrorCode.NOT_ALLOWED, gettext("only the table's creator or a seated player can start a game")
            )
        return _deal_game(table, seats, seed)


def _deal_game(table: Table, seats: list[Seat], seed: int | None = None, previous: Game | None = None) -> Game:
    """Start a game at a locked table without one: its four seats filled (checked here), dealt from ``seed``;
    played again after ``previous``, the deal moves on from where that game's last round was dealt."""
    empty = [seat_name(s.position) for s in seats if s.kind == SeatKind.EMPTY]
    if empty:
        raise ServiceError(
            ErrorCode.SEATS_EMPTY, gettext("fill every seat first: {seats} empty").format(seats=", ".join(empty))
        )
    seed = secrets.randbits(62) if seed is None else seed
    config = table.config(seed)
    last_dealer = previous.deals[-1]["dealer"] if previous is not None and previous.deals else None
    plan = GamePlan(config, first_dealer=None if last_dealer is None else (last_dealer - 1) % 4)
    dealt = range(config.round_count) if config.mode == FAIR else range(1)
    game = new_game(
        table,
        config,
        [plan.deal(i) for i in dealt],
        [
            {
                "position": s.position,
                "player": s.player,
                "bot": s.bot,
                "remote_url": s.remote_url,
                "remote_dialect": s.remote_dialect,
                "name": s.player.name if s.player else (s.remote_name or bot_label(s.bot)),
            }
            for s in seats
        ],
        plan.schedule,
        points=[0, 0],
        turn_clock_s=table.turn_clock_s,
        round_pause_s=table.round_pause_s,
        standin_bot=table.standin_bot,
        turn_started_at=timezone.now(),
        driver=workers.local_worker_id() or "",
        rated=table.rated and not table.private,
        previous=previous,
    )
    if table.rematch is not None:
        table.rematch = None
        table.save(update_fields=["rematch"])
    _changed(table, game.pk, "started")
    oplog.game_started(game, seats)
    managed_by = table.managed_by
    transaction.on_commit(lambda: metrics.game_started(managed_by))
    return game


bot_label = snapshot.bot_label


@dataclass(frozen=True)
class BotReport:
    """What a bot's move comes with: its time, and for a remote bot the dialect and any fault."""

    latency_ms: int | None = None
    dialect: str | None = None  # the path dialect that answered (remembered for an "auto" seat)
    fault_kind: str | None = None  # the move is a random stand-in for a failed or bad answer
    fault_detail: str = ""
    fault_hidden: str = ""  # e.g. the illegal card: it would show the bot's hand, so only after the game
    standin: bool = False  # a stand-in bot's move for a person (their clock ran out, or they left)


def submit(
    game_id: int,
    seat: int,
    action: EngineAction,
    *,
    actor: Actor,
    expected_seq: int | None,
    report: BotReport | None = None,
    table_id: int | None = None,
) -> GameState:
    """Apply one move for ``seat``: the only way a game changes.

    ``expected_seq`` is the number of moves the mover saw; a move made on an
    older state (a second tab, a slow bot) is refused as ``stale``, so racing
    submissions resolve to exactly one applied move. A bot's ``report`` is
    stored with the move (its time; a remote bot's fault and dialect; whether
    it stood in for a person). This is the hot path of the live server: a
    handful of statements, and the table's view after the move is built from
    the state in memory, once, for all its watchers.
    """
    started = time.perf_counter()
    seat = _check_position(seat)
    if not isinstance(action, EngineAction):
        raise ServiceError(ErrorCode.BAD_ACTION, f"not an action: {action!r}")
    if table_id is None:
        table_id = Game.objects.filter(pk=game_id).values_list("table_id", flat=True).first()
        if table_id is None:
            raise ServiceError(ErrorCode.NO_GAME, gettext("there is no game {number}").format(number=game_id))
    if not actor.bot and _unchanged_moves_on():
        moved = _submit_unchanged(game_id, table_id, seat, action, actor, expected_seq, started)
        if moved is not None:
            return moved
    with transaction.atomic():
        now = timezone.now()
        version, game, seats = fastpath.lock_and_read(table_id, game_id, now)
        if version is None:
            raise ServiceError(ErrorCode.NO_TABLE, gettext("there is no table {number}").format(number=table_id))
        if game is None or game.table_id != table_id:
            raise ServiceError(
                ErrorCode.NO_GAME,
                gettext("there is no game {number} at table {table}").format(number=game_id, table=table_id),
            )
        if game.status != Game.RUNNING:
            raise ServiceError(ErrorCode.GAME_OVER, f"game {game_id} is {game.status}")
        _check_fresh(expected_seq, game.action_count)
        game_seat = seats[seat]
        report = report if actor.bot and report else BotReport()
        _check_mover(game_seat, actor, report)
        state = _state_of(game)
        try:
            after = state.apply(seat, action)
        except IllegalActionError as exc:
            raise _refused(exc, state.player != seat) from None
        except InvalidActionError as exc:
            raise ServiceError(ErrorCode.BAD_ACTION, str(exc)) from None
        seq = game.action_count
        game.action_count = seq + 1
        game.points = list(after.scores)
        game.turn_started_at = now
        fields = ["action_count", "points", "turn_started_at"]
        if len(after.rounds) > len(state.rounds) and game.mode == STANDARD:
            # A standard game deals as it goes: store the new round's deal (fair games stored all at the start).
            dealt = Game.objects.filter(pk=game_id).values_list("deals", flat=True).get()
            game.deals = [*dealt, deal_to_json(after.deal(len(after.rounds) - 1))]
            fields.append("deals")
        if after.over:
            game.status, game.winner, game.finished_at = Game.FINISHED, after.winner, now
            fields += ["status", "winner", "finished_at"]
        fastpath.store_move(game, fields, seq, seat, action.kind, action.value, report.latency_ms, report.standin, now)
        if actor.bot:
            _note_bot_answer(game, game_seat, seq, state, report)
        managed_by: str | None = None  # what arranges the table, for the count of games ended (read at the end only)
        if after.over:
            summaries.record_game_end(game, after)  # summary rows and ratings commit with the game's end
            oplog.game_finished(game, seats)
            signals.send_in_transaction(signals.game_ended, game=game)
            managed_by = Table.objects.filter(pk=table_id).values_list("managed_by", flat=True).first() or ""
        if after.over:
            reason, ended = "finished", after.round_index
        elif len(after.rounds) > len(state.rounds):
            reason, ended = "round_over", state.round_index
        else:
            reason, ended = "action", None
        watchers = snapshot.move_message(version, game, after, seats, [seq, seat, action.code])
        change = Change(table_id, game.pk, reason, version, ended, seq + 1, (seat, action.code), game.seed, game.driver)

        def committed() -> None:
            states.remember(game.pk, game.seed, seq + 1, after)
            if after.over:
                hot_games.drop(game.pk)
            else:
                hot_games.keep(HotGame(table_id, version, game, seats))
            _after_commit(table_id, watchers, change)
            metrics.move_committed("bot" if actor.bot else "person", time.perf_counter() - started)
            if managed_by is not None:
                metrics.game_ended(managed_by, Game.FINISHED)

        transaction.on_commit(committed)
    return after


@dataclass(slots=True, frozen=True)
class HotGame:
    """A game as this process last stored a move of it: the table's event number then, the game's columns
    after the move and its seats (never changed in place: a later move makes a new one)."""

    table_id: int
    version: int
    game: Game
    seats: list[fastpath.SeatRow]


class HotGames:
    """The games this process stored the last move of, for ``_submit_unchanged``; the oldest go first."""

    LIMIT = 4096

    def __init__(self) -> None:
        self._games: dict[int, HotGame] = {}
        self._lock = threading.Lock()

    def get(self, game_id: int) -> HotGame | None:
        return self._games.get(game_id)

    def keep(self, hot: HotGame) -> None:
        with self._lock:
            self._games.pop(hot.game.pk, None)
            self._games[hot.game.pk] = hot
            if len(self._games) > self.LIMIT:
                del self._games[next(iter(self._games))]

    def drop(self, game_id: int, hot: HotGame | None = None) -> None:
        """Forget a game (only if it is still at ``hot``, when given: a later move may have replaced it)."""
        with self._lock:
            if hot is None or self._games.get(game_id) is hot:
                self._games.pop(game_id, None)


hot_games = HotGames()


def _unchanged_moves_on() -> bool:
    """A person's move may take ``_submit_unchanged``: on PostgreSQL, outside a caller's transaction."""
    return settings.JASSWEB_UNCHANGED_MOVES and connection.vendor == "postgresql" and not connection.in_atomic_block


def unchanged_moves_on_loop() -> bool:
    """A person's move may take ``submit_unchanged`` on the event loop (PostgreSQL; read from the settings:
    Django's ``connection`` on the event loop is one per task)."""
    return settings.JASSWEB_UNCHANGED_MOVES and str(settings.DATABASES["default"]["ENGINE"]).endswith("postgresql")


@dataclass(slots=True)
class _UnchangedMove:
    """A move checked against what this process holds of its game, ready to be stored in one statement."""

    hot: HotGame
    moved: Game  # the game's columns after the move
    after: GameState
    seat: int
    action: EngineAction
    now: datetime
    started: float

    @property
    def seq(self) -> int:
        return self.hot.game.action_count

    def statement_args(self) -> tuple[int, int, Game, int, int, str, int, datetime]:
        """The arguments of ``fastpath.move_if_unchanged`` (and of its variant on the event loop)."""
        action, moved = self.action, self.moved
        return (
            self.hot.table_id,
            self.hot.version,
            moved,
            self.seq,
            self.seat,
            action.kind,
            action.value,
            self.now,
        )


def _plan_unchanged(
    game_id: int, table_id: int, seat: int, action: EngineAction, actor: Actor, expected_seq: int | None, started: float
) -> _UnchangedMove | None:
    """The move, if this process stored the game's last move and it would be taken as the process sees the
    game now; else None (the full path decides: from the database's game, in its own words)."""
    hot = hot_games.get(game_id)
    if hot is None or hot.table_id != table_id or len(hot.seats) != 4:
        return None
    game = hot.game
    if game.status != Game.RUNNING or (expected_seq is not None and expected_seq != game.action_count):
        return None
    state = states.peek(game_id, game.seed, game.action_count)
    if state is None:
        return None
    try:
        _check_mover(hot.seats[seat], actor, BotReport())
        after = state.apply(seat, action)
    except (ServiceError, IllegalActionError, InvalidActionError):
        return None  # refused by the full path, in the words it has for it
    if after.over or len(after.rounds) > len(state.rounds):
        return None  # a round's end (a standard game stores the next deal) or the game's (summaries, ratings)
    moved, now = copy.copy(game), timezone.now()
    moved.action_count, moved.points, moved.turn_started_at = game.action_count + 1, list(after.scores), now
    return _UnchangedMove(hot, moved, after, seat, action, now, started)


def _finish_unchanged(move: _UnchangedMove, version: int | None, driver: str, stored: bool) -> GameState | None:
    """After ``fastpath.move_if_unchanged``: publish the stored move (its game part built once), or forget the
    game (None: the table changed meanwhile, and the full path decides)."""
    hot, moved, seq = move.hot, move.moved, move.seq
    game_id, table_id = moved.pk, hot.table_id
    if version is None or not stored:
        hot_games.drop(game_id, hot)
        if version is not None:  # never: a game's moves and status change with its table's event number
            log.error("game %s: table %s's event %s was numbered without the move", game_id, table_id, version)
        return None
    moved.driver = driver
    code = move.action.code
    watchers = snapshot.move_message(version, moved, move.after, hot.seats, [seq, move.seat, code])
    change = Change(table_id, game_id, "action", version, None, seq + 1, (move.seat, code), moved.seed, driver)
    states.remember(game_id, moved.seed, seq + 1, move.after)
    hot_games.keep(HotGame(table_id, version, moved, hot.seats))
    _after_commit(table_id, watchers, change)
    metrics.move_committed("person", time.perf_counter() - move.started)
    return move.after


def _submit_unchanged(
    game_id: int, table_id: int, seat: int, action: EngineAction, actor: Actor, expected_seq: int | None, started: float
) -> GameState | None:
    """A person's move at a table where nothing happened since this process stored the game's last move: one
    statement, neither the table's lock nor the game read first (``fastpath.move_if_unchanged``).

    The move is checked against the game, its seats and its state as this process holds them, and stored only
    if the table's event number is still the one they had; everything else (a change at the table since, a
    move this process did not store, a refusal, a round's or the game's end) returns None, and ``submit``'s
    full path reads the game from the database and decides."""
    move = _plan_unchanged(game_id, table_id, seat, action, actor, expected_seq, started)
    if move is None:
        return None
    return _finish_unchanged(move, *fastpath.move_if_unchanged(*move.statement_args()))


async def submit_unchanged(
    game_id: int, table_id: int, seat: int, action: EngineAction, actor: Actor, expected_seq: int | None
) -> GameState | None:
    """``_submit_unchanged`` on the event loop, for a socket's move: no hop to a database thread and back.
    None: the move goes to ``submit`` (on a database thread) as any other. A move whose game has faults on
    record goes there too (its view reads them)."""
    started = time.perf_counter()
    move = _plan_unchanged(game_id, table_id, seat, action, actor, expected_seq, started)
    if move is None or any(s.fault_count for s in move.hot.seats):
        return None
    return _finish_unchanged(move, *await fastpath.move_if_unchanged_on_loop(*move.statement_args()))


def submit_moves(
    game_id: int,
    seat: int,
    actions: list[EngineAction],
    *,
    actor: Actor,
    expected_seq: int | None,
    table_id: int | None = None,
) -> GameState:
    """Several moves of one seat in a row: Weis declared with one tap, Stöck with their card.

    All are checked on the game as it is before the first is stored, so a refused one changes
    nothing; then each is stored as its own move (``submit``).
    """
    if not actions or not all(isinstance(a, EngineAction) for a in actions):
        raise ServiceError(ErrorCode.BAD_ACTION, "no moves given")
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise ServiceError(ErrorCode.NO_GAME, gettext("there is no game {number}").format(number=game_id))
    _check_fresh(expected_seq, game.action_count)
    trial = states.load(game)
    for action in actions:
        try:
            trial = trial.apply(_check_position(seat), action)
        except IllegalActionError as exc:
            raise _refused(exc, trial.player != seat) from None
        except InvalidActionError as exc:
            raise ServiceError(ErrorCode.BAD_ACTION, str(exc)) from None
    seq = game.action_count if expected_seq is None else expected_seq
    after = trial
    for offset, action in enumerate(actions):
        after = submit(game_id, seat, action, actor=actor, expected_seq=seq + offset, table_id=table_id)
    return after


def _check_fresh(expected_seq: int | None, action_count: int) -> None:
    """Refuse a move made for an earlier point of the game (``expected_seq``: the move number it was for)."""
    if expected_seq is not None and expected_seq != action_count:
        raise ServiceError(
            ErrorCode.STALE,
            gettext("the game has moved on: this move was for event {expected}, it is at {current}").format(
                expected=expected_seq, current=action_count
            ),
        )


def _refused(exc: IllegalActionError, out_of_turn: bool) -> ServiceError:
    """The engine's refusal of a move as the service's, with its facts (seat, card, rule)."""
    code = ErrorCode.NOT_YOUR_TURN if out_of_turn else ErrorCode.ILLEGAL
    return ServiceError(code, str(exc), seat=exc.seat, card=exc.card, reason=exc.reason)


def _check_mover(game_seat: SeatFields, actor: Actor, report: BotReport) -> None:
    """Refuse a move by someone who does not play this seat now."""
    position = SEAT_NAMES[game_seat.position]
    if actor.bot:
        if report.standin:
            if not (game_seat.player_id and game_seat.standin):
                raise ServiceError(ErrorCode.NOT_YOUR_SEAT, f"no stand-in plays {position} now")
        elif game_seat.kind not in BOT_KINDS:
            raise ServiceError(ErrorCode.NOT_YOUR_SEAT, f"{position} is not played by a bot")
        return
    if actor.player_id is None or game_seat.player_id != actor.player_id:
        raise ServiceError(
            ErrorCode.NOT_YOUR_SEAT,
            gettext("you do not play {seat} in this game").format(seat=seat_name(game_seat.position)),
        )
    if game_seat.standin == GameSeat.LEFT:
        raise ServiceError(ErrorCode.LEFT, gettext("you left this game: a stand-in bot plays your seat"))
    if game_seat.standin:
        raise ServiceError(
            ErrorCode.STANDIN, gettext("a stand-in bot is playing for you: press “I'm back” to play again")
        )


def _note_bot_answer(game: Game, game_seat: SeatFields, seq: int, state: GameState, report: BotReport) -> None:
    """Keep a bot's answer time (and fault, and the dialect that answered) on its seat and in the faults."""
    fields = []
    if report.latency_ms is not None:
        game_seat.last_latency_ms = report.latency_ms
        fields.append("last_latency_ms")
        metrics.bot_answered(bool(game_seat.remote_url) and not report.standin, report.latency_ms / 1000)
    if report.fault_kind:
        metrics.bot_fault(report.fault_kind)
        Fault.objects.create(
            game=game,
            seat=game_seat.position,
            seq=seq,
            round=state.round_index,
            trick=len(state.current.tricks),
            kind=report.fault_kind,
            detail=report.fault_detail[:300],
            hidden_detail=report.fault_hidden[:300],
            latency_ms=report.latency_ms or 0,
        )
        game_seat.fault_count += 1
        fields.append("fault_count")
        oplog.bot_fault(
            game,
            game_seat,
            report.fault_kind,
            report.fault_detail,
            state.round_index,
            len(state.current.tricks),
            report.latency_ms or 0,
        )
    if report.dialect and game_seat.remote_dialect == Dialect.AUTO:
        game_seat.remote_dialect = report.dialect
        fields.append("remote_dialect")
    if fields:
        fastpath.update_seat(game_seat, fields)


def record_fault(game_id: int, seat: int, round_index: int, kind: str, detail: str, latency_ms: int = 0) -> None:
    """Store a remote bot's fault that replaced no move (a failed ``game_info`` after a round)."""
    with transaction.atomic():
        locked = _lock_game(game_id)
        if locked is None:
            raise ServiceError(ErrorCode.NO_GAME, gettext("there is no game {number}").format(number=game_id))
        table, game = locked
        Fault.objects.create(
            game=game, seat=seat, round=round_index, trick=None, kind=kind, detail=detail[:300], latency_ms=latency_ms
        )
        GameSeat.objects.filter(game=game, position=seat).update(fault_count=F("fault_count") + 1)
        _changed(table, game.pk, "fault")
        metrics.bot_fault(kind)
        oplog.bot_fault(
            game, GameSeat.objects.get(game=game, position=seat), kind, detail, round_index, None, latency_ms
        )


def abandon_game(table_id: int, actor: Actor, reason: str = "") -> Game:
    """Stop the running game of a table, or ask the other people playing in it to agree.

    Its creator or a seated player may ask. With no other person in the game (bots
    only, or people who left it), the game ends at once, as it does for the system.
    Otherwise the request becomes a vote (``Game.abandon_vote``) that every other
    person in the game answers with ``answer_abandon``; it lapses after
    ``JASSWEB_ABANDON_VOTE_SECONDS``. Asking while someone else's vote is open
    agrees to it. Returns the game (abandoned, or still running with its vote).
    """
    with transaction.atomic():
        table = _lock_table(table_id)
        game = running_game(table)
        if game is None:
            raise ServiceError(ErrorCode.NO_GAME, gettext("no game is running at this table"))
        _check_unmanaged(table, actor)
        if not _may_manage(table, _seats(table), actor):
            raise ServiceError(
                ErrorCode.NOT_ALLOWED, gettext("only the table's creator or a seated player can abandon the game")
            )
        voters = [p for p in _people_playing(game) if p != actor.player_id]
        if actor.system or not voters:
            _abandon(table, game, reason or "abandoned by a player")
            return game
        vote = open_abandon_vote(game)
        if vote is not None:
            if vote["by"] == actor.player_id:
                raise ServiceError(
                    ErrorCode.VOTE_OPEN, gettext("you asked already; the others have not all answered yet")
                )
            if actor.player_id is not None and actor.player_id in vote["voters"]:
                _answer(table, game, vote, actor.player_id, agree=True)
                return game
        name = "?"
        if actor.player_id is not None:
            name = Player.objects.filter(pk=actor.player_id).values_list("name", flat=True).first() or "?"
        until = timezone.now() + timedelta(seconds=settings.JASSWEB_ABANDON_VOTE_SECONDS)
        game.abandon_vote = {
            "by": actor.player_id,
            "by_name": name,
            "voters": voters,
            "agreed": [],
            "refused_by": None,
            "until": round(until.timestamp() * 1000),
        }
        game.save(update_fields=["abandon_vote"])
        _changed(table, game.pk, "abandon_vote")
    return game


def answer_abandon(table_id: int, player: Player, agree: bool) -> Game:
    """A person's answer to the open request to abandon their game: agreed by all, it ends the game."""
    with transaction.atomic():
        table = _lock_table(table_id)
        game = running_game(table)
        vote = open_abandon_vote(game) if game is not None else None
        if game is None or vote is None:
            raise ServiceError(
                ErrorCode.NO_VOTE, gettext("nobody is asking to abandon a game here (or the request lapsed)")
            )
        if player.pk not in vote["voters"] or player.pk not in _people_playing(game):
            raise ServiceError(
                ErrorCode.NOT_ALLOWED, gettext("only the other people playing in this game answer this request")
            )
        _answer(table, game, vote, player.pk, agree)
    return game


def open_abandon_vote(game: Game) -> dict[str, Any] | None:
    """The game's request to abandon it while it is open: not lapsed, nobody refused."""
    vote = game.abandon_vote
    if not vote or vote.get("refused_by") is not None:
        return None
    return vote if vote["until"] > timezone.now().timestamp() * 1000 else None


def _answer(table: Table, game: Game, vote: dict[str, Any], player_id: int, agree: bool) -> None:
    if not agree:
        # The refusal stays in view a few seconds, then the table is as before.
        until = timezone.now() + timedelta(seconds=REFUSAL_SHOWN_S)
        game.abandon_vote = {**vote, "refused_by": player_id, "until": round(until.timestamp() * 1000)}
        game.save(update_fields=["abandon_vote"])
        _changed(table, game.pk, "abandon_vote")
        return
    agreed = sorted({*vote["agreed"], player_id})
    still_playing = _people_playing(game)
    if all(v in agreed for v in vote["voters"] if v in still_playing):
        game.abandon_vote = None
        game.save(update_fields=["abandon_vote"])
        _abandon(table, game, f"{vote['by_name']} asked and the other players agreed")
        return
    game.abandon_vote = {**vote, "agreed": agreed}
    game.save(update_fields=["abandon_vote"])
    _changed(table, game.pk, "abandon_vote")


def _people_playing(game: Game) -> list[int]:
    """The people still playing their seats in a game (not those who left it for good)."""
    rows = GameSeat.objects.filter(game=game, player__isnull=False).exclude(standin=GameSeat.LEFT)
    return list(rows.values_list("player_id", flat=True))


def _abandon(table: Table, game: Game, reason: str) -> None:
    game.status, game.finished_at, game.abandon_reason = Game.ABANDONED, timezone.now(), reason[:200]
    game.save(update_fields=["status", "finished_at", "abandon_reason"])
    _changed(table, game.pk, "abandoned")
    oplog.game_abandoned(game, list(game.seats.order_by("position")))
    signals.send_in_transaction(signals.game_ended, game=game)
    managed_by = table.managed_by
    transaction.on_commit(lambda: metrics.game_ended(managed_by, Game.ABANDONED))


# -- playing again -----------------------------------------------------------------


def open_rematch(table: Table) -> dict[str, Any] | None:
    """The table's offer to play again while it is open: not lapsed, nobody refused."""
    vote = table.rematch
    if not vote or vote.get("refused_by") is not None:
        return None
    return vote if vote["until"] > timezone.now().timestamp() * 1000 else None


def rematch(table_id: int, player: Player, accept: bool) -> Game | None:
    """*Play again* after a game: the first to press offers it to the others seated, who accept or refuse.

    The same four seats play the next game as soon as every person seated accepted within
    ``JASSWEB_REMATCH_SECONDS`` (bots always accept); the deal moves on from where the last game
    ended. One refusal, or the time running out, and nothing starts. Returns the new game, if it started.
    """
    with transaction.atomic():
        table = _lock_table(table_id)
        if table.managed_by:
            raise ServiceError(ErrorCode.MANAGED, gettext("a tournament plays its games by its own schedule"))
        if running_game(table):
            raise ServiceError(ErrorCode.GAME_RUNNING, gettext("a game is already running at this table"))
        last = table.games.order_by("-pk").first()
        if last is None:
            raise ServiceError(ErrorCode.NO_GAME, gettext("no game has been played at this table yet"))
        seats = _seats(table)
        people = [s.player_id for s in seats if s.player_id is not None]
        if player.pk not in people:
            raise ServiceError(ErrorCode.NOT_SEATED, gettext("only the people seated here play again"))
        vote = open_rematch(table)
        if vote is None or vote["game"] != last.pk:
            if not accept:
                raise ServiceError(ErrorCode.NO_VOTE, gettext("nobody offered to play again (or the offer lapsed)"))
            until = timezone.now() + timedelta(seconds=settings.JASSWEB_REMATCH_SECONDS)
            vote = {
                "game": last.pk,
                "by": player.pk,
                "by_name": player.name,
                "voters": people,
                "accepted": [],
                "refused_by": None,
                "until": round(until.timestamp() * 1000),
            }
        if not accept:
            until = timezone.now() + timedelta(seconds=REFUSAL_SHOWN_S)
            table.rematch = {**vote, "refused_by": player.pk, "until": round(until.timestamp() * 1000)}
            table.save(update_fields=["rematch"])
            _changed(table, None, "rematch")
            return None
        vote = {**vote, "accepted": sorted({*vote["accepted"], player.pk})}
        if all(p in vote["accepted"] for p in people):
            return _deal_game(table, seats, previous=last)  # clears the offer
        table.rematch = vote
        table.save(update_fields=["rematch"])
        _changed(table, None, "rematch")
    return None


# -- play now ----------------------------------------------------------------------

PLAY_NOW_ROUNDS = 4  # a play-now game: one fair game of four rounds, rated (a quarter of an hour)


def _rating(player_ids: list[int]) -> float:
    """The people's mean rating (OpenSkill's cautious ordinal), 0 for people not rated yet."""
    from games.models import Competitor

    ordinals = dict(
        Competitor.objects.filter(key__in=[f"person:{p}" for p in player_ids]).values_list("key", "ordinal")
    )
    values = [ordinals.get(f"person:{p}", 0.0) for p in player_ids]
    return sum(values) / len(values) if values else 0.0


def play_now(player: Player, bot: str = "rules") -> Table:
    """Seat ``player`` at a public table that waits for people, the closest in rating first; or open one
    that waits ``JASSWEB_PLAY_NOW_WAIT_S`` for others before ``bot`` fills its empty seats and the game starts
    (``play_now_due``). A person already waiting at such a table is sent back to it."""
    if bot not in builtin_bots():
        raise ServiceError(ErrorCode.UNKNOWN_BOT, f"unknown bot {bot!r}; {known_bots()}")
    now = timezone.now()
    waiting = Table.objects.filter(open_until__gt=now, private=False, managed_by="", imported=False)
    mine = waiting.filter(seats__player=player).first()
    if mine is not None:
        return mine
    candidates = []
    for table in waiting.exclude(games__status=Game.RUNNING).prefetch_related("seats"):
        seats = list(table.seats.all())
        if any(s.kind == SeatKind.EMPTY for s in seats):
            candidates.append((table, [s.player_id for s in seats if s.player_id]))
    if candidates:
        me = _rating([player.pk])
        candidates.sort(key=lambda c: (abs(_rating(c[1]) - me), c[0].pk))
        for table, _ in candidates:
            with transaction.atomic():
                locked = _lock_table(table.pk)
                seats = _seats(locked)
                free = [s for s in seats if s.kind == SeatKind.EMPTY]
                if locked.open_until is None or locked.open_until <= timezone.now() or not free or running_game(locked):
                    continue  # taken or started meanwhile: the next one
                free[0].player, free[0].bot = player, ""
                free[0].save(update_fields=["player", "bot"])
                if len(free) == 1:  # four people: no need to wait for anyone
                    locked.open_until = None
                    locked.save(update_fields=["open_until"])
                    _deal_game(locked, _seats(locked))
                else:
                    _changed(locked, None, "seats")
            return locked
    table = create_table(
        player,
        name=gettext("{name}'s game").format(name=player.name)[:MAX_TABLE_NAME],
        mode=FAIR,
        round_count=PLAY_NOW_ROUNDS,
        turn_clock_s=60 if 60 in settings.JASSWEB_TURN_CLOCK_CHOICES else 0,
        rated=True,
    )
    with transaction.atomic():
        locked = _lock_table(table.pk)
        locked.open_until = timezone.now() + timedelta(seconds=settings.JASSWEB_PLAY_NOW_WAIT_S)
        locked.play_now_bot = bot
        locked.save(update_fields=["open_until", "play_now_bot"])
        Seat.objects.filter(table=locked, position=2).update(player=player)
        _changed(locked, None, "seats")
    return locked


def play_now_due() -> list[int]:
    """Start the play-now tables whose wait is over: bots fill their empty seats (a heartbeat's work)."""
    started = []
    due = Table.objects.filter(open_until__lte=timezone.now()).values_list("pk", flat=True)
    for table_id in due:
        with transaction.atomic():
            table = _lock_table(table_id)
            if table.open_until is None or table.open_until > timezone.now():
                continue
            table.open_until = None
            table.save(update_fields=["open_until"])
            if running_game(table):
                continue
            seats = _seats(table)
            if not any(s.player_id for s in seats):
                continue  # everyone went: nothing to play
            for seat in seats:
                if seat.kind == SeatKind.EMPTY:
                    seat.bot = table.play_now_bot or "rules"
                    seat.save(update_fields=["bot"])
            _deal_game(table, seats)
            started.append(table_id)
    return started


# -- presence --------------------------------------------------------------------


def connect(table_id: int, player_id: int, channel_name: str) -> snapshot.Public | None:
    """Note an open connection of a person to a table. If they just came online: the table's view with them
    online (its event is sent to the watchers after the commit); else None."""
    worker_id = workers.register()
    with transaction.atomic():
        table = _lock_table(table_id)
        first = fastpath.note_connection(channel_name, worker_id, table_id, player_id, timezone.now())
        return _changed(table, None, "presence") if first else None


def disconnect(channel_name: str) -> bool:
    """Forget a closed connection; True (and an event) if its person has no other one to that table."""
    with transaction.atomic():
        row = Connection.objects.filter(channel_name=channel_name).values_list("table_id", "player_id").first()
        if row is None:
            return False
        table_id, player_id = row
        table = _lock_table(table_id)
        Connection.objects.filter(channel_name=channel_name).delete()
        last = not Connection.objects.filter(table_id=table_id, player_id=player_id).exists()
        if last:
            _changed(table, None, "presence")
    return last


def presence_changed(table_ids: list[int]) -> None:
    """Tell the watchers of these tables who is online now (after a dead worker's connections went)."""
    for table_id in table_ids:
        with transaction.atomic():
            table = Table.objects.select_for_update().filter(pk=table_id).first()
            if table is not None:
                _changed(table, None, "presence")


def tables_changed_between(since: datetime, until: datetime) -> list[int]:
    """The tables whose last change was made in [since, until): what an outage of the channel layer may have lost."""
    return list(Table.objects.filter(updated_at__gte=since, updated_at__lt=until).values_list("pk", flat=True))


def redeliver(table_id: int, since: datetime, until: datetime) -> bool:
    """Publish a table's state again after the channel layer lost its events from ``since`` until ``until``.

    Its watchers and its game's driver hear it as a new event (a fresh number, the whole view); a turn clock
    that began while the events were lost starts again now, as its person may never have been shown the
    turn. Nothing is done for a table changed since ``until``: that change was published with the layer back
    (by this process, or by another that publishes again itself once it reaches the layer). True if published.
    """
    with transaction.atomic():
        table = Table.objects.select_for_update().filter(pk=table_id).first()
        if table is None or not since <= table.updated_at < until:
            return False
        game = running_game(table)
        if game is not None and game.turn_clock_s and game.turn_started_at and game.turn_started_at >= since:
            game.turn_started_at = timezone.now()
            game.save(update_fields=["turn_started_at"])
        _changed(table, None, "redelivered")
    return True


# -- stand-ins, the turn clock, and games nobody plays ---------------------------


def _game_seat_of(game: Game, player_id: int | None) -> GameSeat:
    seat = GameSeat.objects.filter(game=game, player_id=player_id).first() if player_id else None
    if seat is None:
        raise ServiceError(ErrorCode.NOT_SEATED, gettext("you do not play in this game"))
    return seat


def _lock_game(game_id: int) -> tuple[Table, Game] | None:
    """Lock a game's table (every change of a game does) and read the game; None if there is no such game."""
    table_id = Game.objects.filter(pk=game_id).values_list("table_id", flat=True).first()
    if table_id is None:
        return None
    table = _lock_table(table_id)
    return table, Game.objects.get(pk=game_id)


def clock_ran_out(game_id: int, seat: int, expected_seq: int) -> bool:
    """A person's turn clock ran out: their stand-in bot plays from now on. False if it did not run out."""
    with transaction.atomic():
        locked = _lock_game(game_id)
        if locked is None:
            return False
        table, game = locked
        if game.status != Game.RUNNING or game.action_count != expected_seq or not game.turn_clock_s:
            return False
        game_seat = GameSeat.objects.get(game=game, position=seat)
        if not game_seat.player_id or game_seat.standin or states.load(game).player != seat:
            return False
        started = game.turn_started_at
        if started is None or timezone.now() < started + timedelta(seconds=game.turn_clock_s):
            return False
        game_seat.standin = GameSeat.CLOCK
        game_seat.save(update_fields=["standin"])
        _changed(table, game.pk, "standin")
        signals.send_in_transaction(signals.clock_ran_out, game=game, seat=seat)
    return True


def back_to_seat(table_id: int, player: Player) -> None:
    """*I'm back*: a person whose clock ran out plays their seat again (their clock starts afresh)."""
    with transaction.atomic():
        table = _lock_table(table_id)
        game = running_game(table)
        if game is None:
            raise ServiceError(ErrorCode.NO_GAME, gettext("no game is running at this table"))
        game_seat = _game_seat_of(game, player.pk)
        if game_seat.standin == GameSeat.LEFT:
            raise ServiceError(ErrorCode.LEFT, gettext("you left this game; join the next one"))
        if not game_seat.standin:
            raise ServiceError(ErrorCode.NOT_AWAY, gettext("you are playing your seat already"))
        game_seat.standin = ""
        game_seat.save(update_fields=["standin"])
        if states.load(game).player == game_seat.position:
            game.turn_started_at = timezone.now()
            game.save(update_fields=["turn_started_at"])
        _changed(table, game.pk, "standin")


def mark_ready(table_id: int, player: Player, round_number: int) -> None:
    """A person closed the summary of round ``round_number`` (from 1) with *Continue*.

    When every person playing at the table (and online) is ready, the summary closes for all and the
    next deal's bots play on without waiting out the round pause. Closing it again changes nothing.
    """
    if type(round_number) is not int:
        raise ServiceError(ErrorCode.BAD_MESSAGE, f"'ready' needs the round number, got {round_number!r:.10}")
    with transaction.atomic():
        table = _lock_table(table_id)
        game = running_game(table)
        if game is None:
            raise ServiceError(ErrorCode.NO_GAME, gettext("no game is running at this table"))
        game_seat = _game_seat_of(game, player.pk)
        ended = states.load(game).round_index  # the number of the round that ended last
        if not 1 <= round_number <= ended:
            raise ServiceError(
                ErrorCode.BAD_ROUND, f"round {round_number} has not ended; the last one to end is {ended}"
            )
        if game_seat.ready_round >= round_number:
            return
        game_seat.ready_round = round_number
        game_seat.save(update_fields=["ready_round"])
        _changed(table, game.pk, "ready")


def _leave_game(table: Table, game: Game, player: Player) -> None:
    """A person leaves a running game for good: the stand-in bot takes their seat, now and at the table."""
    game_seat = _game_seat_of(game, player.pk)
    game_seat.standin = GameSeat.LEFT
    game_seat.save(update_fields=["standin"])
    Seat.objects.filter(table=table, player=player).update(player=None, bot=game.standin_bot)
    vote = open_abandon_vote(game)
    if vote is not None:  # they no longer vote; a request of theirs goes with them
        still_playing = _people_playing(game)
        if vote["by"] == player.pk or not still_playing:
            game.abandon_vote = None
            game.save(update_fields=["abandon_vote"])
        elif all(v in vote["agreed"] for v in vote["voters"] if v in still_playing):
            game.abandon_vote = None
            game.save(update_fields=["abandon_vote"])
            _abandon(table, game, f"{vote['by_name']} asked and the other players agreed")
            return
    _changed(table, game.pk, "standin")


def abandon_orphaned(game_id: int, quiet_seconds: float, alone_since: float) -> bool:
    """End a running game that people play but none has been connected to for ``quiet_seconds``.

    ``alone_since`` (a ``time.time()``) is when its driver saw the last person go. Stand-ins and bots
    playing on meanwhile do not keep it alive: a game of stand-ins alone is no game of people (it
    would burn a worker's CPU to the end and count for people). Bot-only games (and games whose people
    all left) never count as orphaned: their driver plays them to the end. True if it was abandoned.
    """
    with transaction.atomic():
        locked = _lock_game(game_id)
        if locked is None:
            return False
        table, game = locked
        if game.status != Game.RUNNING:
            return False
        people = [s.player_id for s in game.seats.all() if s.player_id and s.standin != GameSeat.LEFT]
        if not people or Connection.objects.filter(table_id=table.pk, player_id__in=people).exists():
            return False
        if time.time() < alone_since + quiet_seconds:
            return False
        minutes = quiet_seconds / 60
        span = f"{minutes:g} minutes" if minutes >= 1 else f"{quiet_seconds:g} seconds"
        _abandon(table, game, f"nobody was at the table for {span}")
    return True


# -- people: names, and a guest becoming an account ------------------------------


def _tables_of(player_id: int) -> list[Table]:
    """Lock the tables where a person sits or plays a running game, in id order (two callers never cross)."""
    seated = Seat.objects.filter(player_id=player_id).values_list("table_id", flat=True)
    playing = GameSeat.objects.filter(player_id=player_id, game__status=Game.RUNNING).values_list(
        "game__table_id", flat=True
    )
    table_ids = set(seated) | set(playing)
    return list(Table.objects.select_for_update().filter(pk__in=table_ids).order_by("pk"))


def rename_player(player: Player, name: str) -> None:
    """Give a person a new name at their tables and in their running games, from the next view on.

    Finished games keep the names they were played under: a game's seats are its record.
    """
    with transaction.atomic():
        tables = _tables_of(player.pk)
        player.name = name
        player.save(update_fields=["name"])
        GameSeat.objects.filter(player=player, game__status=Game.RUNNING).update(name=name)
        for table in tables:
            _changed(table, None, "seats")


def adopt_guest(guest: Player, user: Any) -> None:
    """A guest signs up: their player becomes the new account's, named after it.

    The player keeps its id, so every seat, game, imported record, open connection and
    running game (with the driver's and watchers' view of who sits where) stays theirs as it is.
    """
    with transaction.atomic():
        tables = _tables_of(guest.pk)
        guest.user = user
        guest.save(update_fields=["user"])
        name = user.get_username()[:40]
        if name != guest.name:
            guest.name = name
            guest.save(update_fields=["name"])
            GameSeat.objects.filter(player=guest, game__status=Game.RUNNING).update(name=name)
        for table in tables:
            _changed(table, None, "seats")


def merge_players(guest: Player, account: Player) -> list[int]:
    """A guest logs in to an account that has a player already: what the guest did becomes the account's.

    Seats, game seats, opened tables and imported records move over. A game both sat in
    stays with the guest (one person never holds two seats of a game, nor sees two hands),
    and so does the guest's seat at a table where that game runs; at a table without a
    running game where both sit, the guest's seat is given up. Returns the ids of the
    games that stayed with the guest.
    """
    with transaction.atomic():
        tables = _tables_of(guest.pk)
        shared_games = set(GameSeat.objects.filter(player=account).values_list("game_id", flat=True)) & set(
            GameSeat.objects.filter(player=guest).values_list("game_id", flat=True)
        )
        both_seated = set(Seat.objects.filter(player=account).values_list("table_id", flat=True)) & set(
            Seat.objects.filter(player=guest).values_list("table_id", flat=True)
        )
        kept_tables = set(
            Game.objects.filter(pk__in=shared_games, status=Game.RUNNING).values_list("table_id", flat=True)
        )
        running = GameSeat.objects.filter(player=guest, game__status=Game.RUNNING).exclude(game_id__in=shared_games)
        running.update(name=account.name)
        GameSeat.objects.filter(player=guest).exclude(game_id__in=shared_games).update(player=account)
        Seat.objects.filter(player=guest, table_id__in=both_seated - kept_tables).update(player=None)
        Seat.objects.filter(player=guest).exclude(table_id__in=kept_tables).update(player=account)
        Table.objects.filter(created_by=guest).update(created_by=account)
        # The guest's open sockets are the same person's: the presence dots follow the seats.
        Connection.objects.filter(player=guest).exclude(table_id__in=kept_tables).update(player=account)
        for table in tables:
            _changed(table, None, "seats")
    return sorted(shared_games)
