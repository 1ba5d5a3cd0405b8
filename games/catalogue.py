"""Who can sit at a table, as plain data: seat kinds, built-in bot names, HSLU dialects, bot URLs.

A pure module (no Django, no I/O) that the service, the consumers, the records and
the pages read, so that ``games`` never imports ``bots``. The ``bots`` app fills in
what only it knows when Django starts (``BotsConfig.ready``): the built-in bots it
implements (``register_builtin_bot``) and the code that drives, probes and guards
bots (``games.live.bothooks``).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum, nonmember
from urllib.parse import urlsplit, urlunsplit


class SeatKind(StrEnum):
    """Who plays a seat: a person, a built-in bot, an HSLU bot by URL, or nobody (the stored and sent values)."""

    do_not_call_in_templates = nonmember(True)  # templates compare ``s.kind == SeatKind.EMPTY``

    HUMAN = "human"
    BOT = "bot"
    REMOTE = "remote"
    EMPTY = "empty"


BOT_KINDS = (SeatKind.BOT, SeatKind.REMOTE)  # the seats the bot driver plays


class Dialect(StrEnum):
    """An HSLU bot's paths: the spec's ``/select_trump``…, jass-kit's ``/action_trump``…, or try both."""

    AUTO = "auto"
    SPEC = "spec"
    JASS_KIT = "jass-kit"


DIALECTS = tuple(Dialect)
DEFAULT_TIMEOUT = 5.0  # seconds an HSLU bot has to answer, unless the table says otherwise
MAX_TIMEOUT = 30.0
MAX_URL_LENGTH = 300


class FaultKind(StrEnum):
    """What went wrong with an HSLU bot's answer (stored with the game and shown in the replay)."""

    # before a usable HTTP answer
    TIMEOUT = "timeout"
    CONNECTION = "connection"
    REDIRECT = "redirect"
    TOO_LARGE = "too_large"
    HTTP_STATUS = "http_status"
    BAD_URL = "bad_url"
    PRIVATE_ADDRESS = "private_address"
    # the reply (games.hslu)
    NOT_JSON = "not_json"
    NOT_OBJECT = "not_object"
    MISSING_FIELD = "missing_field"
    WRONG_TYPE = "wrong_type"
    BAD_TRUMP = "bad_trump"
    UNKNOWN_CARD = "unknown_card"
    # the move
    SECOND_PUSH = "second_push"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    ILLEGAL_CARD = "illegal_card"
    GAME_INFO = "game_info"


def gettext_noop(message: str) -> str:
    """Mark ``message`` for the translation catalogues (django.po) without Django here; pages translate it."""
    return message


FAULT_WORDS = {
    FaultKind.TIMEOUT: gettext_noop("No answer in time"),
    FaultKind.CONNECTION: gettext_noop("Could not connect"),
    FaultKind.HTTP_STATUS: gettext_noop("HTTP error"),
    FaultKind.NOT_JSON: gettext_noop("Reply is not JSON"),
    FaultKind.NOT_OBJECT: gettext_noop("Reply is not a JSON object"),
    FaultKind.MISSING_FIELD: gettext_noop("Field missing in the reply"),
    FaultKind.WRONG_TYPE: gettext_noop("Field of the wrong type"),
    FaultKind.BAD_TRUMP: gettext_noop("Not a valid trump"),
    FaultKind.UNKNOWN_CARD: gettext_noop("Unknown card"),
    FaultKind.CARD_NOT_IN_HAND: gettext_noop("Card not in its hand"),
    FaultKind.ILLEGAL_CARD: gettext_noop("Card against the rules"),
    FaultKind.SECOND_PUSH: gettext_noop("Push not allowed"),
    FaultKind.TOO_LARGE: gettext_noop("Reply too large"),
    FaultKind.REDIRECT: gettext_noop("Redirect not followed"),
    FaultKind.GAME_INFO: gettext_noop("Round report (game_info) failed"),
}  # static/js/faults.js has the same words for the table page (tests/test_layers.py keeps them equal)


# -- why a game was abandoned ----------------------------------------------------------

# The reasons the service stores (English, as records keep them), read back into parts that a page
# words in its own language (games/pages/names.py, static/js/table/); any other text (an operator's, an
# imported record's) is shown as it is.
_ABANDONED_BY_VOTE = re.compile(r"^(?P<name>.+) asked and the other players agreed$")
_ABANDONED_AWAY = re.compile(
    r"^nobody was (?:at the table|connected and no move was made)"
    r" for (?P<amount>\d+(?:\.\d+)?) (?P<unit>minutes|seconds)$"
)


def abandon_parts(reason: str) -> dict[str, object]:
    """Why a game was abandoned, as parts: ``{"kind": "player" | "vote" | "away" | "other" | "none", ...}``.

    >>> abandon_parts("Anna asked and the other players agreed")
    {'kind': 'vote', 'name': 'Anna'}
    >>> abandon_parts("nobody was at the table for 30 minutes")
    {'kind': 'away', 'seconds': 1800}
    """
    if not reason:
        return {"kind": "none"}
    if reason == "abandoned by a player":
        return {"kind": "player"}
    vote = _ABANDONED_BY_VOTE.match(reason)
    if vote:
        return {"kind": "vote", "name": vote["name"]}
    away = _ABANDONED_AWAY.match(reason)
    if away:
        seconds = float(away["amount"]) * (60 if away["unit"] == "minutes" else 1)
        return {"kind": "away", "seconds": round(seconds, 1) if seconds < 60 else round(seconds)}
    return {"kind": "other", "text": reason}


# -- built-in bots ---------------------------------------------------------------------


@dataclass(frozen=True)
class BuiltinBot:
    """A built-in bot as the pages and the service know it; ``bots`` registers each one it implements."""

    name: str  # the key stored with a seat, e.g. "rules"
    label: str  # shown in the UI, e.g. "Rule-based"
    description: str = ""


_BUILTIN_BOTS: dict[str, BuiltinBot] = {}


def register_builtin_bot(bot: BuiltinBot) -> None:
    """Make a built-in bot known to the service and the pages (called by ``bots`` when Django starts)."""
    _BUILTIN_BOTS[bot.name] = bot


def builtin_bots() -> Mapping[str, BuiltinBot]:
    """The registered built-in bots by name, in registration order (weakest first)."""
    return _BUILTIN_BOTS


def bot_choices() -> list[dict[str, str]]:
    """The built-in bots as plain data for pages and views: name, label, description."""
    return [{"name": b.name, "label": b.label, "description": b.description} for b in _BUILTIN_BOTS.values()]


def known_bots() -> str:
    """``built-in bots: mcts-fast, mcts-strong, random, rules`` (for error messages)."""
    return f"built-in bots: {', '.join(sorted(_BUILTIN_BOTS))}"


# -- bot URLs --------------------------------------------------------------------------


class BotUrlError(ValueError):
    """A bot URL that may not be used; the message says why, in English.

    ``message`` is a template marked with ``gettext_noop`` and ``params`` its
    ``{name}`` values: a page shows ``translated(gettext)``, the message in its
    language (this module knows nothing of Django's translations).
    """

    def __init__(self, kind: str, message: str, **params: object) -> None:
        super().__init__(message.format(**params) if params else message)
        self.kind = FaultKind(kind)
        self.template = message
        self.params = params

    def translated(self, gettext: Callable[[str], str]) -> str:
        """The message in the language ``gettext`` translates to (a message never marked stays as it is)."""
        words = gettext(self.template)
        return words.format(**self.params) if self.params else words


def check_bot_url(url: str) -> str:
    """Return the normalised bot URL (no trailing slash) or raise ``BotUrlError`` saying why not.

    The form only; ``bots.remote.guarded_address`` checks the address it resolves to.
    """
    if not isinstance(url, str) or not url.strip():
        raise BotUrlError(
            FaultKind.BAD_URL, gettext_noop("enter the bot's URL, e.g. http://bots.example.org:5001/mybot")
        )
    url = url.strip()
    if len(url) > MAX_URL_LENGTH:
        raise BotUrlError(
            FaultKind.BAD_URL, gettext_noop("a bot URL has at most {count} characters"), count=MAX_URL_LENGTH
        )
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise BotUrlError(
            FaultKind.BAD_URL, gettext_noop("a bot URL starts with http:// or https://, not {url}"), url=repr(url[:40])
        )
    if not parts.hostname:
        raise BotUrlError(FaultKind.BAD_URL, gettext_noop("the bot URL has no host name: {url}"), url=repr(url[:60]))
    check_host_name(parts.hostname)
    if parts.username or parts.password:
        raise BotUrlError(FaultKind.BAD_URL, gettext_noop("a bot URL may not carry a user name or password"))
    if parts.query or parts.fragment:
        raise BotUrlError(
            FaultKind.BAD_URL, gettext_noop("a bot URL has no ?query or #fragment: the paths are appended to it")
        )
    try:
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        raise BotUrlError(
            FaultKind.BAD_URL, gettext_noop("the bot URL has an invalid port: {url}"), url=repr(url[:60])
        ) from None
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


def check_host_name(host: str) -> None:
    """Refuse a host that is neither an IP address nor a name DNS can carry (IDNA), before any lookup."""
    try:
        ipaddress.ip_address(host)
        return
    except ValueError:
        pass
    try:
        ascii_host = host.encode("idna").decode("ascii")
    except UnicodeError:
        raise bad_host_name(host) from None
    labels = ascii_host.removesuffix(".").split(".")  # a trailing dot (a rooted name) is fine
    if not all(label and set(label) <= _LABEL_CHARS for label in labels):
        raise bad_host_name(host)


def bad_host_name(host: str) -> BotUrlError:
    return BotUrlError(
        FaultKind.BAD_URL, gettext_noop("the bot URL's host is not a valid domain name: {host}"), host=repr(host[:60])
    )


_LABEL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")
