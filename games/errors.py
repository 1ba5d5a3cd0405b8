"""The service's refusals: a stable ``ErrorCode`` for clients, a message for people, and the facts."""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """The ``code`` of a refusal (the websocket's ``{"type": "error", "code": ...}``; values are the protocol)."""

    # the message itself
    BAD_FRAME = "bad_frame"
    BAD_JSON = "bad_json"
    BAD_MESSAGE = "bad_message"
    UNKNOWN_TYPE = "unknown_type"
    READ_ONLY = "read_only"
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    BUSY = "busy"
    # who asks
    NO_IDENTITY = "no_identity"
    NOT_ALLOWED = "not_allowed"
    NOT_SEATED = "not_seated"
    NOT_YOUR_SEAT = "not_your_seat"
    # tables and seats
    NO_TABLE = "no_table"
    BAD_OPTIONS = "bad_options"
    BAD_SEAT = "bad_seat"
    SEAT_TAKEN = "seat_taken"
    ALREADY_SEATED = "already_seated"
    SEATS_EMPTY = "seats_empty"
    UNKNOWN_BOT = "unknown_bot"
    NOT_A_BOT = "not_a_bot"
    BAD_BOT_URL = "bad_bot_url"
    BOT_URL_REFUSED = "bot_url_refused"
    IMPORTED = "imported"
    MANAGED = "managed"  # a tournament's table: the tournament arranges its seats and games
    # games and moves
    NO_GAME = "no_game"
    GAME_RUNNING = "game_running"
    GAME_OVER = "game_over"
    BAD_ACTION = "bad_action"
    ILLEGAL = "illegal"
    NOT_YOUR_TURN = "not_your_turn"
    STALE = "stale"
    BAD_ROUND = "bad_round"
    STANDIN = "standin"
    LEFT = "left"
    NOT_AWAY = "not_away"
    VOTE_OPEN = "vote_open"
    NO_VOTE = "no_vote"


class ServiceError(Exception):
    """A refused change: ``code`` is stable for clients, ``message`` says why.

    A refused move also carries the engine's facts: ``seat``, ``card`` (for a card) and ``reason``
    (the rule, ``games.engine.IllegalReason``).
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        seat: int | None = None,
        card: int | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message
        self.seat = seat
        self.card = card
        self.reason = reason
