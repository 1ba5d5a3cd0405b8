"""Table chat: what people say at a table, who may read it, and the moderators' tools.

Two rooms per table: the people playing (seated at the table, or playing in its
running game) talk in ``players``, which everyone at the table reads; those
watching talk in ``spectators``, which only those watching read, so that nobody
outside the game helps a player. A message is stored beside the game's actions
(``ChatMessage``, with the game and its move number: the replay shows it as a
side track), never in the game's HSLU record, and published to the table's
watchers over the channel layer after commit (``table.chat``); each connection
drops what its person may not read or has muted. Quick phrases travel as their
key, so that every reader sees them in their own language.

A message is checked like a move: its length, a rate per person (the ``chat``
limit), the site's blocked words (``JASSWEB_CHAT_BLOCKED_WORDS``), a moderator's
mute (``Player.chat_muted_until``), and, where the site says so
(``JASSWEB_CHAT_GUESTS_PHRASES_ONLY``, on in production), guests may only use
the quick phrases. A refusal says why and stores nothing.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.translation import gettext, gettext_lazy

from games.errors import ErrorCode, ServiceError
from games.live import limits
from games.live.events import publisher
from games.models import ChatMessage, ChatMute, ChatReport, Game, GameSeat, Player, Seat, Table, table_group

MAX_TEXT = 200  # characters of one message
HISTORY = 50  # messages a connection gets when it opens

# The quick phrases, one tap away: their key travels, each reader sees them in their language.
PHRASES = {
    "well_played": gettext_lazy("Well played!"),
    "sorry": gettext_lazy("Sorry"),
    "hurry": gettext_lazy("Hurry up, please"),
    "thanks": gettext_lazy("Thanks"),
}


def phrases() -> list[dict[str, str]]:
    """The quick phrases in the current language, for a page's buttons."""
    return [{"key": key, "text": str(words)} for key, words in PHRASES.items()]


def _refuse(message: str, code: ErrorCode = ErrorCode.BAD_MESSAGE) -> ServiceError:
    return ServiceError(code, message)


def _clean(text: str) -> str:
    """The text as said: control characters out (newlines included), runs of spaces as one, trimmed."""
    kept = "".join(" " if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") else c for c in text)
    return " ".join(kept.split())


def _blocked_word(text: str) -> str | None:
    words = getattr(settings, "JASSWEB_CHAT_BLOCKED_WORDS", [])
    lowered = text.casefold()
    for word in words:
        if word and re.search(rf"(?<!\w){re.escape(word.casefold())}(?!\w)", lowered):
            return word
    return None


def room_of(table_id: int, player_id: int | None) -> str:
    """The room a person talks in at a table: ``players`` if they sit there or play its running game."""
    if player_id is None:
        return ChatMessage.SPECTATORS
    seated = Seat.objects.filter(table_id=table_id, player_id=player_id).exists()
    playing = GameSeat.objects.filter(game__table_id=table_id, game__status=Game.RUNNING, player_id=player_id).exists()
    return ChatMessage.PLAYERS if seated or playing else ChatMessage.SPECTATORS


def say(table_id: int, player: Player | None, text: str | None = None, phrase: str | None = None) -> dict[str, Any]:
    """Store what ``player`` says at a table (``text`` as typed, or a quick ``phrase``, one of ``PHRASES``) and
    publish it (the frame's shape is checked by ``protocol.parse``)."""
    if player is None:
        raise _refuse(gettext("choose a nickname or sign in to chat"), ErrorCode.NO_IDENTITY)
    if phrase is not None:
        with translation.override("en"):  # stored in English; every reader sees it in their language
            said, key = str(PHRASES[phrase]), phrase
    else:
        said, key = _clean(text or ""), ""
        if not said:
            raise _refuse(gettext("say something first"))
        if len(said) > MAX_TEXT:
            raise _refuse(gettext("a message has at most {count} characters").format(count=MAX_TEXT))
        if player.is_guest and settings.JASSWEB_CHAT_GUESTS_PHRASES_ONLY:
            raise _refuse(
                gettext("guests chat with the quick phrases; sign up to write your own words"), ErrorCode.NOT_ALLOWED
            )
        word = _blocked_word(said)
        if word is not None:
            raise _refuse(gettext("this site does not allow the word {word}").format(word=repr(word)))
    muted_until = Player.objects.filter(pk=player.pk).values_list("chat_muted_until", flat=True).first()
    if muted_until is not None and muted_until > timezone.now():
        raise _refuse(
            gettext("a moderator muted you in the chat until {time}").format(
                time=date_format(timezone.localtime(muted_until), "DATETIME_FORMAT")
            ),
            ErrorCode.NOT_ALLOWED,
        )
    try:
        limits.hit("chat", person=player.pk)
    except limits.Limited as exc:
        raise ServiceError(exc.code, exc.message) from None
    with transaction.atomic():
        table = Table.objects.filter(pk=table_id).first()
        if table is None:
            raise _refuse(gettext("there is no table {number}").format(number=table_id), ErrorCode.NO_TABLE)
        game = table.games.filter(status=Game.RUNNING).first() or table.games.order_by("-pk").first()
        message = ChatMessage.objects.create(
            table=table,
            game=game,
            seq=game.action_count if game is not None else None,
            player=player,
            name=player.name,
            room=room_of(table_id, player.pk),
            text=said,
            phrase=key,
        )
        frame = as_frame(message)
        event = {"type": "table.chat", "message": frame}
        group = table_group(table_id)
        transaction.on_commit(lambda: publisher.publish([("group", group, event)]))
    return frame


def as_frame(message: ChatMessage) -> dict[str, Any]:
    """A message as the table's socket sends it (the page escapes ``text``; a quick phrase is shown by its key)."""
    return {
        "id": message.pk,
        "from": message.name,
        "player": message.player_id,
        "room": message.room,
        "text": message.text,
        "phrase": message.phrase or None,
        "game": message.game_id,
        "seq": message.seq,
        "at": _epoch_ms(message.created_at),
    }


def _epoch_ms(moment: datetime) -> int:
    return round(moment.timestamp() * 1000)


def readable(room: str, reader_room: str) -> bool:
    """Whether someone in ``reader_room`` reads a message said in ``room``: the players' room is read by all,
    the spectators' room by those watching only."""
    return room == ChatMessage.PLAYERS or reader_room == ChatMessage.SPECTATORS


def muted_by(player_id: int | None) -> set[int]:
    """The people ``player_id`` has muted."""
    if player_id is None:
        return set()
    return set(ChatMute.objects.filter(muter_id=player_id).values_list("muted_id", flat=True))


def history(table_id: int, player_id: int | None) -> tuple[str, list[dict[str, Any]]]:
    """(the reader's room, the last messages of a table they may read, oldest first, muted and hidden left out)."""
    reader_room = room_of(table_id, player_id)
    muted = muted_by(player_id)
    rows = ChatMessage.objects.filter(table_id=table_id, hidden=False)
    if reader_room == ChatMessage.PLAYERS:
        rows = rows.filter(room=ChatMessage.PLAYERS)
    frames = [as_frame(m) for m in rows.order_by("-id")[:HISTORY] if m.player_id not in muted]
    return reader_room, frames[::-1]


def set_mute(muter: Player | None, muted_id: int, mute: bool) -> set[int]:
    """Mute (or unmute) a person's messages for ``muter`` alone; returns everyone ``muter`` has muted."""
    if muter is None:
        raise _refuse(gettext("choose a nickname or sign in first"), ErrorCode.NO_IDENTITY)
    if muted_id == muter.pk or not Player.objects.filter(pk=muted_id).exists():
        raise _refuse(gettext("there is nobody to mute"))
    if mute:
        ChatMute.objects.get_or_create(muter=muter, muted_id=muted_id)
    else:
        ChatMute.objects.filter(muter=muter, muted_id=muted_id).delete()
    return muted_by(muter.pk)


def report(reporter: Player | None, table_id: int, message_id: int) -> None:
    """Report a message of this table to the moderators (reporting it again changes nothing)."""
    if reporter is None:
        raise _refuse(gettext("choose a nickname or sign in first"), ErrorCode.NO_IDENTITY)
    message = ChatMessage.objects.filter(pk=message_id, table_id=table_id).first()
    if message is None or message.player_id == reporter.pk:
        raise _refuse(gettext("there is no such message to report"))
    ChatReport.objects.get_or_create(message=message, reporter=reporter)


def hide(messages: list[ChatMessage]) -> None:
    """A moderator hides messages: stored as hidden, and gone from every page that shows them."""
    ChatMessage.objects.filter(pk__in=[m.pk for m in messages]).update(hidden=True)
    ChatReport.objects.filter(message__in=messages).update(resolved=True)
    publisher.publish(
        [("group", table_group(m.table_id), {"type": "table.chat_hidden", "message": m.pk}) for m in messages]
    )


def replay_track(game: Game) -> list[dict[str, Any]]:
    """A game's chat for its replay (both rooms, labelled), hidden messages left out."""
    return [as_frame(m) for m in ChatMessage.objects.filter(game=game, hidden=False).order_by("id")]
