"""Proof that moving CSS rules between sheets changed nothing on screen (issue 26: a stylesheet per page).

With ``JASSWEB_CSS_BASELINE=<git ref>`` set, ``compare(page, state)`` lays the stylesheets the ref had (its
static/css/jassweb.css, and stats.css or tournaments.css where the page loads their successors) over the page,
disabled, and compares every element's computed style (and its ::before/::after) and its box under the page's
own sheets and under the ref's, in one task (tests/css_compare.js). ``tests.layout_helpers.check`` calls it at
every state of the layout walks; tests/test_browser_css_pages.py at every other page. Each comparison is also
written, as one JSON line, to the file ``JASSWEB_CSS_REPORT`` names.
"""

from __future__ import annotations

import json
import os
import subprocess
from functools import cache
from pathlib import Path

from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parent.parent
COMPARE = (Path(__file__).parent / "css_compare.js").read_text()
PREFIX = "/css-baseline/"
PROPS = [
    "display", "position", "top", "right", "bottom", "left", "float", "box-sizing",
    "width", "height", "min-width", "min-height", "max-width", "max-height",
    "margin-top", "margin-right", "margin-bottom", "margin-left",
    "padding-top", "padding-right", "padding-bottom", "padding-left",
    "border-top-width", "border-right-width", "border-bottom-width", "border-left-width",
    "border-top-style", "border-top-color", "border-left-color", "border-radius",
    "font-family", "font-size", "font-weight", "font-style", "line-height", "letter-spacing", "text-transform",
    "text-align", "white-space", "overflow-wrap", "text-overflow", "vertical-align", "text-decoration-line",
    "color", "background-color", "background-image", "opacity", "visibility", "box-shadow", "filter", "outline-style",
    "transform", "translate", "rotate", "z-index", "overflow-x", "overflow-y", "cursor", "pointer-events",
    "grid-template-columns", "grid-template-rows", "grid-template-areas", "grid-row-start", "grid-row-end",
    "grid-column-start", "grid-column-end", "place-items", "justify-self", "align-self",
    "flex-direction", "flex-wrap", "flex-grow", "flex-shrink", "flex-basis", "order",
    "justify-content", "align-items", "row-gap", "column-gap", "list-style-type", "content",
    "animation-name", "transition-property", "container-type", "hyphens", "-webkit-line-clamp",
    "--w", "--trick-w", "--card-w", "--suit-H", "--suit-D", "--suit-C", "--suit-S",
]  # fmt: skip


def baseline_ref() -> str | None:
    return os.environ.get("JASSWEB_CSS_BASELINE") or None


@cache
def baseline_sheet(ref: str, name: str) -> str:
    shown = subprocess.run(
        ["git", "show", f"{ref}:static/css/{name}"], cwd=ROOT, check=True, capture_output=True, text=True
    )
    return shown.stdout


def sheets(page: Page) -> list[str]:
    """The file names of the stylesheets ``page`` loads (hashed names unhashed), in order."""
    hrefs = page.eval_on_selector_all(
        "link[rel=stylesheet]:not([data-css-baseline])", "links => links.map((l) => l.getAttribute('href'))"
    )
    names = []
    for href in hrefs:
        name = href.rsplit("/", 1)[-1]
        parts = name.split(".")
        if len(parts) == 3 and len(parts[1]) == 12:  # name.0123456789ab.css
            name = f"{parts[0]}.{parts[2]}"
        names.append(name)
    return names


def baseline_for(names: list[str]) -> list[str]:
    """The sheets the baseline loaded for a page that loads ``names`` now."""
    old = ["jassweb.css"]
    old += [n for n in ("stats.css", "tournaments.css") if n in names]
    return old


def compare(page: Page, state: str) -> list[str]:
    """The differences of computed style between the page's sheets and the baseline's (none: [])."""
    ref = baseline_ref()
    if ref is None:
        return []
    context = page.context
    if not getattr(context, "_css_baseline_routed", False):
        context.route(
            f"**{PREFIX}*",
            lambda route: route.fulfill(
                body=baseline_sheet(ref, route.request.url.rsplit("/", 1)[-1]), content_type="text/css"
            ),
        )
        context._css_baseline_routed = True  # type: ignore[attr-defined]
    names = sheets(page)
    if not names:
        return []  # Django's own page (DEBUG's 404), none of the site's
    page.evaluate(
        """(urls) => new Promise((done) => {
            if (document.querySelector('link[data-css-baseline]')) return done();
            const first = document.querySelector('link[rel=stylesheet]');
            let waiting = urls.length;
            for (const url of urls) {
                const link = document.createElement('link');
                link.rel = 'stylesheet'; link.href = url; link.dataset.cssBaseline = '';
                link.onload = () => { link.sheet.disabled = true; if (--waiting === 0) done(); };
                first.before(link);
            }
        })""",
        [PREFIX + name for name in baseline_for(names)],
    )
    found = page.evaluate(COMPARE, {"props": PROPS})
    size = page.viewport_size or {"width": 0, "height": 0}
    where = f"{state} @ {size['width']}x{size['height']}"
    report = os.environ.get("JASSWEB_CSS_REPORT")
    if report:
        with open(report, "a") as out:
            line = {"state": where, "sheets": names, "elements": found["elements"], "differences": found["count"]}
            out.write(json.dumps(line) + "\n")
    return [f"{where}: {diff}" for diff in found["diffs"]] + (
        [f"{where}: {found['count'] - 50} more differences"] if found["count"] > 50 else []
    )
