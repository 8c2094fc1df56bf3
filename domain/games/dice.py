"""Dice poker, the game: commands in, events out (decide / evolve), and the stateless ruling.

Turns go round the seats in order; each player has one turn per line (15), a turn is up to
`rolls_per_turn` rolls and ends when the player writes the roll on one free line.

Dice come from the caller (the service rolls with `secrets`), never from here. To let the log
prove a roll was fixed before the player chose what to keep, rolls can be committed like a
deal: a `RollCommitted` event holds sha256("<salt>:<five drawn values>") for the next roll,
and that roll's `DiceRolled` reveals the salt and the values, which must match. Every
commitment is made before the command it serves, so neither side can steer a re-roll. The
chain starts with `StartGame(roll_commitment=...)` (or any roll's `next_commitment`); once
started every roll must reveal and commit the next one. A commitment left after the game's
last roll is void: it is never revealed.

Each roll draws five values, one per die position; a kept die ignores its drawn value (as
if every die were thrown and the kept ones held), so the commitment never depends on the keep.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import reduce
from typing import Any

from domain.games.dice_scoring import (
    DEFAULT_SETTINGS,
    DICE_PER_ROLL,
    LINES,
    POKER_SCORE,
    RULE,
    Dice,
    DiceSettings,
    LineOption,
    Scorecard,
    Totals,
    best_free_line,
    is_joker,
    legal_lines,
    line_options,
    line_score,
    parse_dice,
    poker_bonus_earned,
    scorecard_totals,
    upper_bonus_earned,
)
from domain.rules.violations import Violation
from domain.secrecy import PUBLIC

TURNS_PER_PLAYER = len(LINES)
COMMITMENT_PATTERN = re.compile(r"[0-9a-f]{64}")


def roll_commitment(drawn: Iterable[int], salt: str) -> str:
    """The hash a `RollCommitted` event carries: sha256 of "<salt>:<values>", e.g. "s3cr3t:31455"."""
    values = "".join(str(value) for value in drawn)
    return hashlib.sha256(f"{salt}:{values}".encode()).hexdigest()


# Commands ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class StartGame:
    players: tuple[str, ...]  # in seat order
    settings: DiceSettings = DEFAULT_SETTINGS
    roll_commitment: str | None = None


@dataclass(frozen=True)
class Roll:
    player: str
    dice: tuple[int, ...]  # five values drawn by the caller, one per die position
    keep: tuple[int, ...] = ()  # positions (0-4) of the dice kept from the last roll
    salt: str = ""  # reveals the pending commitment, if any
    next_commitment: str | None = None


@dataclass(frozen=True)
class Score:
    player: str
    line: str


@dataclass(frozen=True)
class TimeOut:
    """The action clock ran out. The dice stand and the best free line is written; a player
    who has not rolled yet is rolled for, with the dice (and reveal) the caller supplies."""
    player: str
    dice: tuple[int, ...] | None = None
    salt: str = ""
    next_commitment: str | None = None


Command = StartGame | Roll | Score | TimeOut


# Events ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class GameStarted:
    players: tuple[str, ...]
    settings: DiceSettings


@dataclass(frozen=True)
class RollCommitted:
    commitment: str


@dataclass(frozen=True)
class DiceRolled:
    player: str
    round: int
    roll: int  # 1 for the first roll of the turn
    kept: tuple[int, ...] = field(metadata=PUBLIC)
    drawn: tuple[int, ...] = field(metadata=PUBLIC)
    dice: tuple[int, ...] = field(metadata=PUBLIC)  # the five dice now showing
    salt: str = field(metadata=PUBLIC)


@dataclass(frozen=True)
class ClockExpired:
    player: str
    round: int


@dataclass(frozen=True)
class LineScored:
    player: str
    line: str
    score: int
    dice: tuple[int, ...] = field(metadata=PUBLIC)
    joker: bool


@dataclass(frozen=True)
class BonusAwarded:
    player: str
    bonus: str  # "poker" or "upper"
    points: int


@dataclass(frozen=True)
class TurnPassed:
    player: str  # whose turn it now is
    round: int


@dataclass(frozen=True)
class PlayerResult:
    player: str
    upper: int
    upper_bonus: int
    lower: int
    poker_bonuses: int
    grand_total: int
    place: int  # 1 + the number of players with a higher total; equal totals share a place
    result: str  # "win", "draw" (shares the top total) or "loss", for ratings


@dataclass(frozen=True)
class GameEnded:
    results: tuple[PlayerResult, ...]  # in seat order
    winners: tuple[str, ...]


Event = (GameStarted | RollCommitted | DiceRolled | ClockExpired | LineScored | BonusAwarded
              | TurnPassed | GameEnded)
EVENT_TYPES: dict[str, type] = {cls.__name__: cls for cls in (
    GameStarted, RollCommitted, DiceRolled, ClockExpired, LineScored, BonusAwarded,
    TurnPassed, GameEnded)}


# State -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DiceGameState:
    players: tuple[str, ...] = ()
    settings: DiceSettings = DEFAULT_SETTINGS
    cards: tuple[Scorecard, ...] = ()
    poker_bonus_counts: tuple[int, ...] = ()
    to_act: int = 0  # seat index
    round: int = 0  # 1..15 while the game runs
    rolls: int = 0  # rolls made in this turn
    dice: Dice | None = None  # showing in this turn; None before its first roll
    commitment: str | None = None  # pending for the next roll
    started: bool = False
    over: bool = False
    results: tuple[PlayerResult, ...] = ()

    def seat_of(self, player: str) -> int:
        return self.players.index(player)

    def totals(self, player: str) -> Totals:
        seat = self.seat_of(player)
        return scorecard_totals(self.cards[seat], self.poker_bonus_counts[seat], self.settings)


INITIAL_STATE = DiceGameState()


# decide ------------------------------------------------------------------------------------

def decide(state: DiceGameState, command: Command) -> list[Event]:
    if isinstance(command, StartGame):
        return _start(state, command)
    if not isinstance(command, (Roll, Score, TimeOut)):
        raise TypeError(f"not a dice command: {command!r}")
    if not state.started:
        raise Violation("game_not_started", "the game has not started")
    if state.over:
        raise Violation("game_over", "the game is over: every line of every card is filled", RULE)
    _check_turn(state, command.player)
    if isinstance(command, Roll):
        return _roll(state, command.player, command.keep, command.dice, command.salt,
                     command.next_commitment)
    if isinstance(command, Score):
        if state.dice is None:
            raise Violation("must_roll_first",
                            f"{command.player} has not rolled this turn: roll before scoring",
                            RULE)
        return _score(state, command.line, state.dice)
    return _time_out(state, command)


def _start(state: DiceGameState, command: StartGame) -> list[Event]:
    if state.started:
        raise Violation("game_already_started", "the game has already started")
    settings = command.settings
    settings.validate()
    players = tuple(command.players)
    if not 1 <= len(players) <= settings.max_players:
        raise Violation("invalid_players",
                        f"dice poker takes 1 to {settings.max_players} players, not {len(players)}",
                        numbers={"players": len(players), "max_players": settings.max_players})
    if len(set(players)) != len(players):
        raise Violation("invalid_players", f"a player may take one seat only: {list(players)}",
                        numbers={"players": list(players)})
    events: list[Event] = [GameStarted(players, settings)]
    if command.roll_commitment is not None:
        events.append(RollCommitted(_valid_commitment(command.roll_commitment)))
    return events


def _check_turn(state: DiceGameState, player: str) -> None:
    to_act = state.players[state.to_act]
    if player != to_act:
        raise Violation("not_your_turn", f"it is {to_act}'s turn, not {player}'s", RULE,
                        {"to_act": to_act, "player": player})


def _valid_commitment(commitment: str) -> str:
    if not isinstance(commitment, str) or not COMMITMENT_PATTERN.fullmatch(commitment):
        raise Violation("invalid_commitment",
                        "a roll commitment is a sha256 digest: 64 lowercase hex digits")
    return commitment


def _roll(state: DiceGameState, player: str, keep: tuple[int, ...], drawn_values: Iterable[int],
          salt: str, next_commitment: str | None) -> list[Event]:
    limit = state.settings.rolls_per_turn
    if state.rolls >= limit:
        raise Violation("no_rolls_left",
                        f"{player} has rolled {state.rolls} times, the most a turn allows ({limit}):"
                        " write the roll on a free line", RULE, {"rolls": state.rolls, "limit": limit})
    kept = _valid_keep(state, tuple(keep))
    drawn = parse_dice(drawn_values)
    if state.commitment is not None:
        if roll_commitment(drawn, salt) != state.commitment:
            raise Violation("roll_commitment_mismatch",
                            f"the dice {list(drawn)} with that salt do not match the commitment "
                            f"{state.commitment}", numbers={"drawn": list(drawn)})
        if next_commitment is None:
            raise Violation("roll_commitment_required",
                            "rolls are committed in this game: commit the next roll")
    showing = state.dice or drawn  # the first roll keeps nothing
    dice = tuple(showing[i] if i in kept else drawn[i] for i in range(DICE_PER_ROLL))
    events: list[Event] = [DiceRolled(player, state.round, state.rolls + 1, kept, drawn, dice, salt)]
    if next_commitment is not None:
        events.append(RollCommitted(_valid_commitment(next_commitment)))
    return events


def _valid_keep(state: DiceGameState, keep: tuple[int, ...]) -> tuple[int, ...]:
    if not keep:
        return keep
    if state.dice is None:
        raise Violation("invalid_keep", "the first roll of a turn throws all five dice: "
                        "there is nothing to keep yet", numbers={"keep": list(keep)})
    if not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < DICE_PER_ROLL
               for i in keep) or len(set(keep)) != len(keep):
        raise Violation("invalid_keep", f"keep names dice by position 0 to 4, each once, not "
                        f"{list(keep)}", numbers={"keep": list(keep)})
    if len(keep) == DICE_PER_ROLL:
        raise Violation("invalid_keep", "a re-roll throws 1 to 5 dice; to keep all five, "
                        "write the roll on a line", numbers={"keep": list(keep)})
    return tuple(sorted(keep))


def _score(state: DiceGameState, line: str, dice: Dice) -> list[Event]:
    seat = state.to_act
    player = state.players[seat]
    card = state.cards[seat]
    if line not in LINES:
        raise Violation("unknown_line", f"{line!r} is not a line of the card; lines are {list(LINES)}",
                        numbers={"line": line})
    if not card.is_free(line):
        raise Violation("line_filled", f"{player}'s {line} line already holds {card.score(line)}",
                        RULE, {"line": line, "score": card.score(line)})
    joker = is_joker(card, dice)
    allowed = legal_lines(card, dice)
    if line not in allowed:
        raise Violation("joker_line_required",
                        f"{list(dice)} is a joker (five of a kind with Poker holding 50): it must "
                        f"be written on {' or '.join(allowed)}", RULE,
                        {"dice": list(dice), "legal": list(allowed)})
    score = line_score(line, dice, joker)
    events: list[Event] = [LineScored(player, line, score, dice, joker)]
    poker_bonus = poker_bonus_earned(card, dice, state.settings)
    if poker_bonus:
        events.append(BonusAwarded(player, "poker", poker_bonus))
    upper_bonus = upper_bonus_earned(card, line, score, state.settings)
    if upper_bonus:
        events.append(BonusAwarded(player, "upper", upper_bonus))
    events.append(_after_turn(state, line, score, poker_bonus))
    return events


def _after_turn(state: DiceGameState, line: str, score: int, poker_bonus: int) -> Event:
    next_seat = (state.to_act + 1) % len(state.players)
    next_round = state.round + 1 if next_seat == 0 else state.round
    if next_round <= TURNS_PER_PLAYER:
        return TurnPassed(state.players[next_seat], next_round)
    seat = state.to_act
    cards = state.cards[:seat] + (state.cards[seat].with_score(line, score),) + state.cards[seat + 1:]
    counts = list(state.poker_bonus_counts)
    counts[seat] += 1 if poker_bonus else 0
    return game_result(state.players, cards, tuple(counts), state.settings)


def game_result(players: tuple[str, ...], cards: tuple[Scorecard, ...],
                poker_bonus_counts: tuple[int, ...], settings: DiceSettings) -> GameEnded:
    """Totals, places and win/draw/loss: the highest total wins, equal totals draw."""
    totals = [scorecard_totals(card, count, settings) for card, count in zip(cards, poker_bonus_counts)]
    grand = [t.grand_total for t in totals]
    top = max(grand)
    sharing_top = grand.count(top)
    results = []
    for player, t in zip(players, totals):
        place = 1 + sum(1 for other in grand if other > t.grand_total)
        result = "loss" if t.grand_total < top else ("draw" if sharing_top > 1 else "win")
        results.append(PlayerResult(player, t.upper, t.upper_bonus, t.lower, t.poker_bonuses,
                                    t.grand_total, place, result))
    winners = tuple(p for p, g in zip(players, grand) if g == top)
    return GameEnded(tuple(results), winners)


def _time_out(state: DiceGameState, command: TimeOut) -> list[Event]:
    events: list[Event] = [ClockExpired(command.player, state.round)]
    dice = state.dice
    if dice is None:
        if command.dice is None:
            raise Violation("dice_required", f"{command.player} had not rolled: the clock's "
                            "automatic roll needs the dice the service drew")
        roll_events = _roll(state, command.player, (), command.dice, command.salt,
                            command.next_commitment)
        events += roll_events
        rolled = roll_events[0]
        assert isinstance(rolled, DiceRolled)
        dice = rolled.dice
    line = best_free_line(state.cards[state.to_act], dice, state.settings)
    return events + _score(state, line, dice)


# evolve ------------------------------------------------------------------------------------

def evolve(state: DiceGameState, event: Event) -> DiceGameState:
    if isinstance(event, GameStarted):
        count = len(event.players)
        return DiceGameState(players=tuple(event.players), settings=event.settings,
                             cards=(Scorecard(),) * count, poker_bonus_counts=(0,) * count,
                             to_act=0, round=1, started=True)
    if isinstance(event, RollCommitted):
        return replace(state, commitment=event.commitment)
    if isinstance(event, DiceRolled):
        return replace(state, rolls=event.roll, dice=tuple(event.dice), commitment=None)
    if isinstance(event, LineScored):
        seat = state.seat_of(event.player)
        card = state.cards[seat].with_score(event.line, event.score)
        return replace(state, cards=state.cards[:seat] + (card,) + state.cards[seat + 1:])
    if isinstance(event, BonusAwarded):
        if event.bonus != "poker":
            return state  # the upper bonus follows from the card itself
        seat = state.seat_of(event.player)
        counts = list(state.poker_bonus_counts)
        counts[seat] += 1
        return replace(state, poker_bonus_counts=tuple(counts))
    if isinstance(event, TurnPassed):
        return replace(state, to_act=state.seat_of(event.player), round=event.round,
                       rolls=0, dice=None)
    if isinstance(event, GameEnded):
        return replace(state, over=True, results=tuple(event.results), rolls=0, dice=None)
    if isinstance(event, ClockExpired):
        return state  # a fact for the log; what it caused follows as its own events
    raise TypeError(f"not a dice event: {event!r}")


def replay(events: Iterable[Event], initial: DiceGameState = INITIAL_STATE) -> DiceGameState:
    return reduce(evolve, events, initial)


# POST /v1/rulings/dice ---------------------------------------------------------------------

def dice_ruling(request: Mapping[str, Any]) -> dict[str, Any]:
    """The stateless ruling of api.md: the card's totals and, given dice, every line's score,
    whether the roll may be written there (joker rule included) and the bonus it earns;
    given `rolls_taken` this turn, whether another roll is allowed (`roll`)."""
    unknown = sorted(set(request) - {"rules", "scorecard", "dice", "poker_bonus_count", "rolls_taken"})
    if unknown:
        raise Violation("validation_error", f"unknown fields {unknown}", numbers={"unknown": unknown})
    settings = DiceSettings.from_dict(_object_field(request, "rules"))
    card = Scorecard.from_mapping(_object_field(request, "scorecard"))
    count = request.get("poker_bonus_count", 0)
    if count is None:
        count = 0
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise Violation("validation_error", f"poker_bonus_count must be a whole number, not {count!r}",
                        numbers={"poker_bonus_count": count})
    if count and card.score("poker") != POKER_SCORE:
        raise Violation("invalid_scorecard", f"{count} poker bonuses need Poker to hold 50, "
                        f"not {card.score('poker')}", numbers={"poker_bonus_count": count})
    answer: dict[str, Any] = {"totals": _totals_json(scorecard_totals(card, count, settings))}
    if request.get("rolls_taken") is not None:
        answer["roll"] = another_roll_ruling(request["rolls_taken"], settings, card,
                                             request.get("dice") is not None)
    if request.get("dice") is None:
        return answer
    raw_dice = request["dice"]
    if not isinstance(raw_dice, (list, tuple)):
        raise Violation("invalid_dice", f"dice are a list of five values 1 to 6, not {raw_dice!r}")
    dice = parse_dice(raw_dice)
    if card.is_full:
        raise Violation("game_over", "the card is full: no line is left for a roll", RULE)
    options = line_options(card, dice, count, settings)
    answer.update({
        "dice": list(dice),
        "joker": is_joker(card, dice),
        "poker_bonus": poker_bonus_earned(card, dice, settings),
        "lines": {option.line: _option_json(option) for option in options},
        "legal_lines": [option.line for option in options if option.legal],
        "best_line": best_free_line(card, dice, settings),
    })
    return answer


def another_roll_ruling(rolls_taken: Any, settings: DiceSettings, card: Scorecard,
                        dice_shown: bool) -> dict[str, Any]:
    """Whether the player may roll again this turn (seed 003: all five dice, then up to two
    re-rolls of 1 to 5 of them; after the last roll the result must be written)."""
    limit = settings.rolls_per_turn
    if isinstance(rolls_taken, bool) or not isinstance(rolls_taken, int) or not 0 <= rolls_taken <= limit:
        raise Violation("validation_error", f"rolls_taken must be 0 to {limit} (the rolls a turn allows), "
                        f"not {rolls_taken!r}", numbers={"rolls_taken": rolls_taken, "rolls_per_turn": limit})
    if dice_shown and rolls_taken == 0:
        raise Violation("validation_error", "dice on the table mean at least one roll was taken: "
                        "rolls_taken must be 1 or more", numbers={"rolls_taken": 0})
    left = 0 if card.is_full else limit - rolls_taken
    if card.is_full:
        detail = "the card is full: the game is over, no roll is left"
    elif rolls_taken == 0:
        detail = f"no roll taken yet: roll all five dice (1 of {limit})"
    elif left:
        detail = (f"{rolls_taken} of {limit} rolls taken: another roll is allowed, re-rolling 1 to 5 "
                  f"dice ({left} left)")
    else:
        detail = f"{rolls_taken} of {limit} rolls taken: no roll is left; write the roll on a free line"
    return {"another_roll": left > 0, "rolls_taken": rolls_taken, "rolls_per_turn": limit,
            "rolls_left": left, "rule": RULE, "detail": detail}


def _object_field(request: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    value = request.get(name)
    if value is not None and not isinstance(value, Mapping):
        raise Violation("validation_error", f"{name} must be an object, not {value!r}")
    return value


def _totals_json(totals: Totals) -> dict[str, int]:
    return {"upper": totals.upper, "upper_bonus": totals.upper_bonus, "lower": totals.lower,
            "poker_bonuses": totals.poker_bonuses, "grand_total": totals.grand_total}


def _option_json(option: LineOption) -> dict[str, Any]:
    shown: dict[str, Any] = {"score": option.score, "legal": option.legal, "bonus": option.bonus,
                             "total_after": option.total_after}
    if option.reason:
        shown["reason"] = option.reason
    return shown
