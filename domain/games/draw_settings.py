"""Five-card draw settings (five-card-draw.md "Settings and defaults", seeds 000 and 004).

`DrawSettings.from_dict` reads the table's `settings` object of api.md
(`mode, ante, starting_chips, draw_limit, opening, second_round_start, joker, hands,
turn_time_limit_s, players`, plus the betting `structure`, `raise_cap` and
`heads_up_uncapped`, which the seeds leave open, and the TDA `showdown` as at hold'em
tables: "automatic" or "declared") and answers `invalid_settings` for
anything it cannot play. The bet amounts are never set directly: the seeds fix the unit
at twice the ante, so they are derived (`betting_structure`).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from domain.rules.betting import FIXED_LIMIT, KINDS, NO_LIMIT, BettingStructure
from domain.rules.cards import JOKER, Card
from domain.rules.evaluation import JOKER_RULES
from domain.rules.showdown_order import AUTOMATIC, SHOWDOWNS
from domain.rules.violations import Violation

BETTING = "betting"
NO_BETTING = "no-betting"
MODES = (BETTING, NO_BETTING)

THREE_OR_FOUR_WITH_ACE = "3_or_4_with_ace"
DRAW_LIMITS = (THREE_OR_FOUR_WITH_ACE, 3, 5)
ACE_RANK_INDEX = 12

JACKS_OR_BETTER = "jacks_or_better"
OPENINGS = (None, JACKS_OR_BETTER)

OPENER = "opener"
LEFT_OF_DEALER = "left_of_dealer"
SECOND_ROUND_STARTS = (OPENER, LEFT_OF_DEALER)

# The settings a table's betting description may give instead (api.md "Betting description":
# `betting.structure`, as at every table); the amounts are derived from the ante.
BETTING_SETTINGS = ("structure", "raise_cap", "heads_up_uncapped")

MIN_PLAYERS = 2
MAX_PLAYERS = 6
# "a bet and four raises", the usual draw-game cap (betting-rules.md, fixed-limit).
DRAW_RAISE_CAP = 5


def _is_whole(value: Any) -> bool:
    # bool is an int subclass; JSON true/false is never an amount or a count
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class DrawSettings:
    """One table's rules. `opening` None = no requirement; `joker` None = no joker,
    "wild" (the seeds' joker) or "bug"; `players` None = any 2..6 seated players."""
    mode: str = BETTING
    ante: int = 10
    starting_chips: int = 2000
    draw_limit: str | int = THREE_OR_FOUR_WITH_ACE
    opening: str | None = None
    second_round_start: str = OPENER
    joker: str | None = None
    hands: int = 10
    turn_time_limit_s: int | None = None
    players: int | None = None
    structure: str = NO_LIMIT
    raise_cap: int | None = DRAW_RAISE_CAP
    heads_up_uncapped: bool = False
    showdown: str = AUTOMATIC

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any] | None) -> DrawSettings:
        """Parse the api.md settings object; "none" is accepted for opening and joker,
        "3"/"5" for the flat draw limits. Raises Violation("invalid_settings")."""
        values = dict(raw or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise _bad(f"unknown five-card draw setting(s) {unknown}; known: {sorted(known)}",
                       unknown=unknown)
        for name in ("opening", "joker"):
            if values.get(name) == "none":
                values[name] = None
        if values.get("draw_limit") in ("3", "5"):
            values["draw_limit"] = int(values["draw_limit"])
        settings = cls(**values)
        settings.validate()
        return settings

    def validate(self) -> None:
        _one_of("mode", self.mode, MODES)
        _one_of("structure", self.structure, KINDS)
        _one_of("showdown", self.showdown, SHOWDOWNS)
        self.hand_rules().validate()
        for name in ("ante", "starting_chips", "hands"):
            value = getattr(self, name)
            if not _is_whole(value) or value < 1:
                raise _bad(f"{name} must be a positive whole number, not {value!r}", **{name: value})
        limit = self.turn_time_limit_s
        if limit is not None and (not _is_whole(limit) or limit < 1):
            raise _bad(f"turn_time_limit_s must be a positive number of seconds or null, not {limit!r}",
                       turn_time_limit_s=limit)
        if self.players is not None and (not _is_whole(self.players)
                                         or not MIN_PLAYERS <= self.players <= MAX_PLAYERS):
            raise _bad(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, not {self.players!r}",
                       players=self.players)
        cap = self.raise_cap
        if cap is not None and (not _is_whole(cap) or cap < 1):
            raise _bad(f"raise_cap must be a whole number of at least 1 or null, not {cap!r}",
                       raise_cap=cap)
        if not isinstance(self.heads_up_uncapped, bool):
            raise _bad("heads_up_uncapped must be true or false",
                       heads_up_uncapped=self.heads_up_uncapped)

    @property
    def betting(self) -> bool:
        return self.mode == BETTING

    @property
    def unit(self) -> int:
        """The bet unit: twice the ante (both seeds), the smallest bet."""
        return 2 * self.ante

    def betting_structure(self) -> BettingStructure:
        """The betting engine's description: min bet one unit; fixed-limit one unit before
        the draw and two after. Antes are posted by the draw game itself (it antes again on
        a redeal), so the structure carries none."""
        return BettingStructure(
            kind=self.structure, min_bet=self.unit, small_bet=self.unit, big_bet=2 * self.unit,
            raise_cap=self.raise_cap if self.structure == FIXED_LIMIT else None,
            heads_up_uncapped=self.heads_up_uncapped)

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def hand_rules(self) -> DrawRules:
        """The rules of this table that a hand of the mixed games' draw family plays by."""
        return DrawRules(self.draw_limit, self.second_round_start, self.opening, self.joker, self.betting)


@dataclass(frozen=True)
class DrawRules:
    """Five-card draw's table settings as a hand of the draw family (domain.games.mixed)
    carries them: per hand, in its HandStarted, since five-card draw sets them per table
    and not per game (docs/draw-family.md). `draw_limit` as DrawSettings has it;
    `second_round_start` OPENER: the rounds after the draw are opened by the first
    round's opener (or the next seat still in with chips to its left), and a first round
    nobody opens is dealt again; `opening` JACKS_OR_BETTER: the first bet needs openers,
    and a deal where nobody holds them is dealt again; `joker` "wild" or "bug": the deck
    holds the joker, and hands rank (and open) by that rule; `betting` False: no-betting
    mode, no chips, no betting round, a point to every best hand."""
    draw_limit: str | int
    second_round_start: str
    opening: str | None = None
    joker: str | None = None
    betting: bool = True

    def validate(self) -> None:
        _one_of("second_round_start", self.second_round_start, SECOND_ROUND_STARTS)
        _one_of("opening", self.opening, OPENINGS)
        _one_of("joker", self.joker, (None, *JOKER_RULES))
        if not isinstance(self.betting, bool):
            raise _bad("betting must be true or false", betting=self.betting)
        if isinstance(self.draw_limit, bool) or self.draw_limit not in DRAW_LIMITS:
            raise _bad(f"draw_limit must be one of {list(DRAW_LIMITS)}, not {self.draw_limit!r}",
                       draw_limit=self.draw_limit)


def most_exchanged(draw_limit: str | int, kept: Iterable[Card | None]) -> int:
    """The most cards a player keeping `kept` may exchange under `draw_limit` (a kept card
    not known, None, may be the ace)."""
    if draw_limit == THREE_OR_FOUR_WITH_ACE:
        keeps_ace = any(card is None or card == JOKER or card >> 2 == ACE_RANK_INDEX for card in kept)
        return 4 if keeps_ace else 3
    return int(draw_limit)


DEFAULT_SETTINGS = DrawSettings()


def _one_of(name: str, value: Any, allowed: tuple[Any, ...]) -> None:
    if isinstance(value, bool) or value not in allowed:
        shown = ["none" if option is None else option for option in allowed]
        raise _bad(f"{name} must be one of {shown}, not {value!r}", **{name: value})


def _bad(detail: str, **numbers: Any) -> Violation:
    return Violation("invalid_settings", detail, numbers=numbers)
