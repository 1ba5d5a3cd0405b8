"""English dates as the site wrote them before it spoke four languages (24 Nov 2026, 17:05), not the US forms.

German, French and Italian use Django's own formats for those languages (settings.FORMAT_MODULE_PATH).
"""

from __future__ import annotations

DATE_FORMAT = "j M Y"
SHORT_DATE_FORMAT = "j M Y"
DATETIME_FORMAT = "j M Y, H:i"
SHORT_DATETIME_FORMAT = "j M Y, H:i"
TIME_FORMAT = "H:i"
