"""The statements of a move, written out: the live server's hottest path.

Every move locks and numbers the table's event, reads the game and its seats,
stores the move and updates the game. Through the ORM each of these cost about
0.45 ms of query building here, against 0.03 ms for the statement itself on
SQLite, so a move cost 4 ms of a process's single database thread. These
functions issue the same statements directly (parameterised, portable between
SQLite and PostgreSQL, values adapted by the model fields themselves) and
return ordinary model instances, so the rest of the service does not notice.
The same for what every socket's open and every table event reads (the
connection row, the table's seats, who is online, the current game): a rolling
restart opens a hundred sockets at once. Everything else stays on the ORM.

On PostgreSQL a person's move at a table where nothing happened since this process
stored the game's last move is one statement in a transaction of its own
(``move_if_unchanged``: nothing is read first; it writes only if the table is still at
the event this process knows). Any other move is three statements in three round trips with BEGIN and
COMMIT (the game is read with its seats, sent with the table's lock in one
pipeline, and the move stored with the game's new columns in one data-modifying
``WITH``), and the statements here are bound on the server and prepared on their
first use per connection (``_cursor``; ``JASSWEB_DB_PREPARE=0`` for an old
PgBouncer): PostgreSQL parses and plans each once, not at every move (its CPU
per move fell by a third, docs/benchmarks.md).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections, models

from games.catalogue import SeatKind
from games.live import database
from games.models import Action, Connection, Game, GameSeat, Player, Seat, SeatFields, Table, seat_kind

_GAME_COLUMNS = (
    "table_id",
    "status",
    "action_count",
    "seed",
    "mode",
    "target",
    "round_count",
    "multipliers",
    "weis",
    "turn_clock_s",
    "round_pause_s",
    "standin_bot",
    "abandon_reason",
    "abandon_vote",  # a request to abandon the game stays in view while people play on
    "driver",
    "turn_started_at",
    "created_at",
)
_SEAT_COLUMNS = (
    "id",
    "position",
    "player_id",
    "bot",
    "remote_url",
    "remote_dialect",
    "name",
    "last_latency_ms",
    "fault_count",
    "standin",
    "ready_round",
)


def _json_reader(field: models.JSONField) -> Callable[[Any], Any]:
    # JSONField reads a plain column without an expression; the stubs demand one.
    return lambda value: field.from_db_value(value, None, connection)  # type: ignore[arg-type]


def _sqlite_datetime_reader() -> Callable[[Any], Any]:
    from django.db.backends.sqlite3.operations import DatabaseOperations as SQLiteOperations

    ops = connection.ops
    assert isinstance(ops, SQLiteOperations)
    return lambda value: ops.convert_datetimefield_value(value, None, connection)


def _converters(model, names: tuple[str, ...]):
    """For each column, how the model's field reads its value (JSON decoded, datetimes made aware), or None."""
    result: list[Callable[[Any], Any] | None] = []
    for name in names:
        field = model._meta.get_field(name)
        internal = field.get_internal_type()
        if isinstance(field, models.JSONField):
            result.append(_json_reader(field))
        elif internal == "DateTimeField" and connection.vendor == "sqlite":
            result.append(_sqlite_datetime_reader())
        else:
            result.append(None)
    return tuple(result)


_game_converters = None


def _read(names: tuple[str, ...], row: tuple[Any, ...], converters) -> dict[str, Any]:
    return {
        name: value if convert is None or value is None else convert(value)
        for name, value, convert in zip(names, row, converters, strict=True)
    }


@dataclass(slots=True)
class SeatRow:
    """A game seat as the move path reads it (duck-types ``GameSeat`` for the views)."""

    id: int
    position: int
    player_id: int | None
    bot: str
    remote_url: str
    remote_dialect: str
    name: str
    last_latency_ms: int | None
    fault_count: int
    standin: str
    ready_round: int

    @property
    def pk(self) -> int:
        return self.id

    @property
    def kind(self) -> SeatKind:
        return seat_kind(self)


@dataclass(slots=True)
class PlayerName:
    """A seated person as a table's view names them."""

    id: int
    name: str

    @property
    def pk(self) -> int:
        return self.id


@dataclass(slots=True)
class TableSeatRow:
    """A table's seat as its view reads it (duck-types ``Seat`` with its ``player`` for the views)."""

    position: int
    player_id: int | None
    bot: str
    remote_url: str
    remote_name: str
    remote_dialect: str
    player: PlayerName | None

    @property
    def kind(self) -> SeatKind:
        return seat_kind(self)


def read_table_seats(table_id: int) -> list[TableSeatRow]:
    """A table's four seats with their people's names, in position order (every event's view reads them)."""
    with _cursor() as cursor:
        cursor.execute(
            f"SELECT s.position, s.player_id, s.bot, s.remote_url, s.remote_name, s.remote_dialect, p.name"
            f" FROM {Seat._meta.db_table} s LEFT JOIN {Player._meta.db_table} p ON p.id = s.player_id"
            " WHERE s.table_id = %s ORDER BY s.position",
            [table_id],
        )
        rows = cursor.fetchall()
    return [
        TableSeatRow(
            position,
            player_id,
            bot,
            url,
            remote_name,
            dialect,
            None if player_id is None else PlayerName(player_id, name),
        )
        for position, player_id, bot, url, remote_name, dialect, name in rows
    ]


def online_players_of(table_ids: list[int]) -> dict[int, set[int]]:
    """The people of each table with an open connection (any server process)."""
    online: dict[int, set[int]] = {table_id: set() for table_id in table_ids}
    if not table_ids:
        return online
    # On PostgreSQL one array parameter: one statement to prepare, however many tables.
    postgres = connection.vendor == "postgresql"
    wanted = "= ANY(%s)" if postgres else f"IN ({', '.join(['%s'] * len(table_ids))})"
    with _cursor() as cursor:
        cursor.execute(
            f"SELECT table_id, player_id FROM {Connection._meta.db_table} WHERE table_id {wanted}",
            [list(table_ids)] if postgres else table_ids,
        )
        for table_id, player_id in cursor.fetchall():
            online[table_id].add(player_id)
    return online


def bump_version(table_id: int, now: datetime) -> int | None:
    """Lock a table row and bump its event number in one statement; the new number, or None (no table)."""
    with _cursor() as cursor:
        cursor.execute(_BUMP_VERSION, _bump_params(table_id, now))
        row = cursor.fetchone()
    return None if row is None else row[0]


def lock_and_read(table_id: int, game_id: int, now: datetime) -> tuple[int | None, Game | None, list[SeatRow]]:
    """``bump_version`` then ``read_game_and_seats``, in this order in the transaction; on PostgreSQL both go in
    one round trip (a pipeline: the read needs nothing of the bump's answer, only to run after its lock; a libpq
    older than 14 has no pipelines, and the two go one after the other)."""
    if connection.vendor != "postgresql" or not psycopg.Pipeline.is_supported():
        return bump_version(table_id, now), *read_game_and_seats(game_id)
    with _cursor() as lock, _cursor() as read:
        with connection.connection.pipeline():
            lock.execute(_BUMP_VERSION, _bump_params(table_id, now))
            read.execute(_READ_GAME_AND_SEATS, [game_id])
        row = lock.fetchone()
        rows = read.fetchall()
    return None if row is None else row[0], *_game_and_seats(rows)


_BUMP_VERSION = (
    f"UPDATE {Table._meta.db_table} SET version = version + 1, updated_at = %s WHERE id = %s RETURNING version"
)


def _bump_params(table_id: int, now: datetime) -> list[Any]:
    return [connection.ops.adapt_datetimefield_value(now), table_id]


def read_current_game(table_id: int) -> Game | None:
    """The running game of a table, else its most recent one (``snapshot.current_game``), without its deals and
    fair schedule (read those with the ORM where they are needed)."""
    return _game_where("table_id = %s ORDER BY created_at DESC, id DESC LIMIT 1", [table_id])


def _game_where(condition: str, params: list[Any]) -> Game | None:
    with _cursor() as cursor:
        cursor.execute(f"SELECT {_game_select()} FROM {Game._meta.db_table} WHERE {condition}", params)
        row = cursor.fetchone()
    return None if row is None else _game_from(row)


def read_game_and_seats(game_id: int) -> tuple[Game | None, list[SeatRow]]:
    """A game (its columns as ``read_current_game`` reads them) and its seats (``read_seats``) in one statement."""
    with _cursor() as cursor:
        cursor.execute(_READ_GAME_AND_SEATS, [game_id])
        rows = cursor.fetchall()
    return _game_and_seats(rows)


def _game_and_seats(rows: list[tuple[Any, ...]]) -> tuple[Game | None, list[SeatRow]]:
    if not rows:
        return None, []
    width = 1 + len(_GAME_COLUMNS)
    return _game_from(rows[0][:width]), [SeatRow(*row[width:]) for row in rows if row[width] is not None]


def _game_select(prefix: str = "") -> str:
    return ", ".join(f"{prefix}{c}" for c in ("id", *(_column(Game, c) for c in _GAME_COLUMNS)))


def _game_from(row: tuple[Any, ...]) -> Game:
    global _game_converters
    if _game_converters is None:
        _game_converters = _converters(Game, _GAME_COLUMNS)
    game = Game(id=row[0], **_read(_GAME_COLUMNS, row[1:], _game_converters))
    game._state.adding = False
    return game


def read_seats(game_id: int) -> list[SeatRow]:
    """A game's four seats, in position order."""
    with _cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join(_column(GameSeat, c) for c in _SEAT_COLUMNS)} FROM {GameSeat._meta.db_table}"
            " WHERE game_id = %s ORDER BY position",
            [game_id],
        )
        rows = cursor.fetchall()
    return [SeatRow(*row) for row in rows]


def insert_action(game_id: int, seq: int, seat: int, kind: str, value: int, latency_ms, standin: bool, now) -> None:
    """Store a move (the unique (game, seq) constraint refuses a second one at the same place)."""
    with _cursor() as cursor:
        cursor.execute(_INSERT_ACTION, _action_params(game_id, seq, seat, kind, value, latency_ms, standin, now))


def store_move(game: Game, fields: list[str], seq: int, seat: int, kind: str, value: int, latency_ms, standin, now):
    """``insert_action`` and ``update_game`` together: on PostgreSQL one statement (a round trip less)."""
    action = _action_params(game.pk, seq, seat, kind, value, latency_ms, standin, now)
    if connection.vendor != "postgresql":
        insert_action(game.pk, seq, seat, kind, value, latency_ms, standin, now)
        update_game(game, fields)
        return
    sets, params = _sets(Game, game, fields)
    with _cursor() as cursor:
        cursor.execute(
            f"WITH stored AS ({_INSERT_ACTION}) UPDATE {Game._meta.db_table} SET {sets} WHERE id = %s",
            [*action, *params, game.pk],
        )


def move_if_unchanged(
    table_id: int, version: int, game: Game, seq: int, seat: int, kind: str, value: int, now: datetime
) -> tuple[int | None, str, bool]:
    """A person's move at a table where nothing has happened since event ``version``, in one statement of its
    own (PostgreSQL, autocommit): the table's event is bumped only if it is still ``version``, the game's
    moves count, points and turn clock are written only then and only if it is still running at move ``seq``
    (and is the game of this seed: the same numbers in a database restored meanwhile are another game),
    and the move is stored only if the game was. ``game`` holds the columns after the move.

    Returns the new event number (None: the table changed meanwhile, nothing was written), the game's driver
    as its row is now (its lease may have moved) and whether the move was stored. The table's row is locked
    first, as every change locks it; a change that committed meanwhile has bumped its event, so the move
    waits for it and then writes nothing."""
    statement, params = _move_if_unchanged(connection, table_id, version, game, seq, seat, kind, value, now)
    with _cursor() as cursor:
        cursor.execute(statement, params)
        row = cursor.fetchone()
    return row[0], row[1] or "", bool(row[2])


async def move_if_unchanged_on_loop(
    table_id: int, version: int, game: Game, seq: int, seat: int, kind: str, value: int, now: datetime
) -> tuple[int | None, str, bool]:
    """``move_if_unchanged`` from the event loop, on a connection of the loop's own (``LoopConnections``): a
    person's move needs no database thread."""
    statement, params = _move_if_unchanged(_detached(), table_id, version, game, seq, seat, kind, value, now)
    row = await loop_connections.fetchone(statement, params)
    return row[0], row[1] or "", bool(row[2])


def _move_if_unchanged(
    wrapper, table_id: int, version: int, game: Game, seq: int, seat: int, kind: str, value: int, now: datetime
) -> tuple[str, list[Any]]:
    sets, params = _sets(Game, game, ["action_count", "points", "turn_started_at"], wrapper)
    action = _action_params(game.pk, seq, seat, kind, value, None, False, now, wrapper)
    return _move_if_unchanged_statement(sets), [
        action[-1],  # the table's updated_at: the move's time, adapted
        table_id,
        version,
        *params,
        game.pk,
        game.seed,
        seq,
        Game.RUNNING,
        *action,
    ]


_detached_wrappers: list[Any] = []


def _detached() -> Any:
    """A database wrapper of the default database that belongs to no thread and no task: it adapts values and
    gives the connection's settings on the event loop, where Django's ``connection`` would make a wrapper for
    each task (each socket) and keep it."""
    if not _detached_wrappers:
        _detached_wrappers.append(connections.create_connection(DEFAULT_DB_ALIAS))
    return _detached_wrappers[0]


LOOP_APPLICATION_NAME = "jassweb moves"


class LoopConnections:
    """A few connections of the event loop's own, in autocommit, for the one statement of a person's move.

    As many statements run at once as there are database threads (``JASSWEB_DB_THREADS``): one that waits
    for a table's lock holds up no other table's move. A connection that fails (or whose statement was
    cancelled) is closed, and the next statement opens a new one; an event loop of its own gets its own."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots: asyncio.Semaphore | None = None
        self._idle: list[psycopg.AsyncConnection[Any]] = []

    async def fetchone(self, statement: str, params: list[Any]) -> Any:
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._slots is None:
            self.close()
            self._loop, self._slots = loop, asyncio.Semaphore(max(1, settings.JASSWEB_DB_THREADS))
        async with self._slots:
            with database.running():  # a stopping server waits for it before it hands its games over
                return await self._fetchone(statement, params)

    async def _fetchone(self, statement: str, params: list[Any]) -> Any:
        conn = self._idle.pop() if self._idle else await self._connect()
        try:
            async with conn.cursor() as cursor:
                await cursor.execute(statement, params)
                row = await cursor.fetchone()
        except BaseException:
            conn.pgconn.finish()
            raise
        self._idle.append(conn)
        return row

    async def _connect(self) -> psycopg.AsyncConnection[Any]:
        params = dict(_detached().get_connection_params())
        params.pop("cursor_factory", None)  # Django's cursor is a synchronous one
        params["prepare_threshold"] = 0 if settings.JASSWEB_DB_PREPARE else None
        params["application_name"] = LOOP_APPLICATION_NAME  # what an operator sees in pg_stat_activity
        return await psycopg.AsyncConnection.connect(**params, autocommit=True)

    def close(self) -> None:
        """Close the idle connections (without waiting: their event loop may be gone)."""
        idle, self._idle = self._idle, []
        for conn in idle:
            conn.pgconn.finish()


loop_connections = LoopConnections()


@functools.cache
def _move_if_unchanged_statement(sets: str) -> str:
    columns = ("game", "seq", "seat", "kind", "value", "latency_ms", "standin", "created_at")
    fields = [Action._meta.get_field(name) for name in columns]
    assert all(isinstance(field, models.Field) for field in fields)
    # Typed: the values are selected (only if the game was written), not inserted as VALUES the columns type.
    typed = ", ".join(f"%s::{field.db_type(_detached())}" for field in fields)  # type: ignore[union-attr]
    return (
        f"WITH bumped AS (UPDATE {Table._meta.db_table} SET version = version + 1, updated_at = %s"
        " WHERE id = %s AND version = %s RETURNING version),"
        f" moved AS (UPDATE {Game._meta.db_table} SET {sets}"
        " WHERE id = %s AND seed = %s AND action_count = %s AND status = %s AND EXISTS (SELECT 1 FROM bumped)"
        " RETURNING driver),"
        f" stored AS ({_INSERT_ACTION.split(' VALUES ')[0]} SELECT {typed} FROM moved)"
        " SELECT (SELECT version FROM bumped), (SELECT driver FROM moved), EXISTS (SELECT 1 FROM moved)"
    )


_INSERT_ACTION = (
    f"INSERT INTO {Action._meta.db_table} (game_id, seq, seat, kind, value, latency_ms, standin, created_at)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
)


def _action_params(
    game_id: int, seq: int, seat: int, kind: str, value: int, latency_ms, standin, now, wrapper: Any = connection
) -> list[Any]:
    return [game_id, seq, seat, kind, value, latency_ms, standin, wrapper.ops.adapt_datetimefield_value(now)]


def note_connection(channel_name: str, worker_id: str, table_id: int, player_id: int, now: datetime) -> bool:
    """Note an open connection of a person to a table (again, after a rejoin: its row is updated); whether it
    is their first one there (they just came online). Two statements, on every socket's open."""
    table = Connection._meta.db_table
    with _cursor() as cursor:
        cursor.execute(f"SELECT 1 FROM {table} WHERE table_id = %s AND player_id = %s LIMIT 1", [table_id, player_id])
        first = cursor.fetchone() is None
        cursor.execute(
            f"INSERT INTO {table} (channel_name, worker_id, table_id, player_id, created_at)"
            " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (channel_name) DO UPDATE"
            " SET worker_id = excluded.worker_id, table_id = excluded.table_id, player_id = excluded.player_id",
            [channel_name, worker_id, table_id, player_id, connection.ops.adapt_datetimefield_value(now)],
        )
    return first


def update_game(game: Game, fields: list[str]) -> None:
    """Write these fields of ``game`` (values adapted by their model fields)."""
    _update_row(Game, game, fields)


def update_seat(seat: SeatFields, fields: list[str]) -> None:
    """Write these fields of a game seat."""
    _update_row(GameSeat, seat, fields)


def _update_row(model, row, fields: list[str]) -> None:
    """``UPDATE`` one row of ``model`` by its ``pk``: these fields, adapted by the model's fields."""
    sets, params = _sets(model, row, fields)
    with _cursor() as cursor:
        cursor.execute(f"UPDATE {model._meta.db_table} SET {sets} WHERE id = %s", [*params, row.pk])


def _sets(model, row, fields: list[str], wrapper: Any = connection) -> tuple[str, list[Any]]:
    """The ``SET`` list of these fields and their values, adapted by the model's fields."""
    sets, params = [], []
    for name in fields:
        field = model._meta.get_field(name)
        sets.append(f"{field.column} = %s")
        params.append(field.get_db_prep_save(getattr(row, field.attname), wrapper))
    return ", ".join(sets), params


def _cursor() -> Any:
    """A cursor for the statements here: on PostgreSQL one that binds its parameters on the server, so that
    each statement, the same text every time, is parsed and planned once per connection (prepared after
    its first use) instead of at every move."""
    if connection.vendor != "postgresql":
        return connection.cursor()
    connection.ensure_connection()
    raw = connection.connection
    threshold = 0 if settings.JASSWEB_DB_PREPARE else None
    if raw.prepare_threshold != threshold:
        raw.prepare_threshold = threshold
    connection.validate_thread_sharing()
    cursor: Any = psycopg.Cursor(raw)  # Django's wrappers take any DB-API cursor (the stubs say their own type)
    return connection.make_debug_cursor(cursor) if connection.queries_logged else connection.make_cursor(cursor)


def _column(model, name: str) -> str:
    return model._meta.get_field(name).column


# The move's read, written once (it names the models' columns, defined above).
_READ_GAME_AND_SEATS = (
    f"SELECT {_game_select('g.')}, {', '.join(f's.{_column(GameSeat, c)}' for c in _SEAT_COLUMNS)}"
    f" FROM {Game._meta.db_table} g LEFT JOIN {GameSeat._meta.db_table} s ON s.game_id = g.id"
    " WHERE g.id = %s ORDER BY s.position"
)
