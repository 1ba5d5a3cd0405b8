"""How deeply a JSON text nests, read from the text itself: before ``json.loads`` recurses into it.

``json.loads`` recurses once per level of lists and objects, so a small hostile text (a websocket
frame, an uploaded record, a bot's reply: ``"[" * 2000``) takes the parsing thread to Python's
recursion limit. Catching the ``RecursionError`` is not enough: whatever else runs at that depth (a
garbage collection and its ``gc.callbacks``, a log handler) runs out of stack too. Every reader of
untrusted JSON asks ``nested_deeper_than`` first and refuses the text without parsing it.
"""

from __future__ import annotations

import json
import re

# A JSON string (escapes included; to the text's end when it is not closed, as far as the parser would read it)
# or a bracket. Matched from left to right, each string once: linear in the text, however hostile.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


def nested_deeper_than(text: str | bytes, limit: int) -> bool:
    """True when the text's lists and objects nest more than ``limit`` levels.

    Exact for JSON. For a text that is not JSON it never says less than the parser reaches before its
    first error, so a text it passes never takes ``json.loads`` deeper than ``limit`` levels.
    """
    if isinstance(text, bytes):
        try:  # as json.loads reads bytes: UTF-8, -16 or -32
            text = text.decode(json.detect_encoding(text), "surrogatepass")
        except UnicodeDecodeError:
            return False  # json.loads refuses it before it parses anything
    if text.count("[") + text.count("{") <= limit:
        return False  # every message and reply we read, and most texts: no scan
    depth = 0
    for token in _TOKENS.findall(text):
        if token in ("[", "{"):
            depth += 1
            if depth > limit:
                return True
        elif token in ("]", "}") and depth:  # a closing bracket with none open: the parser stopped there
            depth -= 1
    return False
