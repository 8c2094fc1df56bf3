"""Every game's PHH: a record replayed, or a finished hand exported, by the module of its
variant: hold'em and Omaha by domain.history.phh, five-card draw (our extension) by
domain.history.phh_draw, the mixed games by domain.history.phh_mixed. Those build on
phh's records; this module sits above the three so that none imports another's caller.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domain.games import mixed
from domain.games.draw.events import HandStarted as DrawHandStarted
from domain.history import phh, phh_draw, phh_mixed
from domain.history.phh import HandHistory, ReplayResult

REPLAYABLE = (*phh.REPLAYABLE, *phh_mixed.VARIANTS, *phh_draw.VARIANTS)


def replay(record: HandHistory) -> ReplayResult:
    """Replay the record through our rules (domain.history.phh.replay says what it raises):
    `unsupported_variant`, naming every variant replayed, for one no module plays. A hold'em
    or Omaha record whose blinds sit where our hold'em engine cannot post them
    (phh.positional_blinds) replays as a rotation's hold'em or Omaha (phh_mixed.ROTATION_OF)."""
    if record.variant in phh_draw.VARIANTS:
        return phh_draw.replay(record)
    if record.variant in phh_mixed.VARIANTS:
        return phh_mixed.replay(record)
    if record.variant not in phh.REPLAYABLE:
        raise phh.not_replayed(record.variant, REPLAYABLE)
    if phh.positional_blinds(record):
        return phh_mixed.replay(record, phh_mixed.ROTATION_OF[record.variant])
    return phh.replay(record)


def phh_from_events(events: Iterable[Any]) -> HandHistory:
    """A finished hold'em/Omaha, five-card draw or mixed-game hand (its events) as a PHH
    record, p1 the first seat left of the button, the button last."""
    events = list(events)
    started = events[0]
    if isinstance(started, DrawHandStarted):
        return phh_draw.phh_from_events(events)
    if isinstance(started, mixed.HandStarted):
        return phh_mixed.phh_from_events(events)
    return phh.phh_from_events(events)
