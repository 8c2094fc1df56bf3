"""A table's name: what the floor, the screens and the replayer's headings call a table
("Main event table 3", "Feature table"), given when it is created and kept on its
TableCreated event. A table created before names existed, or without one, has none.

A name is shown in pages, headings and exported files beside numbers and players' names,
so it is kept to what reads as a name: letters and digits of any script, spaces inside,
and the punctuation a room writes on a table card; no control or formatting character
(which could reorder a heading), no leading or trailing space, at most 60 characters.
"""
from __future__ import annotations

from domain.rules.violations import Violation

MAX_LENGTH = 60
PUNCTUATION = " '’.,#&()/+:-"
"""Besides letters and digits: what a table card is written with."""


def checked(name: str | None) -> str | None:
    """The name as given, or `invalid_table_name` saying what is wrong with it."""
    if name is None:
        return None
    if not isinstance(name, str) or not name:
        raise Violation("invalid_table_name", f"a table's name is text of 1 to {MAX_LENGTH} characters, "
                        f"not {name!r}", numbers={"max_length": MAX_LENGTH})
    if len(name) > MAX_LENGTH:
        raise Violation("invalid_table_name", f"a table's name is at most {MAX_LENGTH} characters, not "
                        f"{len(name)}", numbers={"length": len(name), "max_length": MAX_LENGTH})
    if name != name.strip() or "  " in name:
        raise Violation("invalid_table_name", "a table's name neither begins nor ends with a space, nor "
                        "holds two in a row", numbers={"max_length": MAX_LENGTH})
    wrong = sorted({ch for ch in name if not (ch.isalnum() or ch in PUNCTUATION)})
    if wrong:
        shown = ", ".join(f"U+{ord(ch):04X}" for ch in wrong)
        raise Violation("invalid_table_name", f"a table's name holds letters, digits, spaces and "
                        f"{PUNCTUATION.strip()} only, not {shown}",
                        numbers={"max_length": MAX_LENGTH})
    return name


def tournament_table(tournament_name: str | None, number: int) -> str | None:
    """A tournament's table as the room calls it: "<tournament name> table 3" (the
    tournament's name cut to leave room for the number, and left out when it would not
    make a valid table name)."""
    suffix = f" table {number}"
    if not tournament_name:
        return None
    head = tournament_name[:MAX_LENGTH - len(suffix)].rstrip()
    try:
        return checked(head + suffix)
    except Violation:
        return None
