"""Error pages in the site's look and the visitor's language (404, 500), and an icon wherever a browser asks."""

from __future__ import annotations

import re

import pytest
from django.test import Client, RequestFactory
from django.urls import get_resolver
from django.utils import translation

pytestmark = pytest.mark.django_db

NOT_FOUND = {
    "en": "Page not found",
    "de": "Seite nicht gefunden",
    "fr": "Page introuvable",
    "it": "Pagina non trovata",
}
SERVER_ERROR = {
    "en": "Something went wrong",
    "de": "Etwas ist schiefgelaufen",
    "fr": "Quelque chose s'est mal passé",
    "it": "Qualcosa è andato storto",
}


@pytest.mark.parametrize("language", list(NOT_FOUND))
def test_a_missing_page_is_a_404_in_the_sites_look_and_the_visitors_language(language):
    response = Client().get("/no/such/page/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 404
    page = response.content.decode()
    assert f'<html lang="{language}"' in page
    assert 'class="site-header"' in page and "/static/css/jassweb" in page  # the site's header and styles
    assert NOT_FOUND[language] in page
    assert "Not Found" not in page or language == "en"


def test_a_private_game_is_a_404_page_too_with_nothing_of_the_game():
    response = Client().get("/games/999999/replay", HTTP_ACCEPT_LANGUAGE="de")
    assert response.status_code == 404
    page = response.content.decode()
    assert NOT_FOUND["de"] in page and "no such game" not in page


@pytest.mark.parametrize("language", list(SERVER_ERROR))
def test_a_server_error_page_is_in_the_sites_look_and_the_visitors_language(language):
    handler = get_resolver().resolve_error_handler(500)
    with translation.override(language):
        response = handler(RequestFactory().get("/"))
    assert response.status_code == 500
    page = response.content.decode()
    assert f'<html lang="{language}"' in page and 'class="site-header"' in page
    assert SERVER_ERROR[language] in page
    assert "Server Error (500)" not in page


def test_the_favicon_is_served_where_browsers_look_for_it():
    client = Client()
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    icon = client.get(response["Location"])
    assert icon.status_code == 200
    body = b"".join(icon.streaming_content) if icon.streaming else icon.content
    assert body[:4] == b"\x00\x00\x01\x00"  # an ICO file
    page = client.get("/").content.decode()
    assert re.search(r'<link rel="icon" href="/static/icons/favicon(\.\w+)?\.svg"', page), "no SVG icon linked"
