"""Test tiers: ``browser`` (a real Chromium), ``services`` (Redis, PostgreSQL, server processes, HTTP bot
servers on loopback), ``slow`` (minutes of CPU: bots playing many games, sweeps against jass-kit) and the
fast rest.

``make test-fast`` runs the fast rest alone; ``make test`` runs everything. A test that starts a real
service or a browser without its tier's mark fails at once and names the mark, so the fast tier stays
fast and nothing slips into it by accident. Browser tests may use services too.

conftest.py imports this module before pytest loads it as a plugin, and it has no asserts to
rewrite: PYTEST_DONT_REWRITE.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

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


# What a test of each tier costs, roughly, in seconds (a browser test plays a game; a fast test is a blink):
# the guess for a test file that ``durations.json`` does not know yet.
_COST = {"browser": 12.0, "slow": 8.0, "services": 4.0}
DURATIONS = Path(__file__).with_name("durations.json")  # seconds per test file, from a whole run
RECORD = "JASSWEB_RECORD_DURATIONS"  # set to 1: ``make test`` writes durations.json afresh


def _measured() -> dict[str, float]:
    try:
        return {str(k): float(v) for k, v in json.loads(DURATIONS.read_text()).items()}
    except (OSError, ValueError, AttributeError):
        return {}


def heaviest_files_first(items: list[pytest.Item]) -> None:
    """Order whole test files by their cost, dearest first, each file's tests kept in their order.

    ``make test`` deals one file at a time to each of its workers (``--dist loadfile``): a long file
    dealt last would leave one worker alone for minutes, while small fast files fill the gaps. The
    cost of a file is what it took in a whole run (``durations.json``), else a guess by its marks.
    """
    measured = _measured()
    cost: dict[str, float] = {}
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        path = _file_of(item)
        marks = {m.name for m in item.iter_markers()}
        cost[path] = cost.get(path, 0.0) + max([_COST[m] for m in marks if m in _COST] or [0.05])
        first.setdefault(path, index)
    for path in cost:
        cost[path] = measured.get(path, cost[path])
    items.sort(key=lambda item: (-cost[_file_of(item)], first[_file_of(item)]))


@pytest.hookimpl(trylast=True)  # after ``-m`` has picked the tier and pytest-django has ordered by kind
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    heaviest_files_first(items)


_spent: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Add up each file's setup, call and teardown time (in the controller, under xdist)."""
    if os.environ.get(RECORD):
        path = report.nodeid.split("::", 1)[0]
        _spent[path] = _spent.get(path, 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    if os.environ.get(RECORD) and _spent and not hasattr(session.config, "workerinput"):
        ordered = dict(sorted(((k, round(v, 1)) for k, v in _spent.items()), key=lambda kv: -kv[1]))
        DURATIONS.write_text(json.dumps(ordered, indent=1) + "\n")


def _file_of(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def entering(item: pytest.Item | None) -> None:
    global _marks
    _marks = None if item is None else frozenset(m.name for m in item.iter_markers() if m.name in TIERS)


def require(tier: str, what: str) -> None:
    """Fail the running test unless it is marked ``tier`` (a browser test may use any service)."""
    if _marks is None or tier in _marks or "browser" in _marks:
        return
    pytest.fail(f"this test uses {what}: mark it @pytest.mark.{tier} (see tests/tiers.py)", pytrace=False)
