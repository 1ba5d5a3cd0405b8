"""The project serves pages: through Django's test client and through the real daphne server."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.server_helpers import HTTP, running_server

pytestmark = pytest.mark.services


@pytest.mark.django_db
def test_the_lobby_renders():
    response = Client().get("/")
    assert response.status_code == 200
    assert b"Jassweb" in response.content
    assert b'action="/tables/new/"' in response.content or b"/guest/" in response.content


def test_daphne_serves_the_lobby_and_static_files(tmp_path):
    with running_server({"JASSWEB_SQLITE_PATH": str(tmp_path / "db.sqlite3")}) as base:
        page = HTTP.get(base + "/")
        assert page.status_code == 200
        assert "Jassweb" in page.text
        css = HTTP.get(base + "/static/css/jassweb.css")
        assert css.status_code == 200
        assert css.headers["content-type"].startswith("text/css")
    assert (tmp_path / "db.sqlite3").stat().st_size > 0  # migrated
