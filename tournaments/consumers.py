"""A tournament's page, live: its standings, rounds and pairings, rendered once per change for all watchers.

Every change to a tournament (a team registered, a round paired, a game started
or ended) is an event on the group ``tournament.<id>``. Each process renders
the live part of the page once per burst of events and language, and sends it
to all its watchers of that tournament; the page shows each person their own
table ("Round 2: your table is ready") from the same HTML. The one request a
page makes is a bot test (``test_bot``), as on a table's page.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from channels.db import database_sync_to_async
from django.utils import translation
from django.utils.translation import gettext

from games.errors import ErrorCode
from games.live import bothooks, limits, protocol
from games.live.consumers import FrameConsumer, scope_language
from games.live.identity import player_for_scope
from games.live.protocol import Ping, Resync, TestBot
from games.live.service import ServiceError
from tournaments.models import Tournament
from tournaments.service import tournament_group

log = logging.getLogger(__name__)


def _live(tournament_id: int) -> tuple[int, str, str] | None:
    """(version, status, the live part's HTML) of a tournament, or None if there is none."""
    from tournaments.views import render_live

    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        return None
    return tournament.version, tournament.status, render_live(tournament)


def _render(tournament_id: int, language: str) -> tuple[int, str, str] | None:
    with translation.override(language):
        return _live(tournament_id)


def _timeout(tournament_id: int) -> float:
    seconds = Tournament.objects.filter(pk=tournament_id).values_list("bot_timeout_s", flat=True).first()
    return float(seconds or 5)


class TournamentConsumer(FrameConsumer):
    """One browser tab on a tournament's page."""

    def describe(self) -> str:
        return f"tournament {self.tournament_id}"

    async def connect(self) -> None:
        self.tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        self.language = scope_language(self.scope)
        self.address = limits.scope_address(self.scope)
        self.version = -1
        self.probe = None
        player = await database_sync_to_async(player_for_scope)(self.scope)
        self.player_id = player.pk if player else None
        if not await self.admit_socket(self.player_id, self.address):
            return
        await self.channel_layer.group_add(tournament_group(self.tournament_id), self.channel_name)
        rendered = await database_sync_to_async(_render)(self.tournament_id, self.language)
        if rendered is None:
            await self.channel_layer.group_discard(tournament_group(self.tournament_id), self.channel_name)
            await self.close(code=4404)
            return
        await self.accept()
        _watchers.setdefault(self.tournament_id, set()).add(self)
        bothooks.driver().ensure_started()  # a tournament whose start time comes needs a live driver
        await self.send_live(*rendered)

    async def disconnect(self, code: int) -> None:
        watchers = _watchers.get(getattr(self, "tournament_id", -1))
        if watchers is not None:
            watchers.discard(self)
        if hasattr(self, "tournament_id"):
            await self.channel_layer.group_discard(tournament_group(self.tournament_id), self.channel_name)

    async def send_live(self, version: int, status: str, html: str) -> None:
        if version <= self.version:
            return
        self.version = version
        await self.send_json(protocol.live(version, status, html))

    async def tournament_event(self, event: dict[str, Any]) -> None:
        if event["version"] > self.version:
            _renders.request(self.tournament_id)

    async def on_test_bot(self, message: TestBot) -> None:
        """Test an HSLU bot before registering it (a person may: the same test as a table's)."""
        if self.player_id is None:
            raise ServiceError(ErrorCode.NO_IDENTITY, gettext("choose a nickname or sign in first"))
        await self.test_bot(message, await database_sync_to_async(_timeout)(self.tournament_id))

    async def on_resync(self, message: Resync) -> None:
        self.version = -1
        rendered = await database_sync_to_async(_render)(self.tournament_id, self.language)
        if rendered is not None:
            await self.send_live(*rendered)

    HANDLERS = {TestBot: on_test_bot, Resync: on_resync, Ping: FrameConsumer.on_ping}


_watchers: dict[int, set[TournamentConsumer]] = {}


class Renders:
    """Renders a tournament's live part once per burst of events and language for its watchers in this process."""

    PAUSE = 0.2

    def __init__(self) -> None:
        self._pending: dict[int, asyncio.Task[None]] = {}

    def request(self, tournament_id: int) -> None:
        pending = self._pending.get(tournament_id)
        loop = asyncio.get_running_loop()
        if pending is None or pending.done() or pending.get_loop() is not loop:
            self._pending[tournament_id] = loop.create_task(self._render(tournament_id), name="tournament-render")

    async def _render(self, tournament_id: int) -> None:
        await asyncio.sleep(self.PAUSE)
        watchers = list(_watchers.get(tournament_id, ()))
        for language in sorted({w.language for w in watchers}):
            rendered = await database_sync_to_async(_render)(tournament_id, language)
            if rendered is None:
                return
            for watcher in watchers:
                if watcher.language != language:
                    continue
                try:
                    await watcher.send_live(*rendered)
                except Exception:  # one watcher's failure must not keep the page from the others
                    log.exception("sending tournament %s to %s failed", tournament_id, watcher.channel_name)


_renders = Renders()
