"""A table's hands for the floor's pages, newest first, a page at a time: the live table
lists them, and so does the replayer's picker (`?hands_before=N` for older ones). A hand's
id names its table and number, so the list needs only how many hands were played."""
from __future__ import annotations

from typing import Any

from flask import request, url_for

from domain.live import table_state

HANDS_SHOWN = 50
"""Hands listed per page."""


def hand_links(table_id: str, newest: int, shown: int = HANDS_SHOWN) -> list[dict[str, Any]]:
    """Up to `shown` hands from number `newest` down, each with the replayer's address."""
    return [{"number": n, "id": table_state.hand_id_for(table_id, n),
             "href": url_for("pages.hand_replayer", hand_id=table_state.hand_id_for(table_id, n))}
            for n in range(newest, max(0, newest - shown), -1)]


def newest_on_page(played: int) -> int:
    """The newest hand of the page asked for (`?hands_before=N`), of `played` hands."""
    asked = request.args.get("hands_before", "")
    before = int(asked) if asked.isdigit() and 1 <= int(asked) <= played + 1 else played + 1
    return min(played, before - 1)


def older_hands(played: int) -> int | None:
    """The `hands_before` of the page of hands older than the one asked for, if any."""
    oldest_shown = newest_on_page(played) - HANDS_SHOWN + 1
    return oldest_shown if oldest_shown > 1 else None
