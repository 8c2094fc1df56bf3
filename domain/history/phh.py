"""PHH (poker hand history, the phh-std TOML format): parse, write, replay, export.

Conventions of the standard that matter here:
- players are listed from the first seat left of the button, the button last; `p1` is the
  first of them (index 0 here);
- heads-up, `blinds_or_straddles` and `antes` are still written small blind first, but the
  big blind is `p1` and the button `p2` posts the small blind (so both lists read reversed);
- amounts of `cbr` are bet totals for the round ("raise to"); stacks may be fractional,
  and some recorded hands split an odd chip into halves, so amounts are int or Fraction;
- `??` is an unknown card; `pN sm` without cards mucks, `pN sm -` shows unknown cards;
- `ante_trimming_status = true` trims antes to what a player can afford.

This module replays and exports hold'em and Omaha. Five-card draw (our documented
extension, variants N5CD/P5CD/F5CD) replays and exports through domain.history.phh_draw,
the mixed games (F7S, F7S/8, FR, FO/8, F2L3D, N2L1D, FB, NS) through
domain.history.phh_mixed; both build on this module's records, and
domain.history.phh_games hands each record (or hand) to the module of its variant.
"""
from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, Protocol, TypeVar

from domain.games.hand_events import ActionTaken, CardsMucked, PostAction
from domain.games.holdem import (
    HOLE_CARD_COUNT,
    CardsShown,
    Command,
    DealBoard,
    DealHole,
    Event,
    HandEnded,
    HandStarted,
    HandState,
    Muck,
    SettleShowdown,
    ShowCards,
    StartHand,
    aggressive_action,
    handle,
)
from domain.games.holdem import BoardDealt as BoardEvent
from domain.games.holdem import HoleCardsDealt as HoleEvent
from domain.rules.betting import FIXED_LIMIT, NO_LIMIT, POT_LIMIT, BettingStructure
from domain.rules.pots import LEFT_OF_BUTTON, SPLIT_EXACTLY, PotAward
from domain.rules.violations import Violation

Amount = int | Fraction

UNKNOWN_CARD = "??"


# ---------------------------------------------------------------- actions, as recorded


@dataclass(frozen=True)
class HoleCardsDealt:
    """`d dh pN cards`."""
    player: int
    cards: tuple[str, ...]
    commentary: str | None = None


@dataclass(frozen=True)
class BoardDealt:
    """`d db cards`."""
    cards: tuple[str, ...]
    commentary: str | None = None


@dataclass(frozen=True)
class Folded:
    """`pN f`."""
    player: int
    commentary: str | None = None


@dataclass(frozen=True)
class CheckedOrCalled:
    """`pN cc`."""
    player: int
    commentary: str | None = None


@dataclass(frozen=True)
class BetOrRaisedTo:
    """`pN cbr amount`: completion, bet or raise to a bet total for the round."""
    player: int
    amount: Amount
    commentary: str | None = None


@dataclass(frozen=True)
class ShownOrMucked:
    """`pN sm cards` shows, `pN sm` mucks (cards None), `pN sm -` shows unknown cards."""
    player: int
    cards: tuple[str, ...] | None
    commentary: str | None = None


@dataclass(frozen=True)
class StoodPatOrDiscarded:
    """`pN sd [cards]`: draw games; no cards means standing pat."""
    player: int
    cards: tuple[str, ...]
    commentary: str | None = None


@dataclass(frozen=True)
class BringInPosted:
    """`pN pb`: stud games."""
    player: int
    commentary: str | None = None


PhhAction = (HoleCardsDealt | BoardDealt | Folded | CheckedOrCalled | BetOrRaisedTo | ShownOrMucked
    | StoodPatOrDiscarded | BringInPosted)


# ---------------------------------------------------------------- the record


@dataclass(frozen=True)
class HandHistory:
    variant: str
    antes: tuple[Amount, ...]
    starting_stacks: tuple[Amount, ...]
    actions: tuple[PhhAction, ...]
    ante_trimming_status: bool = False
    blinds_or_straddles: tuple[Amount, ...] | None = None
    bring_in: Amount | None = None
    small_bet: Amount | None = None
    big_bet: Amount | None = None
    min_bet: Amount | None = None
    players: tuple[str, ...] | None = None
    finishing_stacks: tuple[Amount, ...] | None = None
    # Every other field (author, event, hand, seats, currency, user-defined `_x` ...) in
    # file order, so writing keeps what we do not interpret.
    metadata: tuple[tuple[str, Any], ...] = ()

    @property
    def player_count(self) -> int:
        return len(self.starting_stacks)


class PhhSyntaxError(ValueError):
    """The text is not a PHH hand we can read (bad TOML, a missing field, a bad action)."""


class UnreadableHand(PhhSyntaxError):
    """A hand of a site's hand-history file we cannot read: the line of the file and why."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line, self.reason = line, reason


# Fields with a typed slot in HandHistory, in the order the standard writes them.
_AMOUNT_LISTS = ("antes", "blinds_or_straddles", "starting_stacks", "finishing_stacks")
_AMOUNTS = ("bring_in", "small_bet", "big_bet", "min_bet")
_FIELD_ORDER = (
    "variant", "ante_trimming_status", "antes", "blinds_or_straddles", "bring_in",
    "small_bet", "big_bet", "min_bet", "starting_stacks", "actions",
)
_TRAILING_FIELDS = ("players", "finishing_stacks")


# Amounts (stacks, antes, blinds, bets) are 0 to MAX_AMOUNT with at most MAX_DECIMALS
# decimals: real records use whole chips or cents, and exact arithmetic on 1e-300 or 1e400
# only costs time (and has no exact decimal to write back).
MAX_AMOUNT = 10**12
MAX_DECIMALS = 6
# Any TOML float (metadata too) is read exactly, so its exponent is bounded first:
# Fraction("1e999999999") would build a billion-digit integer.
MAX_FLOAT_EXPONENT = 30


def _number(text: str) -> Fraction:
    """A decimal number's exact value, or PhhSyntaxError if it is none or out of range."""
    try:
        decimal = Decimal(text.replace("_", ""))
    except InvalidOperation:
        raise PhhSyntaxError(f"{text!r} is not a number") from None
    if not decimal.is_finite() or abs(decimal.adjusted()) > MAX_FLOAT_EXPONENT:
        raise PhhSyntaxError(f"{text!r} is out of range")
    return Fraction(decimal)


def _amount(value: Any) -> Amount:
    if isinstance(value, bool):
        raise PhhSyntaxError(f"{value!r} is not an amount")
    if isinstance(value, str):
        value = _number(value.replace(",", ""))
    if isinstance(value, Fraction):
        # TOML floats arrive as Fraction (parse_float); 9900.0 is the whole number 9900.
        value = int(value) if value.denominator == 1 else value
    if not isinstance(value, (int, Fraction)):
        raise PhhSyntaxError(f"{value!r} is not an amount")
    if not 0 <= value <= MAX_AMOUNT:
        magnitude = -value if value < 0 else value  # abs() of an int or a Fraction types as object
        shown = format_amount(magnitude) if magnitude < 10**18 else "given"
        raise PhhSyntaxError(f"the amount {'-' if value < 0 else ''}{shown} is outside 0 to {MAX_AMOUNT}")
    if (value * 10**MAX_DECIMALS).denominator != 1:
        raise PhhSyntaxError(f"the amount {float(value)} has more than {MAX_DECIMALS} decimals")
    return value


def _cards(text: str) -> tuple[str, ...]:
    if len(text) % 2:
        raise PhhSyntaxError(f"{text!r} is not a run of two-character cards")
    return tuple(text[i:i + 2] for i in range(0, len(text), 2))


def _player(label: str) -> int:
    if label[:1] != "p" or not label[1:].isdigit() or int(label[1:]) < 1:
        raise PhhSyntaxError(f"{label!r} is not a player label (p1, p2, ...)")
    return int(label[1:]) - 1


def parse_action(text: str) -> PhhAction:
    """One PHH action string, e.g. 'p3 cbr 225' or 'd dh p1 TcQc # comment'."""
    commentary = None
    if "#" in text:
        text, _, comment = text.partition("#")
        commentary = comment.strip()
    words = text.split()
    match words:
        case ["d", "dh", player, cards]:
            return HoleCardsDealt(_player(player), _cards(cards), commentary)
        case ["d", "db", cards]:
            return BoardDealt(_cards(cards), commentary)
        case [player, "f"]:
            return Folded(_player(player), commentary)
        case [player, "cc"]:
            return CheckedOrCalled(_player(player), commentary)
        case [player, "cbr", amount]:
            try:
                return BetOrRaisedTo(_player(player), _amount(amount), commentary)
            except ValueError as error:
                raise PhhSyntaxError(f"bad amount in {text!r}") from error
        case [player, "sm"]:
            return ShownOrMucked(_player(player), None, commentary)
        case [player, "sm", "-"]:
            return ShownOrMucked(_player(player), (), commentary)
        case [player, "sm", cards]:
            return ShownOrMucked(_player(player), _cards(cards), commentary)
        case [player, "sd"]:
            return StoodPatOrDiscarded(_player(player), (), commentary)
        case [player, "sd", cards]:
            return StoodPatOrDiscarded(_player(player), _cards(cards), commentary)
        case [player, "pb"]:
            return BringInPosted(_player(player), commentary)
    raise PhhSyntaxError(f"{text!r} is not a PHH action")


def parse(text: str) -> HandHistory:
    """Read one PHH hand (TOML text) into a HandHistory."""
    return record_from_fields(_toml(text))


def _toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text, parse_float=_number)
    except tomllib.TOMLDecodeError as error:
        raise PhhSyntaxError(f"not valid TOML: {error}") from error
    except RecursionError:
        raise PhhSyntaxError("not valid TOML: nested too deeply") from None
    except PhhSyntaxError:
        raise
    except ValueError as error:  # an integer of more than 4,300 digits
        raise PhhSyntaxError(f"not valid TOML: {error}") from None


def record_from_fields(fields: Mapping[str, Any]) -> HandHistory:
    """A HandHistory from one hand's TOML fields (amounts already exact)."""
    for required in ("variant", "antes", "starting_stacks", "actions"):
        if required not in fields:
            raise PhhSyntaxError(f"the field {required!r} is missing")
    typed: dict[str, Any] = {}
    metadata = []
    for key, value in fields.items():
        if key in _AMOUNT_LISTS:
            typed[key] = tuple(_amount(v) for v in value)
        elif key in _AMOUNTS:
            typed[key] = _amount(value)
        elif key == "actions":
            typed[key] = tuple(parse_action(a) for a in value)
        elif key == "players":
            typed[key] = tuple(str(p) for p in value)
        elif key in ("variant", "ante_trimming_status"):
            typed[key] = value
        else:
            metadata.append((key, value))
    record = HandHistory(**typed, metadata=tuple(metadata))
    _check_lengths(record)
    return record


def _check_lengths(record: HandHistory) -> None:
    count = record.player_count
    for name in ("antes", "blinds_or_straddles", "players", "finishing_stacks"):
        value = getattr(record, name)
        if value is not None and len(value) != count:
            raise PhhSyntaxError(
                f"{name} lists {len(value)} entries for {count} players"
            )
    for action in record.actions:
        player = getattr(action, "player", None)
        if player is not None and player >= count:
            raise PhhSyntaxError(f"p{player + 1} does not exist in a {count}-player hand")


# ---------------------------------------------------------------- writing


def format_amount(amount: Amount) -> str:
    """An exact decimal: 9900 -> '9900', Fraction(20325, 2) -> '10162.5'."""
    if isinstance(amount, int) or amount.denominator == 1:
        return str(int(amount))
    for digits in range(1, 40):
        scaled = amount * 10**digits
        if scaled.denominator == 1:
            text = str(abs(int(scaled))).rjust(digits + 1, "0")
            sign = "-" if scaled < 0 else ""
            return f"{sign}{text[:-digits]}.{text[-digits:]}".rstrip("0")
    raise ValueError(f"{amount} has no exact decimal form")


def format_action(action: PhhAction) -> str:
    match action:
        case HoleCardsDealt(player, cards):
            text = f"d dh p{player + 1} {''.join(cards)}"
        case BoardDealt(cards):
            text = f"d db {''.join(cards)}"
        case Folded(player):
            text = f"p{player + 1} f"
        case CheckedOrCalled(player):
            text = f"p{player + 1} cc"
        case BetOrRaisedTo(player, amount):
            text = f"p{player + 1} cbr {format_amount(amount)}"
        case ShownOrMucked(player, None):
            text = f"p{player + 1} sm"
        case ShownOrMucked(player, ()):
            text = f"p{player + 1} sm -"
        case ShownOrMucked(player, cards) if cards is not None:
            text = f"p{player + 1} sm {''.join(cards)}"
        case StoodPatOrDiscarded(player, ()):
            text = f"p{player + 1} sd"
        case StoodPatOrDiscarded(player, cards):
            text = f"p{player + 1} sd {''.join(cards)}"
        case BringInPosted(player):
            text = f"p{player + 1} pb"
        case _:
            raise TypeError(f"{action!r} is not a PHH action")
    if action.commentary:
        text += f" # {action.commentary}"
    return text


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, Fraction)):
        return format_amount(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return '"' + "".join(_toml_char(c) for c in value) + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        pairs = ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items())
        return "{" + pairs + "}"
    # Dates and times from TOML keep their TOML spelling in isoformat.
    spelled: str = value.isoformat()
    return spelled


def _toml_char(char: str) -> str:
    # TOML basic strings forbid control characters raw; escape them, and quote and backslash.
    if char in '"\\':
        return "\\" + char
    if ord(char) < 0x20 or ord(char) == 0x7F:
        return f"\\u{ord(char):04x}"
    return char


def _toml_key(key: str) -> str:
    bare = key.replace("_", "").replace("-", "").isalnum() and key.isascii()
    return key if bare else _toml_value(key)


def write_phh(record: HandHistory) -> str:
    """The PHH text of a record; parse(write_phh(r)) == r."""
    lines = []
    for name in _FIELD_ORDER:
        value = getattr(record, name)
        if value is None:
            continue
        if name == "actions":
            value = [format_action(a) for a in value]
        lines.append(f"{name} = {_toml_value(value)}")
    for key, value in record.metadata:
        lines.append(f"{_toml_key(key)} = {_toml_value(value)}")
    for name in _TRAILING_FIELDS:
        value = getattr(record, name)
        if value is not None:
            lines.append(f"{name} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


PLAYER_IDS_FIELD = "_player_ids"
"""Where an exported live hand keeps its players' ids: a user-defined field (the standard's
leading underscore), which readers of PHH ignore and an import keeps."""


FLOOR_RULINGS_FIELD = "_floor_rulings"
"""Where an exported hand keeps the floor's rulings on it (domain.rulings.on_record), each an
inline table of its step, question, decision, rule, note, cards, who ruled and when."""


def with_floor_rulings(record: HandHistory, rulings: Sequence[Mapping[str, Any]]) -> HandHistory:
    """The record with the rulings on it in FLOOR_RULINGS_FIELD (replacing any it was
    imported with), their empty fields left out: TOML has no null."""
    if not rulings:
        return record
    kept = tuple((key, value) for key, value in record.metadata if key != FLOOR_RULINGS_FIELD)
    written = [{key: value for key, value in ruling.items() if value is not None} for ruling in rulings]
    return replace(record, metadata=(*kept, (FLOOR_RULINGS_FIELD, written)))


def with_player_names(record: HandHistory, names: Mapping[str, str],
                      fields: Sequence[tuple[str, Any]] = ()) -> HandHistory:
    """A record whose `players` are ids, as people know them: `players` their names (the id
    where nobody registered one), the ids kept in PLAYER_IDS_FIELD, after the standard's
    other `fields` about the hand (its table, number, seats and time)."""
    ids = record.players or ()
    return replace(record, players=tuple(names.get(player) or player for player in ids),
                   metadata=(*record.metadata, *fields, (PLAYER_IDS_FIELD, list(ids))))


def metadata_text(record: HandHistory) -> str:
    """The record's other fields (event, author, time, city, hand ...) as TOML text: what
    an imported hand keeps so that its export writes them back unchanged."""
    return "".join(f"{_toml_key(key)} = {_toml_value(value)}\n" for key, value in record.metadata)


def with_metadata(record: HandHistory, text: str) -> HandHistory:
    """The record with the fields of `metadata_text` added (fields it already writes, such
    as our five-card draw settings, stay as they are)."""
    written = {key for key, _ in record.metadata}
    kept = tuple((key, value) for key, value in _toml(text).items() if key not in written)
    return replace(record, metadata=record.metadata + kept)


# ---------------------------------------------------------------- replay through our engine

# PHH variant -> (our game, betting structure). These and the five-card draw extension
# (domain.history.phh_draw.VARIANTS) replay; others parse only.
REPLAYABLE = {
    "NT": ("holdem", NO_LIMIT),
    "FT": ("holdem", FIXED_LIMIT),
    "PO": ("omaha", POT_LIMIT),
    # Pot-limit hold'em: not a PHH standard code (PokerStars deals it; domain.history.pokerstars).
    "PT": ("holdem", POT_LIMIT),
}
_PHH_VARIANT = {game_and_kind: variant for variant, game_and_kind in REPLAYABLE.items()}


@dataclass(frozen=True)
class ReplayResult:
    """The computed outcome, in PHH player order (p1 first)."""
    finishing_stacks: tuple[Amount, ...]
    pots: tuple[PotAward, ...]
    winners: tuple[int, ...]
    # Our events of the hand, the game's own (seat i is PHH player p(i+1)), for storing it.
    events: tuple[object, ...] = ()
    odd_chip_rule: str = "tda"


# How a replay gives an odd chip (`odd_chip_rule` of the answer): "tda" is TDA 2024 20
# (whole chips; board games: the first winner left of the button; stud: the high card by
# suit), as PokerKit does; "split_exactly" divides the pot into exact fractions, as some
# records do (the Pluribus files' halves).
ODD_CHIP_TDA = "tda"
ODD_CHIP_SPLIT_EXACTLY = "split_exactly"
POT_POLICY = {ODD_CHIP_TDA: LEFT_OF_BUTTON, ODD_CHIP_SPLIT_EXACTLY: SPLIT_EXACTLY}


def odd_chip_rule(record: HandHistory) -> str:
    """"split_exactly" only where the record itself deals in fractions of a chip (finishing
    stacks split into halves, or fractional stacks, blinds or bets); "tda" for whole-chip
    hands."""
    amounts = [*record.starting_stacks, *record.antes, *(record.blinds_or_straddles or ()),
               *(record.finishing_stacks or ()),
               *(a for a in (record.bring_in, record.small_bet, record.big_bet, record.min_bet)
                 if a is not None),
               *(a.amount for a in record.actions if type(a) is BetOrRaisedTo)]
    # type() rather than isinstance: Fraction's ABC metaclass makes isinstance the costlier
    # part of a replay's start.
    if any(type(a) is Fraction and a.denominator != 1 for a in amounts):
        return ODD_CHIP_SPLIT_EXACTLY
    return ODD_CHIP_TDA


def _unsupported(detail: str) -> Violation:
    return Violation("unsupported_variant", detail)


def not_replayed(variant: str, replayable: Iterable[str]) -> Violation:
    return _unsupported(f"variant {variant!r} is read but not replayed (replayable: {', '.join(replayable)})")


def _unsupported_forced_bets(detail: str) -> Violation:
    return Violation("unsupported_forced_bets", detail)


def _betting_structure(record: HandHistory, kind: str) -> BettingStructure:
    """Our betting description of the record's forced bets, or `unsupported_forced_bets`.

    PHH lists forced bets by position (small blind, big blind, straddles...; antes per
    player). We take uniform antes (live, trimmed to the stack) and the big-blind ante
    (dead money: `ante_trimming_status = false`).
    """
    blinds = record.blinds_or_straddles or ()
    small_blind = blinds[0] if blinds else 0
    big_blind = blinds[1] if len(blinds) > 1 else 0
    straddles = tuple(blinds[2:])
    while straddles and not straddles[-1]:
        straddles = straddles[:-1]
    ante_only = not any(blinds) and any(record.antes)
    if not ante_only and (not big_blind or not all(straddles)):
        raise _unsupported_forced_bets(
            f"blinds_or_straddles {list(blinds)} are not small blind, big blind, straddles")
    antes = record.antes
    ante: Amount = 0
    big_blind_ante = False
    # Uniform antes every stack covers post the same trimmed or not (PokerKit's
    # ante_trimming_status changes only what a short stack posts).
    covered = all(stack >= antes[0] for stack in record.starting_stacks)
    if any(antes):
        if len(set(antes)) == 1 and (record.ante_trimming_status or covered):
            ante = antes[0]
        elif antes[1] and not any(a for i, a in enumerate(antes) if i != 1) \
                and not record.ante_trimming_status:
            ante, big_blind_ante = antes[1], True
        else:
            raise _unsupported_forced_bets(
                f"antes {list(antes)} (ante_trimming_status {record.ante_trimming_status}) "
                "are neither uniform antes nor a big-blind ante")
    return BettingStructure(
        kind=kind, small_blind=small_blind, big_blind=big_blind, ante=ante,
        big_blind_ante=big_blind_ante, straddles=straddles, min_bet=record.min_bet,
        small_bet=record.small_bet, big_bet=record.big_bet,
        # A bet and three raises (pre-flop the big blind is the bet), as the WSOP records.
        raise_cap=4 if kind == FIXED_LIMIT else None,
    )


def player_names(record: HandHistory) -> tuple[str, ...]:
    """The record's `players`, or p1, p2 ... when it names none (or names one twice)."""
    count = record.player_count
    names = record.players
    if names is None or len(set(names)) != count:
        return tuple(f"p{i + 1}" for i in range(count))
    return names


def start_command(record: HandHistory) -> StartHand:
    """The StartHand that seats the record's players: p1 in seat 0, the button last."""
    if record.variant not in REPLAYABLE:
        raise not_replayed(record.variant, REPLAYABLE)
    game, kind = REPLAYABLE[record.variant]
    count = record.player_count
    return StartHand(
        players=player_names(record), stacks=record.starting_stacks, button=count - 1,
        betting=_betting_structure(record, kind), variant=game,
        odd_chip=POT_POLICY[odd_chip_rule(record)],
    )


def _command(state: HandState, action: PhhAction) -> Command | None:
    """Our command for one PHH action; None for what only PHH records (unknown deals)."""
    # type() rather than isinstance: the record's own classes, never subclassed, one check each.
    if type(action) is Folded:
        return PostAction(action.player, "fold")
    if type(action) is CheckedOrCalled:
        betting = state.betting
        owes = betting.highest > betting.bets[action.player]
        return PostAction(action.player, "call" if owes else "check")
    if type(action) is BetOrRaisedTo:
        return PostAction(action.player, aggressive_action(state), action.amount)
    if type(action) is HoleCardsDealt:
        if UNKNOWN_CARD in action.cards:
            return None
        return DealHole(action.player, "".join(action.cards))
    if type(action) is BoardDealt:
        return DealBoard("".join(action.cards))
    if type(action) is ShownOrMucked:
        if action.cards is None:
            return Muck(action.player)
        unknown = not action.cards and state.hole[action.player] is None
        if unknown or UNKNOWN_CARD in action.cards:
            return None  # a hand shown as unknown cards cannot be ranked
        return ShowCards(action.player, "".join(action.cards) or None)
    raise _unsupported(f"{format_action(action)!r} belongs to another variant")


def replay(record: HandHistory) -> ReplayResult:
    """Replay a hold'em or Omaha record through our rules (any variant's record:
    domain.history.phh_games.replay).

    Raises Violation: `unsupported_variant` / `unsupported_forced_bets` for hands we do not
    play, `hand_incomplete` when the record stops mid-hand, or the first illegal action's
    own code with `numbers["action_index"]` (0-based) and the action quoted in the detail.
    """
    _, log, state = _played(record)
    winners = sorted({seat for award in state.awards for seat in award.winners})
    return ReplayResult(tuple(whole_amount(s) for s in state.stacks), state.awards, tuple(winners),
                        tuple(log), odd_chip_rule(record))


def positional_blinds(record: HandHistory) -> bool:
    """Blinds our hold'em engine cannot post (it posts a small blind left of the button and
    a big blind after it): a single blind on the first seat, or a button blind. PokerKit
    posts them where the record puts them, as domain.games.mixed does: such a hand replays
    there, as a rotation's hold'em or Omaha hand."""
    if record.variant not in REPLAYABLE:
        return False
    try:
        _betting_structure(record, REPLAYABLE[record.variant][1])
    except Violation as refused:
        blinds = record.blinds_or_straddles or ()
        return refused.code == "unsupported_forced_bets" and sum(1 for b in blinds if b) == 1
    return False


def engine_commands(record: HandHistory) -> tuple[Command, ...]:
    """The hand as our engine's commands, each PHH action resolved against the state it
    met (`cc` is a check or a call, `cbr` a bet or a raise): what a replay of an already
    parsed hand feeds the engine."""
    commands, _, _ = _played(record)
    return tuple(commands)


def _played(record: HandHistory) -> tuple[list[Command], list[Event], HandState]:
    return play_record(record, start_command(record), handle, _command, SettleShowdown())


class ReplayedHand(Protocol):
    """What replaying a record reads of a decider's hand state."""
    @property
    def over(self) -> bool: ...
    @property
    def awaiting(self) -> str | None: ...


Hand = TypeVar("Hand", bound=ReplayedHand)
Handler = Callable[[Any, Any], tuple[list[Any], Hand]]


def play_record(record: HandHistory, start: Any, handle_command: Handler[Hand],
                command_of: Callable[[Hand, PhhAction], Any], settle: Any) -> tuple[list[Any], list[Any], Hand]:
    """(our commands, our events, the final state) of a record played through a decider:
    `start` its StartHand, `command_of` our command for a PHH action met in a state (None:
    an action only PHH records), `settle` its SettleShowdown. Raises Violation: the first
    illegal action's own code with `numbers["action_index"]` (0-based) and the action
    quoted, or `hand_incomplete` when the record stops mid-hand."""
    commands: list[Any] = [start]
    log, state = handle_command(None, start)
    for index, action in enumerate(record.actions):
        if state.over and type(action) is ShownOrMucked:
            continue  # the last hand standing is shown after the pot was already settled
        try:
            command = command_of(state, action)
            if command is not None:
                events, state = handle_command(state, command)
                commands.append(command)
                log += events
        except Violation as violation:
            raise Violation(
                violation.code,
                f"action {index} ({format_action(action)!r}): {violation.detail}",
                violation.rule,
                {**violation.numbers, "action_index": index, "action": format_action(action)},
            ) from violation
    if not state.over and state.awaiting == "showdown":
        # Players who neither showed nor mucked: known cards show, unknown ones cannot win.
        events, state = handle_command(state, settle)
        commands.append(settle)
        log += events
    if not state.over:
        raise Violation(
            "hand_incomplete",
            f"the record ends while the hand awaits the {state.awaiting}",
            numbers={"action_index": len(record.actions)})
    return commands, log, state


def whole_amount(amount: Amount) -> Amount:
    # Exact splits leave Fraction(x, 1) behind; PHH (and equality with it) wants ints.
    return int(amount) if amount.denominator == 1 else amount


# ---------------------------------------------------------------- export of our hands


def betting_action(player: int, event: ActionTaken) -> PhhAction:
    """A betting event as PHH writes it (`player` the PHH index): fold `f`, check or call
    `cc`, bet or raise `cbr` to the round total."""
    if event.action == "fold":
        return Folded(player)
    if event.action in ("check", "call"):
        return CheckedOrCalled(player)
    return BetOrRaisedTo(player, event.to)


def phh_order(button: int, count: int) -> list[int]:
    """A hand's seats in PHH player order: p1 the first seat left of the button, the
    button last."""
    return [(button + 1 + k) % count for k in range(count)]


def phh_from_events(events: Iterable[Any]) -> HandHistory:
    """A finished hold'em or Omaha hand (its events) as a PHH record (any game's hand:
    domain.history.phh_games.phh_from_events).

    Seats are renumbered so that p1 is the first seat left of the button, the button last.
    """
    events = list(events)
    started = events[0]
    if not isinstance(started, HandStarted):
        raise ValueError("a hand's events begin with HandStarted")
    structure = started.betting
    variant = _PHH_VARIANT.get((started.variant, structure.kind))
    if variant is None:
        raise ValueError(f"no PHH variant for {started.variant} {structure.kind}")
    count = len(started.players)
    order = phh_order(started.button, count)
    phh_index = {seat: k for k, seat in enumerate(order)}

    def in_phh_order(values: Sequence[Amount]) -> tuple[Amount, ...]:
        return tuple(values[seat] for seat in order)

    blinds: list[Amount] = [0] * count
    blinds[0], blinds[1] = structure.small_blind, structure.big_blind
    for k, straddle in enumerate(structure.straddles):
        blinds[2 + k] = straddle
    antes: list[Amount] = [0] * count
    if structure.big_blind_ante:
        antes[1] = structure.ante
    else:
        antes = [structure.ante] * count

    # PHH deals every player's hole cards first, in player order, unknown ones as `??`.
    dealt = {phh_index[e.position]: _cards(e.cards) for e in events if type(e) is HoleEvent}
    for event in events:  # a hand shown is known to whoever reads the record
        if type(event) is CardsShown:
            dealt.setdefault(phh_index[event.position], _cards(event.cards))
    unknown = (UNKNOWN_CARD,) * HOLE_CARD_COUNT[started.variant]
    actions: list[PhhAction] = [
        HoleCardsDealt(player, dealt.get(player, unknown)) for player in range(count)
    ]
    finishing: tuple[Amount, ...] | None = None
    for event in events[1:]:
        kind = type(event)
        if kind is BoardEvent:
            actions.append(BoardDealt(_cards(event.cards)))
        elif kind is ActionTaken:
            actions.append(betting_action(phh_index[event.position], event))
        elif kind is CardsShown:
            actions.append(ShownOrMucked(phh_index[event.position], _cards(event.cards)))
        elif kind is CardsMucked:
            actions.append(ShownOrMucked(phh_index[event.position], None))
        elif kind is HandEnded:
            finishing = tuple(whole_amount(stack) for stack in in_phh_order(event.stacks))
    fixed = structure.kind == FIXED_LIMIT
    return HandHistory(
        variant=variant,
        ante_trimming_status=not structure.big_blind_ante,
        antes=tuple(antes),
        blinds_or_straddles=tuple(blinds),
        small_bet=structure.unit(late=False) if fixed else None,
        big_bet=structure.unit(late=True) if fixed else None,
        min_bet=None if fixed else structure.opening_minimum,
        starting_stacks=in_phh_order(started.stacks),
        actions=tuple(actions),
        players=tuple(started.players[seat] for seat in order),
        finishing_stacks=finishing,
    )
