"""README and docs link only into the repository (issue 11, finding 13)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(text: str) -> set[str]:
    """GitHub's anchors of a Markdown file's headings."""
    headings = re.findall(r"^#+ (.+)$", text, flags=re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("document", DOCUMENTS, ids=[d.name for d in DOCUMENTS])
def test_every_link_points_to_a_file_or_heading_in_the_repository(document):
    text = document.read_text()
    for target in LINK.findall(text):
        assert "://" not in target, f"{document.name} links outside the repository: {target}"
        path, _, anchor = target.partition("#")
        if path:
            assert (document.parent / path).exists(), f"{document.name} links to a missing file: {target}"
        elif anchor:
            assert anchor in anchors(text), f"{document.name} links to a missing heading: {target}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=[d.name for d in DOCUMENTS])
def test_no_document_names_files_outside_the_repository(document):
    text = document.read_text()
    assert "shared/" not in text and "seeds/" not in text, document.name
