"""The front end's shape (the house style, point 14a): small modules, and the table page's state in one store.

``static/js/table.js`` was one 1,550-line module with 19 module-level mutable variables that any
function could change; it is now a store with named transitions (``static/js/table/store.js``) and
views that render from it. These tests keep it so.
"""

from __future__ import annotations

import re

from tests.server_helpers import ROOT

JS = ROOT / "static" / "js"
MAX_LINES = 400
# Modules allowed over the limit, each with its reason.
LONGER: dict[str, str] = {}
TABLE_MODULES = [JS / "table.js", *sorted((JS / "table").glob("*.js"))]
STORE = JS / "table" / "store.js"
TOP_LEVEL_MUTABLE = re.compile(
    r"^(?:export\s+)?(?:let|var)\s+\w+|^(?:export\s+)?const\s+\w+\s*=\s*new\s+(?:Map|Set|WeakMap)\b", re.M
)


def test_no_front_end_module_is_over_400_lines():
    long = {}
    for module in sorted(JS.rglob("*.js")):
        lines = len(module.read_text(encoding="utf-8").splitlines())
        name = module.relative_to(JS).as_posix()
        if lines > MAX_LINES and name not in LONGER:
            long[name] = lines
    assert not long, f"modules over {MAX_LINES} lines (split them, or say why in LONGER): {long}"


def test_the_exceptions_are_still_long():
    """An exception that got short leaves the list, so that the list stays true."""
    for name in LONGER:
        lines = len((JS / name).read_text(encoding="utf-8").splitlines())
        assert lines > MAX_LINES, f"{name} has {lines} lines now: take it off LONGER"


def test_the_table_page_keeps_its_state_in_the_store_only():
    assert STORE.exists() and len(TABLE_MODULES) > 5, TABLE_MODULES
    found = {}
    for module in TABLE_MODULES:
        if module == STORE:
            continue
        hits = TOP_LEVEL_MUTABLE.findall(module.read_text(encoding="utf-8"))
        if hits:
            found[module.relative_to(JS).as_posix()] = hits
    assert not found, f"module-level mutable state outside static/js/table/store.js: {found}"


def test_the_store_changes_only_through_its_transitions():
    """The store's fields are private (``#name``): views read them by getters and change them by name."""
    text = STORE.read_text(encoding="utf-8")
    assert "class TableStore" in text
    for module in TABLE_MODULES:
        if module == STORE:
            continue
        assigned = re.findall(r"\bstore\.\w+\s*=[^=]", module.read_text(encoding="utf-8"))
        assert not assigned, f"{module.name} assigns to the store: {assigned}"


def test_the_check_sees_a_module_level_let():
    """The pattern finds what it is for (and not a `let` inside a function)."""
    assert TOP_LEVEL_MUTABLE.findall("let view = null;\nconst seen = new Set();\n") == [
        "let view",
        "const seen = new Set",
    ]
    assert not TOP_LEVEL_MUTABLE.findall("function f() {\n  let x = 1;\n}\nconst LIMIT = 3;\n")
