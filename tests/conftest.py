"""Shared test configuration."""

from __future__ import annotations

import asyncio
import os
import warnings

import pytest
import pytest_asyncio
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from tests import tiers
from tests.services import redis_channel_layers

pytest_plugins = ["tests.tiers"]  # its hook deals the dearest test files first (make test's workers)

hypothesis_settings.register_profile(
    "default", deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow]
)
hypothesis_settings.register_profile(
    "ci", deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow]
)
# `make test-fast` asks for fewer examples (JASSWEB_HYPOTHESIS=fast); `make test` and CI for the full count.
hypothesis_settings.register_profile(
    "fast", deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow]
)
hypothesis_settings.load_profile(os.environ.get("JASSWEB_HYPOTHESIS") or ("ci" if os.environ.get("CI") else "default"))


@pytest.hookimpl(tryfirst=True)  # before ``-m`` picks a tier by the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        tiers.classify(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    tiers.entering(item)
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    try:
        return (yield)
    finally:
        tiers.entering(None)


@pytest.fixture
def redis_layer(settings):
    """Use the real Redis channel layer (pub/sub) for this test, with its own prefix."""
    from channels.layers import channel_layers

    settings.CHANNEL_LAYERS = redis_channel_layers()
    channel_layers.backends = {}
    yield settings.CHANNEL_LAYERS
    channel_layers.backends = {}


@pytest.fixture(autouse=True)
def _quick_passwords(settings):
    """Accounts made in tests hash their passwords cheaply (the real hasher takes most of a second each)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _no_round_pause(settings):
    """Tables made in tests play on at once after a round (a test of the pause sets its own)."""
    settings.JASSWEB_ROUND_PAUSE_S = 0


@pytest.fixture(autouse=True)
def _no_background_analysis(settings):
    """Tests end many games: none is analysed in the background (minutes of CPU each) unless a test asks."""
    settings.JASSWEB_ANALYSIS = False


@pytest.fixture(autouse=True)
def _fresh_state_cache():
    """Each test starts with an empty per-process game-state cache (databases are rebuilt per test)."""
    from games.live import workers
    from games.live.service import forget_cached_states

    forget_cached_states()
    workers.forget_local_id()  # each test's database starts without workers
    yield


@pytest.fixture(autouse=True)
def _default_language():
    """Each test starts in the default language: a page asked for in German (LocaleMiddleware) leaves German
    active on the test's thread, and a later test's messages on the same worker came out in German."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _fresh_limits():
    """Each test starts with no attempt counted against the limits on abuse (games/live/limits.py)."""
    from django.core.cache import cache

    from games.live.consumers import _messages

    cache.clear()
    _messages.forget()


@pytest_asyncio.fixture
async def stop_runner():
    """After a test of websockets in this process: close its clients and stop the bot driver."""
    yield
    from bots.runner import runner
    from tests.ws_helpers import close_all_clients

    try:
        await asyncio.wait_for(close_all_clients(), 30)
    except TimeoutError:
        warnings.warn("closing the test's websocket clients took over 30 s", stacklevel=1)
    await runner.stop()  # bounded: a task that will not stop is logged with its stack (bots.runner.STOP_GRACE_S)
