"""The front end's translations: the JavaScript catalogue per language, and complete djangojs catalogues.

static/js/i18n.js reads the catalogue that /jsi18n/ defines; every string of static/js/*.js goes through
its gettext/ngettext/pgettext, with its translations in locale/{de,fr,it}/LC_MESSAGES/djangojs.po,
compiled to the committed .mo files (so that nothing needs gettext to run).
"""

from __future__ import annotations

import ast
import gettext
import json
import re
from pathlib import Path

import pytest
from django.test import Client

from jassweb.jsi18n import CATALOGUE_SECONDS, catalogue_version

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = ("de", "fr", "it")
JS = sorted((ROOT / "static" / "js").rglob("*.js"))
PLACEHOLDER = re.compile(r"%\((\w+)\)s")

pytestmark = pytest.mark.django_db


def read_po(path: Path) -> list[dict]:
    """The entries of a .po file: context, msgid, plural, flags and msgstr(s) (the header left out)."""
    entries: list[dict] = []
    entry: dict = {}
    field: list[str] | None = None

    def close() -> None:
        if "id" in entry:
            entries.append(
                {
                    "ctx": "".join(map(ast.literal_eval, entry["ctx"])) if "ctx" in entry else None,
                    "id": "".join(map(ast.literal_eval, entry["id"])),
                    "plural": "".join(map(ast.literal_eval, entry["plural"])) if "plural" in entry else None,
                    "strs": {k: "".join(map(ast.literal_eval, v)) for k, v in entry["strs"].items()},
                    "flags": entry.get("flags", ""),
                    "obsolete": entry.get("obsolete", False),
                }
            )

    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        if not line.strip():
            close()
            entry, field = {}, None
        elif line.startswith("#~"):
            entry["obsolete"] = True
        elif line.startswith("#,"):
            entry["flags"] = entry.get("flags", "") + line
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            assert field is not None, f"{path}: a continuation line with nothing to continue: {line!r}"
            field.append(line)
        else:
            keyword, _, value = line.partition(" ")
            if keyword == "msgctxt":
                field = entry["ctx"] = [value]
            elif keyword == "msgid":
                field = entry["id"] = [value]
            elif keyword == "msgid_plural":
                field = entry["plural"] = [value]
            else:
                match = re.fullmatch(r"msgstr(?:\[(\d)\])?", keyword)
                assert match, f"{path}: unexpected line {line!r}"
                field = entry.setdefault("strs", {})[int(match.group(1) or 0)] = [value]
    return [e for e in entries if e["id"]]


def po_path(language: str) -> Path:
    return ROOT / "locale" / language / "LC_MESSAGES" / "djangojs.po"


def js_messages() -> set[tuple[str | None, str, str | None]]:
    """Every (context, msgid, plural) that static/js/**/*.js passes to the translation functions."""
    string = r'"((?:[^"\\]|\\.)*)"'
    found: set[tuple[str | None, str, str | None]] = set()
    for path in JS:
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(rf"\bgettext\(\s*{string}\s*\)", text):
            found.add((None, m.group(1), None))
        for m in re.finditer(rf"\bpgettext\(\s*{string},\s*{string}\s*\)", text):
            found.add((m.group(1), m.group(2), None))
        for m in re.finditer(rf"\bngettext\(\s*{string},\s*{string},", text):
            found.add((None, m.group(1), m.group(2)))

    def unescape(escaped: str) -> str:
        return ast.literal_eval(f'"{escaped}"')

    return {
        (None if context is None else unescape(context), unescape(msgid), None if plural is None else unescape(plural))
        for context, msgid, plural in found
    }


def catalogue(client: Client, language: str):
    return client.get("/jsi18n/", HTTP_ACCEPT_LANGUAGE=language)


def test_the_catalogue_speaks_the_language_the_browser_asks_for():
    client = Client()
    expected = {"de": ("Trumpf", "Schieben", "Du bist am Zug"), "fr": ("Atout", "Chibrer", "À vous"),
                "it": ("Briscola", "Passare", "Tocca a te")}  # fmt: skip
    for language, words in expected.items():
        response = catalogue(client, language)
        assert response.status_code == 200
        assert response["Content-Type"].startswith("text/javascript")
        text = response.content.decode()
        for word in words:
            assert json.dumps(word) in text, (language, word)
        others = [w for other, ws in expected.items() if other != language for w in ws]
        assert not any(json.dumps(w) in text for w in others), language
    english = catalogue(client, "en").content.decode()
    assert "Trumpf" not in english and "Atout" not in english and "django.gettext" in english


def test_the_catalogue_is_cached_per_language_for_a_day():
    client = Client()
    # Asked in turn, each language keeps its own cached answer (the cache key carries the language).
    first = {language: catalogue(client, language).content for language in ("de", "fr", "de", "it", "fr")}
    for language in LANGUAGES:
        again = catalogue(client, language)
        assert again.content == first[language]
        assert f"max-age={CATALOGUE_SECONDS}" in again["Cache-Control"]
        assert "Accept-Language" in again["Vary"]
    assert len({first[language] for language in LANGUAGES}) == 3


def test_every_page_loads_the_catalogue_of_its_language_before_its_modules():
    client = Client()
    for language in (*LANGUAGES, "en"):
        page = client.get("/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
        tag = f'<script src="/jsi18n/?l={language}&amp;v={catalogue_version()}"></script>'
        assert tag in page, language
        assert page.index(tag) < page.index('<script type="module"'), language


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_djangojs_catalogue_is_complete(language):
    entries = read_po(po_path(language))
    wanted = js_messages()
    assert len(wanted) > 300  # the extraction above found the modules' strings
    have = {(e["ctx"], e["id"], e["plural"]) for e in entries if not e["obsolete"]}
    assert wanted - have == set(), f"{language}: strings of static/js missing: run manage.py makemessages -d djangojs"
    for e in entries:
        where = f"{language}: {e['ctx']!r} {e['id']!r}"
        assert not e["obsolete"], f"{where} is obsolete"
        assert "fuzzy" not in e["flags"], f"{where} is fuzzy"
        forms = [0, 1] if e["plural"] else [0]
        assert sorted(e["strs"]) == forms, where
        for k in forms:
            text = e["strs"][k]
            assert text.strip(), f"{where} is not translated"
            # Every named value the code fills in appears in the translation (the singular may say "1").
            source = e["plural"] if k == 1 else e["id"]
            assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(source)), where


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_catalogue_matches_its_source(language):
    path = po_path(language)
    with path.with_suffix(".mo").open("rb") as mo:
        compiled = gettext.GNUTranslations(mo)
    for e in read_po(path):
        if e["plural"]:
            for count, k in ((1, 0), (5, 1)):
                got = (
                    compiled.npgettext(e["ctx"], e["id"], e["plural"], count)
                    if e["ctx"]
                    else compiled.ngettext(e["id"], e["plural"], count)
                )
                assert got == e["strs"][k], (language, e["id"], count)
        else:
            got = compiled.pgettext(e["ctx"], e["id"]) if e["ctx"] else compiled.gettext(e["id"])
            assert got == e["strs"][0], (language, e["id"])
    # Nothing compiled that the source lacks (the header is one entry, a plural one per form).
    entries = read_po(path)
    assert len(compiled._catalog) == 1 + sum(2 if e["plural"] else 1 for e in entries)
