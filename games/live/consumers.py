"""Websocket consumers: thin glue between browsers and the service.

Client messages are JSON objects with a ``type``, parsed once by ``games.live.protocol`` into typed
messages; a handler gets the message, never raw JSON. Every refusal is one reply
``{"type": "error", "code": ..., "message": ...}`` and changes nothing. After
every change each connection receives ``{"type": "state", "version": n,
"view": ...}`` rendered for its own seat: no frame ever carries another
player's hand. ``version`` numbers the table's events; a reconnecting client
gets a fresh state at once and may ask again with ``resync``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from types import SimpleNamespace
from typing import Any

from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils import translation
from django.utils.translation import gettext

from games import access
from games.catalogue import BotUrlError, FaultKind
from games.errors import ErrorCode
from games.live import bothooks, chat, limits, metrics, pings, protocol, service, snapshot, states
from games.live.database import database_sync_to_async
from games.live.identity import player_for_scope
from games.live.protocol import (
    Abandon,
    AbandonVote,
    AddBot,
    AddRemoteBot,
    AnnounceStoeck,
    Back,
    Chat,
    ChatHistory,
    ChooseTrump,
    DeclareWeis,
    Join,
    Leave,
    Message,
    Move,
    Mute,
    Ping,
    PlayCard,
    ProtocolError,
    Ready,
    Rematch,
    RemoveBot,
    Report,
    Resync,
    SetBotTimeout,
    SetTurnClock,
    Start,
    TestBot,
)
from games.live.service import ServiceError
from games.models import LOBBY_GROUP, ChatMessage, Game, Player, Table, table_group

log = logging.getLogger(__name__)

# The close code of a server that stops: pages reconnect (through the balancer, to another server). The
# protocol's own 1012 (service restart) is refused by daphne's websocket library, which lets a server send
# only 1000 and 3000-4999.
SERVICE_RESTART = 4012
TOO_MANY_SOCKETS = 4429  # the person or address holds JASSWEB_SOCKETS_PER_* open sockets already


def scope_language(scope: Mapping[str, Any]) -> str:
    """The language of the person behind a socket: the header switch's cookie, else the browser's Accept-Language.

    LocaleMiddleware does this for pages; a socket's refusals are worded in the same language as its page.
    """
    headers = dict(scope.get("headers") or ())
    request = SimpleNamespace(
        COOKIES=scope.get("cookies") or {},
        META={"HTTP_ACCEPT_LANGUAGE": headers.get(b"accept-language", b"").decode("latin-1")},
    )
    return translation.get_language_from_request(request)  # type: ignore[arg-type]


async def _guard(url: str) -> None:
    """Refuse a bot URL whose form is wrong or whose address the private-address guard forbids."""
    try:
        await bothooks.check_address(url)
    except BotUrlError as exc:
        raise ServiceError(
            ErrorCode.BOT_URL_REFUSED if exc.kind == FaultKind.PRIVATE_ADDRESS else ErrorCode.BAD_BOT_URL,
            exc.translated(gettext),
        ) from None


def _table_timeout(table_id: int) -> float:
    return float(Table.objects.filter(pk=table_id).values_list("bot_timeout_s", flat=True).first() or 5)


class NoDatabaseDispatch(AsyncJsonWebsocketConsumer):
    """Dispatch messages without Channels' ``aclose_old_connections`` before each one.

    Channels hops to the database thread before every message a consumer handles,
    to close stale connections. Here every database call goes through
    ``database_sync_to_async``, which does that itself, and a table's events touch
    no database at all: the hop only queued every watcher's frame behind the moves
    being written (five hops per move at a table of four).
    """

    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"no handler for message type {message['type']}")
        await handler(message)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Serve one connection, its frames and events handled in turn (``dispatch_in_turn``); whatever is
        sent to it once it is closing is dropped, not raised.

        A client may go away while its replies are on their way (a phone that loses its network,
        a tab closed mid-game, or on purpose, many times over): daphne refuses a send to a socket
        in its closing handshake with ``Disconnected``. Every way out (``send``, ``send_json``,
        ``close``, a bot test's late answer) goes through the ``send`` given here, so it is
        caught once, here; the disconnect itself is handled next, as always.
        """

        async def send_unless_gone(message: Any) -> None:
            with contextlib.suppress(Disconnected):
                await send(message)

        self.scope, self.base_send = scope, send_unless_gone
        layer = get_channel_layer(self.channel_layer_alias)
        if layer is None:
            raise ImproperlyConfigured("live sockets need a channel layer (CHANNEL_LAYERS)")
        self.channel_layer, self.channel_name = layer, await layer.new_channel()
        sources = [receive, functools.partial(layer.receive, self.channel_name)]
        try:
            await dispatch_in_turn(sources, self.dispatch)
        except StopConsumer:
            pass  # the socket is done with (Channels' way out of a consumer)
        except asyncio.CancelledError:
            # Daphne gives up on a consumer still busy 10 s after its socket closed (a backlog of frames it
            # was answering): its disconnect never ran, and the socket would stay counted, watched and online.
            if not self.disconnected:
                self.disconnected = True
                try:
                    await self.disconnect(1006)
                except Exception:
                    log.warning("%s: cleaning up a socket daphne gave up on failed", scope.get("path"), exc_info=True)
            raise
        finally:
            self.release_socket()

    disconnected = False
    _counted: tuple[tuple[str, object], ...] = ()

    async def websocket_disconnect(self, message: Any) -> None:
        self.disconnected = True
        await super().websocket_disconnect(message)

    async def admit_socket(self, player_id: int | None, address: str) -> bool:
        """Count this socket against its person's and address's caps (``JASSWEB_SOCKETS_PER_*``, per process);
        over a cap it is closed with ``TOO_MANY_SOCKETS`` and False is returned."""
        counted = (("address", address),) + ((("person", player_id),) if player_id is not None else ())
        caps = {"person": settings.JASSWEB_SOCKETS_PER_PERSON, "address": settings.JASSWEB_SOCKETS_PER_ADDRESS}
        if not settings.JASSWEB_LIMITS_ON:  # JASSWEB_LIMITS=0 lifts every limit (a load test from one address)
            caps = {"person": 0, "address": 0}
        if any(caps[kind] and _open_by[(kind, who)] >= caps[kind] for kind, who in counted):
            log.info("%s: refused, over the open sockets of one %s", scope_path(self.scope), counted[-1][0])
            metrics.limit_refused("sockets", counted[-1][0])
            await self.close(code=TOO_MANY_SOCKETS)
            return False
        for key in counted:
            _open_by[key] += 1
        self._counted = counted
        return True

    def release_socket(self) -> None:
        for key in self._counted:
            _open_by[key] -= 1
            if _open_by[key] <= 0:
                del _open_by[key]
        self._counted = ()


async def dispatch_in_turn(
    sources: list[Callable[[], Awaitable[Any]]], dispatch: Callable[[Any], Awaitable[None]]
) -> None:
    """Hand each message of ``sources`` (a socket's frames, its channel's events) to ``dispatch``, one at a time.

    Channels' ``await_many_dispatch`` does the same with a new task per message and an ``asyncio.wait`` over
    both sources, which on a busy server made most of what a young garbage collection walks (a task, its
    context and its waiter for every message on every socket; docs/benchmarks.md, "The collector in the
    window"). Here each source has one task for the socket's life, which takes its next message only once
    its last one is handled (no queue grows in between), and a lock lets one handler run at a time, as there.
    The first exception of a handler (``StopConsumer`` at the socket's end) ends both tasks and is raised;
    so is a cancellation. Ending a source's waiting ``receive`` by cancelling it is how the pub/sub
    layer unsubscribes the channel, as with Channels.
    """
    turn = asyncio.Lock()

    async def serve(source: Callable[[], Awaitable[Any]]) -> None:
        while True:
            message = await source()
            async with turn:
                await dispatch(message)

    tasks = [asyncio.ensure_future(serve(source)) for source in sources]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            task.result()  # serve() only ends by raising
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)  # each waiting receive ended, the layer's too
        # The exception raised on holds this frame in its traceback, and the tasks hold the exception: with the
        # tasks still named here, every closed socket (its consumer, its frames) would wait for a full collection.
        tasks = done = task = None  # type: ignore[assignment]


_open_by: Counter[tuple[str, object]] = Counter()  # this process's open sockets by ("person", id), ("address", a)


def scope_path(scope: Mapping[str, Any]) -> str:
    return str(scope.get("path", "a socket"))


class FrameConsumer(NoDatabaseDispatch):
    """A socket whose frames are requests: each parsed once (``protocol.parse``), then handled by
    ``HANDLERS[type(message)]``.

    No malformed frame can break the connection: every way a frame can be wrong gets its
    own refusal, and a handler's ``ServiceError`` becomes the one ``error`` reply. Set
    ``player_id``, ``address`` and ``language`` in ``connect``.
    """

    HANDLERS: dict[type[Message], Callable[[Any, Any], Awaitable[None]]] = {}
    player_id: int | None = None
    address = ""
    probe: asyncio.Task[None] | None = None  # a running bot test (``test_bot``)

    def describe(self) -> str:
        """What this socket is, for the log."""
        return self.channel_name

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any) -> None:
        """Handle a frame in the language of the socket's page: its refusals are worded in it."""
        with translation.override(getattr(self, "language", None)):
            await self._receive(text_data)

    async def _receive(self, text_data: str | None) -> None:
        """Count a frame against its sender's budget, parse it (``protocol.parse``) and handle the message."""
        refused = await _over_message_budget(self.player_id, self.address)
        if refused is not None:
            await self.send_error(refused.code, refused.message)
            return
        message = protocol.parse(text_data, self.HANDLERS)
        if isinstance(message, ProtocolError):
            await self.send_error(message.code, message.message, message.ref)
            return
        await self.handle(message)

    async def handle(self, message: Message) -> None:
        """Handle one message with ``HANDLERS[type(message)]``; a ``ServiceError`` becomes the ``error`` reply."""
        try:
            await self.HANDLERS[type(message)](self, message)
        except ServiceError as exc:
            await self.send_error(exc.code, exc.message, message.ref)
        except Exception:
            log.exception("%s: message of type %.40r failed", self.describe(), message.TYPE)
            await self.send_error(
                ErrorCode.SERVER_ERROR, gettext("something went wrong on our side; nothing was changed"), message.ref
            )

    async def send_error(self, code: str, message: str, ref: protocol.Ref = None) -> None:
        """The one refusal reply; it echoes the request's ``id`` (``ref``), if it had one."""
        await self.send_json(protocol.error(code, message, ref))

    async def test_bot(self, message: TestBot, timeout: float) -> None:
        """Probe the bot a ``test_bot`` message names beside the connection: one test at a time, counted
        against the limits on outbound calls; the answer is a ``bot_test`` frame."""
        if self.probe is not None and not self.probe.done():
            raise ServiceError(ErrorCode.BUSY, gettext("a bot test is still running; wait for its answer"))
        await _guard(message.url)
        await self._count_bot_call()
        self.probe = asyncio.create_task(self._probe(message, timeout))

    async def _count_bot_call(self) -> list[str]:
        """A bot test or invitation makes this server call out: limited per person, per address and for the
        whole server. Only a URL the address guard let through is counted (a refused one calls no one), so
        no one uses up the server's calls with refusals. Returns the counts, for ``limits.give_back``."""
        try:
            return await asyncio.to_thread(
                limits.hit, "bot_call", person=self.player_id, address=self.address, server="all"
            )
        except limits.Limited as exc:
            raise ServiceError(exc.code, exc.message) from None

    async def _probe(self, message: TestBot, timeout: float) -> None:
        try:
            result = await bothooks.probe_bot(message.url, message.dialect, timeout, message.seat)
            await self.send_json(protocol.bot_test(message.ref, result))
        except Exception:
            log.exception("%s: testing bot %s failed", self.describe(), message.url)
            await self.send_error(ErrorCode.SERVER_ERROR, gettext("the test failed"), message.ref)

    async def on_ping(self, message: Ping) -> None:
        await self.send_json(protocol.pong(message.ref))


class TableConsumer(FrameConsumer):
    """One browser tab at one table: a player in their seat, or a spectator."""

    def describe(self) -> str:
        return f"table {self.table_id}"

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.language = scope_language(self.scope)
        self.version = -1
        self.public: snapshot.Public | None = None
        self.probe = None
        self.muted: set[int] = set()  # the people whose messages this connection's person muted
        self.noted = False  # this connection is noted for presence
        if _refusing["new"]:
            await self.close(code=SERVICE_RESTART)  # this server stops: the page connects to another one
            return
        # Subscribe before reading the state, so that no event falls between the two; then one trip to the
        # database (a busy server's database thread is a queue) for the table, the person, and their presence.
        self.group = table_group(self.table_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        opened = await database_sync_to_async(_open)(self.table_id, self.scope, self.channel_name)
        if not isinstance(opened, tuple):  # no table here (4404), or this server stops
            await self.channel_layer.group_discard(self.group, self.channel_name)
            await self.close(code=4404 if opened is None else SERVICE_RESTART)
            return
        self.player, self.public, self.muted = opened
        self.address = limits.scope_address(self.scope)
        self.player_id = self.player.pk if self.player else None
        self.player_name = self.player.name if self.player else None
        self.noted = self.player is not None
        if not await self.admit_socket(self.player_id, self.address):
            await self.disconnect(TOO_MANY_SOCKETS)  # unsubscribed, and no longer noted as online
            return
        _live.add(self)
        metrics.socket_opened("table")
        bothooks.driver().ensure_started()
        await self.accept()
        self.version = self.public.version
        await self.send_public(self.public)
        meta = self.public.game_meta
        if meta is not None and meta["status"] == Game.RUNNING:
            bothooks.driver().wake(meta["id"])  # a game that lost its driver (a restart) is driven again

    async def disconnect(self, code: int) -> None:
        if self in _live:
            _live.discard(self)
            metrics.socket_closed("table")
        probe = getattr(self, "probe", None)
        if probe is not None:
            probe.cancel()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if getattr(self, "noted", False):
            self.noted = False
            await database_sync_to_async(service.disconnect)(self.channel_name)

    def _actor(self) -> service.Actor:
        if self.player is None:
            raise ServiceError(ErrorCode.NO_IDENTITY, gettext("choose a nickname or sign in first"))
        return service.Actor(player_id=self.player.pk)

    def _person(self) -> Player:
        """The person of this connection; refused (``_actor``) when there is none."""
        self._actor()
        assert self.player is not None
        return self.player

    async def on_join(self, message: Join) -> None:
        player = self._person()
        await database_sync_to_async(service.take_seat)(self.table_id, message.seat, player)

    async def on_leave(self, message: Leave) -> None:
        player = self._person()
        await database_sync_to_async(service.leave_seat)(self.table_id, player)

    async def on_add_bot(self, message: AddBot) -> None:
        await database_sync_to_async(service.set_bot)(self.table_id, message.seat, message.bot, self._actor())

    async def on_add_remote_bot(self, message: AddRemoteBot) -> None:
        """Seat an HSLU bot by URL; its address is checked first, so nothing is sent to a refused one."""
        actor = self._actor()
        await _guard(message.url)
        counted = await self._count_bot_call()
        try:
            await database_sync_to_async(service.set_remote_bot)(
                self.table_id, message.seat, message.url, message.name, message.dialect, actor
            )
        except ServiceError:  # not seated (not allowed, the seat taken): this bot is never called
            await asyncio.to_thread(limits.give_back, counted)
            raise

    async def on_test_bot(self, message: TestBot) -> None:
        """Send a bot a real trump request and report its answer, dialect and latency (seats nothing).

        Only those who may seat bots may test them, one test at a time and within the limits on
        outbound calls; the test runs beside the connection, which keeps receiving the table's states.
        """
        if not await database_sync_to_async(service.may_manage)(self.table_id, self._actor()):
            raise ServiceError(
                ErrorCode.NOT_ALLOWED, gettext("only the table's creator or a seated player can test bots")
            )
        timeout = await database_sync_to_async(_table_timeout)(self.table_id)
        await self.test_bot(message, timeout)

    async def on_set_bot_timeout(self, message: SetBotTimeout) -> None:
        await database_sync_to_async(service.set_bot_timeout)(self.table_id, message.seconds, self._actor())

    async def on_remove_bot(self, message: RemoveBot) -> None:
        await database_sync_to_async(service.clear_seat)(self.table_id, message.seat, self._actor())

    async def on_start(self, message: Start) -> None:
        await database_sync_to_async(service.start_game)(self.table_id, self._actor())

    async def on_abandon(self, message: Abandon) -> None:
        """Abandon the game, or ask the other people in it to agree (``service.abandon_game``)."""
        await database_sync_to_async(service.abandon_game)(self.table_id, self._actor())

    async def on_abandon_vote(self, message: AbandonVote) -> None:
        """Answer a request to abandon the game: ``{"type": "abandon_vote", "agree": true}``."""
        player = self._person()
        await database_sync_to_async(service.answer_abandon)(self.table_id, player, message.agree)

    async def on_move(self, message: Move) -> None:
        """A person's move (or moves in a row: Stöck with its card, several Weis), for the seat this
        connection's view says they play (the service checks it)."""
        if self.player is None:
            raise ServiceError(
                ErrorCode.NOT_SEATED, gettext("you have no seat here: choose a nickname or sign in, then take a seat")
            )
        actor = self._actor()
        meta = self.public.game_meta if self.public else None
        if meta is None:
            raise ServiceError(ErrorCode.NO_GAME, gettext("no game has been played at this table yet"))
        seat = next((i for i, p in enumerate(meta["players"]) if p == self.player_id), None)
        if seat is None:
            raise ServiceError(ErrorCode.NOT_SEATED, gettext("you do not play in this game"))
        if message.seat is not None and message.seat != seat:
            raise ServiceError(
                ErrorCode.NOT_YOUR_SEAT,
                gettext("you play seat {seat}, not {asked}").format(seat=seat, asked=message.seat),
            )
        action = message.actions()
        if isinstance(action, list):
            await database_sync_to_async(service.submit_moves)(
                meta["id"], seat, action, actor=actor, expected_seq=message.seq, table_id=self.table_id
            )
            return
        if service.unchanged_moves_on_loop():
            # Shielded: a move stored as its socket closes is still published (a database thread's would be).
            moved = asyncio.shield(
                service.submit_unchanged(meta["id"], self.table_id, seat, action, actor, message.seq)
            )
            if await moved is not None:
                return
        await database_sync_to_async(service.submit)(
            meta["id"], seat, action, actor=actor, expected_seq=message.seq, table_id=self.table_id
        )

    async def on_back(self, message: Back) -> None:
        """*I'm back*: play your seat again after your stand-in bot played for you."""
        player = self._person()
        await database_sync_to_async(service.back_to_seat)(self.table_id, player)

    async def on_ready(self, message: Ready) -> None:
        """*Continue* on a round's summary: this person is ready for the next deal."""
        player = self._person()
        await database_sync_to_async(service.mark_ready)(self.table_id, player, message.round)

    async def on_set_turn_clock(self, message: SetTurnClock) -> None:
        await database_sync_to_async(service.set_turn_clock)(
            self.table_id, message.seconds, message.bot, self._actor(), message.round_pause
        )

    async def on_rematch(self, message: Rematch) -> None:
        """*Play again*: ``{"type": "rematch", "accept": true}`` offers or accepts, ``false`` refuses."""
        player = self._person()
        await database_sync_to_async(service.rematch)(self.table_id, player, message.accept)

    # -- chat ---------------------------------------------------------------

    async def on_chat(self, message: Chat) -> None:
        """Say something at the table: ``{"type": "chat", "text": …}`` or a quick ``{"phrase": "thanks"}``."""
        await database_sync_to_async(chat.say)(self.table_id, self.player, message.text, message.phrase)

    async def on_mute(self, message: Mute) -> None:
        """Mute a person's messages for yourself: ``{"type": "mute", "player": id, "muted": true}``."""
        self.muted = await database_sync_to_async(chat.set_mute)(self.player, message.player, message.muted)
        await self.send_json(protocol.muted(self.muted))

    async def on_chat_history(self, message: ChatHistory) -> None:
        """The last messages this connection may read (a page asks once its chat is shown)."""
        room, said = await database_sync_to_async(chat.history)(self.table_id, self.player_id)
        await self.send_json(protocol.chat_history(room, said))

    async def on_report(self, message: Report) -> None:
        """Report a message to the moderators: ``{"type": "report", "message": id}``."""
        await database_sync_to_async(chat.report)(self.player, self.table_id, message.message)
        await self.send_json(protocol.reported(message.message))

    def _chat_room(self) -> str:
        """The room this connection reads: the players' if its person sits here or plays the game (from the view)."""
        public = self.public
        if public is None or self.player_id is None:
            return ChatMessage.SPECTATORS
        players = public.game_meta["players"] if public.game_meta and public.game_meta["status"] == Game.RUNNING else []
        playing = self.player_id in public.meta["seats"] or self.player_id in players
        return ChatMessage.PLAYERS if playing else ChatMessage.SPECTATORS

    async def table_chat(self, event: dict[str, Any]) -> None:
        """A message said at this table: sent on unless this reader may not read it or muted its speaker."""
        said = event["message"]
        if said["player"] in self.muted or not chat.readable(said["room"], self._chat_room()):
            return
        await self.send_json(protocol.chat(said))

    async def table_chat_hidden(self, event: dict[str, Any]) -> None:
        await self.send_json(protocol.chat_hidden(event["message"]))

    async def on_resync(self, message: Resync) -> None:
        await self.resync()

    async def on_ping(self, message: Ping) -> None:
        """A page's keep-alive, with the number of the last event it saw (``version``): if the table has had a
        later one, that event was lost on its way (a Redis outage), and the table is sent afresh first."""
        if message.version is not None:
            latest = await pings.latest_versions.of(self.table_id)
            if latest is not None and latest > min(message.version, self.version):
                await self.resync()
        await FrameConsumer.on_ping(self, message)

    HANDLERS = {
        Join: on_join,
        Leave: on_leave,
        AddBot: on_add_bot,
        RemoveBot: on_remove_bot,
        AddRemoteBot: on_add_remote_bot,
        TestBot: on_test_bot,
        SetBotTimeout: on_set_bot_timeout,
        Start: on_start,
        Abandon: on_abandon,
        AbandonVote: on_abandon_vote,
        ChooseTrump: on_move,
        PlayCard: on_move,
        DeclareWeis: on_move,
        AnnounceStoeck: on_move,
        Resync: on_resync,
        Ping: on_ping,
        Back: on_back,
        Ready: on_ready,
        SetTurnClock: on_set_turn_clock,
        Rematch: on_rematch,
        Chat: on_chat,
        ChatHistory: on_chat_history,
        Mute: on_mute,
        Report: on_report,
    }

    # -- outgoing -------------------------------------------------------------

    async def resync(self) -> None:
        """Send this connection a fresh state read from the database (connect, resync, a missed event)."""
        public = await database_sync_to_async(snapshot.load_public)(self.table_id)
        if public is None:
            await self.send_error(ErrorCode.NO_TABLE, gettext("this table no longer exists"))
            await self.close(code=4404)
            return
        self.public = public
        self.version = max(self.version, public.version)
        await self.send_public(public)

    async def table_state(self, event: dict[str, Any]) -> None:
        """A change at this table, its public view built once by the process that made it."""
        if event["version"] <= self.version:
            return  # an older event overtaken by a newer one
        self.public = snapshot.Public.from_message(event)
        self.version = event["version"]
        await self.send_public(self.public)

    async def table_move(self, event: dict[str, Any]) -> None:
        """A move: the same table with a new game part (and the move, to bring the state here up to date)."""
        if event["version"] <= self.version:
            return
        if event["version"] != self.version + 1 or self.public is None:
            await self.resync()  # we missed an event: the table part may have changed too
            return
        self.public = self.public.with_game(event["version"], event["game_json"], event["game_meta"])
        self.version = event["version"]
        await self.send_public(self.public, event["move"])

    async def send_public(self, public: snapshot.Public, move: list[int] | None = None) -> None:
        """Send the view for this connection: the public one plus, for a seated player, their hand."""
        state = None
        meta = public.game_meta
        if meta is not None and self.player_id is not None and self.player_id in meta["players"]:
            state = await self._state(meta, move)
        await self.send(text_data=protocol.state(public, self.player_id, self.player_name, state))

    async def _state(self, meta: dict[str, Any], move: list[int] | None):
        """The engine state the view shows: this process holds it, or moves it on, or reads it."""
        state = states.peek(meta["id"], meta["seed"], meta["seq"])
        if state is None and move is not None:
            seq, seat, code = move
            if seq + 1 == meta["seq"]:
                state = states.advance(meta["id"], meta["seed"], seq, seat, code)
        if state is None:
            state = await database_sync_to_async(_load_state)(meta["id"], meta["seq"])
        return state


_live: set[TableConsumer] = set()
_messages = limits.HotBudget("message")  # this process's part of every person's message budget


async def _over_message_budget(player_id: int | None, address: str) -> limits.Limited | None:
    """Count a websocket message against its sender's budget; return the refusal if it is over.

    A person's budget covers all their connections (a reconnect starts no new one); an anonymous
    visitor's is their address's.
    """
    scope, who = ("person", player_id) if player_id is not None else ("address", address)
    refused, flush = _messages.spend(scope, who)
    if flush is not None:
        await asyncio.to_thread(_messages.flush, *flush, scope, who)
    return refused


def _open(
    table_id: int, scope: Mapping[str, Any], channel_name: str
) -> tuple[Player | None, snapshot.Public, set[int]] | int | None:
    """A new connection: the table (None if there is none to play at), who connects, noted as online, and
    whom they muted in the chat; ``SERVICE_RESTART`` once this server stops (its driver no longer holds a
    lease to note a connection under)."""
    if _refusing["new"]:
        return SERVICE_RESTART
    player = player_for_scope(scope)
    table = access.enterable_table(table_id, player, scope.get("session"))
    if table is None or table.imported:  # a private table is refused like a missing one
        return None
    # A person who just came online: the view their connect built (with them online) is theirs too.
    public = service.connect(table_id, player.pk, channel_name) if player is not None else None
    public = public or snapshot.load_public(table_id)
    return None if public is None else (player, public, chat.muted_by(player.pk if player else None))


def _load_state(game_id: int, seq: int):
    return states.load(Game.objects.get(pk=game_id), seq)


async def _note_connections_again() -> None:
    """After this process registered anew (it had been declared dead), note its people as online again."""
    for consumer in list(_live):
        if consumer.player_id is not None:
            await database_sync_to_async(service.connect)(consumer.table_id, consumer.player_id, consumer.channel_name)


bothooks.on_rejoin(_note_connections_again)


class LobbyConsumer(NoDatabaseDispatch, AsyncJsonWebsocketConsumer):
    """The lobby's live list of tables: rendered once per burst of changes for all its watchers."""

    async def connect(self) -> None:
        if _refusing["new"]:
            await self.close(code=SERVICE_RESTART)
            return
        self.player: Player | None = await database_sync_to_async(player_for_scope)(self.scope)
        self.address = limits.scope_address(self.scope)
        if not await self.admit_socket(self.player.pk if self.player else None, self.address):
            return
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        await self.accept()
        _lobby_watchers.add(self)
        metrics.socket_opened("lobby")
        tables = await database_sync_to_async(snapshot.lobby_tables)(self.player)
        await self.send_json(protocol.tables(tables))
        bothooks.driver().ensure_started()

    async def disconnect(self, code: int) -> None:
        if self in _lobby_watchers:
            _lobby_watchers.discard(self)
            metrics.socket_closed("lobby")
        await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any) -> None:
        """The lobby reads nothing; a message is answered once, within the sender's message budget."""
        if await _over_message_budget(self.player.pk if self.player else None, self.address) is not None:
            return  # a flood gets no answers
        with translation.override(scope_language(self.scope)):
            await self.send_json(protocol.error(ErrorCode.READ_ONLY, gettext("the lobby only sends table lists")))

    async def lobby_event(self, event: dict[str, Any]) -> None:
        _lobby_render.request()


_lobby_watchers: set[LobbyConsumer] = set()


_refusing = {"new": False}  # this server stops: new sockets are sent elsewhere


def refuse_new_sockets() -> None:
    """A stopping server: every socket that opens from now on is told to reconnect (to another server)."""
    _refusing["new"] = True


def open_sockets() -> int:
    """The websockets this process holds now (tables and lobby)."""
    return len(_live) + len(_lobby_watchers)


async def ask_to_reconnect() -> int:
    """A stopping server: close every socket with ``SERVICE_RESTART`` (the pages reconnect at once, to a server
    that runs); return how many were asked."""
    sockets: list[NoDatabaseDispatch] = [*_live, *_lobby_watchers]
    for socket in sockets:
        try:
            await socket.close(code=SERVICE_RESTART)
        except Exception:  # one socket that is gone already must not keep the others open
            log.exception("stopping: could not close %s", socket.channel_name)
    return len(sockets)


class LobbyRender:
    """Renders the lobby once for all its watchers in this process, at most every ``PAUSE`` seconds.

    Every watcher hears every lobby event; the first one asks for a render, which
    waits a moment so that a burst of changes (tables filling up, games starting)
    costs one, then sends each watcher the public list, or their own merged list.
    """

    PAUSE = 0.25

    def __init__(self) -> None:
        self._pending: asyncio.Task[None] | None = None

    def request(self) -> None:
        loop = asyncio.get_running_loop()
        pending = self._pending
        if pending is None or pending.done() or pending.get_loop() is not loop:
            self._pending = loop.create_task(self._render(), name="lobby-render")

    async def _render(self) -> None:
        await asyncio.sleep(self.PAUSE)
        watchers = list(_lobby_watchers)
        if not watchers:
            return
        viewers = {w.player.pk for w in watchers if w.player is not None}
        public, personal = await database_sync_to_async(snapshot.lobby_lists)(viewers)
        shared = json.dumps(protocol.tables(public))
        for watcher in watchers:
            mine = personal.get(watcher.player.pk) if watcher.player is not None else None
            text = shared if mine is None else json.dumps(protocol.tables(mine))
            try:
                await watcher.send(text_data=text)
            except Exception:  # one watcher's failure must not keep the list from the others
                log.exception("sending the lobby to %s failed", watcher.channel_name)


_lobby_render = LobbyRender()
