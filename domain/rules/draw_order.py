"""The order of a draw, in five-card draw (domain.games.draw) and the mixed games' draw
family (domain.games.mixed: 2-7, badugi) alike: every hand still in draws once a draw, in
turn from the dealer's left (Robert's Rules of Poker, draw poker).
"""
from __future__ import annotations

from collections.abc import Collection


def next_to_draw(waiting: Collection[int], button: int, seat_count: int) -> int | None:
    """The first from the dealer's left of `waiting` (the hands still in that have not
    drawn yet); None once every hand has drawn."""
    for step in range(1, seat_count + 1):
        seat = (button + step) % seat_count
        if seat in waiting:
            return seat
    return None
