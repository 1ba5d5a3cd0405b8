"""Layers depend downward only: the engine knows nothing of Django, ``games`` nothing of ``bots``,
``tournaments`` or ``jassweb``, ``bots`` nothing of ``tournaments``, tournament pairings nothing of Django,
and the live path, the records and the summaries nothing of the pages that read them;
and no module of ``games`` or ``bots`` imports itself back through others (no import cycle).

Every module's imports are read from its syntax tree (function-local ones too), so a
wrong import fails here before anyone runs it.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# package -> the top-level packages none of its modules may import
FORBIDDEN = {
    "games.engine": ("django", "channels", "daphne", "asgiref", "games.models", "bots", "jassweb", "tournaments"),
    "games": ("bots", "tournaments", "jassweb"),
    "bots": ("tournaments",),
    "tournaments.pairing": ("django", "channels", "games", "bots", "jassweb"),
    # the pages read what the writer, the records and the summaries wrote; none of those reads a page
    "games.live": ("games.pages",),
    "games.records": ("games.pages",),
    "games.summaries": ("games.pages",),
}


def imported_modules(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """Every module an import in ``source`` names (line, dotted name), relative imports resolved."""
    found: list[tuple[int, str]] = []
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found.extend((node.lineno, f"{base}.{alias.name}" if alias.name != "*" else base) for alias in node.names)
            found.append((node.lineno, base))
    return found


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def violations(source: str, path: str) -> list[str]:
    """The imports of the module at ``path`` (relative to the project) that break a layer rule."""
    module, is_package = _module_name(path)
    wrong = []
    for layer, forbidden in FORBIDDEN.items():
        if not _within(module, layer):
            continue
        for line, name in imported_modules(source, module, is_package):
            bad = next((f for f in forbidden if _within(name, f)), None)
            if bad is not None:
                wrong.append(f"{path}:{line}: {layer} may not import {bad} (imports {name})")
    return sorted(set(wrong))


def _modules(package: str) -> list[Path]:
    return sorted(p for p in (ROOT / package).rglob("*.py") if "migrations" not in p.parts)


def _module_name(path: str) -> tuple[str, bool]:
    """The dotted name of the module at ``path`` (relative to the project) and whether it is a package."""
    relative = Path(path)
    is_package = relative.name == "__init__.py"
    parts = relative.with_suffix("").parts
    return ".".join(parts[:-1] if is_package else parts), is_package


def import_graph(sources: dict[str, str]) -> dict[str, dict[str, int]]:
    """Which of the given modules (path -> source) each one imports: module -> {imported module: first line}.

    A name is taken as the longest of the given modules it lies within (``from games.live import service``
    imports ``games.live.service``, and ``games.live`` first), so imports of anything else fall away.
    """
    named = {path: _module_name(path) for path in sources}
    known = {module for module, _ in named.values()}
    graph: dict[str, dict[str, int]] = {}
    for path, source in sources.items():
        module, is_package = named[path]
        edges = graph.setdefault(module, {})
        for line, name in imported_modules(source, module, is_package):
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module:
                edges[name] = min(line, edges.get(name, line))
    return graph


def import_cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    lowlink: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = lowlink[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = lowlink[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, {})))))
                elif child in on_stack:
                    lowlink[node] = min(lowlink[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                lowlink[parent] = min(lowlink[parent], lowlink[node])
            if lowlink[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return sorted(cycles)


def describe_cycles(graph: dict[str, dict[str, int]]) -> list[str]:
    """Each import cycle with the imports that close it (``a -> b (line 12)``), for a failure's message."""
    described = []
    for component in import_cycles(graph):
        members = set(component)
        edges = [
            f"    {module} -> {target} (line {line})"
            for module in component
            for target, line in sorted(graph[module].items())
            if target in members
        ]
        described.append(f"import cycle among {', '.join(component)}:\n" + "\n".join(edges))
    return described


def test_the_engine_imports_nothing_of_django_and_games_nothing_of_bots():
    wrong = []
    for path in [*_modules("games"), *_modules("bots"), *_modules("tournaments")]:
        wrong += violations(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert not wrong, "\n".join(wrong)


def test_no_module_of_games_or_bots_imports_itself_back():
    sources = {
        str(path.relative_to(ROOT)): path.read_text(encoding="utf-8")
        for path in [*_modules("games"), *_modules("bots")]
    }
    cycles = describe_cycles(import_graph(sources))
    assert not cycles, "\n".join(cycles)


@pytest.mark.parametrize(
    "sources",
    [
        {"games/a.py": "from games import b", "games/b.py": "from games.a import x"},
        {
            "games/a.py": "import games.b",
            "games/b.py": "def f():\n    from games import c",
            "games/c.py": "import games.a",
        },
        {
            "games/live/a.py": "from . import b",
            "games/live/b.py": "from ..pages import c",
            "games/pages/c.py": "from games.live.a import x",
        },
        {"bots/a.py": "from games import b", "games/b.py": "import bots.a"},
    ],
)
def test_an_import_cycle_is_found(sources):
    assert import_cycles(import_graph(sources))


@pytest.mark.parametrize(
    "sources",
    [
        {"games/a.py": "from games import b", "games/b.py": "import django\nfrom games import c", "games/c.py": ""},
        {
            "games/live/__init__.py": "",
            "games/live/a.py": "from games.live import b",
            "games/live/b.py": "import games",
        },
    ],
)
def test_imports_without_a_cycle_pass(sources):
    assert not import_cycles(import_graph(sources))


def test_the_check_reads_the_whole_package():
    checked = {str(p.relative_to(ROOT)) for p in _modules("games")}
    assert {
        "games/live/service.py",
        "games/live/consumers.py",
        "games/engine/round.py",
        "games/engine/__init__.py",
    } <= checked


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("games/live/service.py", "import bots"),
        ("games/live/service.py", "from bots.registry import get_bot"),
        ("games/records.py", "def f():\n    from bots import remote\n    return remote"),
        ("games/engine/round.py", "from django.conf import settings"),
        ("games/engine/round.py", "from ..models import Game"),
        ("games/engine/__init__.py", "from ..models import Game"),
        ("games/engine/round.py", "import channels.layers"),
        ("games/management/commands/x.py", "import bots.runner"),
        ("games/live/service.py", "from tournaments import service"),
        ("bots/runner.py", "import tournaments.models"),
        ("tournaments/pairing.py", "from django.db import models"),
        ("games/live/events.py", "from jassweb.layers import RETRY_MAX_S"),
        ("games/templatetags/cards.py", "def f():\n    import jassweb.csp"),
        ("games/live/service.py", "from games.pages import stats"),
        ("games/records/store.py", "def f():\n    from games.pages.replay import replay_data"),
        ("games/summaries/rows.py", "from games.pages.stats import Filters"),
    ],
)
def test_a_wrong_import_is_found(path, source):
    assert violations(source, path)


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("games/live/service.py", "from games.catalogue import SeatKind\nimport django"),
        ("games/engine/round.py", "from .cards import CARD_CODES\nfrom games.engine.rules import legal_mask"),
        ("bots/runner.py", "from games.live import service"),
        ("games/hslu.py", "import botsomething"),
        ("tournaments/service.py", "from games.live import service\nfrom bots import registry"),
        ("jassweb/layers.py", "from games.live.events import REDIS_DOWN"),
        ("games/pages/stats.py", "from games.summaries.rows import type_label"),
        ("games/live/service.py", "from games.summaries import rows"),
    ],
)
def test_a_right_import_passes(path, source):
    assert not violations(source, path)


# What a Django process imports to serve pages, websockets and the service, in a fresh interpreter.
_SERVE = """
import json, sys
import jassweb.asgi
from games import catalogue, records
from games.live import service, snapshot
from games.pages import stats, views
from games.summaries import rows
print(json.dumps({
    "numba": sorted(m for m in sys.modules if m == "numba" or m.startswith("numba.")),
    "bot_modules": sorted(m for m in sys.modules if m in ("bots.mcts", "bots.rollout", "bots.inference")),
    "bots": [b["name"] for b in catalogue.bot_choices()],
    "label": snapshot.bot_label("mcts-strong"),
}))
"""


def test_serving_pages_loads_no_bot_kernels():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "jassweb.settings"}
    done = subprocess.run(
        [sys.executable, "-c", _SERVE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert loaded["numba"] == []
    assert loaded["bot_modules"] == []
    # The bots app registered its bots when Django started: the pages know them without their code.
    assert loaded["bots"] == ["random", "rules", "mcts-fast", "mcts-strong", "solver"]
    assert loaded["label"] == "MCTS (strong) bot"
