"""Celery workers that think for bots: the alternative bench/thinkers.py measures beside Channels workers.

Not used by the product (Jassweb's thinkers are Channels workers, bots/thinkers.py);
this module exists so the choice is measured, not assumed. The broker and the
result backend come from the environment:

    CELERY_BROKER_URL=redis://127.0.0.1:6379/1 CELERY_RESULT_BACKEND=redis://127.0.0.1:6379/1 \\
        .venv/bin/celery -A bench.celery_thinkers worker --concurrency 2 --pool prefork
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from celery import Celery

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots import think

app = Celery(
    "jassweb-bench-thinkers",
    broker=os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/1"),
    backend=os.environ.get("CELERY_RESULT_BACKEND", "redis://127.0.0.1:6379/1"),
)
app.conf.update(
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    worker_prefetch_multiplier=1,
    task_acks_late=False,
    result_expires=60,
    worker_hijack_root_logger=False,
)


@app.task(name="think")
def think_task(bot: str, observation: list, seed: list[int], deadline: float | None) -> int:
    """A built-in bot's decision, as a Celery task: the action's code."""
    obs = think.observation_from_data(observation)
    return think.think(bot, obs, tuple(seed), deadline).code
