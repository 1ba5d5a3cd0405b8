"""Pages travel compressed (GZip), except one holding a fixed secret (BREACH: jassweb/compression.py)."""

from __future__ import annotations

import gzip

import pytest
from django.test import Client

from games.models import Player
from tests.table_helpers import make_table

pytestmark = pytest.mark.django_db

GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}


def guest(name: str) -> tuple[Client, Player]:
    client = Client()
    assert client.post("/guest/", {"nickname": name}).status_code == 302
    return client, Player.objects.get(name=name)


def test_pages_are_sent_compressed_to_a_browser_that_accepts_it():
    plain = Client().get("/")
    squeezed = Client().get("/", **GZIP)
    assert "Content-Encoding" not in plain
    assert squeezed["Content-Encoding"] == "gzip" and "Accept-Encoding" in squeezed["Vary"]
    page = gzip.decompress(squeezed.content).decode()
    assert '<html lang="en"' in page and len(squeezed.content) < len(plain.content) / 2
    rules = Client().get("/rules/", **GZIP)
    assert rules["Content-Encoding"] == "gzip"


def test_a_private_tables_page_with_its_invitation_link_is_never_compressed():
    nora_client, nora = guest("Nora")
    private = make_table(nora, [None, None, nora, None], private=True)
    public = make_table(nora, [None, None, nora, None], name="Open")
    mine = nora_client.get(f"/tables/{private.pk}/", **GZIP)
    assert mine.status_code == 200 and private.invite_token in mine.content.decode()
    assert "Content-Encoding" not in mine
    assert nora_client.get(f"/tables/{public.pk}/", **GZIP)["Content-Encoding"] == "gzip"


def test_every_page_carries_a_csrf_token_of_its_own():
    """The other secret in pages: masked afresh for each response, so compression leaks nothing of it."""
    client = Client()
    first = gzip.decompress(client.get("/", **GZIP).content).decode()
    second = gzip.decompress(client.get("/", **GZIP).content).decode()

    def token(page: str) -> str:
        return page.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]

    assert token(first) != token(second)
