"""Limits on abuse: how often one person, one address or the whole server may do a thing.

Each limit is a rate (``"20/h"``: twenty an hour) from the ``JASSWEB_LIMITS``
setting, counted in fixed windows in Django's cache: the Redis cache when
``REDIS_URL`` is set, so that every server process counts together (and a
person who reconnects, or goes to another process, keeps their count), the
in-process cache otherwise (one process, ``make run``). A refused attempt
changes nothing and says what the limit is and when to try again.

Who is counted: a person by their player id (``person``), a visitor by their
address (``address``: an IPv6 address counts by its /64 network, which one
household gets as a whole), or everyone at once (``server``). Behind a reverse
proxy the address is the one the proxy saw: ``X-Forwarded-For`` read from the
right, ``JASSWEB_PROXY_HOPS`` entries in (what a visitor writes into the header
themselves stays to the left of what the proxies add, and is never taken).
"""

from __future__ import annotations

import contextlib
import hashlib
import ipaddress
import logging
import math
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext, gettext_lazy

from games.errors import ErrorCode
from games.live import metrics
from games.live.events import REDIS_DOWN

log = logging.getLogger(__name__)

_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*([smhd])\s*$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_UNIT_WORDS = {1: "second", 60: "minute", 3600: "hour", 86400: "day"}
_ONE_UNIT = {  # "at most 20 new tables an hour"
    "second": gettext_lazy("a second"),
    "minute": gettext_lazy("a minute"),
    "hour": gettext_lazy("an hour"),
    "day": gettext_lazy("a day"),
}
_MANY_UNITS = {  # "at most 100 messages in 10 seconds"; a format string once translated
    "second": gettext_lazy("in {count} seconds"),
    "minute": gettext_lazy("in {count} minutes"),
    "hour": gettext_lazy("in {count} hours"),
    "day": gettext_lazy("in {count} days"),
}

# What each limit counts, for its message ("at most 20 tables an hour per person").
WHAT = {
    "guest": gettext_lazy("new guests"),
    "signup": gettext_lazy("sign-ups"),
    "login": gettext_lazy("log-in attempts"),
    "table": gettext_lazy("new tables"),
    "import": gettext_lazy("imports"),
    "message": gettext_lazy("messages"),
    "bot_call": gettext_lazy("bot tests and bot invitations"),
    "chat": gettext_lazy("chat messages"),
    "analysis": gettext_lazy("game analyses"),
}
PER = {
    "person": gettext_lazy("per person"),
    "address": gettext_lazy("from one address"),
    "address_account": gettext_lazy("for one account from one address"),
    "server": gettext_lazy("on this server"),
}


@dataclass(frozen=True)
class Rate:
    """At most ``count`` in ``seconds``."""

    count: int
    seconds: int

    @classmethod
    def parse(cls, text: str) -> Rate | None:
        """``"20/h"``, ``"100/10s"``, ``"5/15m"``; ``None`` for an unlimited one (``""``, ``"0"`` or ``"off"``)."""
        if text.strip().lower() in ("", "0", "off"):
            return None
        found = _RATE.match(text)
        if not found:
            raise ValueError(f"a limit is 'count/period' like '20/h' or '100/10s', got {text!r}")
        count, amount, unit = int(found[1]), int(found[2] or 1), found[3]
        return cls(count, amount * _UNITS[unit])

    @property
    def period(self) -> str:
        for seconds, word in sorted(_UNIT_WORDS.items(), reverse=True):
            if self.seconds == seconds:
                return str(_ONE_UNIT[word])
            if self.seconds % seconds == 0:
                return _MANY_UNITS[word].format(count=self.seconds // seconds)
        return gettext("in {count} seconds").format(count=self.seconds)  # pragma: no cover - whole seconds


class Limited(Exception):
    """An attempt past a limit: ``message`` says which and when to try again."""

    code = ErrorCode.RATE_LIMITED

    def __init__(self, name: str, scope: str, rate: Rate, retry_after: int) -> None:
        self.name, self.scope, self.rate, self.retry_after = name, scope, rate, retry_after
        metrics.limit_refused(name, scope)  # every refusal makes one of these, and nothing else does
        if retry_after < 120:
            wait = gettext("{seconds} s").format(seconds=retry_after)
        else:
            wait = gettext("{minutes} minutes").format(minutes=math.ceil(retry_after / 60))
        self.message = gettext("Too many {what}: at most {count} {period} {per}. Try again in {wait}.").format(
            what=WHAT.get(name, name), count=rate.count, period=rate.period, per=PER.get(scope, scope), wait=wait
        )
        super().__init__(self.message)


def rate_of(name: str, scope: str) -> Rate | None:
    """The configured rate of a limit (``None``: no limit)."""
    if not settings.JASSWEB_LIMITS_ON:
        return None
    return Rate.parse(settings.JASSWEB_LIMITS.get(f"{name}.{scope}", ""))


def address_key(address: str | None) -> str:
    """Who an address is for the limits: an IPv4 address, or an IPv6 address's /64 network."""
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return "unknown"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def hit(name: str, **who: Any) -> list[str]:
    """Count one attempt at ``name`` for each given scope (``person=12, address="1.2.3.4", server="all"``).

    Raises ``Limited`` when a count goes past its limit. The refused attempt still
    counts for the scope that refused it (a flood stays refused until its window
    ends), not for the others (a person over their own limit does not use up their
    address's); the caller then changes nothing. Returns the counts it added to,
    for ``give_back`` when the attempt came to nothing after all.
    """
    now = time.time()
    counted: list[str] = []
    for scope, value in who.items():
        if value is None:
            continue
        rate = rate_of(name, scope)
        if rate is None:
            continue
        window = int(now // rate.seconds)
        key = f"jassweb:limit:{name}:{scope}:{value}:{rate.count}/{rate.seconds}:{window}"
        # add() starts a window's count (a no-op when it exists); incr() is atomic in the caches that
        # several processes share (Redis), so all servers count together.
        cache.add(key, 0, timeout=rate.seconds + 5)
        try:
            count = cache.incr(key)
        except ValueError:  # the window expired between add() and incr()
            cache.add(key, 1, timeout=rate.seconds + 5)
            count = 1
        if count > rate.count:
            for earlier in counted:
                with contextlib.suppress(ValueError):  # expired meanwhile: nothing to give back
                    cache.decr(earlier)
            raise Limited(name, scope, rate, max(1, math.ceil((window + 1) * rate.seconds - now)))
        counted.append(key)
    return counted


def give_back(counted: Iterable[str]) -> None:
    """Uncount an attempt ``hit`` let through that then did nothing (a refused bot invitation calls out to no one)."""
    for key in counted:
        with contextlib.suppress(ValueError):  # its window ended meanwhile: nothing to give back
            cache.decr(key)


@dataclass
class _Spent:
    window: int
    known: int = 0  # the shared count when this process last added its part
    pending: int = 0  # counted here since then
    synced_at: float = 0.0


class HotBudget:
    """A limit on a hot path (every websocket message), checked in memory and shared in batches.

    A round trip to the cache for every message would cost more than handling
    most messages does, so each process counts here and adds its count to the
    shared one (``flush``) every tenth of the limit or every second. The shared
    count only grows within a window, so a refusal is never wrong; another
    process's messages are seen at the next flush, at most a tenth of the
    limit per process late.
    """

    SYNC_SECONDS = 1.0

    def __init__(self, name: str) -> None:
        self.name = name
        self._spent: dict[tuple[str, str], _Spent] = {}

    def forget(self) -> None:
        """Drop what this process counted (tests: each starts with no messages counted)."""
        self._spent.clear()

    def spend(self, scope: str, who: object) -> tuple[Limited | None, tuple[str, int] | None]:
        """Count one use: (a ``Limited`` if it is past the limit, a (key, amount) to ``flush`` now or None)."""
        rate = rate_of(self.name, scope)
        if rate is None:
            return None, None
        now = time.time()
        window = int(now // rate.seconds)
        slot = (scope, str(who))
        spent = self._spent.get(slot)
        if spent is None or spent.window != window:
            if len(self._spent) > 50_000:  # forget the people of past windows
                self._spent = {k: v for k, v in self._spent.items() if v.window == window}
            spent = self._spent[slot] = _Spent(window, synced_at=now)
        spent.pending += 1
        refused = None
        if spent.known + spent.pending > rate.count:
            refused = Limited(self.name, scope, rate, max(1, math.ceil((window + 1) * rate.seconds - now)))
        due = spent.pending >= max(1, rate.count // 10) or now - spent.synced_at >= self.SYNC_SECONDS
        if not due:
            return refused, None
        amount, spent.pending, spent.synced_at = spent.pending, 0, now
        spent.known += amount  # until the shared count comes back
        key = f"jassweb:limit:{self.name}:{scope}:{who}:{rate.count}/{rate.seconds}:{window}"
        return refused, (key, amount)

    def flush(self, key: str, amount: int, scope: str, who: object) -> None:
        """Add this process's part to the shared count and learn everyone's (blocking: call it off the event loop)."""
        rate = rate_of(self.name, scope)
        if rate is None:
            return
        try:
            cache.add(key, 0, timeout=rate.seconds + 5)
            total = cache.incr(key, amount)
        except ValueError:  # the window's key expired meanwhile
            return
        except REDIS_DOWN as exc:
            # The shared count is out of reach (a Redis restart): this process's own count still limits, and
            # a message is not refused, nor its socket broken, for want of the others' counts.
            log.warning("the %s budget's shared count is out of reach: %s", self.name, exc)
            return
        spent = self._spent.get((scope, str(who)))
        if spent is not None and key.endswith(f":{spent.window}"):
            spent.known = max(spent.known, total)


def visitor_address(peer: str | None, forwarded_for: Iterable[str]) -> str | None:
    """The visitor's address: ``peer`` (the connection's), or the one the outermost trusted proxy saw.

    Each of the ``JASSWEB_PROXY_HOPS`` proxies in front appends the address it was
    connected from to ``X-Forwarded-For`` (nginx's ``$proxy_add_x_forwarded_for``; the
    recipe's nginx replaces the header with ``$remote_addr``, which is the same with one
    proxy), so the visitor's is that many entries from the right; anything further left
    was written by the visitor and proves nothing. ``peer`` is not used behind a proxy:
    daphne's ``--proxy-headers`` puts the header's *first* entry there.
    """
    hops = settings.JASSWEB_PROXY_HOPS
    if hops <= 0:
        return peer
    entries = [entry.strip() for header in forwarded_for for entry in header.split(",") if entry.strip()]
    if not entries:  # not through the proxy (a health check on the machine itself)
        return peer
    # Fewer entries than hops: the request passed fewer proxies; the first one's entry is still its own.
    return entries[-min(hops, len(entries))]


def request_address(request: Any) -> str:
    """The limits' key for an HTTP request's address."""
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")  # several headers arrive joined with ","
    return address_key(visitor_address(request.META.get("REMOTE_ADDR"), [forwarded] if forwarded else []))


def scope_address(scope: Mapping[str, Any]) -> str:
    """The limits' key for a websocket's address."""
    client = scope.get("client") or (None, None)
    forwarded = [
        value.decode("latin-1") for name, value in scope.get("headers") or () if name.lower() == b"x-forwarded-for"
    ]
    return address_key(visitor_address(client[0], forwarded))


def count_login_attempt(request: Any) -> None:
    """Count a log-in attempt (the site's or the admin's) per address, and per user name from that address.

    Raises ``Limited`` past a limit; the caller then tries no password. A name is
    counted per address, not from all of them: someone hammering a player's name
    from their own address locks only themselves out, and the player still logs in.
    """
    address = request_address(request)
    username = str(request.POST.get("username", "")).strip().lower()[:150]
    # The name is whatever was posted: hashed, it makes a tidy key.
    named = f"{address}:{hashlib.sha256(username.encode('utf-8', 'replace')).hexdigest()[:24]}" if username else None
    hit("login", address=address, address_account=named)
