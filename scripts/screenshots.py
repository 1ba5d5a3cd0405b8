"""Regenerate the screenshots in docs/screenshots/ from a live server, in a real Chromium.

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots] [--url http://127.0.0.1:8000] [--deck swiss]

Without ``--url`` it serves the project itself (daphne over a fresh SQLite database). For a
laptop (1366x800) and a phone (375x667) it takes: the lobby, the table while you play, the
summary at the end of a round of a Fair game, and the replay of that game after ten steps.
``--deck swiss`` takes them with the Swiss-German cards, named ``table-phone-swiss.png`` and so on.
Needs the dev requirements (Playwright) and Debian's Chromium at /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from contextlib import nullcontext
from pathlib import Path

from playwright.sync_api import Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

VIEWPORTS = {
    "laptop": {"viewport": {"width": 1366, "height": 800}},
    "phone": {
        "viewport": {"width": 375, "height": 667},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 1,
    },
}


def my_turn(page: Page) -> str | None:
    return page.evaluate(
        """() => {
            if (!document.querySelector('[data-testid=result]').hidden) return "over";
            if (!document.querySelector('[data-testid=round-summary]').hidden) return "summary";
            if (document.querySelector('[data-testid=trump-chooser]')) return "trump";
            if (document.querySelector('[data-testid=hand] [data-legal=true]')) return "card";
            return null;
        }"""
    )


SUFFIX = ""  # "-swiss" with --deck swiss


def shoot(page: Page, out: Path, name: str) -> None:
    name += SUFFIX
    page.screenshot(path=str(out / f"{name}.png"))
    print(f"  {out / name}.png")


def tour(page: Page, out: Path, kind: str, deck: str) -> None:
    page.goto("/")
    page.get_by_label("Nickname").first.fill("Vreni")
    page.get_by_role("button", name="Play as guest").click()
    if deck != "french":
        page.locator(f"[data-deck-option={deck}]").click()
        expect(page.locator("html")).to_have_attribute("data-deck", deck)
    form = page.get_by_test_id("create-table")
    form.get_by_label("Name").fill(f"Jass on the {kind}")
    form.get_by_label("Fair", exact=True).check()
    form.get_by_label("Rounds (even)").fill("2")
    form.get_by_label("Your seat").select_option("2")
    form.get_by_text("Advanced").click()
    form.get_by_label("Round summary").select_option("10")
    form.get_by_role("button", name="Open table").click()
    page.wait_for_url("**/tables/*/")
    expect(page.get_by_test_id("table-app")).to_have_attribute("data-socket", "open")
    for seat, bot in ((0, "rules"), (1, "mcts-fast"), (3, "rules")):
        page.get_by_test_id(f"bot-select-{seat}").select_option(bot)
        page.get_by_test_id(f"add-bot-{seat}").click()
        expect(page.get_by_test_id(f"remove-bot-{seat}")).to_be_visible()
    table_url = page.url
    page.goto("/")
    page.wait_for_timeout(500)
    shoot(page, out, f"lobby-{kind}")
    page.goto(table_url)
    expect(page.get_by_test_id("table-app")).to_have_attribute("data-socket", "open")
    page.get_by_test_id("start").click()

    shot_table = shot_summary = False
    for _ in range(3000):
        state = my_turn(page)
        if state == "over":
            break
        if state == "summary":
            if not shot_summary:
                page.wait_for_timeout(400)
                shoot(page, out, f"round-summary-{kind}")
                shot_summary = True
            page.get_by_test_id("summary-continue").click()
        elif state == "trump":
            page.locator("[data-testid=trump-chooser] button[data-trump]:not([data-trump='10'])").first.click()
        elif state == "card":
            if not shot_table and page.locator("[data-testid=trick] .card").count() >= 2:
                page.evaluate("() => window.scrollTo(0, 0)")  # the table as it opens: the page top
                shoot(page, out, f"table-{kind}")
                shot_table = True
            seq = int(page.get_by_test_id("table-app").get_attribute("data-seq"))
            page.locator("[data-testid=hand] [data-legal=true]").first.click()
            page.wait_for_function(
                "seq => Number(document.querySelector('[data-testid=table-app]').dataset.seq) > seq", arg=seq
            )
        page.wait_for_timeout(60)
    else:
        raise SystemExit("the game did not end")

    page.get_by_test_id("replay-link").click()
    page.wait_for_url("**/replay")
    for _ in range(10):
        page.get_by_test_id("next").click()
        page.wait_for_timeout(80)
    shoot(page, out, f"replay-{kind}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    parser.add_argument("--url", help="a running server (default: serve one over a fresh database)")
    parser.add_argument("--deck", choices=("french", "swiss"), default="french", help="the cards to show")
    args = parser.parse_args()
    global SUFFIX
    SUFFIX = "" if args.deck == "french" else f"-{args.deck}"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.url:
        serving = nullcontext(args.url)
    else:
        from tests.server_helpers import running_server

        folder = tempfile.mkdtemp(prefix="jassweb-shots-")
        serving = running_server({"JASSWEB_SQLITE_PATH": f"{folder}/db.sqlite3", "JASSWEB_BOT_DELAY_MS": "250"})
    with serving as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-background-networking"]
        )
        for kind, options in VIEWPORTS.items():
            print(kind)
            context = browser.new_context(base_url=base, **options)
            context.set_default_timeout(30_000)
            tour(context.new_page(), out, kind, args.deck)
            context.close()
        browser.close()


if __name__ == "__main__":
    main()
