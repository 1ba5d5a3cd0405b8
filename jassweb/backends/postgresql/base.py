"""Django's PostgreSQL backend without query logging under ``DEBUG`` (see ``jassweb.backends.logging``)."""

from __future__ import annotations

from django.db.backends.postgresql import base

from jassweb.backends.logging import SelectiveQueryLogging


class DatabaseWrapper(SelectiveQueryLogging, base.DatabaseWrapper):
    pass
