"""Table chat in the browser: two people talk, a spectator talks apart, mute, report and the moderator, the limit.

A server of its own (its database is needed for the moderator's account): Nora and
Emil sit at a table, Vreni watches. What Nora types arrives as she typed it, markup
shown as text; Vreni's words never reach the players; Emil mutes Nora and her words
disappear for him alone; Nora reports a message of Emil's, the moderator hides it
in the admin and it disappears from every page; the chat's limit says what it is.
"""

from __future__ import annotations

import os
import subprocess
import sys

from playwright.sync_api import Page, expect

from tests.browser_helpers import PHONE, become_guest, table_seat
from tests.server_helpers import ROOT, _server_env, running_server

pytest_plugins = ["tests.browser_helpers"]

EVIL = '<img src=x onerror="window.pwned=1"> <b>bold</b> & Co'


def lines(page: Page):
    return page.locator("[data-testid=chat-log] [data-testid=chat-text]")


def say(page: Page, text: str) -> None:
    page.get_by_test_id("chat-input").fill(text)
    page.get_by_test_id("chat-send").click()


def test_people_chat_spectators_apart_mute_report_moderate_and_the_limit(open_page, tmp_path):
    env = {"JASSWEB_SQLITE_PATH": str(tmp_path / "db.sqlite3"), "JASSWEB_CHAT_GUESTS_PHRASES_ONLY": "0"}
    with running_server(env) as base:
        nora, emil, vreni = open_page(base_url=base), open_page(base_url=base, viewport=PHONE), open_page(base_url=base)
        for page, name in ((nora, "Nora"), (emil, "Emil"), (vreni, "Vreni")):
            become_guest(page, name)
        nora.get_by_test_id("create-table").get_by_label("Name").fill("Chat table")
        nora.get_by_test_id("create-table").get_by_role("button", name="Open table").click()
        nora.wait_for_url("**/tables/*/")
        table_url = nora.url
        emil.goto(table_url)
        expect(emil.get_by_test_id("table-app")).to_have_attribute("data-socket", "open")  # a click now is sent
        emil.get_by_test_id("sit-0").click()
        expect(table_seat(nora, 0)).to_contain_text("Emil")
        expect(emil.get_by_test_id("chat-title")).to_have_text("Table chat")
        vreni.goto(table_url)
        expect(vreni.get_by_test_id("chat-title")).to_have_text("Spectators' chat")

        # Two people talk: the words arrive as typed, markup as text.
        say(nora, EVIL)
        expect(lines(emil)).to_have_text([EVIL])
        assert emil.locator("[data-testid=chat-log] img, [data-testid=chat-log] b").count() == 0
        assert emil.evaluate("window.pwned") is None
        emil.get_by_test_id("chat-phrase-thanks").click()
        expect(lines(nora)).to_have_text([EVIL, "Thanks"])

        # The spectator reads the players; the players never read the spectator.
        say(vreni, "Nora, play the ace of hearts!")
        expect(lines(vreni)).to_have_text([EVIL, "Thanks", "Nora, play the ace of hearts!"])
        say(nora, "Ready?")
        expect(lines(emil)).to_have_text([EVIL, "Thanks", "Ready?"])
        expect(lines(nora)).to_have_text([EVIL, "Thanks", "Ready?"])

        # Emil mutes Nora: her words disappear for him alone.
        emil.locator("[data-testid=chat-line]").first.get_by_test_id("chat-mute").click()
        expect(lines(emil)).to_have_text(["Thanks"])
        say(nora, "Hello?")
        expect(lines(vreni)).to_contain_text(["Hello?"])
        emil.reload()
        expect(lines(emil)).to_have_text(["Thanks"])  # kept across a reload: it is stored

        # Nora reports Emil's message; the moderator sees it in the admin and hides it everywhere.
        say(emil, "you play like a Tschumpel")
        expect(lines(nora)).to_contain_text(["you play like a Tschumpel"])
        nora.locator("[data-testid=chat-line]", has_text="Tschumpel").get_by_test_id("chat-report").click()
        expect(nora.get_by_test_id("chat-note")).to_contain_text("Reported")
        subprocess.run(
            [sys.executable, "manage.py", "createsuperuser", "--noinput", "--username", "moderator",
             "--email", "mod@example.org"],
            cwd=ROOT, env={**_server_env(env), "DJANGO_SUPERUSER_PASSWORD": "a-long-passphrase-17"},
            check=True, capture_output=True,
        )  # fmt: skip
        moderator = open_page(base_url=base)
        moderator.goto("/admin/login/?next=/admin/games/chatreport/")
        moderator.get_by_label("Username").fill("moderator")
        moderator.get_by_label("Password").fill("a-long-passphrase-17")
        moderator.get_by_role("button", name="Log in").click()
        expect(moderator.locator("#result_list")).to_contain_text("you play like a Tschumpel")
        moderator.get_by_role("link", name="look and hide").click()
        expect(moderator.locator("body")).to_contain_text("Ready?")  # the message in its context
        moderator.goto("/admin/games/chatmessage/?q=Tschumpel")
        moderator.locator("#result_list input[name=_selected_action]").check()
        moderator.locator("select[name=action]").select_option("hide_messages")
        moderator.locator("button[name=index]").click()
        for page in (nora, emil, vreni):
            expect(lines(page)).not_to_contain_text(["Tschumpel"])

        # The limit answers with its message. It counts in fixed 30-s windows (10 in each), so 21 messages
        # sent within 30 s are refused at least once even when a window ends between them. Each message's
        # answer (its echo or the refusal) is awaited before the next: a new try clears the note, so a
        # refusal in the middle of a burst left nothing to see at its end when a window ended after it.
        note = vreni.get_by_test_id("chat-note")
        for number in range(21):
            text = f"message {number:02d}"
            say(vreni, text)
            expect(lines(vreni).filter(has_text=text).or_(note.filter(has_text="chat messages"))).to_be_visible()
            if note.is_visible():
                break
        expect(note).to_contain_text("chat messages")
    assert os.path.exists(tmp_path / "db.sqlite3")
