"""Layers depend downward only: the engine knows nothing of Django, ``games`` nothing of ``bots`` or
``tournaments``, ``bots`` nothing of ``tournaments``, and tournament pairings nothing of Django.

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
    "games": ("bots", "tournaments"),
    "bots": ("tournaments",),
    "tournaments.pairing": ("django", "channels", "games", "bots", "jassweb"),
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
    relative = Path(path)
    is_package = relative.name == "__init__.py"
    parts = relative.with_suffix("").parts
    module = ".".join(parts[:-1] if is_package else parts)
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


def test_the_engine_imports_nothing_of_django_and_games_nothing_of_bots():
    wrong = []
    for path in [*_modules("games"), *_modules("bots"), *_modules("tournaments")]:
        wrong += violations(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert not wrong, "\n".join(wrong)


def test_the_check_reads_the_whole_package():
    checked = {str(p.relative_to(ROOT)) for p in _modules("games")}
    assert {"games/service.py", "games/consumers.py", "games/engine/round.py", "games/engine/__init__.py"} <= checked


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("games/service.py", "import bots"),
        ("games/service.py", "from bots.registry import get_bot"),
        ("games/records.py", "def f():\n    from bots import remote\n    return remote"),
        ("games/engine/round.py", "from django.conf import settings"),
        ("games/engine/round.py", "from ..models import Game"),
        ("games/engine/__init__.py", "from ..models import Game"),
        ("games/engine/round.py", "import channels.layers"),
        ("games/management/commands/x.py", "import bots.runner"),
        ("games/service.py", "from tournaments import service"),
        ("bots/runner.py", "import tournaments.models"),
        ("tournaments/pairing.py", "from django.db import models"),
    ],
)
def test_a_wrong_import_is_found(path, source):
    assert violations(source, path)


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("games/service.py", "from games.catalogue import SeatKind\nimport django"),
        ("games/engine/round.py", "from .cards import CARD_CODES\nfrom games.engine.rules import legal_mask"),
        ("bots/runner.py", "from games import service"),
        ("games/hslu.py", "import botsomething"),
        ("tournaments/service.py", "from games import service\nfrom bots import registry"),
    ],
)
def test_a_right_import_passes(path, source):
    assert not violations(source, path)


# What a Django process imports to serve pages, websockets and the service, in a fresh interpreter.
_SERVE = """
import json, sys
import jassweb.asgi
from games import catalogue, records, service, snapshot, stats, views
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
