"""A .phhs file (the PHH standard's collection of hands) cut into its hands, each read on
its own.

A .phhs file is one TOML document whose hands are tables of their own (`[1]`, `[2]` ...).
Read as one document, a single typo anywhere (an unclosed quote, a table declared twice)
makes the whole file unreadable; cut at the table headers first, one broken hand spoils
only itself. So the file is cut by its text: a header is a line that reads, alone, as a
TOML table header (`[name]`, `["a name"]`, a trailing comment), outside multi-line strings.
Each hand's text is what follows its header up to the next one, and the lines an error
names are lines of the file.

A text with fields before its first header (a .phh hand, even one carrying a table of
its own) is one hand, not a collection.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass

_TRIPLE_QUOTES = ('"""', "'''")
# tomllib's errors end with where they are: "(at line 3, column 5)" or "(at end of document)".
_WHERE = re.compile(r"\s*\(at (?:line (\d+), column \d+|end of document)\)$")


@dataclass(frozen=True)
class CollectedHand:
    """One hand of a .phhs file, its fields not yet read."""

    position: int
    """1 for the file's first hand, in file order."""
    name: str
    """As its header names it (`[63]` -> "63"; a dotted header's keys joined by dots)."""
    line: int
    """The header's line in the file, from 1."""
    text: str
    """The hand's own TOML text: the lines after its header, up to the next header."""

    def file_line(self, detail: str) -> tuple[int, str]:
        """The line of the file a reader's complaint about `text` points at (the header's
        line when it names none), and the complaint with that line in its words."""
        found = _WHERE.search(detail)
        if found is None:
            return self.line, detail
        last_line = max(1, len(self.text.rstrip().splitlines()))  # its last line that holds anything
        line_in_hand = int(found.group(1)) if found.group(1) else last_line
        line = self.line + line_in_hand
        return line, f"{detail[:found.start()]} (line {line} of the file)"


def hands_of(text: str) -> tuple[CollectedHand, ...] | None:
    """The hands of a .phhs file in file order; None when `text` is not a collection (no
    table header, or fields before the first one)."""
    lines = text.splitlines(keepends=True)
    headers = list(_headers(lines))
    if not headers or any(_is_field_line(line) for line in lines[:headers[0][0]]):
        return None
    hands = []
    for position, ((at, name), following) in enumerate(
            zip(headers, [*headers[1:], (len(lines), "")]), start=1):
        hands.append(CollectedHand(position, name, at + 1, "".join(lines[at + 1:following[0]])))
    return tuple(hands)


def _headers(lines: list[str]) -> list[tuple[int, str]]:
    """(index of the line, the table's name) of each table header outside multi-line strings."""
    found = []
    open_quote: str | None = None
    for index, line in enumerate(lines):
        if open_quote is None:
            name = _table_name(line)
            if name is not None:
                found.append((index, name))
                continue
        open_quote = _quote_after(line, open_quote)
    return found


def _table_name(line: str) -> str | None:
    """The table a line declares, if it is a header: `[name]` alone on its line. An array
    of tables (`[[x]]`) is not a hand."""
    stripped = line.strip()
    if not stripped.startswith("[") or stripped.startswith("[["):
        return None
    try:
        declared = tomllib.loads(stripped)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        return None
    keys = []
    while len(declared) == 1:
        key, declared = next(iter(declared.items()))
        keys.append(key)
        if not isinstance(declared, dict):
            return None
    return ".".join(keys) if keys and not declared else None


def _quote_after(line: str, open_quote: str | None) -> str | None:
    """The multi-line string still open at the end of `line` (None when none is): each
    triple quote of the kind open closes it, else any opens one."""
    at = 0
    while True:
        if open_quote is None:
            starts = [(line.find(q, at), q) for q in _TRIPLE_QUOTES if line.find(q, at) >= 0]
            if not starts:
                return None
            at, open_quote = min(starts)
        else:
            closing = line.find(open_quote, at)
            if closing < 0:
                return open_quote
            at, open_quote = closing, None
        at += 3


def _is_field_line(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")
