"""The tables' latest event numbers for the pages' pings: the questions of many sockets in one query.

A table page's ping carries the number of the last event it saw. If the table has
a later one, the page or its socket's process missed it (the channel layer lost it
in a Redis outage) and the socket sends the table afresh: a missed event is noticed
within one ping, whatever lost it. Pings come every few seconds from every quiet
page, so they are asked together: one query for all that arrive within ``BATCH_S``.
"""

from __future__ import annotations

import asyncio

from games.live.database import database_sync_to_async
from games.models import Table

BATCH_S = 0.1


def _versions(table_ids: list[int]) -> dict[int, int]:
    return dict(Table.objects.filter(pk__in=table_ids).values_list("pk", "version"))


class LatestVersions:
    """Reads the tables' event numbers for the pings that wait, in batches (one per event loop)."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiting: dict[int, list[asyncio.Future[int | None]]] = {}
        self._reader: asyncio.Task[None] | None = None

    async def of(self, table_id: int) -> int | None:
        """The number of the table's latest event (None: there is no such table)."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a test's new event loop: what waited on the old one is gone with it
            self._loop, self._waiting, self._reader = loop, {}, None
        future: asyncio.Future[int | None] = loop.create_future()
        self._waiting.setdefault(table_id, []).append(future)
        if self._reader is None or self._reader.done():
            self._reader = loop.create_task(self._read(), name="ping-versions")
        return await future

    async def _read(self) -> None:
        while self._waiting:  # pings that came while the last batch was read make the next batch
            await asyncio.sleep(BATCH_S)
            waiting, self._waiting = self._waiting, {}
            try:
                versions = await database_sync_to_async(_versions)(list(waiting))
            except Exception as exc:  # the pings that asked get the error: each is answered, none hangs
                for futures in waiting.values():
                    for future in futures:
                        if not future.done():
                            future.set_exception(exc)
                continue
            for table_id, futures in waiting.items():
                for future in futures:
                    if not future.done():
                        future.set_result(versions.get(table_id))


latest_versions = LatestVersions()
