"""Runs game analyses: in the background on a bot worker when a game ends, or at once (``manage.py analyse``).

The work is ``bots.analysis.analyse_round``, one round at a time, so that
progress is stored round by round (the replay's progress bar) and a job cut
off by a restart resumes at the first round it had not stored. In a server,
the driver of a game starts its analysis when it hears the game end
(``bots.runner.Driver``), and a starting driver resumes the analyses whose job
died; the rounds are computed in ``bots.think.analysis_pool`` (a worker
process), never on the event loop.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from bots import think
from bots.analysis import analyse_round
from games.live.database import database_sync_to_async
from games.models import Game, GameAnalysis
from games.pages import stored_analyses as stored
from games.pages.stored_analyses import RoundInput

log = logging.getLogger(__name__)


def analyse_now(game: Game, *, again: bool = False, progress: Callable[[int, int, float], None] | None = None) -> int:
    """Analyse ``game`` in this process and store it; return the analysis id (``manage.py analyse``)."""
    job = stored.claim(game, "", restart=again)
    if job is None:
        return game.analysis.pk
    inputs = stored.round_inputs(game)
    try:
        for index in range(job.rounds_done, len(inputs)):
            item = inputs[index]
            started = time.process_time()
            result = analyse_round(list(item.hands), item.dealer, list(item.actions), item.seed, weis=item.weis)
            seconds = time.process_time() - started
            stored.store_round(job.pk, index, result, seconds)
            if progress is not None:
                progress(index + 1, len(inputs), seconds)
    except Exception as error:
        log.exception("analysis of game %s failed", game.pk)
        stored.finish(job.pk, f"{type(error).__name__}: {error}")
        raise
    stored.finish(job.pk)
    return job.pk


def _claim(game_id: int, worker: str) -> tuple[GameAnalysis | None, list[RoundInput]]:
    game = Game.objects.filter(pk=game_id).first()
    if game is None or not stored.is_over(game):
        return None, []
    job = stored.claim(game, worker)
    return job, (stored.round_inputs(game) if job is not None else [])


def _submit(item: RoundInput) -> Future[tuple[dict[str, Any], float]]:
    """Send one round to the analysis worker (this may start its process: call it off the event loop)."""
    args = (list(item.hands), item.dealer, list(item.actions), item.seed, item.weis)
    return think.analysis_pool().submit(think.analyse_round, *args)


async def analyse_in_background(game_id: int, worker: str) -> None:
    """Analyse a game that is over on the analysis worker, storing each round as it comes."""
    try:
        job, inputs = await database_sync_to_async(_claim)(game_id, worker)
    except Exception:
        log.exception("could not start the analysis of game %s", game_id)
        return
    if job is None:
        return
    try:
        for index in range(job.rounds_done, len(inputs)):
            # Submitting may start the worker process: off the event loop too.
            future = await asyncio.to_thread(_submit, inputs[index])
            try:
                result, seconds = await asyncio.wrap_future(future)
            except BrokenProcessPool:
                think.shutdown_analysis()
                raise
            await database_sync_to_async(stored.store_round)(job.pk, index, result, seconds)
    except asyncio.CancelledError:
        raise  # the server stops: the job resumes at the next start
    except Exception as error:
        log.exception("analysis of game %s failed", game_id)
        await database_sync_to_async(stored.finish)(job.pk, f"{type(error).__name__}: {error}")
        return
    await database_sync_to_async(stored.finish)(job.pk)


async def resume_pending(worker: str, start: Callable[[int], object]) -> None:
    """Start again the analyses that wait or whose job died (``start(game_id)`` spawns one)."""
    for game_id in await database_sync_to_async(stored.pending)(worker):
        start(game_id)
