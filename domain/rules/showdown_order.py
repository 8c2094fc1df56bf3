"""The TDA showdown at a live table (declarations.md "Showdown", TDA 2024 16-18), for any
game whose hands are compared at the end: who shows first, who may muck, who may ask to
see a hand, and what the computer does for a player who does not answer.

Seats are a game's hand seats 0..n-1 clockwise; strengths are comparable values (higher
wins) a game computes its own way, so hold'em, Omaha and the draw and stud games share it.

- TDA 2024 16: when a player is all in and every other player's betting is over, every
  hand is tabled face up at once and nobody mucks (`all_in_face_up`).
- TDA 2024 17: otherwise the last aggressor of the final betting round shows first; with no
  bet on it, the first player left of the button. The others follow clockwise, each
  showing or mucking (`order_of_show`, `next_to_show`). When every other hand is mucked
  the last live hand wins without showing (17-B, `last_live_hand`).
- TDA 2024 18: after a bet on the final round, a caller who still holds a live hand may
  ask to see the last aggressor's hand (18-B), which is then tabled; asking to see any
  other hand is at the floor's discretion (18-A), so it is refused here (`ask_to_see`).
- House decision (declarations.md is silent on timing): a player who lets the clock run
  out at the showdown, or is away, is played by the computer as the cards speak: the first
  to show shows, a later hand shows when it beats or ties every hand shown, else it is
  mucked (`computer_shows`). Auto-deal and "automatic" tables play every showdown so.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.rules.citations import cite
from domain.rules.violations import Violation

AUTOMATIC = "automatic"
"""Live showdowns played by the computer in the order of show (beaten hands mucked)."""
DECLARED = "declared"
"""Live showdowns where each player in turn shows, mucks or asks to see."""
SHOWDOWNS = (AUTOMATIC, DECLARED)


def all_in_face_up(contenders: Sequence[int], stacks: Sequence[Any]) -> bool:
    """TDA 2024 16 applies: two or more hands contest, one of them is all in, and at most
    one player has chips left to bet (or the betting of the last round is over)."""
    return len(contenders) >= 2 and any(stacks[seat] == 0 for seat in contenders)


def order_of_show(contenders: Sequence[int], seat_count: int, button: int,
                  last_aggressor: int | None) -> tuple[int, ...]:
    """Contenders in the order they show (TDA 2024 17): the last aggressor of the final
    round first, else the first left of the button; then clockwise."""
    live = set(contenders)
    if last_aggressor in live:
        first = last_aggressor
    else:
        first = next((button + step) % seat_count for step in range(1, seat_count + 1)
                     if (button + step) % seat_count in live)
    return tuple((first + step) % seat_count for step in range(seat_count)
                 if (first + step) % seat_count in live)


def next_to_show(order: Sequence[int], shown: Sequence[bool], mucked: Sequence[bool]) -> int | None:
    """The first in the order who has neither shown nor mucked; None once all have, or when
    only one live hand is left (17-B: it wins without showing)."""
    if last_live_hand(order, mucked) is not None:
        return None
    return next((seat for seat in order if not shown[seat] and not mucked[seat]), None)


def last_live_hand(order: Sequence[int], mucked: Sequence[bool]) -> int | None:
    """The one hand not mucked, when every other contender mucked (TDA 2024 17-B)."""
    live = [seat for seat in order if not mucked[seat]]
    return live[0] if len(live) == 1 else None


def check_turn_to_show(order: Sequence[int], shown: Sequence[bool], mucked: Sequence[bool],
                       seat: int, name: str) -> None:
    """Raises Violation unless `seat` is the one to show or muck now (TDA 2024 17)."""
    due = next_to_show(order, shown, mucked)
    if seat != due:
        raise Violation("not_your_turn_to_show",
                        f"{name} is not next to show: the order of show is the last aggressor of "
                        f"the final round first (else the first left of the button), then clockwise",
                        cite("not_your_turn_to_show"), {"seat": seat, "next_to_show": due})


def ask_to_see(order: Sequence[int], shown: Sequence[bool], mucked: Sequence[bool],
               seat: int, last_aggressor: int | None, name: str) -> int:
    """The seat whose hand the caller `seat` may have tabled (TDA 2024 18-B); raises
    Violation("no_right_to_see") otherwise, naming why."""
    if seat not in order or mucked[seat]:
        raise Violation("no_right_to_see", f"{name} holds no live hand: a player who mucked, or is not in "
                        "the showdown, may not ask to see a hand", cite("no_right_to_see"), {"seat": seat})
    if last_aggressor is None or last_aggressor not in order:
        raise Violation("no_right_to_see", "there was no bet on the final round: asking to see a hand is "
                        "then the floor's decision", cite("ask_to_see_discretion"), {"seat": seat})
    if seat == last_aggressor:
        raise Violation("no_right_to_see", f"{name} made the last bet: the right to see belongs to the "
                        "callers", cite("no_right_to_see"), {"seat": seat})
    if shown[last_aggressor]:
        raise Violation("no_right_to_see", "the last aggressor's hand is already face up",
                        cite("no_right_to_see"), {"seat": seat, "aggressor": last_aggressor})
    return last_aggressor


def computer_shows(strengths: dict[int, Any], order: Sequence[int], shown: Sequence[bool],
                   mucked: Sequence[bool], seat: int) -> bool:
    """Whether the computer shows `seat`'s hand (else mucks it): the first to show always
    shows; a later hand shows if it beats or ties every live hand already shown."""
    best = [strengths[s] for s in order if shown[s] and not mucked[s]]
    return not best or strengths[seat] >= max(best)
