"""What the project's database backends share: query logging only when asked for.

Under ``DEBUG`` Django keeps the text of every query (``connection.queries``).
For SQLite that text costs a second query per statement (to quote the
parameters), which made ``make run`` (debug mode) spend a fifth of a busy
server's time on it. The backends here log queries only with
``JASSWEB_LOG_QUERIES=1`` or where a caller forces it (Django's
``CaptureQueriesContext`` in tests, the debug shell).
"""

from __future__ import annotations

from django.conf import settings


class SelectiveQueryLogging:
    """Mixin for a ``DatabaseWrapper``: log queries only when forced or configured."""

    force_debug_cursor: bool  # the DatabaseWrapper's

    @property
    def queries_logged(self) -> bool:
        return self.force_debug_cursor or getattr(settings, "JASSWEB_LOG_QUERIES", False)
