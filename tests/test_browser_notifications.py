"""Your turn, noticed: the tab's title, and a notification from the real service worker while the page is hidden.

The browser context is granted the notification permission, as a person who allowed
it would have; the page's visibility is set hidden the way a browser sets it for a tab
in the background (headless Chromium keeps every tab visible).
"""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser_helpers import DESKTOP, add_bots, become_guest, open_table, start_game, wait_for_turn

pytest_plugins = ["tests.browser_helpers"]

HIDE = """() => {
    Object.defineProperty(document, "visibilityState", { get: () => "hidden", configurable: true });
    Object.defineProperty(document, "hidden", { get: () => true, configurable: true });
    document.dispatchEvent(new Event("visibilitychange"));
}"""
SHOWN = """async () => {
    const shown = await (await navigator.serviceWorker.ready).getNotifications();
    return shown.map((n) => n.title + " | " + n.body);
}"""


def test_a_hidden_page_notifies_your_turn_through_the_service_worker_and_the_title_says_it(open_page, jass_server):
    page = open_page(viewport=DESKTOP, permissions=["notifications"])
    become_guest(page, "Vreni")
    open_table(page, "Notify table")
    add_bots(page, [0, 1, 3])
    page.get_by_test_id("notify-toggle").click()
    expect(page.get_by_test_id("notify-toggle")).to_have_attribute("aria-pressed", "true")
    page.wait_for_function("navigator.serviceWorker.controller !== null || navigator.serviceWorker.ready")
    assert page.evaluate("async () => (await navigator.serviceWorker.ready).active.scriptURL").endswith("/sw.js")
    manifest = page.request.get(f"{jass_server}/manifest.webmanifest").json()
    assert manifest["display"] == "standalone" and {i["sizes"] for i in manifest["icons"]} == {"192x192", "512x512"}

    page.evaluate(HIDE)
    expect(page).to_have_title("Notify table · Jassweb")
    start_game(page)
    _, state = wait_for_turn([page], timeout=30)
    assert state in ("trump", "card")
    expect(page).to_have_title("● Your turn · Notify table")
    # Read and checked in one step: a view that comes meanwhile replaces the notification (same tag), and a
    # read between the two finds none.
    page.wait_for_function(f"({SHOWN})().then((shown) => shown.some((n) => n.startsWith('Your turn | Notify table')))")
