"""The code examples of README.md, docs/ and the engine's and HSLU codec's docstrings run, and say what they print."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MODULES = [
    "games.engine.cards",
    "games.engine.rules",
    "games.engine.round",
    "games.engine.game",
    "games.engine.weis",
    "games.engine.fair",
    "games.hslu",
]
OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
FENCE = re.compile(r"^```[a-z]*\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def run(test: doctest.DocTest) -> doctest.TestResults:
    """Run one doctest; a failure's report (expected and got) is the assertion message."""
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    report: list[str] = []
    results = runner.run(test, out=report.append)
    assert results.failed == 0, "".join(report)
    return results


def documentation_examples() -> list[doctest.DocTest]:
    """Every fenced block of README.md and docs/ written as an interactive session (``>>>``), as one doctest each."""
    parser = doctest.DocTestParser()
    tests = []
    for document in DOCUMENTS:
        text = document.read_text()
        name = str(document.relative_to(ROOT))
        for match in FENCE.finditer(text):
            if ">>> " in match.group(1):
                line = text.count("\n", 0, match.start(1))
                tests.append(parser.get_doctest(match.group(1), {}, f"{name}:{line + 1}", name, line))
    return tests


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples_run(module):
    tests = doctest.DocTestFinder().find(importlib.import_module(module))
    attempted = sum(run(test).attempted for test in tests)
    assert attempted > 0, f"{module} has no docstring examples"


def test_documentation_examples_run():
    tests = documentation_examples()
    assert tests, "README.md and docs/ have no >>> examples"
    assert sum(run(test).attempted for test in tests) >= 10


def test_a_wrong_example_fails():
    """The runner above does fail: an example whose output is wrong is reported."""
    wrong = doctest.DocTestParser().get_doctest(
        ">>> from games.engine import legal_cards, D8, S7, S9, S8, SA, SPADES\n"
        ">>> legal_cards([S8, SA], [D8, S7, S9], SPADES)\n[]\n",
        {},
        "wrong",
        "wrong",
        0,
    )
    with pytest.raises(AssertionError, match=r"Expected:\s+\[\]\s+Got:\s+\[18, 24\]"):
        run(wrong)
