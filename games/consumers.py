"""Websocket consumers: thin glue between browsers and the service.

Client messages are JSON objects with a ``type``. Every refusal is one reply
``{"type": "error", "code": ..., "message": ...}`` and changes nothing. After
every change each connection receives ``{"type": "state", "version": n,
"view": ...}`` rendered for its own seat: no frame ever carries another
player's hand. ``version`` numbers the table's events; a reconnecting client
gets a fresh state at once and may ask again with ``resync``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import asdict
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from bots.remote import AUTO, DIALECTS, BotUrlError, ExchangeError, check_bot_url, guarded_address, probe_bot
from bots.runner import runner
from games import service, snapshot
from games.engine import CARD_CODES, Action, InvalidActionError
from games.identity import player_for_scope
from games.models import Game, GameSeat, Player, Table
from games.service import ServiceError

log = logging.getLogger(__name__)

MAX_FRAME = 4096
PROBES_PER_WINDOW = 10  # bot tests per connection per minute
PROBE_WINDOW_S = 60.0


def _int_field(content: dict[str, Any], key: str) -> int:
    value = content.get(key)
    if type(value) is not int:
        raise ServiceError("bad_message", f"{content['type']!r} needs an integer {key!r}, got {value!r:.40}")
    return value


def _my_game_seat(table_id: int, player: Player | None) -> tuple[int, int, int]:
    """(game id, seat, table id) of the running game where ``player`` plays, or a ServiceError."""
    if player is None:
        raise ServiceError("not_seated", "you have no seat here: choose a nickname or sign in, then take a seat")
    # The newest game, not only a running one: a move that loses the race against the game's
    # last move must hear "game_over" from the service, not "no_game".
    game = Game.objects.filter(table_id=table_id).order_by("-pk").first()
    if game is None:
        raise ServiceError("no_game", "no game has been played at this table yet")
    seat = GameSeat.objects.filter(game=game, player=player).values_list("position", flat=True).first()
    if seat is None:
        raise ServiceError("not_seated", "you do not play in this game")
    return game.pk, seat, table_id


def _text_field(content: dict[str, Any], key: str) -> str:
    value = content.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ServiceError("bad_message", f"{content['type']!r} needs a text {key!r}")
    return value


async def _guard(url: str) -> None:
    """Refuse a bot URL whose form is wrong or whose address the private-address guard forbids."""
    try:
        await guarded_address(check_bot_url(url))
    except BotUrlError as exc:
        raise ServiceError("bot_url_refused" if exc.kind == "private_address" else "bad_bot_url", str(exc)) from None
    except ExchangeError as exc:
        raise ServiceError("bad_bot_url", str(exc)) from None


def _table_timeout(table_id: int) -> float:
    return float(Table.objects.filter(pk=table_id).values_list("bot_timeout_s", flat=True).first() or 5)


def _running_game_id(table_id: int) -> int | None:
    return Game.objects.filter(table_id=table_id, status=Game.RUNNING).values_list("pk", flat=True).first()


class TableConsumer(AsyncJsonWebsocketConsumer):
    """One browser tab at one table: a player in their seat, or a spectator."""

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.version = -1
        self.ref: str | int | None = None
        self.probe: asyncio.Task[None] | None = None
        self.probe_times: list[float] = []
        if not await database_sync_to_async(Table.objects.filter(pk=self.table_id, imported=False).exists)():
            await self.close(code=4404)
            return
        self.player: Player | None = await database_sync_to_async(player_for_scope)(self.scope)
        self.group = f"table.{self.table_id}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_state(force=True)
        runner.ensure_started()
        game_id = await database_sync_to_async(_running_game_id)(self.table_id)
        if game_id is not None:
            runner.wake(game_id)

    async def disconnect(self, code: int) -> None:
        if getattr(self, "probe", None) is not None:
            self.probe.cancel()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    # -- incoming -------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Parse a frame ourselves so that no malformed frame can break the connection."""
        if text_data is None:
            await self.send_error("bad_frame", "send JSON text frames, not binary ones")
            return
        if len(text_data) > MAX_FRAME:
            await self.send_error("bad_frame", f"a message is at most {MAX_FRAME} characters")
            return
        try:
            content = json.loads(text_data)
        except ValueError as exc:
            await self.send_error("bad_json", f"not JSON: {exc}")
            return
        await self.receive_json(content)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        ref = content.get("id") if isinstance(content, dict) else None
        self.ref = ref if isinstance(ref, (str, int)) and not isinstance(ref, bool) else None
        try:
            if not isinstance(content, dict) or not isinstance(content.get("type"), str):
                raise ServiceError("bad_message", "a message is a JSON object with a string 'type'")
            handler = self.HANDLERS.get(content["type"])
            if handler is None:
                known = ", ".join(sorted(self.HANDLERS))
                raise ServiceError("unknown_type", f"unknown message type {content['type']!r:.40}; known: {known}")
            await handler(self, content)
        except ServiceError as exc:
            await self.send_error(exc.code, exc.message)
        except Exception:
            log.exception("table %s: message %r failed", self.table_id, content)
            await self.send_error("server_error", "something went wrong on our side; nothing was changed")

    async def send_error(self, code: str, message: str) -> None:
        """The one refusal reply; it echoes the request's ``id``, if it had one."""
        reply = {"type": "error", "code": code, "message": message}
        if getattr(self, "ref", None) is not None:
            reply["id"] = self.ref
        await self.send_json(reply)

    def _actor(self) -> service.Actor:
        if self.player is None:
            raise ServiceError("no_identity", "choose a nickname or sign in first")
        return service.Actor(player_id=self.player.pk)

    async def on_join(self, content: dict[str, Any]) -> None:
        self._actor()
        await database_sync_to_async(service.take_seat)(self.table_id, _int_field(content, "seat"), self.player)

    async def on_leave(self, content: dict[str, Any]) -> None:
        self._actor()
        await database_sync_to_async(service.leave_seat)(self.table_id, self.player)

    async def on_add_bot(self, content: dict[str, Any]) -> None:
        bot = content.get("bot")
        if not isinstance(bot, str):
            raise ServiceError("bad_message", "'add_bot' needs a bot name in 'bot'")
        await database_sync_to_async(service.set_bot)(self.table_id, _int_field(content, "seat"), bot, self._actor())

    async def on_add_remote_bot(self, content: dict[str, Any]) -> None:
        """Seat an HSLU bot by URL; its address is checked first, so nothing is sent to a refused one."""
        url, name, dialect = _text_field(content, "url"), content.get("name") or "", content.get("dialect", AUTO)
        if not isinstance(name, str) or not isinstance(dialect, str):
            raise ServiceError("bad_message", "'add_remote_bot' takes text 'url', 'name' and 'dialect'")
        actor = self._actor()
        await _guard(url)
        await database_sync_to_async(service.set_remote_bot)(
            self.table_id, _int_field(content, "seat"), url, name, dialect, actor
        )

    async def on_test_bot(self, content: dict[str, Any]) -> None:
        """Send a bot a real trump request and report its answer, dialect and latency (seats nothing).

        Only those who may seat bots may test them, one test at a time and a few a minute per
        connection; the test runs beside the connection, which keeps receiving the table's states.
        """
        url, dialect = _text_field(content, "url"), content.get("dialect", AUTO)
        if dialect not in DIALECTS:
            raise ServiceError("bad_message", f"'dialect' is one of {', '.join(DIALECTS)}")
        if not await database_sync_to_async(service.may_manage)(self.table_id, self._actor()):
            raise ServiceError("not_allowed", "only the table's creator or a seated player can test bots")
        if self.probe is not None and not self.probe.done():
            raise ServiceError("busy", "a bot test is still running; wait for its answer")
        now = time.monotonic()
        self.probe_times = [t for t in self.probe_times if now - t < PROBE_WINDOW_S]
        if len(self.probe_times) >= PROBES_PER_WINDOW:
            raise ServiceError("busy", f"at most {PROBES_PER_WINDOW} bot tests a minute; try again shortly")
        await _guard(url)
        self.probe_times.append(now)
        timeout = await database_sync_to_async(_table_timeout)(self.table_id)
        self.probe = asyncio.create_task(self._probe(url, dialect, timeout, content.get("id")))

    async def _probe(self, url: str, dialect: str, timeout: float, ref: object) -> None:
        try:
            result = await probe_bot(url, dialect, timeout)
            await self.send_json({"type": "bot_test", "id": ref, **asdict(result)})
        except Exception:
            log.exception("table %s: testing bot %s failed", self.table_id, url)
            await self.send_json({"type": "error", "id": ref, "code": "server_error", "message": "the test failed"})

    async def on_set_bot_timeout(self, content: dict[str, Any]) -> None:
        seconds = _int_field(content, "seconds")
        await database_sync_to_async(service.set_bot_timeout)(self.table_id, seconds, self._actor())

    async def on_remove_bot(self, content: dict[str, Any]) -> None:
        await database_sync_to_async(service.clear_seat)(self.table_id, _int_field(content, "seat"), self._actor())

    async def on_start(self, content: dict[str, Any]) -> None:
        await database_sync_to_async(service.start_game)(self.table_id, self._actor())

    async def on_abandon(self, content: dict[str, Any]) -> None:
        await database_sync_to_async(service.abandon_game)(self.table_id, self._actor())

    async def _move(self, content: dict[str, Any], action: Action) -> None:
        seq = _int_field(content, "seq")
        game_id, seat, _ = await database_sync_to_async(_my_game_seat)(self.table_id, self.player)
        if "seat" in content and content["seat"] != seat:
            raise ServiceError("not_your_seat", f"you play seat {seat}, not {content['seat']!r:.10}")
        await database_sync_to_async(service.submit)(game_id, seat, action, actor=self._actor(), expected_seq=seq)

    async def on_choose_trump(self, content: dict[str, Any]) -> None:
        try:
            action = Action.trump(_int_field(content, "trump"))
        except InvalidActionError as exc:
            raise ServiceError("bad_action", str(exc)) from None
        await self._move(content, action)

    async def on_play_card(self, content: dict[str, Any]) -> None:
        card = content.get("card")
        if not isinstance(card, str) or card not in CARD_CODES:
            raise ServiceError("bad_action", f"'play_card' needs a card code like 'HA' in 'card', got {card!r:.20}")
        await self._move(content, Action.card(card))

    async def on_resync(self, content: dict[str, Any]) -> None:
        await self.send_state(force=True)

    async def on_ping(self, content: dict[str, Any]) -> None:
        await self.send_json({"type": "pong", "id": content.get("id")})

    HANDLERS = {
        "join": on_join,
        "leave": on_leave,
        "add_bot": on_add_bot,
        "remove_bot": on_remove_bot,
        "add_remote_bot": on_add_remote_bot,
        "test_bot": on_test_bot,
        "set_bot_timeout": on_set_bot_timeout,
        "start": on_start,
        "abandon": on_abandon,
        "choose_trump": on_choose_trump,
        "play_card": on_play_card,
        "resync": on_resync,
        "ping": on_ping,
    }

    # -- outgoing -------------------------------------------------------------

    async def table_event(self, event: dict[str, Any]) -> None:
        """A change at this table: send this connection its own fresh view."""
        if event.get("version", 0) > self.version:
            await self.send_state()

    async def send_state(self, force: bool = False) -> None:
        view = await database_sync_to_async(snapshot.table_view)(self.table_id, self.player)
        if view is None:
            await self.send_error("no_table", "this table no longer exists")
            await self.close(code=4404)
            return
        if view["version"] < self.version and not force:
            return  # a newer state was sent already
        self.version = max(self.version, view["version"])
        await self.send_json({"type": "state", "version": view["version"], "view": view})


class LobbyConsumer(AsyncJsonWebsocketConsumer):
    """The lobby's live list of tables."""

    async def connect(self) -> None:
        self.player: Player | None = await database_sync_to_async(player_for_scope)(self.scope)
        await self.channel_layer.group_add("lobby", self.channel_name)
        await self.accept()
        await self.send_tables()
        runner.ensure_started()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard("lobby", self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        await self.send_json({"type": "error", "code": "read_only", "message": "the lobby only sends table lists"})

    async def lobby_event(self, event: dict[str, Any]) -> None:
        await self.send_tables()

    async def send_tables(self) -> None:
        tables = await database_sync_to_async(snapshot.lobby_tables)(self.player)
        await self.send_json({"type": "tables", "tables": tables})
