"""Betting: structures, forced bets, legal actions and the incomplete all-in rule.

Game-agnostic: it works one betting round at a time and knows nothing of streets. A game
opens a hand (`open_hand`: antes, blinds, straddles), lets players act (`check_action`
validates, `apply_action` applies), and when `round_closed` starts the next round with
`start_round(state, late=...)` (`late` picks the big bet in fixed-limit).

All amounts are bet TOTALS for the round ("raise to"). Only + - * // and comparisons are
used on amounts so PHH replay can feed fractions.Fraction.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any, TypeVar

from domain.frozen import made_at_once
from domain.rules.citations import cite
from domain.rules.violations import Violation

Amount = int | Fraction
Frozen = TypeVar("Frozen")
Item = TypeVar("Item")


def with_changes(obj: Frozen, **changes: Any) -> Frozen:
    """A copy of a frozen dataclass with some fields changed, like dataclasses.replace.

    dataclasses.replace() re-runs __init__ over every field (about 30 us for the betting
    state) and replay speed matters; copying the instance dict is ~20x cheaper. Only for
    plain (non-slots) dataclasses whose __init__ does no validation.
    """
    new = _NEW(type(obj))
    # dict.copy() of an instance dict is a block copy, about half the cost of {**d, **changes}.
    fields = obj.__dict__.copy()
    fields.update(changes)
    _SET(new, "__dict__", fields)
    return new


# Bound once: looking `object.__new__` up at each copy is a fifth of the copy's cost.
_NEW = object.__new__
_SET = object.__setattr__


def with_item(values: tuple[Item, ...], index: int, value: Item) -> tuple[Item, ...]:
    """A copy of a tuple with the item at `index` replaced (seat-indexed state)."""
    return values[:index] + (value,) + values[index + 1:]


NO_LIMIT = "no-limit"
POT_LIMIT = "pot-limit"
FIXED_LIMIT = "fixed-limit"
KINDS = (NO_LIMIT, POT_LIMIT, FIXED_LIMIT)
ACTIONS = ("fold", "check", "call", "bet", "raise")

# Why raising may be closed to the player to act (LegalActions.raise_closed_reason).
NOT_REOPENED = "not_reopened"
CAP_REACHED = "raise_cap_reached"
STACK_TOO_SHORT = "stack_too_short"
OPPONENTS_ALL_IN = "opponents_all_in"


@dataclass(frozen=True)
class BettingStructure:
    """The betting description of api.md, parsed.

    `min_bet`: no-limit/pot-limit opening minimum (default: the big blind; in ante games
    set it to the unit). `small_bet`/`big_bet`: the fixed-limit units (default: the big
    blind and twice the small bet). `raise_cap`: fixed-limit bets + raises per round
    (None = unlimited). `heads_up_uncapped`: fixed-limit cap lifted once two players
    remain, unless the round was capped before (Robert's Rules, cash games).
    """
    kind: str = NO_LIMIT
    small_blind: Amount = 0
    big_blind: Amount = 0
    ante: Amount = 0
    big_blind_ante: bool = False
    straddles: tuple[Amount, ...] = ()
    min_bet: Amount | None = None
    small_bet: Amount | None = None
    big_bet: Amount | None = None
    raise_cap: int | None = 4
    heads_up_uncapped: bool = False
    dead_small_blind: bool = False

    @property
    def opening_minimum(self) -> Amount:
        """The smallest opening bet of a no-limit/pot-limit round (fixed-limit: small bet)."""
        if self.kind == FIXED_LIMIT:
            return self.unit(late=False)
        if self.min_bet is not None:
            return self.min_bet
        return self.big_blind

    def unit(self, late: bool) -> Amount:
        """Fixed-limit: the small bet early, the big bet late. Otherwise the minimum bet."""
        if self.kind != FIXED_LIMIT:
            return self.opening_minimum
        small = self.small_bet if self.small_bet is not None else self.big_blind
        if not late:
            return small
        return self.big_bet if self.big_bet is not None else small * 2

    @property
    def capped(self) -> bool:
        return self.kind == FIXED_LIMIT and self.raise_cap is not None

    def description(self) -> dict[str, Any]:
        """api.md's "Betting description" of this structure, as `from_dict` reads it back:
        what every table's view shows as `betting`, whatever its game."""
        def whole(amount: Amount | None) -> Amount | None:
            return int(amount) if amount is not None and amount == int(amount) else amount
        return {"structure": self.kind, "small_blind": whole(self.small_blind), "big_blind": whole(self.big_blind),
                "ante": whole(self.ante), "big_blind_ante": self.big_blind_ante,
                "straddles": [whole(s) for s in self.straddles], "min_bet": whole(self.min_bet),
                "small_bet": whole(self.small_bet), "big_bet": whole(self.big_bet), "raise_cap": self.raise_cap,
                "heads_up_uncapped": self.heads_up_uncapped, "dead_small_blind": self.dead_small_blind}

    @classmethod
    def from_dict(cls, description: Mapping[str, Any]) -> BettingStructure:
        """Parse api.md's "Betting description"; raises Violation("invalid_betting") on nonsense."""
        known = {f.name for f in fields(cls)} - {"kind"} | {"structure"}
        unknown = sorted(set(description) - known)
        if unknown:
            _invalid(f"unknown betting field(s): {', '.join(unknown)}")
        kind = description.get("structure", NO_LIMIT)
        if kind not in KINDS:
            _invalid(f"structure must be one of {', '.join(KINDS)}, not {kind!r}")
        values: dict[str, Any] = {"kind": kind}
        for name in ("small_blind", "big_blind", "ante"):
            values[name] = _amount(description, name, 0)
        for name in ("min_bet", "small_bet", "big_bet"):
            values[name] = _amount(description, name, None)
        for name in ("big_blind_ante", "heads_up_uncapped", "dead_small_blind"):
            value = description.get(name, False)
            if not isinstance(value, bool):
                _invalid(f"{name} must be true or false")
            values[name] = value
        straddles = description.get("straddles", ())
        if not isinstance(straddles, (list, tuple)):
            _invalid("straddles must be a list of amounts")
        values["straddles"] = tuple(_amount({"straddle": s}, "straddle", 0) for s in straddles)
        cap = description.get("raise_cap", 4)
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
            _invalid(f"raise_cap must be a whole number of at least 1, not {cap!r}")
        values["raise_cap"] = cap
        structure = cls(**values)
        structure._check_consistent()
        return structure

    def _check_consistent(self) -> None:
        if self.big_blind < self.small_blind:
            _invalid(f"big blind {chips(self.big_blind)} is smaller than the small blind {chips(self.small_blind)}")
        level = self.big_blind
        for straddle in self.straddles:
            if straddle <= level:
                _invalid(f"straddle {chips(straddle)} must exceed the previous blind {chips(level)}")
            level = straddle
        if self.straddles and not self.big_blind:
            _invalid("straddles need a big blind")
        if self.kind == FIXED_LIMIT:
            if self.unit(late=False) <= 0:
                _invalid("fixed-limit needs a small_bet (or a big blind) above 0")
            if self.unit(late=True) < self.unit(late=False):
                _invalid(f"big bet {self.unit(late=True)} is smaller than the small bet {self.unit(late=False)}")
        elif self.opening_minimum <= 0:
            _invalid("no-limit and pot-limit need a min_bet (or a big blind) above 0")


def _invalid(detail: str) -> None:
    raise Violation("invalid_betting", detail)


def _amount(description: Mapping[str, Any], name: str, default: Any) -> Any:
    value = description.get(name, default)
    if value is None or value is default:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        _invalid(f"{name} must be a whole number of chips, not {value!r}")
    if value < 0:
        _invalid(f"{name} must not be negative ({value})")
    return value


@dataclass(frozen=True)
class AmountRange:
    """A bet or raise the player may make: any total from min_to to max_to (inclusive)."""
    min_to: Amount
    max_to: Amount


@made_at_once
@dataclass(frozen=True)
class CallOption:
    """Calling brings the player's round total `to`, pushing `adds` chips (all-in if short)."""
    to: Amount
    adds: Amount


@made_at_once
@dataclass(frozen=True)
class LegalActions:
    fold: bool
    check: bool
    call: CallOption | None
    bet: AmountRange | None
    raise_: AmountRange | None
    raise_closed_reason: str | None
    raise_reopened: str | None = None
    """Why a player who has acted may raise again when only short all-ins raised the bet
    since (they add up to a full raise, TDA 2024 47-A), as a floor person says it."""


@dataclass(frozen=True)
class BettingState:
    """Chips of one hand and the status of the current betting round, seat-indexed.

    `committed` counts everything a seat put in this hand (antes and this round's bets
    included); `dead` is big-blind-ante money, which belongs to the main pot only.
    `faced[i]` is the highest bet when seat i last acted this round (None: not acted;
    posting a blind is not acting). `full_increment`/`full_level` describe the last
    full bet or raise (size, and the round total it made). `phantom` is what pot-limit
    adds when sizing the pot for short or dead blinds pre-flop (TDA 2024 54).
    `short_full_level`: fixed-limit, the last full raise was an all-in of at least half a
    unit (the 50% rule), so the next raise goes one unit on top of the all-in amount.
    """
    structure: BettingStructure
    players: tuple[str, ...]
    button: int
    stacks: tuple[Amount, ...]
    bets: tuple[Amount, ...]
    committed: tuple[Amount, ...]
    dead: Amount
    folded: tuple[bool, ...]
    faced: tuple[Amount | None, ...]
    highest: Amount
    full_increment: Amount
    full_level: Amount
    raises: int
    capped_multiway: bool
    late: bool
    phantom: Amount
    to_act: int | None
    short_full_level: bool = False

    @property
    def seat_count(self) -> int:
        return len(self.stacks)

    @property
    def contenders(self) -> tuple[int, ...]:
        """Seats still in the hand (not folded), all-in or not."""
        return tuple(i for i, folded in enumerate(self.folded) if not folded)

    @property
    def pot_total(self) -> Amount:
        """Every chip put in this hand, the bets of this round included."""
        return sum(self.committed) + self.dead

    @property
    def round_closed(self) -> bool:
        return self.to_act is None

    @property
    def hand_decided(self) -> bool:
        """All but one player folded."""
        return sum(self.folded) >= len(self.folded) - 1

    @property
    def can_still_bet(self) -> bool:
        """At least two contenders have chips behind, so another round has betting."""
        return sum(1 for i in self.contenders if self.stacks[i] > 0) >= 2


def blind_seats(seat_count: int, button: int) -> tuple[int, int]:
    """(small blind seat, big blind seat). Heads-up the button posts the small blind."""
    if seat_count == 2:
        return button, (button + 1) % 2
    return (button + 1) % seat_count, (button + 2) % seat_count


def open_hand(structure: BettingStructure, players: tuple[str, ...], stacks: tuple[Amount, ...],
              button: int) -> BettingState:
    """Post antes, blinds and straddles and open the first betting round.

    A forced bet larger than the stack puts the player all-in for what they have. The big
    blind (then each straddle) is the opening full bet; blinds do not count as acting, so
    the big blind keeps the option. The big-blind ante is posted after the big blind.
    """
    n = len(stacks)
    stacks_l = list(stacks)
    bets_l: list[Amount] = [0] * n
    committed: list[Amount] = [0] * n
    dead: Amount = 0
    phantom: Amount = 0
    if structure.ante and not structure.big_blind_ante:
        for i in range(n):
            paid = min(structure.ante, stacks_l[i])
            stacks_l[i] -= paid
            committed[i] += paid
    highest: Amount = 0
    full_level: Amount = 0
    full_increment = structure.unit(late=False)
    raises = 0
    last_poster = button
    if structure.big_blind:
        small_seat, big_seat = blind_seats(n, button)
        posts = [] if structure.dead_small_blind else [(small_seat, structure.small_blind)]
        posts.append((big_seat, structure.big_blind))
        if structure.straddles:
            posts.extend(((big_seat + k + 1) % n, s) for k, s in enumerate(structure.straddles))
        if structure.dead_small_blind:
            phantom += structure.small_blind
        for seat, blind in posts:
            paid = min(blind, stacks_l[seat])
            stacks_l[seat] -= paid
            bets_l[seat] += paid
            committed[seat] += paid
            phantom += blind - paid
        levels = [structure.big_blind, *structure.straddles]
        highest = levels[-1]
        full_level = highest
        raises = len(levels)
        if structure.kind != FIXED_LIMIT:
            # A straddle acts as a bigger big blind: the next full raise is its size.
            full_increment = max(structure.opening_minimum, levels[-1] if len(levels) > 1 else 0)
        last_poster = posts[-1][0]
        if structure.big_blind_ante and structure.ante:
            paid = min(structure.ante, stacks_l[big_seat])
            stacks_l[big_seat] -= paid
            dead += paid
    elif structure.ante and structure.big_blind_ante:
        _invalid("a big-blind ante needs a big blind")
    folded, faced = (False,) * n, (None,) * n
    stacks, bets = tuple(stacks_l), tuple(bets_l)
    # Made as with_changes makes a state: the frozen dataclass's __init__ sets 18 fields one
    # by one, a third of opening a hand.
    opened = _NEW(BettingState)
    _SET(opened, "__dict__", {
        "structure": structure, "players": tuple(players), "button": button, "stacks": stacks,
        "bets": bets, "committed": tuple(committed), "dead": dead, "folded": folded, "faced": faced,
        "highest": highest, "full_increment": full_increment, "full_level": full_level, "raises": raises,
        "capped_multiway": False, "late": False, "phantom": phantom,
        "to_act": _next_to_act(folded, stacks, bets, faced, highest, last_poster), "short_full_level": False})
    return opened


def start_round(state: BettingState, late: bool, opener: int | None = None) -> BettingState:
    """Open the next betting round (bets back to 0; first to act: left of the button, or
    `opener` when a game names who opens, as stud's best hand showing).

    When fewer than two contenders have chips, nobody acts (to_act None): run the board out.
    """
    n = state.seat_count
    bets, faced = (0,) * n, (None,) * n
    after = state.button if opener is None else (opener - 1) % n
    return with_changes(
        state, bets=bets, faced=faced, highest=0,
        full_increment=state.structure.unit(late), full_level=0, raises=0,
        capped_multiway=False, late=late, phantom=0, short_full_level=False,
        to_act=_next_to_act(state.folded, state.stacks, bets, faced, 0, after))


def next_to_act(state: BettingState, after: int) -> int | None:
    """The next seat clockwise after `after` that must still act this round (None: closed)."""
    return _next_to_act(state.folded, state.stacks, state.bets, state.faced, state.highest, after)


def _next_to_act(folded: tuple[bool, ...], stacks: tuple[Amount, ...], bets: tuple[Amount, ...],
                 faced: tuple[Amount | None, ...], highest: Amount, after: int) -> int | None:
    """The next seat clockwise after `after` that must still act, or None: round closed.

    Takes the round's values rather than a state so that an action builds its new state
    once, with to_act already in it.
    """
    n = len(stacks)
    if n - sum(folded) <= 1:
        return None
    seat = after
    for _ in range(n):
        seat = (seat + 1) % n
        if not folded[seat] and stacks[seat] > 0 and (faced[seat] is None or bets[seat] < highest):
            break
    else:
        return None
    if bets[seat] >= highest and not any(
            stacks[i] > 0 and not folded[i] for i in range(n) if i != seat):
        return None  # the only player with chips, nothing to call: nobody to bet against
    return seat


def _raise_closed_reason(state: BettingState, seat: int) -> str | None:
    if state.bets[seat] + state.stacks[seat] <= state.highest:
        return STACK_TOO_SHORT
    if not _opponent_with_chips(state, seat):
        return OPPONENTS_ALL_IN
    if not _reopened_for(state, seat):
        return NOT_REOPENED
    if _cap_reached(state):
        return CAP_REACHED
    return None


def _opponent_with_chips(state: BettingState, seat: int) -> bool:
    """Someone else still in the hand has chips behind, so could call a raise."""
    stacks, folded = state.stacks, state.folded
    return any(i != seat and stacks[i] != 0 and not folded[i] for i in range(len(stacks)))


def _reopened_for(state: BettingState, seat: int) -> bool:
    """Raising is open to a seat that has not acted, or has since faced a full raise.

    No-limit/pot-limit: short all-ins add up, so it is the total increase since the seat's
    own last action against the last full bet or raise. Fixed-limit: the 50% rule turns a
    big enough all-in into a full raise, which moves `full_level`.
    """
    faced = state.faced[seat]
    if faced is None:
        return True
    if state.structure.kind == FIXED_LIMIT:
        return state.full_level > faced
    return state.highest - faced >= state.full_increment


def reopened_by_all_ins(state: BettingState, seat: int) -> bool:
    """No-limit and pot-limit: the seat has acted, nobody made a full raise since, and yet
    the short all-ins since add up to one (TDA 2024 47-A): raising is open to it again."""
    faced = state.faced[seat]
    return (state.structure.kind != FIXED_LIMIT and faced is not None and state.full_level <= faced
            and state.highest - faced >= state.full_increment)


def _reopened_wording(state: BettingState, seat: int) -> str:
    faced = state.faced[seat]
    assert faced is not None  # reopened_by_all_ins: the seat has acted
    return (f"raising is reopened: since your action at {chips(faced)} the all-ins raised the bet "
            f"to {chips(state.highest)}, {chips(state.highest - faced)} more, which adds up to at least "
            f"the last full bet or raise of {chips(state.full_increment)}")


def _cap_reached(state: BettingState) -> bool:
    structure = state.structure
    cap = structure.raise_cap
    if not structure.capped or cap is None or state.raises < cap:  # capped: a cap is set
        return False
    heads_up = len(state.contenders) == 2
    return not (structure.heads_up_uncapped and heads_up and not state.capped_multiway)


def _pot_limit_max(state: BettingState, seat: int) -> Amount:
    to_call = state.highest - state.bets[seat]
    return state.highest + state.pot_total + state.phantom + to_call


def pot_limit_arithmetic(state: BettingState, seat: int) -> tuple[str, dict[str, Amount]]:
    """The pot-limit maximum as a floor person works it out, and its numbers: "pot 700 +
    call 200 = 900: raise to at most 1,100" (the pot counts every bet on the table and a
    short or dead blind as full)."""
    pot = state.pot_total + state.phantom
    to_call = state.highest - state.bets[seat]
    most = _pot_limit_max(state, seat)
    numbers = {"pot": pot, "call": to_call, "pot_after_call": pot + to_call, "max_to": most}
    if state.highest == 0:
        return f"pot {chips(pot)}: bet at most {chips(most)}", numbers
    return (f"pot {chips(pot)} + call {chips(to_call)} = {chips(pot + to_call)}: "
            f"raise to at most {chips(most)}"), numbers


def chips(amount: Amount) -> str:
    """An amount as people write it: 1,100 (thousands grouped)."""
    if isinstance(amount, Fraction) and amount.denominator != 1:
        return str(amount)
    return f"{int(amount):,}"


def _raise_range(state: BettingState, seat: int) -> AmountRange:
    all_in = state.bets[seat] + state.stacks[seat]
    kind = state.structure.kind
    if kind == FIXED_LIMIT:
        min_to = state.full_level + state.structure.unit(state.late)
        max_to = min_to
    else:
        min_to = state.highest + state.full_increment
        max_to = _pot_limit_max(state, seat) if kind == POT_LIMIT else all_in
    min_to = min(min_to, all_in)
    return AmountRange(min_to, max(min_to, min(max_to, all_in)))


def _bet_range(state: BettingState, seat: int) -> AmountRange:
    all_in = state.bets[seat] + state.stacks[seat]
    unit = state.structure.unit(state.late)
    kind = state.structure.kind
    if kind == FIXED_LIMIT:
        max_to = unit
    elif kind == POT_LIMIT:
        max_to = _pot_limit_max(state, seat)
    else:
        max_to = all_in
    min_to = min(unit, all_in)
    return AmountRange(min_to, max(min_to, min(max_to, all_in)))


def legal_actions(state: BettingState) -> LegalActions | None:
    """What the player to act may do (None when nobody is to act)."""
    seat = state.to_act
    if seat is None:
        return None
    to_call = state.highest - state.bets[seat]
    call = None
    if to_call > 0:
        adds = min(to_call, state.stacks[seat])
        call = CallOption(state.bets[seat] + adds, adds)
    if state.highest == 0:
        return LegalActions(True, True, None, _bet_range(state, seat), None, None)
    reason = _raise_closed_reason(state, seat)
    raise_ = None if reason else _raise_range(state, seat)
    reopened = _reopened_wording(state, seat) if raise_ and reopened_by_all_ins(state, seat) else None
    return LegalActions(True, to_call <= 0, call, None, raise_, reason, reopened)


def check_action(state: BettingState, seat: int, action: str, to: Amount | None = None) -> Amount:
    """Validate an action; return the seat's round total after it. Raises Violation."""
    if state.to_act is None:
        raise Violation("not_your_turn", "nobody is to act in this betting round",
                        numbers={"seat": seat})
    if seat != state.to_act:
        raise Violation("not_your_turn",
                        f"it is {state.players[state.to_act]}'s turn, not {state.players[seat]}'s",
                        numbers={"seat": seat, "to_act": state.to_act})
    bet = state.bets[seat]
    if action == "fold":
        return bet
    to_call = state.highest - bet
    all_in = bet + state.stacks[seat]
    if action == "check":
        if to_call > 0:
            raise Violation("check_facing_bet",
                            f"cannot check facing a bet of {chips(state.highest)}: call {chips(min(to_call, state.stacks[seat]))} more, raise or fold",
                            numbers={"highest": state.highest, "to_call": to_call})
        return bet
    if action == "call":
        if to_call <= 0:
            raise Violation("call_nothing_to_call",
                            f"there is nothing to call: the bet is {chips(state.highest)} and you have {chips(bet)} in; check instead",
                            numbers={"highest": state.highest})
        return min(state.highest, all_in)
    if action not in ("bet", "raise"):
        raise Violation("illegal_action", f"unknown action {action!r}", numbers={"action": action})
    if to is None or isinstance(to, bool) or not isinstance(to, (int, Fraction)):
        raise Violation("illegal_action", f"{action} needs a bet total 'to'", numbers={"action": action})
    if to > all_in:
        raise Violation("exceeds_stack",
                        f"{action} to {chips(to)} exceeds the stack: all-in is {chips(all_in)}",
                        numbers={"to": to, "all_in": all_in})
    if action == "bet":
        return _check_bet(state, seat, to, all_in)
    return _check_raise(state, seat, to, all_in)


def _check_bet(state: BettingState, seat: int, to: Amount, all_in: Amount) -> Amount:
    if state.highest > 0:
        raise Violation("bet_facing_bet",
                        f"there is already a bet of {chips(state.highest)} this round: raise, call or fold",
                        numbers={"highest": state.highest})
    allowed = _bet_range(state, seat)
    if state.structure.kind == FIXED_LIMIT:
        if to != allowed.min_to:
            raise Violation("wrong_fixed_amount",
                            f"bet to {chips(to)} is not the fixed bet of {chips(allowed.min_to)}",
                            numbers=_range_numbers(to, allowed))
        return to
    if to < allowed.min_to:
        raise Violation("bet_below_minimum",
                        f"bet to {chips(to)} is below the minimum bet of {chips(allowed.min_to)}",
                        numbers=_range_numbers(to, allowed))
    if to > allowed.max_to:
        wording, arithmetic = pot_limit_arithmetic(state, seat)
        raise Violation("above_pot_limit", f"bet to {chips(to)} is above the pot limit: {wording}",
                        numbers={**_range_numbers(to, allowed), **arithmetic})
    return to


def legal_basis(state: BettingState, seat: int, action: str) -> tuple[str, str, dict[str, Amount]]:
    """What a floor person reads out beside "legal" for an action that `check_action`
    accepted, taken before it is applied: (detail, rule, numbers). The rule is a citation,
    or "" where no numbered rule decides the action (a fold, a check, a call, a plain
    fixed-limit bet)."""
    bet = state.bets[seat]
    if action == "call":
        to = min(state.highest, bet + state.stacks[seat])
        return f"a call to {chips(to)} adds {chips(to - bet)}", "", {"to": to, "adds": to - bet}
    if action not in ("bet", "raise"):
        return "", "", {}
    allowed = _bet_range(state, seat) if action == "bet" else _raise_range(state, seat)
    kind = state.structure.kind
    if kind == FIXED_LIMIT:
        numbers = {"min_to": allowed.min_to, "unit": state.structure.unit(state.late)}
        if action == "bet":
            return f"the bet is {chips(allowed.min_to)}", "", numbers
        return (f"the raise is to {chips(allowed.min_to)}: {_fixed_raise_wording(state)}",
                fixed_limit_raise_rule(state), {**numbers, "level": state.full_level})
    numbers = {"min_to": allowed.min_to, "max_to": allowed.max_to}
    reopened = action == "raise" and reopened_by_all_ins(state, seat)
    if reopened:
        faced = state.faced[seat]
        assert faced is not None  # reopened_by_all_ins: the seat has acted
        numbers.update(acted_at=faced, increase=state.highest - faced)
    if kind == POT_LIMIT:
        wording, arithmetic = pot_limit_arithmetic(state, seat)
        if reopened:
            return (f"{_reopened_wording(state, seat)}; {wording}", cite("pot_limit_reopened"),
                    {**numbers, **arithmetic, "last_full_raise": state.full_increment})
        return wording, cite("pot_limit_maximum"), {**numbers, **arithmetic}
    if action == "bet":
        return f"the minimum bet is {chips(allowed.min_to)}", cite("minimum_raise"), numbers
    minimum = f"the minimum raise is to {chips(allowed.min_to)}: {_last_full_wording(state)}"
    numbers["last_full_raise"] = state.full_increment
    if reopened:
        return f"{_reopened_wording(state, seat)}; {minimum}", cite("minimum_raise_reopened"), numbers
    return minimum, cite("minimum_raise"), numbers


def _range_numbers(to: Amount, allowed: AmountRange, **more: Amount) -> dict[str, Amount]:
    """The numbers of a bet or raise violation (built only when one is raised)."""
    return {"to": to, "min_to": allowed.min_to, "max_to": allowed.max_to, **more}


def _check_raise(state: BettingState, seat: int, to: Amount, all_in: Amount) -> Amount:
    if state.highest == 0:
        raise Violation("raise_without_bet",
                        "there is no bet to raise this round: bet instead", numbers={"to": to})
    reason = _raise_closed_reason(state, seat)
    if reason is not None:
        raise _closed_violation(state, seat, reason, to)
    allowed = _raise_range(state, seat)
    if state.structure.kind == FIXED_LIMIT:
        if to != allowed.min_to:
            raise Violation("wrong_fixed_amount",
                            f"raise to {chips(to)} is not the fixed raise to {chips(allowed.min_to)}: "
                            f"{_fixed_raise_wording(state)}", fixed_limit_raise_rule(state),
                            _range_numbers(to, allowed, unit=state.structure.unit(state.late),
                                           level=state.full_level))
        return to
    if to < allowed.min_to:
        raise Violation("raise_below_minimum",
                        f"raise to {chips(to)} is below the minimum raise to {chips(allowed.min_to)}: "
                        f"{_last_full_wording(state)}",
                        numbers=_range_numbers(to, allowed, last_full_raise=state.full_increment))
    if to > allowed.max_to:
        wording, arithmetic = pot_limit_arithmetic(state, seat)
        raise Violation("above_pot_limit", f"raise to {chips(to)} is above the pot limit: {wording}",
                        numbers={**_range_numbers(to, allowed, last_full_raise=state.full_increment),
                                 **arithmetic})
    return to


def fixed_limit_raise_rule(state: BettingState) -> str:
    """A fixed-limit raise over a 50%-rule all-in follows Robert's Rules (one unit on top
    of the all-in); any other is the plain fixed amount, which no numbered rule states."""
    return cite("fixed_limit_all_in_raise") if state.short_full_level else ""


def _fixed_raise_wording(state: BettingState) -> str:
    unit, level = state.structure.unit(state.late), state.full_level
    if state.short_full_level:
        return f"one unit of {chips(unit)} on top of the all-in to {chips(level)}, at least half a unit, which counts as a full raise"
    return f"{chips(unit)} more than {chips(level)}"


def _last_full_wording(state: BettingState) -> str:
    increment, level = state.full_increment, state.full_level
    if level - increment <= 0:
        return f"the last full bet was {chips(increment)}"
    return f"the last full raise was {chips(increment)} over {chips(level - increment)}"


def _closed_violation(state: BettingState, seat: int, reason: str, to: Amount) -> Violation:
    numbers = {"to": to, "highest": state.highest}
    if reason == NOT_REOPENED:
        faced = state.faced[seat]
        assert faced is not None  # not reopened for a seat that has acted since
        if state.structure.kind == FIXED_LIMIT:
            unit = state.structure.unit(state.late)
            return Violation(
                "raise_not_reopened",
                f"raising is not reopened: the bet rose by {chips(state.highest - faced)} since your action "
                f"at {chips(faced)}, less than half the bet of {chips(unit)}; call or fold",
                cite("raise_not_reopened_fixed_limit"),
                {**numbers, "increase": state.highest - faced, "unit": unit})
        return Violation(
            "raise_not_reopened",
            f"raising is not reopened: the bet rose by {chips(state.highest - faced)} since your "
            f"action at {chips(faced)}, less than the last full bet or raise of {chips(state.full_increment)}; "
            f"call or fold", numbers={**numbers, "increase": state.highest - faced,
                                      "last_full_raise": state.full_increment})
    if reason == CAP_REACHED:
        assert state.structure.raise_cap is not None  # _cap_reached: a cap is set
        return Violation("raise_cap_reached", f"the betting is capped: {cap_wording(state.structure.raise_cap)}",
                         numbers={**numbers, "raises": state.raises, "raise_cap": state.structure.raise_cap})
    if reason == STACK_TOO_SHORT:
        return Violation("exceeds_stack",
                         f"the stack covers only a call to {chips(state.bets[seat] + state.stacks[seat])}",
                         numbers=numbers)
    return Violation("illegal_action",
                     "every other player is all-in: nobody could call a raise; call or fold",
                     numbers=numbers)


_COUNT_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def cap_wording(cap: int) -> str:
    """The cap as a person says it: "a bet and three raises have been made"."""
    raises = cap - 1
    if raises == 0:
        return "a bet has been made"
    count = _COUNT_WORDS[raises] if raises < len(_COUNT_WORDS) else str(raises)
    return f"a bet and {count} raise{'s' if raises > 1 else ''} have been made"


def apply_action(state: BettingState, seat: int, action: str, to: Amount) -> BettingState:
    """Apply an action already validated by `check_action` (`to` is its return value)."""
    if action == "fold":
        folded = with_item(state.folded, seat, True)
        return with_changes(state, folded=folded, to_act=_next_to_act(
            folded, state.stacks, state.bets, state.faced, state.highest, seat))
    bets, stacks, committed = state.bets, state.stacks, state.committed
    added = to - bets[seat]
    if added:
        bets = with_item(bets, seat, to)
        stacks = with_item(stacks, seat, stacks[seat] - added)
        committed = with_item(committed, seat, committed[seat] + added)
    if action in ("bet", "raise"):
        changes = _aggression(state, to)
        faced = with_item(state.faced, seat, to)
    else:
        changes = {}
        faced = with_item(state.faced, seat, state.highest)
    to_act = _next_to_act(state.folded, stacks, bets, faced, changes.get("highest", state.highest), seat)
    return with_changes(state, bets=bets, stacks=stacks, committed=committed, faced=faced,
                        to_act=to_act, **changes)


def _aggression(state: BettingState, to: Amount) -> dict[str, Any]:
    """How a bet or raise to `to` moves the full-raise bookkeeping."""
    changes: dict[str, Any] = {"highest": max(state.highest, to)}
    structure = state.structure
    if structure.kind == FIXED_LIMIT:
        unit = structure.unit(state.late)
        # 50% rule: an all-in of at least half a unit counts as a full raise, and the next
        # raise is one unit on top of it (Robert's Rules: $15 all-in on a $20 round -> $35).
        # A full raise is exactly one unit, so `to` is the new level either way.
        if (to - state.full_level) * 2 >= unit:
            changes.update(full_level=to, raises=state.raises + 1,
                           short_full_level=to < state.full_level + unit)
            if structure.raise_cap is not None and state.raises + 1 >= structure.raise_cap \
                    and len(state.contenders) > 2:
                changes["capped_multiway"] = True
        return changes
    increment = to - state.highest
    if increment >= state.full_increment:
        changes.update(full_increment=increment, full_level=to)
    return changes


def return_uncalled(state: BettingState) -> tuple[BettingState, int | None, Amount]:
    """Give back the part of the biggest contribution nobody matched: (state, seat, amount)."""
    seat, excess = uncalled_chips(state)
    if seat is None:
        return state, None, 0
    return apply_return(state, seat, excess), seat, excess


def uncalled_chips(state: BettingState) -> tuple[int | None, Amount]:
    """(seat, amount) of the part of the biggest contribution nobody matched; (None, 0) if none.

    For deciders that only need to know whether chips go back (the state is left alone).
    """
    committed = state.committed
    ordered = sorted(committed, reverse=True)
    excess = ordered[0] - (ordered[1] if len(ordered) > 1 else 0)
    if excess <= 0:
        return None, 0
    return committed.index(ordered[0]), excess


def apply_return(state: BettingState, seat: int, amount: Amount) -> BettingState:
    """Replay a recorded uncalled-chips return."""
    stacks, bets, committed = list(state.stacks), list(state.bets), list(state.committed)
    stacks[seat] += amount
    committed[seat] -= amount
    bets[seat] -= min(amount, bets[seat])
    return with_changes(state, stacks=tuple(stacks), bets=tuple(bets), committed=tuple(committed),
                   highest=max(bets))
