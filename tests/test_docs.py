"""README and docs link only into the repository, and every link and picture leads somewhere (issues 11, 26).

A link is checked the way GitHub renders it: a file next to the document (or a folder), and an
anchor against the headings of the document it points to, this one or another. Pictures must be
image files in the repository with a text for those who cannot see them. README stays a short
front page: the two commands and a map of docs/, which names every document there.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCUMENTS = [README, *sorted((ROOT / "docs").glob("*.md"))]
README_LIMIT = 15_000  # bytes
FENCE = re.compile(r"^```.*?^```[ \t]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp"}


def prose(text: str) -> str:
    """The Markdown outside fenced code blocks (a ``# comment`` in a shell block is no heading)."""
    return FENCE.sub("", text)


def anchors(text: str) -> set[str]:
    """GitHub's anchors of a Markdown file's headings (lower case, punctuation dropped, repeats numbered)."""
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#+ (.+?)#*$", prose(text), flags=re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def problems(document: Path, root: Path = ROOT) -> list[str]:
    """Every link or picture of ``document`` that leads nowhere, or outside ``root``, in words."""
    found = []
    text = document.read_text()
    for bang, label, target in LINK.findall(INLINE_CODE.sub("", prose(text))):
        if "://" in target or target.startswith("mailto:"):
            found.append(f"links outside the repository: {target}")
            continue
        path, _, anchor = target.partition("#")
        linked = (document.parent / path).resolve() if path else document
        if not linked.is_relative_to(root):
            found.append(f"links out of the repository: {target}")
        elif not linked.exists():
            found.append(f"links to a missing file: {target}")
        elif bang:
            if linked.suffix.lower() not in IMAGE_SUFFIXES:
                found.append(f"shows a picture that is no image: {target}")
            if not label.strip():
                found.append(f"shows a picture without a text: {target}")
        elif anchor:
            if linked.suffix != ".md":
                found.append(f"links to a heading of a file that has none: {target}")
            elif anchor not in anchors(linked.read_text()):
                found.append(f"links to a missing heading: {target}")
    return found


@pytest.mark.parametrize("document", DOCUMENTS, ids=[d.name for d in DOCUMENTS])
def test_every_link_points_to_a_file_or_heading_in_the_repository(document):
    assert problems(document) == [], document.name


@pytest.mark.parametrize("document", DOCUMENTS, ids=[d.name for d in DOCUMENTS])
def test_no_document_names_files_outside_the_repository(document):
    text = document.read_text()
    assert "shared/" not in text and "seeds/" not in text, document.name


def test_the_link_check_finds_a_missing_file_heading_picture_and_a_link_out(tmp_path):
    """The checker above does fail: each kind of dead link in a document is reported."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "other.md").write_text("# Other\n\n## A heading\n\n```sh\n# not a heading\n```\n")
    (tmp_path / "docs" / "notes.txt").write_text("text\n")
    (tmp_path / "docs" / "pic.png").write_bytes(b"\x89PNG")
    document = tmp_path / "README.md"
    document.write_text(
        "[fine](docs/other.md#a-heading) ![fine](docs/pic.png) [here](#top)\n"
        "# Top\n"
        "[gone](docs/gone.md) [no such heading](docs/other.md#nowhere) [code](docs/other.md#not-a-heading)\n"
        "[here, missing](#bottom) ![](docs/pic.png) ![text](docs/notes.txt) [web](https://example.org)\n"
        "[up and out](../elsewhere.md) `[in code](docs/gone.md)`\n"
    )
    assert problems(document, root=tmp_path) == [
        "links to a missing file: docs/gone.md",
        "links to a missing heading: docs/other.md#nowhere",
        "links to a missing heading: docs/other.md#not-a-heading",
        "links to a missing heading: #bottom",
        "shows a picture without a text: docs/pic.png",
        "shows a picture that is no image: docs/notes.txt",
        "links outside the repository: https://example.org",
        "links out of the repository: ../elsewhere.md",
    ]


def test_anchors_are_githubs():
    text = (
        "# Weis & Stöck\n## The websocket protocol (`/ws/tables/<id>/`)\n"
        "## The front end's languages\n## Setup\n## Setup\n"
    )
    assert anchors(text) == {
        "weis--stöck",
        "the-websocket-protocol-wstablesid",
        "the-front-ends-languages",
        "setup",
        "setup-1",
    }


def test_readme_is_a_short_front_page_with_the_two_commands():
    text = README.read_text()
    size = len(text.encode())
    assert size <= README_LIMIT, f"README.md is {size:,} bytes: move detail into docs/ (at most {README_LIMIT:,})"
    assert "make run" in text and "make test" in text and ".ci/run" in text


def test_readme_maps_every_document_in_docs():
    text = README.read_text()
    unmapped = [d.name for d in DOCUMENTS[1:] if f"](docs/{d.name})" not in text]
    assert unmapped == [], f"README.md's map of docs/ lacks {unmapped}"
