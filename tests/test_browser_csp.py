"""The Content-Security-Policy in Chromium, and invitation links that no server ever logs.

Every page is opened in Chromium under the policy the app sends (jassweb/csp.py): none may have a
script, style or socket refused (the ``open_page`` fixture fails a test on any refusal Chromium
reports, here and in every other browser test). The policy is shown to be enforced: a script
injected into a page does not run. A private table's invitation link carries its code in the
fragment: a visitor who opens it lands at the table, and the code is in no line of the server's log.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser_helpers import become_guest
from tests.hostile_helpers import production_env
from tests.server_helpers import ROOT, ServerProcess, _server_env, migrate

pytest_plugins = ["tests.browser_helpers"]
pytestmark = [pytest.mark.browser, pytest.mark.services]

ADMIN, PASSWORD = "operator", "csp-test-password-28"
SEED = f"""
import io, json, os
os.environ["DJANGO_SETTINGS_MODULE"] = "jassweb.settings"
import django
django.setup()
from django.contrib.auth.models import User
from django.core.management import call_command
User.objects.create_superuser({ADMIN!r}, password={PASSWORD!r})
games = []
for args in (["--mode", "fair", "--rounds", "2", "--seed", "4", "--weis"], ["--target", "300", "--seed", "8"]):
    out = io.StringIO()
    seats = ["--seat", "rules", "--seat", "random"] * 2
    call_command("playgame", *seats, *args, stdout=out)
    games.append(json.loads(out.getvalue())["game"])
# An imported record (the fair Weis game through its export) and a game abandoned in its second round.
from games.models import Game
from games.records import game_record, import_record
games.append(import_record(json.loads(json.dumps(game_record(Game.objects.get(pk=games[0]))))).pk)
from tests.test_analysis import abandoned_game
games.append(abandoned_game().pk)
print(json.dumps(games))
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, list[int]]]:
    # Production mode: DEBUG off, hashed static files with their import map, the site's own error pages.
    env = production_env(tmp_path_factory.mktemp("csp"), JASSWEB_BOT_DELAY_MS="50")
    migrate(env)
    seeded = subprocess.run(
        [sys.executable, "-c", SEED], cwd=ROOT, env=_server_env(env), check=True, capture_output=True, text=True
    )
    server = ServerProcess(env)
    try:
        yield server, json.loads(seeded.stdout.strip().splitlines()[-1])
    finally:
        server.stop()


@pytest.fixture(scope="module")
def jass_server(served: tuple[ServerProcess, list[int]]) -> str:
    return served[0].url


def visit(page: Page, path: str, status: int = 200) -> None:
    """Open ``path``; its policy names the nonce its import map carries; wait until its scripts ran."""
    response = page.goto(path)
    assert response is not None and response.status == status, (path, response and response.status)
    policy = response.headers.get("content-security-policy", "")
    assert "default-src 'self'" in policy and "style-src 'self'" in policy, (path, policy)
    nonce = re.search(r"'nonce-([\w-]+)'", policy)
    assert nonce, policy
    page.wait_for_load_state("load")
    carried = page.evaluate("() => document.querySelector('script[type=importmap]')?.nonce ?? null")
    assert carried in (None, nonce.group(1)), (path, carried)  # no import map where no file is hashed (DEBUG)


def test_every_page_runs_under_the_policy_with_nothing_refused(open_page, served):
    _server, (fair, standard, imported, abandoned) = served
    page = open_page()
    for path in (
        "/",
        "/games/",
        "/rules/",
        "/stats/",
        "/ratings/",
        "/tournaments/",
        "/games/import/",
        "/accounts/login/",
        "/accounts/signup/",
        f"/games/{fair}/",
        f"/games/{standard}/",
        f"/games/{fair}/replay",
        f"/games/{standard}/replay",
        f"/games/{imported}/",
        f"/games/{imported}/replay",
        f"/games/{abandoned}/",
        f"/games/{abandoned}/replay",
        "/tables/1/invite/",
    ):
        visit(page, path)
    for game in (imported, abandoned):
        # Step through a round of the imported and the abandoned game: every card drawn under the policy.
        visit(page, f"/games/{game}/replay")
        slider = page.get_by_test_id("slider")
        page.get_by_test_id("next").click()
        expect(slider).not_to_have_value("0")
        page.get_by_test_id("last").click()
        expect(page.get_by_test_id("trick-caption")).to_be_visible()
    visit(page, "/no-such-page/", 404)
    become_guest(page, "Csp")
    for path in ("/games/mine/", "/players/me/", "/settings/", "/tournaments/new/"):
        visit(page, path)
    page.goto("/")
    page.get_by_test_id("private").check()
    page.get_by_test_id("create-table").get_by_role("button", name="Open table").click()
    page.wait_for_url("**/tables/*/")
    expect(page.get_by_test_id("table-app")).to_have_attribute("data-socket", "open")  # its websocket is allowed
    expect(page.get_by_test_id("invite-link-url")).to_be_visible()

    phone = open_page(viewport={"width": 375, "height": 667})
    for path in (
        "/",
        f"/games/{fair}/replay",
        f"/games/{fair}/",
        f"/games/{imported}/replay",
        f"/games/{abandoned}/replay",
    ):
        visit(phone, path)

    admin = open_page()
    visit(admin, "/admin/login/")
    admin.get_by_label("Username").fill(ADMIN)
    admin.get_by_label("Password").fill(PASSWORD)
    admin.get_by_role("button", name="Log in").click()
    admin.wait_for_url(re.compile(r"/admin/$"))
    for path in ("/admin/", "/admin/games/game/", f"/admin/games/game/{fair}/change/", "/admin/auth/user/add/"):
        visit(admin, path)


def test_the_policy_is_enforced_an_injected_script_does_not_run(browser: Browser, jass_server: str):
    context = browser.new_context(base_url=jass_server)
    try:
        page = context.new_page()
        page.add_init_script(
            "document.addEventListener('securitypolicyviolation',"
            " (e) => (window.refused ||= []).push(e.violatedDirective))"
        )
        page.goto("/")
        page.evaluate(
            """() => {
                const script = document.createElement("script");
                script.textContent = "window.injected = true";
                document.body.append(script);
                const div = document.createElement("div");
                div.innerHTML = '<img src="data:," onerror="window.injectedHandler = true">';
                document.body.append(div);
            }"""
        )
        page.wait_for_function("() => (window.refused || []).length >= 2")  # both refused, and reported
        assert page.evaluate("window.injected === undefined && window.injectedHandler === undefined")
    finally:
        context.close()


def test_an_invitation_link_opens_the_table_and_its_code_reaches_no_log(open_page, served):
    server, _games = served
    owner = open_page()
    become_guest(owner, "Gastgeberin")
    owner.get_by_test_id("private").check()
    owner.get_by_test_id("create-table").get_by_role("button", name="Open table").click()
    owner.wait_for_url("**/tables/*/")
    table_url = owner.url
    link = owner.get_by_test_id("invite-link-url").input_value()
    code = link.split("#", 1)[1]
    assert "/invite/#" in link and len(code) >= 22

    friend = open_page()
    friend.goto(link)
    friend.wait_for_url(table_url)
    expect(friend.get_by_test_id("table-app")).to_have_attribute("data-socket", "open")

    # The owner renews the link: the old one leads to "Page not found", the new one in.
    owner.get_by_test_id("invite-link-renew").click()
    expect(owner.get_by_test_id("invite-link-url")).not_to_have_value(link)
    renewed = owner.get_by_test_id("invite-link-url").input_value()
    late = open_page()
    late.goto(link)
    expect(late.get_by_test_id("error-page")).to_be_visible()
    newcomer = open_page()
    newcomer.goto(renewed)
    newcomer.wait_for_url(table_url)
    friend.goto(table_url)  # who came in by the old link stays in
    expect(friend.get_by_test_id("table-app")).to_be_visible()

    log = server.output()
    assert "/invite/" in log  # the server logs its requests...
    for secret in (code, renewed.split("#", 1)[1]):
        assert secret not in log  # ...and never an invitation's code
