"""The server's translation catalogues (locale/<lang>/LC_MESSAGES/django.po), read without gettext tools.

``read_po`` parses the subset of the PO format that ``makemessages`` writes; ``english_patterns`` turns
the English strings that a language translates into patterns that find them, untranslated, in a page.
"""

from __future__ import annotations

import ast
import html
import re
from dataclasses import dataclass, field
from pathlib import Path

LOCALE = Path(__file__).resolve().parent.parent / "locale"
LANGUAGES = ("de", "fr", "it")
PLACEHOLDER = re.compile(r"%\(\w+\)s|\{\w+\}")
_KEYWORD = re.compile(r"(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?) (\".*\")$")


@dataclass
class Entry:
    """One message: its context, English text (and plural), translations by plural form, and flags."""

    context: str | None = None
    msgid: str = ""
    plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    line: int = 0

    @property
    def key(self) -> str:
        """The key of a compiled catalogue: ``context\\x04msgid``."""
        return self.msgid if self.context is None else f"{self.context}\x04{self.msgid}"


def po_path(language: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / "django.po"


def read_po(path: Path) -> list[Entry]:
    """The entries of a .po file, the header (msgid "") first."""
    entries: list[Entry] = []
    current: Entry | None = None
    target: tuple[str, int] = ("", 0)
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line:
            current = None
            continue
        if current is None:
            current = Entry(line=number)
            entries.append(current)
        if line.startswith("#,"):
            current.flags |= {flag.strip() for flag in line[2:].split(",")}
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            text = ast.literal_eval(line)
            kind, index = target
            if kind == "msgctxt":
                current.context = (current.context or "") + text
            elif kind == "msgid":
                current.msgid += text
            elif kind == "msgid_plural":
                current.plural = (current.plural or "") + text
            else:
                current.msgstr[index] += text
        else:
            match = _KEYWORD.match(line)
            assert match, f"{path}:{number}: not PO syntax: {line!r}"
            keyword, form, text = match.group(1), match.group(2), ast.literal_eval(match.group(3))
            if keyword == "msgctxt":
                current.context = text
            elif keyword == "msgid":
                current.msgid = text
            elif keyword == "msgid_plural":
                current.plural = text
            else:
                current.msgstr[int(form or 0)] = text
                keyword = "msgstr"
            target = (keyword, int(form or 0))
    return entries


def messages(language: str) -> list[Entry]:
    """The translated messages of a language (without the header)."""
    return [entry for entry in read_po(po_path(language)) if entry.msgid]


def _visible_text(message: str) -> str:
    """A message as a page shows it: tags removed, entities read, ``%%`` as ``%``, spaces collapsed."""
    text = html.unescape(re.sub(r"<[^>]+>", "", message)).replace("%%", "%")
    return " ".join(text.split())


def english_patterns(language: str) -> dict[str, re.Pattern[str]]:
    """English texts that ``language`` translates differently, as full-match patterns (placeholders: any text).

    Messages whose literal words are shorter than four letters ("{seat} is taken" keeps "is taken"; "to
    {target}" is left out) would match too much, so they are left out; so are messages the language keeps
    as they are (Match, Standard, Obe-Abe).
    """
    patterns: dict[str, re.Pattern[str]] = {}
    for entry in messages(language):
        for english, translated in ((entry.msgid, entry.msgstr.get(0, "")), (entry.plural, entry.msgstr.get(1, ""))):
            if english is None or _visible_text(english) == _visible_text(translated):
                continue
            shown = _visible_text(english)
            literal = PLACEHOLDER.sub("", shown)
            if sum(ch.isalpha() for ch in literal) < 4:
                continue
            parts = PLACEHOLDER.split(shown)
            patterns[shown] = re.compile(".+?".join(re.escape(part) for part in parts))
    return patterns
