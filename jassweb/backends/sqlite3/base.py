"""Django's SQLite backend without query logging under ``DEBUG`` (see ``jassweb.backends.logging``)."""

from __future__ import annotations

from django.db.backends.sqlite3 import base

from jassweb.backends.logging import SelectiveQueryLogging


class DatabaseWrapper(SelectiveQueryLogging, base.DatabaseWrapper):
    pass
