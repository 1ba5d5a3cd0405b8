"""Errors raised by the rules engine and the HSLU codec."""

from __future__ import annotations


class JassError(ValueError):
    """Base class of every error about cards, actions, states and messages."""


class InvalidActionError(JassError):
    """An action or input that is malformed: no such card, trump code or seat."""


class IllegalActionError(JassError):
    """A well-formed action that the rules do not allow in the current state."""


class InvalidConfigError(JassError):
    """Game options or a fair schedule that cannot be played."""
