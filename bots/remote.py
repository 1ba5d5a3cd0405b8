"""The outbound adapter for HSLU bots: any bot that speaks the interface joins by URL.

All traffic goes through ``post_json``: one request, a timeout on the whole
exchange, the reply capped at 64 KiB, redirects followed only on the same host,
and every address checked by the private-address guard (loopback, private,
link-local and other non-public ranges are refused unless
``JASS_ALLOW_PRIVATE_BOT_URLS`` is on, or the host is in
``JASS_BOT_URL_ALLOWLIST``). The connection goes to the address that was
checked, so a name cannot resolve to something else between check and use.

Two path dialects: the spec's ``URL/select_trump``, ``URL/play_card``,
``URL/game_info`` and jass-kit's ``URL/action_trump``, ``URL/action_play_card``,
``URL/game_info``. ``auto`` tries the spec's first and the other once on a
404/405, and the caller remembers what worked.

``ask_bot`` never raises for a bad bot: any failure (timeout, refused
connection, non-200, non-JSON, a missing field, a card not in hand, an illegal
card, a second push, ...) becomes a random legal action plus a ``Fault`` that
says what went wrong, as the interface asks.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import json
import random
import socket
import ssl
import time
import zlib
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit, urlunsplit

import certifi
import httpx
import numpy as np

from bots.base import server_move, with_stoeck
from games.catalogue import (
    MAX_TIMEOUT,
    BotUrlError,
    Dialect,
    FaultKind,
    bad_host_name,
    check_bot_url,
    gettext_noop,
)
from games.engine import CARD_CODES, PUSH, SEAT_NAMES, TRUMP_NAMES, TRUMPS, Action, Observation, RoundState, iter_cards
from games.engine.fair import random_deal
from games.hslu import (
    InvalidReplyError,
    encode_observation,
    parse_card_reply,
    parse_reply_body,
    parse_trump_reply,
)

AUTO, SPEC, JASS_KIT = Dialect.AUTO, Dialect.SPEC, Dialect.JASS_KIT
PATHS = {
    SPEC: {"trump": "select_trump", "card": "play_card", "info": "game_info"},
    JASS_KIT: {"trump": "action_trump", "card": "action_play_card", "info": "game_info"},
}
MAX_REPLY_BYTES = 64 * 1024
MAX_REDIRECTS = 3
# zlib's wbits for each content encoding a bot may answer in (the Accept-Encoding the client sends)
_ENCODINGS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


def _decoded(body: bytes, encoding: str) -> bytes:
    """The reply's body as the bot meant it: undone from gzip or deflate as its Content-Encoding declares.

    At most ``MAX_REPLY_BYTES`` are ever unpacked, whatever the packed size (no zip bomb fills memory).
    """
    for name in reversed([e.strip().lower() for e in encoding.split(",") if e.strip() not in ("", "identity")]):
        if name not in _ENCODINGS:
            raise ExchangeError(FaultKind.NOT_JSON, f"the reply is in an encoding we did not ask for: {name!r:.30}")
        unpacker = zlib.decompressobj(_ENCODINGS[name] if name != "deflate" or body[:1] == b"\x78" else -zlib.MAX_WBITS)
        try:
            unpacked = unpacker.decompress(body, MAX_REPLY_BYTES + 1)
        except zlib.error as exc:
            raise ExchangeError(FaultKind.NOT_JSON, f"the reply's {name} encoding is broken: {exc}"[:200]) from None
        if len(unpacked) > MAX_REPLY_BYTES or unpacker.unconsumed_tail:
            raise ExchangeError(FaultKind.TOO_LARGE, f"the reply is larger than {MAX_REPLY_BYTES // 1024} KiB unpacked")
        body = unpacked
    return body


USER_AGENT = "Jassweb/1.0 (HSLU Jass interface)"


@dataclass(frozen=True)
class Fault:
    """What went wrong with a bot's answer (stored with the game)."""

    kind: FaultKind
    detail: str  # for everyone (never names a card the bot holds)
    hidden_detail: str = ""  # revealed with the game's record once it is over (e.g. the illegal card)


@dataclass(frozen=True)
class BotAnswer:
    """A bot's move (its own, or the random legal stand-in after a fault)."""

    action: Action
    latency: float  # seconds from the first request to the answer (or the failure)
    dialect: str  # the dialect that answered (or was last tried)
    fault: Fault | None = None
    dialect_confirmed: bool = False  # the bot answered on this dialect's path (even if badly)


@dataclass(frozen=True)
class Exchange:
    """One HTTP exchange with a bot."""

    status: int
    body: bytes
    latency: float


class ExchangeError(Exception):
    """The exchange failed before a usable HTTP answer (kind as in ``Fault``)."""

    def __init__(self, kind: FaultKind, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


# -- the guard -----------------------------------------------------------------------


def _settings() -> tuple[bool, frozenset[str]]:
    from django.conf import settings

    allowlist = frozenset(h.strip().lower() for h in settings.JASS_BOT_URL_ALLOWLIST if h.strip())
    return bool(settings.JASS_ALLOW_PRIVATE_BOT_URLS), allowlist


# IPv6 ranges that carry an IPv4 address in their last 32 bits: a host with 6to4, NAT64 or
# IPv4-compatible routing would reach that IPv4 address, so it is the one to check.
_IPV4_IN_LAST_32_BITS = (
    ipaddress.ip_network("::/96"),  # IPv4-compatible (deprecated)
    ipaddress.ip_network("64:ff9b::/96"),  # NAT64, well-known prefix
)
# Local-use NAT64 (RFC 8215): the IPv4 address sits where the operator chose; refused as a whole.
_REFUSED_V6 = (ipaddress.ip_network("64:ff9b:1::/48"),)


def _embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address stands for (mapped, compatible, NAT64, 6to4, Teredo), if any."""
    if address.ipv4_mapped:
        return [address.ipv4_mapped]
    if address.sixtofour:
        return [address.sixtofour]
    if address.teredo:
        return list(address.teredo)  # the Teredo server and the client's (unobfuscated) address
    if any(address in network for network in _IPV4_IN_LAST_32_BITS):
        return [ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)]
    return []


def _forbidden(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address):
        if any(address in network for network in _REFUSED_V6):
            return True
        if any(_forbidden(inner) for inner in _embedded_ipv4(address)):
            return True
    return not address.is_global or address.is_multicast


async def _resolve(host: str, port: int) -> list[str]:
    try:
        return [str(ipaddress.ip_address(host))]
    except ValueError:
        pass
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ExchangeError(FaultKind.CONNECTION, f"cannot resolve {host!r}: {exc.strerror or exc}") from None
    except UnicodeError:  # check_bot_url refuses these first; a caller that skipped it gets the same answer
        raise bad_host_name(host) from None
    return list(dict.fromkeys(info[4][0] for info in infos))


async def guarded_address(url: str) -> str:
    """Resolve the URL's host and return an address the guard allows, or raise ``BotUrlError``."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    port = parts.port or (443 if parts.scheme == "https" else 80)
    addresses = await _resolve(host, port)
    allow_private, allowlist = _settings()
    if allow_private or host in allowlist or f"{host}:{port}" in allowlist:
        return addresses[0]
    for address in addresses:
        if _forbidden(ipaddress.ip_address(address)):
            raise BotUrlError(
                FaultKind.PRIVATE_ADDRESS,
                gettext_noop(
                    "{host} is a private, loopback or otherwise non-public address ({address}); "
                    "this server does not call those (JASS_ALLOW_PRIVATE_BOT_URLS is off)"
                ),
                host=host,
                address=address,
            )
    return addresses[0]


async def check_address(url: str) -> None:
    """Refuse a bot URL whose form is wrong or whose address the guard forbids, before anything is sent.

    ``BotUrlError`` says why (its ``kind`` is ``private_address`` for a refused address).
    """
    try:
        await guarded_address(check_bot_url(url))
    except ExchangeError as exc:  # the name does not resolve
        raise BotUrlError(exc.kind, str(exc)) from None


# -- the one posting function ----------------------------------------------------------


async def post_json(client: httpx.AsyncClient, url: str, body: object, timeout: float) -> Exchange:
    """POST ``body`` as JSON to a bot and return its answer, within ``timeout`` seconds in all.

    Raises ``BotUrlError`` for a refused address and ``ExchangeError`` for a
    failed exchange (timeout, connection, too large, redirect elsewhere).
    """
    started = time.monotonic()
    payload = json.dumps(body).encode()
    try:
        async with asyncio.timeout(timeout):
            target = url
            for _ in range(MAX_REDIRECTS + 1):
                response = await _post_once(client, target, payload, timeout)
                if response.status in (301, 302, 303, 307, 308) and response.location:
                    following = urljoin(target, response.location)
                    if urlsplit(following)[:2] != urlsplit(target)[:2]:
                        raise ExchangeError(
                            FaultKind.REDIRECT, f"the bot redirected to another host ({following[:80]}); not followed"
                        )
                    check_bot_url(following)
                    target = following
                    continue
                return Exchange(response.status, response.body, time.monotonic() - started)
            raise ExchangeError(FaultKind.REDIRECT, f"more than {MAX_REDIRECTS} redirects")
    except TimeoutError:
        raise ExchangeError(FaultKind.TIMEOUT, f"no answer within {timeout:g} s") from None


@dataclass
class _Response:
    status: int
    body: bytes
    location: str | None


async def _post_once(client: httpx.AsyncClient, url: str, payload: bytes, timeout: float) -> _Response:
    parts = urlsplit(url)
    address = await guarded_address(url)
    host = parts.hostname or ""
    netloc_address = f"[{address}]" if ":" in address else address
    if parts.port:
        netloc_address += f":{parts.port}"
    pinned = urlunsplit((parts.scheme, netloc_address, parts.path or "/", "", ""))
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "Accept-Encoding": "gzip, deflate",  # what _decoded reads (and nothing else: br, zstd)
        "Host": parts.netloc.rsplit("@", 1)[-1],
        "User-Agent": USER_AGENT,
    }
    extensions = {"sni_hostname": host} if parts.scheme == "https" else {}
    request = client.build_request("POST", pinned, content=payload, headers=headers, extensions=extensions)
    try:
        response = await client.send(request, stream=True, follow_redirects=False)
    except httpx.TimeoutException:
        raise ExchangeError(FaultKind.TIMEOUT, f"no answer within {timeout:g} s") from None
    except httpx.TransportError as exc:
        raise ExchangeError(
            FaultKind.CONNECTION, f"could not reach the bot: {type(exc).__name__} {exc}"[:200]
        ) from None
    try:
        body = bytearray()
        async for chunk in response.aiter_raw():
            body.extend(chunk)
            if len(body) > MAX_REPLY_BYTES:
                raise ExchangeError(FaultKind.TOO_LARGE, f"the reply is larger than {MAX_REPLY_BYTES // 1024} KiB")
        decoded = _decoded(bytes(body), response.headers.get("content-encoding", ""))
        return _Response(response.status_code, decoded, response.headers.get("location"))
    except httpx.TransportError as exc:
        raise ExchangeError(FaultKind.CONNECTION, f"the reply broke off: {type(exc).__name__}") from None
    finally:
        await response.aclose()


@functools.cache
def _tls() -> ssl.SSLContext:
    """The verifying TLS context of every bot client, built once: building one reads the whole CA
    bundle (about 20 ms), and headless games, the arena and the analysis make a client per run."""
    return ssl.create_default_context(cafile=certifi.where())


def new_client() -> httpx.AsyncClient:
    """A client for bot traffic: no environment proxies, no redirects (post_json decides)."""
    return httpx.AsyncClient(trust_env=False, follow_redirects=False, timeout=httpx.Timeout(MAX_TIMEOUT), verify=_tls())


# -- asking a bot for a move ---------------------------------------------------------------


def _route(url: str, dialect: Dialect, kind: str) -> str:
    return f"{url}/{PATHS[dialect][kind]}"


def _check_answer(obs: Observation, action: Action) -> Fault | None:
    """Whether a well-formed answer is also a legal one for this seat now."""
    if not action.is_card:
        if action.value == PUSH and obs.forehand != -1:
            return Fault(FaultKind.SECOND_PUSH, "pushed, but only forehand may push, and only once")
        return None
    card = action.value
    if not obs.hand >> card & 1:
        return Fault(FaultKind.CARD_NOT_IN_HAND, f"played {CARD_CODES[card]}, which it does not hold")
    if not obs.legal_mask() >> card & 1:
        return Fault(FaultKind.ILLEGAL_CARD, "played a card the rules do not allow here", f"played {CARD_CODES[card]}")
    return None


def random_legal_action(obs: Observation, rng: np.random.Generator) -> Action:
    """The stand-in move: a uniformly random legal action (never a push)."""
    if obs.trump < 0:
        return Action.trump(int(rng.choice(TRUMPS)))
    return Action.card(int(rng.choice(list(iter_cards(obs.legal_mask())))))


async def ask_bot(
    client: httpx.AsyncClient,
    url: str,
    dialect: str,
    obs: Observation,
    jass_typ: str,
    timeout: float,
    rng: np.random.Generator,
) -> BotAnswer:
    """Ask a remote bot for its move on ``obs``; a bad or missing answer becomes a random legal one.

    At a table with Weis and Stöck the server declares the bot's Weis and announces its Stöck for it
    (the HSLU interface has neither): those moves ask nothing, and the request never mentions them.
    """
    move = server_move(obs)
    if move is not None:
        return BotAnswer(move, 0.0, dialect)
    kind = "trump" if obs.trump < 0 else "card"
    body = encode_observation(obs, jass_typ)
    tries = [Dialect(dialect)] if dialect in (SPEC, JASS_KIT) else [SPEC, JASS_KIT]
    started = time.monotonic()
    fault: Fault | None = None
    confirmed = False
    tried = tries[0]
    for index, tried in enumerate(tries):
        remaining = timeout - (time.monotonic() - started)
        try:
            exchange = await post_json(client, _route(url, tried, kind), body, max(remaining, 0.01))
        except (ExchangeError, BotUrlError) as exc:
            fault = Fault(exc.kind, str(exc))
            break
        if exchange.status in (404, 405) and index + 1 < len(tries):
            continue  # the other dialect, once
        confirmed = exchange.status not in (404, 405)
        if exchange.status != 200:
            preview = exchange.body[:80].decode("utf-8", "replace")
            fault = Fault(FaultKind.HTTP_STATUS, f"answered HTTP {exchange.status} {preview!r}")
            break
        try:
            reply = parse_reply_body(exchange.body)
            parsed = parse_trump_reply(reply) if kind == "trump" else parse_card_reply(reply)
            action = Action.trump(parsed) if kind == "trump" else Action.card(parsed)
        except InvalidReplyError as exc:
            fault = Fault(exc.kind, str(exc))
            break
        fault = _check_answer(obs, action)
        if fault is None:
            return BotAnswer(with_stoeck(obs, action), exchange.latency, tried, dialect_confirmed=True)
        break
    action = with_stoeck(obs, random_legal_action(obs, rng))
    return BotAnswer(action, time.monotonic() - started, tried, fault, confirmed)


async def send_game_info(
    client: httpx.AsyncClient, url: str, dialect: str, obs: Observation, jass_typ: str, timeout: float
) -> Fault | None:
    """Tell a bot how a round ended (its own view, with ``playerView``); return a fault if it failed."""
    body = encode_observation(obs, jass_typ)
    tries = [Dialect(dialect)] if dialect in (SPEC, JASS_KIT) else [SPEC, JASS_KIT]
    for index, tried in enumerate(tries):
        try:
            exchange = await post_json(client, _route(url, tried, "info"), body, timeout)
        except (ExchangeError, BotUrlError) as exc:
            return Fault(FaultKind.GAME_INFO, f"game_info failed: {exc}")
        if exchange.status in (404, 405) and index + 1 < len(tries):
            continue
        if exchange.status != 200:
            preview = exchange.body[:80].decode("utf-8", "replace")
            return Fault(FaultKind.GAME_INFO, f"game_info answered HTTP {exchange.status} {preview!r}")
        return None
    return None


@dataclass(frozen=True)
class ProbeResult:
    """What the Test button shows: did the bot answer a real trump request, how, and how fast."""

    ok: bool
    url: str
    dialect: str
    latency_ms: int
    answer: str  # the bot's choice in words, or what went wrong
    fault_kind: str | None = None


async def probe_bot(url: str, dialect: str, timeout: float, seat: int = 2, seed: int = 0) -> ProbeResult:
    """Send a bot a real trump request (a random deal, the bot forehand at ``seat``) and report its answer."""
    url = check_bot_url(url)
    rng = np.random.default_rng(seed)
    deal = random_deal(random.Random(seed))
    state = RoundState.deal(deal, dealer=(seat + 1) % 4)  # the dealer's next seat is forehand
    obs = state.observation(state.player)
    async with new_client() as client:
        answer = await ask_bot(client, url, dialect, obs, "SCHIEBER", timeout, rng)
    latency_ms = round(answer.latency * 1000)
    if answer.fault is not None:
        return ProbeResult(False, url, answer.dialect, latency_ms, answer.fault.detail, answer.fault.kind)
    said = TRUMP_NAMES[answer.action.value]
    return ProbeResult(True, url, answer.dialect, latency_ms, f"{said} (asked as {SEAT_NAMES[state.player]}, forehand)")
