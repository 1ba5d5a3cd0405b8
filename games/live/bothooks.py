"""Where ``games`` reaches the bots without importing them: ``bots`` installs its code when Django starts.

The consumers wake the bot driver, test an HSLU bot and check a bot URL's address
through these hooks; ``BotsConfig.ready`` installs the real ones (``bots.runner``,
``bots.remote``). Without the bots app, no bot is driven and no bot is called.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from games.catalogue import BotUrlError, FaultKind, gettext_noop


class BotDriver(Protocol):
    """The bot driver of this process: plays every bot seat of the games it drives."""

    def ensure_started(self) -> None:
        """Start driving (once per process), if not yet started."""

    def wake(self, game_id: int) -> None:
        """Drive this game's bot seats now (a game that lost its driver is driven again)."""

    def analyse(self, game_id: int) -> None:
        """Analyse this game that is over on the analysis worker (a job done or running is left alone)."""


class _NoDriver:
    def ensure_started(self) -> None:
        pass

    def wake(self, game_id: int) -> None:
        pass

    def analyse(self, game_id: int) -> None:
        pass


@dataclass
class _Hooks:
    driver: BotDriver
    probe_bot: Callable[[str, str, float, int], Awaitable[Any]] | None = None
    check_address: Callable[[str], Awaitable[None]] | None = None
    rejoin: Callable[[], Awaitable[None]] | None = None


_hooks = _Hooks(driver=_NoDriver())


def install(
    *,
    driver: BotDriver,
    probe_bot: Callable[[str, str, float, int], Awaitable[Any]],
    check_address: Callable[[str], Awaitable[None]],
) -> None:
    """Install the bots app's driver, its bot test and its address guard (``BotsConfig.ready``)."""
    _hooks.driver, _hooks.probe_bot, _hooks.check_address = driver, probe_bot, check_address


def driver() -> BotDriver:
    return _hooks.driver


async def probe_bot(url: str, dialect: str, timeout: float, seat: int) -> Any:
    """Send a bot a real trump request and return what it answered (a dataclass for the table's Test button)."""
    if _hooks.probe_bot is None:
        raise BotUrlError(
            FaultKind.BAD_URL, gettext_noop("this server calls no HSLU bots (the bots app is not installed)")
        )
    return await _hooks.probe_bot(url, dialect, timeout, seat)


async def check_address(url: str) -> None:
    """Refuse a bot URL whose form or address may not be used: ``BotUrlError`` says why."""
    if _hooks.check_address is None:
        raise BotUrlError(
            FaultKind.BAD_URL, gettext_noop("this server calls no HSLU bots (the bots app is not installed)")
        )
    await _hooks.check_address(url)


def on_rejoin(hook: Callable[[], Awaitable[None]]) -> None:
    """Run ``hook`` when this process registers anew with the driver leases (it had been declared dead)."""
    _hooks.rejoin = hook


async def rejoined() -> None:
    """Called by the driver after this process registered anew."""
    if _hooks.rejoin is not None:
        await _hooks.rejoin()
