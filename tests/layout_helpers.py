"""The layout checker (tests/layout_check.js) for browser tests: run it on a page, collect what it finds.

``check(page, state, important=..., contrast=...)`` returns the problems it found on ``page`` as lines
naming the state and the viewport; a test gathers them over a walk through a table's states and
asserts at the end that there were none, so that one run lists every problem at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from playwright.sync_api import Page, ViewportSize

from tests import css_helpers

CHECK = (Path(__file__).parent / "layout_check.js").read_text()
# Waits (a second at most) for what is still moving to come to rest: a dialog fading in, a card sliding in.
SETTLE = """() => Promise.race([
    new Promise((done) => setTimeout(done, 1000)),
    Promise.all(document.getAnimations()
        .filter((a) => a.playState === "running" && a.effect && a.effect.getTiming().iterations !== Infinity)
        .map((a) => a.finished.catch(() => null))),
])"""

LAPTOP_800: ViewportSize = {"width": 1366, "height": 800}
LAPTOP_768: ViewportSize = {"width": 1366, "height": 768}
PHONE: ViewportSize = {"width": 375, "height": 667}
SIZES: dict[str, ViewportSize] = {"laptop-800": LAPTOP_800, "laptop-768": LAPTOP_768, "phone": PHONE}

# Always on the table while a game runs: your own seat and its name, the hand.
TABLE = "[data-testid=table-app]"
FELT_AND_HAND = "[data-testid=felt], .hand-area, .scorebar"
# Your own name: checked where it is shown (a phone leaves it out while you play: the hand is yours).
MY_NAME = "?[data-testid=seat-bottom] [data-testid=seat-name]"


def check(
    page: Page,
    state: str,
    *,
    important: Sequence[str] = (),
    root: str = "main",
    contrast: str | None = FELT_AND_HAND,
) -> list[str]:
    """The layout problems of ``page`` now, each prefixed with the state and the viewport's size."""
    size = page.viewport_size or {"width": 0, "height": 0}
    # What is still moving is measured where it comes to rest.
    page.evaluate(SETTLE)
    found = page.evaluate(CHECK, {"root": root, "important": list(important), "contrast": contrast})
    # With JASSWEB_CSS_BASELINE set: the page looks as it did under that ref's stylesheets (tests/css_helpers.py).
    return [f"{state} @ {size['width']}x{size['height']}: {problem}" for problem in found] + css_helpers.compare(
        page, state
    )
