"""Blind structure: ordered periods, each a level (blinds, ante or big-blind ante, length)
or a break, and the sanity checks an organiser's structure must pass.

Levels are numbered from 1 counting levels only (breaks have no number), which is how
players and the late-registration setting ("until level 6") speak of them.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.rules.betting import chips
from domain.rules.violations import Violation


@dataclass(frozen=True)
class Period:
    """A level, or a break when `is_break`; one shape so a structure is a plain tuple.
    It lasts `minutes` and `seconds` (whole numbers: events hold no floats), so turbo
    events and tests can have levels shorter than a minute."""

    minutes: int
    small_blind: int = 0
    big_blind: int = 0
    ante: int = 0
    big_blind_ante: bool = False  # the big blind posts the whole table's ante
    is_break: bool = False
    seconds: int = 0  # added to the minutes
    colour_up: int = 0
    """A scheduled colour-up: when this period begins, chips below this denomination are
    raced off (TDA 2024 24) and it becomes the smallest chip in play; 0: none."""
    action_clock_s: int | None = None  # this level's action clock (None: the tournament's)

    @classmethod
    def level(
        cls, small_blind: int, big_blind: int, minutes: int, ante: int = 0, big_blind_ante: bool = False,
        seconds: int = 0, colour_up: int = 0,
    ) -> Period:
        return cls(minutes, small_blind, big_blind, ante, big_blind_ante, seconds=seconds, colour_up=colour_up)

    @classmethod
    def pause(cls, minutes: int, seconds: int = 0, colour_up: int = 0) -> Period:
        return cls(minutes, is_break=True, seconds=seconds, colour_up=colour_up)

    @property
    def length_s(self) -> int:
        return self.minutes * 60 + self.seconds

    def betting(self) -> dict[str, object]:
        """The level as the betting description tables take (api.md)."""
        return {
            "structure": "no-limit",
            "small_blind": self.small_blind,
            "big_blind": self.big_blind,
            "ante": self.ante,
            "big_blind_ante": self.big_blind_ante,
            "min_bet": self.big_blind,
        }


def validate_structure(periods: Sequence[Period]) -> tuple[Period, ...]:
    """The structure as a tuple, or the first broken sanity rule as a Violation."""
    if not any(not p.is_break for p in periods):
        raise Violation("invalid_structure", "a structure needs at least one level")
    if periods[0].is_break:
        raise Violation("invalid_structure", "a structure starts with a level, not a break")
    previous: Period | None = None
    for index, period in enumerate(periods):
        where = f"period {index + 1}"
        numbers = {"period": index + 1}
        if period.minutes < 0 or period.seconds < 0 or period.length_s <= 0:
            raise Violation(
                "invalid_structure",
                f"{where} lasts {period.minutes} minutes and {period.seconds} seconds: "
                "neither may be negative and together they must be more than 0",
                numbers={**numbers, "minutes": period.minutes, "seconds": period.seconds},
            )
        if period.is_break:
            continue
        if period.big_blind <= 0 or period.small_blind < 0:
            raise Violation(
                "invalid_structure",
                f"{where}: blinds {chips(period.small_blind)}/{chips(period.big_blind)} must be positive",
                numbers=numbers,
            )
        if period.small_blind > period.big_blind:
            raise Violation(
                "small_blind_above_big_blind",
                f"{where}: the small blind {chips(period.small_blind)} is above the big blind {chips(period.big_blind)}",
                numbers={**numbers, "small_blind": period.small_blind, "big_blind": period.big_blind},
            )
        if period.ante < 0 or period.ante > period.big_blind:
            raise Violation(
                "ante_above_big_blind" if period.ante > 0 else "invalid_structure",
                f"{where}: the ante {chips(period.ante)} must be between 0 and the big blind {chips(period.big_blind)}",
                numbers={**numbers, "ante": period.ante, "big_blind": period.big_blind},
            )
        if period.big_blind_ante and period.ante == 0:
            raise Violation(
                "invalid_structure", f"{where}: a big-blind ante level needs an ante amount",
                numbers=numbers,
            )
        if previous is not None and (
            period.small_blind < previous.small_blind or period.big_blind < previous.big_blind
        ):
            raise Violation(
                "blinds_decrease",
                f"{where}: blinds {chips(period.small_blind)}/{chips(period.big_blind)} are below the previous "
                f"level's {chips(previous.small_blind)}/{chips(previous.big_blind)}; blinds never decrease",
                numbers={**numbers, "big_blind": period.big_blind, "previous_big_blind": previous.big_blind},
            )
        previous = period
    return tuple(periods)


def level_number(periods: Sequence[Period], index: int) -> int | None:
    """The level number (1-based, breaks not counted) of the period at `index`; None on a break."""
    if periods[index].is_break:
        return None
    return sum(1 for p in periods[: index + 1] if not p.is_break)


def period_index_of_level(periods: Sequence[Period], number: int) -> int:
    seen = 0
    for index, period in enumerate(periods):
        if not period.is_break:
            seen += 1
            if seen == number:
                return index
    raise Violation(
        "unknown_level", f"the structure has {seen} levels, not {number}", numbers={"level": number}
    )
