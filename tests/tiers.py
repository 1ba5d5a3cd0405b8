"""Test tiers: ``browser`` (a real Chromium), ``services`` (Redis, PostgreSQL, server processes, HTTP bot
servers on loopback), ``slow`` (minutes of CPU: bots playing many games, sweeps against jass-kit) and the
fast rest.

``make test-fast`` runs the fast rest alone; ``make test`` runs everything. A test that starts a real
service or a browser without its tier's mark fails at once and names the mark, so the fast tier stays
fast and nothing slips into it by accident. Browser tests may use services too.
"""

from __future__ import annotations

import pytest

TIERS = ("browser", "services")
BROWSER_FIXTURES = frozenset({"browser", "open_page"})
SERVICE_FIXTURES = frozenset({"redis_layer", "stop_runner"})

_marks: frozenset[str] | None = None  # the tier marks of the test being set up or run (None between tests)


def classify(item: pytest.Item) -> None:
    """Mark a test by the fixtures it asks for (its module or function may also carry the mark)."""
    fixtures = set(getattr(item, "fixturenames", ()))
    if fixtures & BROWSER_FIXTURES and not item.get_closest_marker("browser"):
        item.add_marker(pytest.mark.browser)
    if fixtures & SERVICE_FIXTURES and not item.get_closest_marker("services"):
        item.add_marker(pytest.mark.services)


def entering(item: pytest.Item | None) -> None:
    global _marks
    _marks = None if item is None else frozenset(m.name for m in item.iter_markers() if m.name in TIERS)


def require(tier: str, what: str) -> None:
    """Fail the running test unless it is marked ``tier`` (a browser test may use any service)."""
    if _marks is None or tier in _marks or "browser" in _marks:
        return
    pytest.fail(f"this test uses {what}: mark it @pytest.mark.{tier} (see tests/tiers.py)", pytrace=False)
