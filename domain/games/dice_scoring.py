"""Dice poker scoring: settings, the 15-line score card, bonuses and the joker rule.

Source: docs spec dice-poker.md and its Bengali original (seed 003). Readings decided here:
- "Pair", "three of a kind" and "four of a kind" need *at least* that many dice of one value
  and score the sum of all five dice, so five of a kind meets all three.
- "Two pair" needs two pairs of *different* values and "full house" three of one value and
  two of *another* (the seed: "2 dice of the same value + 2 others", "3 of the same value +
  2 others"). Five of a kind therefore meets neither, except as a joker; four of a kind is
  not two pair; a full house is also two pair (it holds a pair of each of two values).
- The upper bonus is paid when the upper total is *more than* 63 (the seed's words), or at
  63 or more under the "63_or_more" setting (classic Yahtzee/Yatzy).
- The Poker line only ever holds 50 or 0; a joker (five of a kind again while Poker holds
  50) earns the poker bonus and must be placed by the joker rule. Poker at 0: neither.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from domain.rules.citations import cite
from domain.rules.violations import Violation

RULE = cite("dice_poker")

UPPER_LINES: tuple[str, ...] = ("aces", "twos", "threes", "fours", "fives", "sixes")
LOWER_LINES: tuple[str, ...] = (
    "pair", "two_pair", "three_of_a_kind", "four_of_a_kind", "full_house",
    "small_straight", "large_straight", "poker", "chance",
)
LINES: tuple[str, ...] = UPPER_LINES + LOWER_LINES
FACE_OF_LINE: dict[str, int] = {line: face for face, line in enumerate(UPPER_LINES, start=1)}
LINE_OF_FACE: dict[int, str] = {face: line for line, face in FACE_OF_LINE.items()}

DICE_PER_ROLL = 5
FACES = range(1, 7)
FIXED_SCORES: dict[str, int] = {
    "full_house": 25, "small_straight": 30, "large_straight": 40, "poker": 50,
}
POKER_SCORE = FIXED_SCORES["poker"]
UPPER_BONUS_TARGET = 63
UPPER_BONUS_RULES = ("more_than_63", "63_or_more")
SMALL_STRAIGHTS = ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6})
LARGE_STRAIGHTS = ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6})
MAX_PLAYERS = 6

Dice = tuple[int, ...]


def _is_int(value: Any) -> bool:
    # bool is an int subclass; true/false in JSON are never a count or a score
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class DiceSettings:
    max_players: int = MAX_PLAYERS
    rolls_per_turn: int = 3
    upper_bonus: int = 35
    upper_bonus_rule: str = "more_than_63"
    poker_bonus: int = 100
    turn_time_limit_s: int | None = None

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any] | None) -> DiceSettings:
        raw = dict(raw or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(raw) - known)
        if unknown:
            raise _bad_setting(f"unknown dice settings {unknown}; known: {sorted(known)}",
                               unknown=unknown)
        settings = cls(**raw)
        settings.validate()
        return settings

    def validate(self) -> None:
        if not _is_int(self.max_players) or not 1 <= self.max_players <= MAX_PLAYERS:
            raise _bad_setting(f"max_players must be 1 to {MAX_PLAYERS}, not {self.max_players!r}",
                               max_players=self.max_players)
        if not _is_int(self.rolls_per_turn) or self.rolls_per_turn < 1:
            raise _bad_setting(f"rolls_per_turn must be at least 1, not {self.rolls_per_turn!r}",
                               rolls_per_turn=self.rolls_per_turn)
        for name in ("upper_bonus", "poker_bonus"):
            value = getattr(self, name)
            if not _is_int(value) or value < 0:
                raise _bad_setting(f"{name} must be a whole number of points, not {value!r}",
                                   **{name: value})
        if self.upper_bonus_rule not in UPPER_BONUS_RULES:
            raise _bad_setting(f"upper_bonus_rule must be one of {list(UPPER_BONUS_RULES)}, "
                               f"not {self.upper_bonus_rule!r}",
                               upper_bonus_rule=self.upper_bonus_rule)
        limit = self.turn_time_limit_s
        if limit is not None and (not _is_int(limit) or limit < 1):
            raise _bad_setting(f"turn_time_limit_s must be a positive number of seconds or "
                               f"null, not {limit!r}", turn_time_limit_s=limit)

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def upper_bonus_reached(self, upper_total: int) -> bool:
        if self.upper_bonus_rule == "63_or_more":
            return upper_total >= UPPER_BONUS_TARGET
        return upper_total > UPPER_BONUS_TARGET


DEFAULT_SETTINGS = DiceSettings()


def _bad_setting(detail: str, **numbers: Any) -> Violation:
    return Violation("invalid_settings", detail, numbers=numbers)


def parse_dice(values: Iterable[Any]) -> Dice:
    """Five dice, each 1 to 6, or an `invalid_dice` violation."""
    dice = tuple(values)
    if len(dice) != DICE_PER_ROLL or not all(_is_int(d) and d in FACES for d in dice):
        raise Violation("invalid_dice",
                        f"a roll is five dice showing 1 to 6, not {list(dice)!r}",
                        numbers={"dice": list(dice)})
    return dice


def possible_scores(line: str) -> frozenset[int]:
    """Every score a game can leave on a line: used to refuse impossible score cards."""
    if line in FACE_OF_LINE:
        face = FACE_OF_LINE[line]
        return frozenset(face * count for count in range(DICE_PER_ROLL + 1))
    if line in FIXED_SCORES:
        return frozenset({0, FIXED_SCORES[line]})
    sums = range(DICE_PER_ROLL * 1, DICE_PER_ROLL * 6 + 1)
    # chance fits every roll, so it is never 0
    return frozenset(sums) if line == "chance" else frozenset({0, *sums})


@dataclass(frozen=True)
class Scorecard:
    """One player's card: a score per line in LINES order, None while the line is free."""
    scores: tuple[int | None, ...] = (None,) * len(LINES)

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any] | None) -> Scorecard:
        """A card from {"aces": 3, "pair": None, ...}; a missing line is free."""
        mapping = dict(mapping or {})
        unknown = sorted(set(mapping) - set(LINES))
        if unknown:
            raise Violation("invalid_scorecard", f"unknown lines {unknown}; lines are {list(LINES)}",
                            numbers={"unknown": unknown})
        for line, score in mapping.items():
            if score is not None and (not _is_int(score) or score not in possible_scores(line)):
                raise Violation("invalid_scorecard",
                                f"{line} cannot hold {score!r}: no roll scores that there",
                                numbers={"line": line, "score": score})
        return cls(tuple(mapping.get(line) for line in LINES))

    def score(self, line: str) -> int | None:
        return self.scores[LINES.index(line)]

    def is_free(self, line: str) -> bool:
        return self.score(line) is None

    def free_lines(self) -> tuple[str, ...]:
        return tuple(line for line, score in zip(LINES, self.scores) if score is None)

    @property
    def is_full(self) -> bool:
        return None not in self.scores

    def with_score(self, line: str, score: int) -> Scorecard:
        index = LINES.index(line)
        return Scorecard(self.scores[:index] + (score,) + self.scores[index + 1:])

    def as_dict(self) -> dict[str, int | None]:
        return dict(zip(LINES, self.scores))

    def upper_total(self) -> int:
        return sum(self.score(line) or 0 for line in UPPER_LINES)

    def lower_total(self) -> int:
        return sum(self.score(line) or 0 for line in LOWER_LINES)


@dataclass(frozen=True)
class Totals:
    upper: int
    upper_bonus: int
    lower: int
    poker_bonuses: int
    grand_total: int


def scorecard_totals(card: Scorecard, poker_bonus_count: int,
                     settings: DiceSettings = DEFAULT_SETTINGS) -> Totals:
    upper = card.upper_total()
    upper_bonus = settings.upper_bonus if settings.upper_bonus_reached(upper) else 0
    lower = card.lower_total()
    poker_bonuses = poker_bonus_count * settings.poker_bonus
    return Totals(upper, upper_bonus, lower, poker_bonuses,
                  upper + upper_bonus + lower + poker_bonuses)


def meets_need(line: str, dice: Dice) -> bool:
    """Whether the roll meets the line's need without help from the joker rule."""
    counts = sorted(Counter(dice).values(), reverse=True)
    values = set(dice)
    if line in FACE_OF_LINE or line == "chance":
        return True
    if line == "pair":
        return counts[0] >= 2
    if line == "two_pair":
        return sum(1 for count in counts if count >= 2) >= 2
    if line == "three_of_a_kind":
        return counts[0] >= 3
    if line == "four_of_a_kind":
        return counts[0] >= 4
    if line == "full_house":
        return counts[:2] == [3, 2]
    if line == "small_straight":
        return any(straight <= values for straight in SMALL_STRAIGHTS)
    if line == "large_straight":
        return values in LARGE_STRAIGHTS
    if line == "poker":
        return counts[0] == DICE_PER_ROLL
    raise _unknown_line(line)


def _unknown_line(line: str) -> Violation:
    return Violation("unknown_line", f"{line!r} is not a line of the card; lines are {list(LINES)}",
                     numbers={"line": line})


def line_score(line: str, dice: Dice, joker: bool = False) -> int:
    """What the roll scores on the line; a joker meets every lower line's need."""
    if line in FACE_OF_LINE:
        face = FACE_OF_LINE[line]
        return face * dice.count(face)
    if not (joker or meets_need(line, dice)):
        return 0
    return FIXED_SCORES.get(line, sum(dice))


def is_five_of_a_kind(dice: Dice) -> bool:
    return len(set(dice)) == 1


def is_joker(card: Scorecard, dice: Dice) -> bool:
    """Five of a kind again while Poker holds 50: a bonus and a forced placement."""
    return is_five_of_a_kind(dice) and card.score("poker") == POKER_SCORE


def poker_bonus_earned(card: Scorecard, dice: Dice, settings: DiceSettings = DEFAULT_SETTINGS) -> int:
    return settings.poker_bonus if is_joker(card, dice) else 0


def legal_lines(card: Scorecard, dice: Dice) -> tuple[str, ...]:
    """The free lines the roll may be written on, the joker rule's order applied."""
    free = card.free_lines()
    if not is_joker(card, dice):
        return free
    face_line = LINE_OF_FACE[dice[0]]
    if face_line in free:
        return (face_line,)
    free_lower = tuple(line for line in free if line in LOWER_LINES)
    if free_lower:
        return free_lower
    return tuple(line for line in free if line in UPPER_LINES)


def upper_bonus_earned(card: Scorecard, line: str, score: int,
                       settings: DiceSettings = DEFAULT_SETTINGS) -> int:
    """The upper bonus that writing `score` on `line` brings in (0 unless it crosses the target)."""
    if line not in FACE_OF_LINE:
        return 0
    before = card.upper_total()
    if settings.upper_bonus_reached(before) or not settings.upper_bonus_reached(before + score):
        return 0
    return settings.upper_bonus


@dataclass(frozen=True)
class LineOption:
    """One line as a place for this roll. `bonus` is what writing it here earns (the poker
    bonus plus an upper bonus it completes); `total_after` the grand total once written."""
    line: str
    score: int
    legal: bool
    bonus: int
    total_after: int | None
    reason: str | None  # why not legal: "line_filled" or "joker_line_required"


def line_options(card: Scorecard, dice: Dice, poker_bonus_count: int,
                 settings: DiceSettings = DEFAULT_SETTINGS) -> tuple[LineOption, ...]:
    joker = is_joker(card, dice)
    allowed = legal_lines(card, dice)
    poker_bonus = poker_bonus_earned(card, dice, settings)
    options = []
    for line in LINES:
        score = line_score(line, dice, joker)
        if line not in allowed:
            reason = "line_filled" if not card.is_free(line) else "joker_line_required"
            options.append(LineOption(line, score, False, 0, None, reason))
            continue
        bonus = poker_bonus + upper_bonus_earned(card, line, score, settings)
        after = scorecard_totals(card.with_score(line, score),
                                 poker_bonus_count + (1 if joker else 0), settings)
        options.append(LineOption(line, score, True, bonus, after.grand_total, None))
    return tuple(options)


def best_free_line(card: Scorecard, dice: Dice, settings: DiceSettings = DEFAULT_SETTINGS) -> str:
    """The legal free line where the roll scores most (bonuses it completes included).
    Ties go to the line first on the card, which spends Chance last among equal sums."""
    legal = [option for option in line_options(card, dice, 0, settings) if option.legal]
    if not legal:
        raise Violation("game_over", "the card is full: no free line is left", RULE)
    return max(legal, key=lambda option: (option.score + option.bonus,
                                          -LINES.index(option.line))).line
