"""The one writer of tables and games.

Every change — a browser click, a built-in bot's move, a remote bot's reply, a
seat taken — goes through a function here that, in one transaction, locks the
table row, validates the change (the engine decides what is legal), writes it,
and bumps the table's event number. Only after commit are the table's watchers
told (channel-layer group ``table.<id>``) and the listeners (the bot runner)
woken.

The engine state of a game is rebuilt from its ``Action`` rows; a per-process
cache keeps recent states and catches up from the rows it has not seen.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import urlsplit

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone

from bots.registry import BUILTIN_BOTS
from bots.remote import AUTO as AUTO_DIALECT
from bots.remote import DIALECTS, MAX_TIMEOUT, BotUrlError, check_bot_url
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
from games.models import Action, Fault, Game, GameSeat, Player, Seat, Table, deal_to_json

log = logging.getLogger(__name__)

MAX_TABLE_NAME = 60
MAX_BOT_TIMEOUT = int(MAX_TIMEOUT)


class ServiceError(Exception):
    """A refused change: ``code`` is stable for clients, ``message`` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Actor:
    """Who asks for a change: a person (``player_id``), the bot runner, or the operator (``system``)."""

    player_id: int | None = None
    bot: bool = False
    system: bool = False  # management commands: may arrange seats and start games, never move for a person


BOT_RUNNER = Actor(bot=True)
SYSTEM = Actor(system=True)


# -- the state cache -------------------------------------------------------------

_CACHE_SIZE = 512
_cache: OrderedDict[tuple[int, int], tuple[int, GameState]] = OrderedDict()  # (id, seed) -> (seq, state)
_cache_lock = threading.Lock()


def load_state(game: Game) -> GameState:
    """Return the engine state of ``game`` after its ``game.action_count`` actions."""
    key = (game.pk, game.seed)
    with _cache_lock:
        cached = _cache.get(key)
    if cached is not None and cached[0] <= game.action_count:
        seq, state = cached
    else:
        seq, state = 0, GameState.new(game.config(), game.plan())
    if seq < game.action_count:
        for row in Action.objects.filter(game=game, seq__gte=seq, seq__lt=game.action_count).order_by("seq"):
            if row.seq != seq:
                raise RuntimeError(f"game {game.pk} is missing action {seq}")
            state = state.apply(row.seat, row.to_engine())
            seq += 1
        _remember(key, seq, state)
    return state


def _remember(key: tuple[int, int], seq: int, state: GameState) -> None:
    with _cache_lock:
        current = _cache.get(key)
        if current is None or current[0] <= seq:
            _cache[key] = (seq, state)
            _cache.move_to_end(key)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)


def forget_cached_states() -> None:
    """Drop every cached state (tests use it to prove the database alone suffices)."""
    with _cache_lock:
        _cache.clear()


# -- events ----------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """A committed change, as listeners (the bot runner) hear of it."""

    table_id: int
    game_id: int | None
    reason: str  # created, seats, started, action, round_over, finished, abandoned
    round_index: int | None = None  # for round_over and finished: the round that ended


_listeners: list[Callable[[Change], None]] = []


def add_listener(listener: Callable[[Change], None]) -> None:
    """Call ``listener(change)`` after every committed change (the bot runner listens)."""
    if listener not in _listeners:
        _listeners.append(listener)


def _publish(table_id: int, version: int, game_id: int | None, reason: str, round_index: int | None) -> None:
    """Tell the table's watchers that it changed (they each render their own view)."""
    layer = get_channel_layer()
    if layer is not None:
        message = {"type": "table.event", "table": table_id, "version": version, "game": game_id, "reason": reason}
        try:
            async_to_sync(layer.group_send)(f"table.{table_id}", message)
            if reason not in ("action", "round_over"):  # the lobby shows seats and results, not every card
                async_to_sync(layer.group_send)("lobby", {"type": "lobby.event", "table": table_id})
        except Exception:  # the change is committed; watchers resync on reconnect
            log.exception("could not publish table %s event %s", table_id, version)
    change = Change(table_id, game_id, reason, round_index)
    for listener in list(_listeners):
        try:
            listener(change)
        except Exception:
            log.exception("table listener %r failed", listener)


def _changed(table: Table, game_id: int | None, reason: str, round_index: int | None = None) -> None:
    """Bump the table's event number and publish once the transaction commits."""
    table.version += 1
    table.save(update_fields=["version", "updated_at"])
    version = table.version
    transaction.on_commit(lambda: _publish(table.pk, version, game_id, reason, round_index))


def _lock_table(table_id: int) -> Table:
    try:
        return Table.objects.select_for_update().get(pk=table_id)
    except Table.DoesNotExist:
        raise ServiceError("no_table", f"there is no table {table_id}") from None


def running_game(table: Table) -> Game | None:
    return table.games.filter(status=Game.RUNNING).first()


def _seats(table: Table) -> list[Seat]:
    return list(table.seats.select_related("player").order_by("position"))


def _check_position(position: object) -> int:
    if type(position) is not int or not 0 <= position <= 3:
        raise ServiceError("bad_seat", f"a seat is 0 (North), 1 (East), 2 (South) or 3 (West), got {position!r}")
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
    private: bool = False,
    bot_delay_ms: int | None = None,
    bot_timeout_s: int = 5,
) -> Table:
    """Open a table with four empty seats; the options are checked by the engine."""
    name = (name or "").strip()
    if not name or len(name) > MAX_TABLE_NAME:
        raise ServiceError("bad_options", f"a table name has 1 to {MAX_TABLE_NAME} characters")
    try:
        table_config = GameConfig(
            mode=mode,
            target=target,
            round_count=round_count,
            multipliers=GameConfig.multipliers_from("classic" if multipliers else None),
        )
    except InvalidConfigError as exc:
        raise ServiceError("bad_options", str(exc)) from None
    if bot_delay_ms is None:
        from django.conf import settings

        bot_delay_ms = settings.JASSWEB_BOT_DELAY_MS
    if type(bot_delay_ms) is not int or not 0 <= bot_delay_ms <= 5000:
        raise ServiceError("bad_options", f"bot delay is 0 to 5000 ms, got {bot_delay_ms!r}")
    _check_timeout(bot_timeout_s)
    with transaction.atomic():
        table = Table.objects.create(
            name=name,
            mode=table_config.mode,
            target=table_config.target,
            round_count=table_config.round_count,
            multipliers=multipliers,
            private=bool(private),
            bot_delay_ms=bot_delay_ms,
            bot_timeout_s=bot_timeout_s,
            created_by=player,
        )
        Seat.objects.bulk_create([Seat(table=table, position=p) for p in range(4)])
        _changed(table, None, "created")
    return table


@contextmanager
def _seat_change(table_id: int, actor: Actor | None = None, verb: str = "") -> Iterator[tuple[Table, list[Seat]]]:
    """Lock a table for a change of seats; refused while a game runs, and to ``actor`` unless it manages."""
    with transaction.atomic():
        table = _lock_table(table_id)
        if running_game(table):
            raise ServiceError("game_running", "seats cannot change while a game is running")
        seats = _seats(table)
        if actor is not None and not _may_manage(table, seats, actor):
            raise ServiceError("not_allowed", f"only the table's creator or a seated player can {verb}")
        yield table, seats
        _changed(table, None, "seats")


def take_seat(table_id: int, position: int, player: Player) -> None:
    """Seat ``player`` at an empty position (one seat per person per table)."""
    position = _check_position(position)
    with _seat_change(table_id) as (_, seats):
        if any(s.player_id == player.pk for s in seats):
            raise ServiceError("already_seated", "you already have a seat at this table")
        seat = seats[position]
        if seat.kind != "empty":
            raise ServiceError("seat_taken", f"{SEAT_NAMES[position]} is taken")
        seat.player, seat.bot = player, ""
        seat.save(update_fields=["player", "bot"])


def leave_seat(table_id: int, player: Player) -> None:
    """Free the seat ``player`` holds at a table."""
    with _seat_change(table_id) as (table, _):
        if not Seat.objects.filter(table=table, player=player).update(player=None):
            raise ServiceError("not_seated", "you have no seat at this table")


def set_bot(table_id: int, position: int, bot: str, actor: Actor) -> None:
    """Put a built-in bot on an empty seat (the table's creator or a seated player may)."""
    position = _check_position(position)
    if bot not in BUILTIN_BOTS:
        raise ServiceError("unknown_bot", f"unknown bot {bot!r}; built-in bots: {', '.join(sorted(BUILTIN_BOTS))}")
    with _seat_change(table_id, actor, "add bots") as (_, seats):
        seat = seats[position]
        if seat.kind == "human":
            raise ServiceError("seat_taken", f"{SEAT_NAMES[position]} is taken by {seat.player.name}")
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
        raise ServiceError("bad_bot_url", str(exc)) from None
    if dialect not in DIALECTS:
        raise ServiceError("bad_bot_url", f"the path dialect is one of {', '.join(DIALECTS)}, got {dialect!r:.20}")
    name = " ".join((name or "").split()) or default_bot_name(url)
    if len(name) > 40:
        raise ServiceError("bad_bot_url", "a bot name has at most 40 characters")
    with _seat_change(table_id, actor, "invite bots") as (_, seats):
        seat = seats[position]
        if seat.kind == "human":
            raise ServiceError("seat_taken", f"{SEAT_NAMES[position]} is taken by {seat.player.name}")
        seat.bot, seat.remote_url, seat.remote_name, seat.remote_dialect = "", url, name, dialect
        seat.save(update_fields=["bot", "remote_url", "remote_name", "remote_dialect"])


def default_bot_name(url: str) -> str:
    """A name for a bot from its URL: its last path part, else its host."""
    parts = urlsplit(url)
    return (parts.path.rstrip("/").rsplit("/", 1)[-1] or parts.hostname or "HSLU bot")[:40]


def clear_seat(table_id: int, position: int, actor: Actor) -> None:
    """Remove a bot (built-in or remote) from a seat (the table's creator or a seated player may)."""
    position = _check_position(position)
    with _seat_change(table_id, actor, "remove bots") as (_, seats):
        seat = seats[position]
        if seat.kind not in ("bot", "remote"):
            raise ServiceError("not_a_bot", f"there is no bot at {SEAT_NAMES[position]}")
        seat.bot, seat.remote_url, seat.remote_name, seat.remote_dialect = "", "", "", ""
        seat.save(update_fields=["bot", "remote_url", "remote_name", "remote_dialect"])


def _check_timeout(seconds: object) -> int:
    if type(seconds) is not int or not 1 <= seconds <= MAX_BOT_TIMEOUT:
        raise ServiceError("bad_options", f"the bot timeout is 1 to {MAX_BOT_TIMEOUT} seconds, got {seconds!r:.10}")
    return seconds


def set_bot_timeout(table_id: int, seconds: int, actor: Actor) -> None:
    """Change how long remote bots may think per answer at a table (between games)."""
    seconds = _check_timeout(seconds)
    with _seat_change(table_id, actor, "change the bot timeout") as (table, _):
        table.bot_timeout_s = seconds
        table.save(update_fields=["bot_timeout_s"])


# -- games -----------------------------------------------------------------------


def start_game(table_id: int, actor: Actor, seed: int | None = None) -> Game:
    """Deal a new game at a table whose four seats are filled."""
    with transaction.atomic():
        table = _lock_table(table_id)
        if table.imported:
            raise ServiceError("imported", "this table holds an imported game and plays no new ones")
        if running_game(table):
            raise ServiceError("game_running", "a game is already running at this table")
        seats = _seats(table)
        if not (actor.bot or _may_manage(table, seats, actor)):
            raise ServiceError("not_allowed", "only the table's creator or a seated player can start a game")
        empty = [SEAT_NAMES[s.position] for s in seats if s.kind == "empty"]
        if empty:
            raise ServiceError("seats_empty", f"fill every seat first: {', '.join(empty)} empty")
        seed = secrets.randbits(62) if seed is None else seed
        config = table.config(seed)
        plan = GamePlan(config)
        dealt = range(config.round_count) if config.mode == FAIR else range(1)
        game = Game.objects.create(
            table=table,
            mode=config.mode,
            target=config.target if config.mode == STANDARD else None,
            round_count=config.round_count if config.mode == FAIR else None,
            multipliers=list(config.multipliers) if config.multipliers else None,
            seed=seed,
            fair_schedule=list(plan.schedule) if plan.schedule else None,
            deals=[deal_to_json(plan.deal(i)) for i in dealt],
            points=[0, 0],
        )
        GameSeat.objects.bulk_create(
            [
                GameSeat(
                    game=game,
                    position=s.position,
                    player=s.player,
                    bot=s.bot,
                    remote_url=s.remote_url,
                    remote_dialect=s.remote_dialect,
                    name=s.player.name if s.player else (s.remote_name or bot_label(s.bot)),
                )
                for s in seats
            ]
        )
        _changed(table, game.pk, "started")
    return game


def bot_label(name: str) -> str:
    bot = BUILTIN_BOTS.get(name)
    return f"{bot.label} bot" if bot else name


@dataclass(frozen=True)
class BotReport:
    """What a bot's move comes with: its time, and for a remote bot the dialect and any fault."""

    latency_ms: int | None = None
    dialect: str | None = None  # the path dialect that answered (remembered for an "auto" seat)
    fault_kind: str | None = None  # the move is a random stand-in for a failed or bad answer
    fault_detail: str = ""
    fault_hidden: str = ""  # e.g. the illegal card: it would show the bot's hand, so only after the game


def submit(
    game_id: int,
    seat: int,
    action: EngineAction,
    *,
    actor: Actor,
    expected_seq: int | None,
    report: BotReport | None = None,
) -> GameState:
    """Apply one move for ``seat``: the only way a game changes.

    ``expected_seq`` is the number of moves the mover saw; a move made on an
    older state (a second tab, a slow bot) is refused as ``stale``, so racing
    submissions resolve to exactly one applied move. A bot's ``report`` is
    stored with the move (its time; a remote bot's fault and dialect).
    """
    seat = _check_position(seat)
    if not isinstance(action, EngineAction):
        raise ServiceError("bad_action", f"not an action: {action!r}")
    with transaction.atomic():
        table_id = Game.objects.filter(pk=game_id).values_list("table_id", flat=True).first()
        if table_id is None:
            raise ServiceError("no_game", f"there is no game {game_id}")
        table = _lock_table(table_id)
        game = Game.objects.get(pk=game_id)
        if game.status != Game.RUNNING:
            raise ServiceError("game_over", f"game {game_id} is {game.status}")
        if expected_seq is not None and expected_seq != game.action_count:
            raise ServiceError(
                "stale", f"the game has moved on: this move was for event {expected_seq}, it is at {game.action_count}"
            )
        game_seat = GameSeat.objects.get(game=game, position=seat)
        if actor.bot:
            if game_seat.kind not in ("bot", "remote"):
                raise ServiceError("not_your_seat", f"{SEAT_NAMES[seat]} is not played by a bot")
        elif actor.player_id is None or game_seat.player_id != actor.player_id:
            raise ServiceError("not_your_seat", f"you do not play {SEAT_NAMES[seat]} in this game")
        state = load_state(game)
        try:
            after = state.apply(seat, action)
        except IllegalActionError as exc:
            code = "not_your_turn" if state.player != seat else "illegal"
            raise ServiceError(code, str(exc)) from None
        except InvalidActionError as exc:
            raise ServiceError("bad_action", str(exc)) from None
        seq = game.action_count
        report = report if actor.bot and report else BotReport()
        Action.objects.create(
            game=game, seq=seq, seat=seat, kind=action.kind, value=action.value, latency_ms=report.latency_ms
        )
        if report.fault_kind:
            Fault.objects.create(
                game=game,
                seat=seat,
                seq=seq,
                round=state.round_index,
                trick=len(state.current.tricks),
                kind=report.fault_kind,
                detail=report.fault_detail[:300],
                hidden_detail=report.fault_hidden[:300],
                latency_ms=report.latency_ms or 0,
            )
        if report.dialect and game_seat.remote_dialect == AUTO_DIALECT:
            GameSeat.objects.filter(pk=game_seat.pk).update(remote_dialect=report.dialect)
        game.action_count = seq + 1
        if len(after.rounds) > len(game.deals):
            game.deals = [*game.deals, deal_to_json(after.deal(len(after.rounds) - 1))]
        game.points = list(after.scores)
        if after.over:
            game.status, game.winner, game.finished_at = Game.FINISHED, after.winner, timezone.now()
        game.save()
        transaction.on_commit(lambda: _remember((game.pk, game.seed), seq + 1, after))
        if after.over:
            _changed(table, game.pk, "finished", after.round_index)
        elif len(after.rounds) > len(state.rounds):
            _changed(table, game.pk, "round_over", state.round_index)
        else:
            _changed(table, game.pk, "action")
    return after


def record_fault(game_id: int, seat: int, round_index: int, kind: str, detail: str, latency_ms: int = 0) -> None:
    """Store a remote bot's fault that replaced no move (a failed ``game_info`` after a round)."""
    with transaction.atomic():
        game = Game.objects.filter(pk=game_id).first()
        if game is None:
            raise ServiceError("no_game", f"there is no game {game_id}")
        table = _lock_table(game.table_id)
        Fault.objects.create(
            game=game, seat=seat, round=round_index, trick=None, kind=kind, detail=detail[:300], latency_ms=latency_ms
        )
        _changed(table, game.pk, "fault")


def abandon_game(table_id: int, actor: Actor) -> Game:
    """Stop the running game of a table (its creator or a seated player may)."""
    with transaction.atomic():
        table = _lock_table(table_id)
        game = running_game(table)
        if game is None:
            raise ServiceError("no_game", "no game is running at this table")
        if not _may_manage(table, _seats(table), actor):
            raise ServiceError("not_allowed", "only the table's creator or a seated player can abandon the game")
        game.status, game.finished_at = Game.ABANDONED, timezone.now()
        game.save(update_fields=["status", "finished_at"])
        _changed(table, game.pk, "abandoned")
    return game
