"""What pushed chips and spoken words count as (declarations.md, TDA 2024 40-61).

`interpret(situation, chips, said, order)` reads what a player pushed (denominations, in
one motion), what they said and which came first, and answers the action the rules make
of it: a `Ruling` with the round total, the chips returned, what the player must add,
the rule applied (through `domain.rules.citations.cite`) and a detail a floor person can read
out. Where the TDA leaves it to the floor (Rule 1), the answer is `floor_decision`.

Amounts are round totals, as everywhere in the betting code. `in_front` is what the
player has out already: their `committed` chips, or the physical chips of an earlier
bet not yet pulled in when those are more (change due, TDA 2024 46), which count with the
new push. Chips are conserved in every answer: `to = in_front + pushed - returned +
must_add`, and `to` never passes what the player has (`in_front + stack`).

Violation codes: `invalid_situation` (numbers that cannot describe a table, e.g. chips
pushed beyond the stack); at a table, `floor_decision` (the floor must rule: nothing is
written) and `not_your_turn`.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.rules.betting import FIXED_LIMIT, NO_LIMIT, POT_LIMIT, Amount, BettingState, legal_actions
from domain.rules.citations import cite
from domain.rules.spoken import Declaration, declaration
from domain.rules.violations import Violation
from domain.secrecy import PUBLIC

STRUCTURES = (NO_LIMIT, POT_LIMIT, FIXED_LIMIT)
TDA = "tda"
ROBERTS = "robert"
RULE_BOOKS = (TDA, ROBERTS)
ORDERS = ("said_first", "chips_first", "simultaneous")
INTERPRETATIONS = ("call", "bet", "raise", "all_in", "check", "fold", "floor_decision")


@dataclass(frozen=True)
class Situation:
    """The betting context of one player about to act (declarations.md "API").

    `pot` counts every chip in the pot and in front of the players, the faced bet
    included (pot limit sizes from it). `unit` is the fixed-limit bet of the round
    (default: the big blind). `opponents` is how many others are still in the hand
    (None: not said), which the undercall rule needs.
    """
    stack: Amount
    big_blind: Amount
    structure: str = NO_LIMIT
    facing_to: Amount = 0
    committed: Amount = 0
    last_full_raise: Amount = 0
    pot: Amount | None = None
    raise_open: bool = True
    prior_chips: Amount = 0
    unit: Amount | None = None
    opponents: int | None = None
    rules: str = TDA
    """"robert": the cash-game setting, where a spoken amount wins over the chips."""

    @property
    def in_front(self) -> Amount:
        return max(self.committed, self.prior_chips)

    @property
    def all_in_to(self) -> Amount:
        return self.in_front + self.stack

    @property
    def to_call(self) -> Amount:
        return max(0, self.facing_to - self.committed)

    @property
    def increment(self) -> Amount:
        """The smallest raise (or bet) size: the last full bet or raise, at least the big
        blind; fixed limit: the unit."""
        if self.structure == FIXED_LIMIT:
            return self.unit or self.big_blind
        return max(self.last_full_raise, self.big_blind)

    @property
    def max_to(self) -> Amount:
        """The largest total the structure allows this player (their all-in at most; never
        below the minimum, which a small pot does not lower: domain.rules.betting's ranges)."""
        if self.structure == FIXED_LIMIT:
            return self.min_to
        if self.structure == POT_LIMIT:
            return max(self.min_to, min(self.all_in_to, self.pot_limit_max))
        return self.all_in_to

    @property
    def pot_limit_max(self) -> Amount:
        assert self.pot is not None
        return self.facing_to + self.pot + self.to_call

    @property
    def min_to(self) -> Amount:
        """The smallest legal bet or raise total (capped by the all-in)."""
        return min(self.all_in_to, self.facing_to + self.increment)

    @property
    def facing_opening_bet(self) -> bool:
        return self.facing_to > 0 and self.facing_to <= self.increment


@dataclass(frozen=True)
class Ruling:
    interpretation: str
    to: Amount
    returned: Amount
    must_add: Amount
    rule: str
    detail: str

    def as_dict(self) -> dict[str, str | Amount]:
        return {"interpretation": self.interpretation, "to": self.to, "returned": self.returned,
                "must_add": self.must_add, "rule": self.rule, "detail": self.detail}


def _invalid(detail: str, **numbers: Amount) -> Violation:
    """Numbers that describe no table: no rule applies, so none is cited."""
    return Violation("invalid_situation", detail, numbers=numbers)


def situation(description: Mapping[str, Any]) -> Situation:
    """The compact situation of declarations.md, checked for consistency."""
    try:
        found = Situation(**description)
    except TypeError as wrong:
        raise _invalid(f"not a situation: {wrong}") from None
    if found.structure not in STRUCTURES:
        raise _invalid(f"unknown structure {found.structure!r}")
    if found.rules not in RULE_BOOKS:
        raise _invalid(f"rules are {' or '.join(RULE_BOOKS)}, not {found.rules!r}")
    if found.structure == POT_LIMIT and found.pot is None:
        raise _invalid("pot limit needs the pot")
    if found.committed > found.facing_to:
        raise _invalid(f"committed {found.committed:,} is more than the bet faced {found.facing_to:,}",
                       committed=found.committed, facing_to=found.facing_to)
    if found.big_blind < 1:
        raise _invalid("the big blind must be at least 1", big_blind=found.big_blind)
    return found


def situation_from_betting(state: BettingState, seat: int) -> Situation:
    """The compact situation of the seat to act in a live betting round (tables and the
    whole-hand rulings). The hand's own structure decides every limit."""
    structure = state.structure
    opponents = sum(1 for i in state.contenders if i != seat)
    legal = legal_actions(state)
    raise_open = not (legal is not None and state.highest > 0 and legal.raise_ is None)
    return Situation(
        stack=state.stacks[seat], big_blind=structure.opening_minimum, structure=structure.kind,
        facing_to=state.highest, committed=state.bets[seat],
        last_full_raise=state.full_increment if state.highest else 0,
        pot=state.pot_total + state.phantom, raise_open=raise_open,
        unit=structure.unit(state.late) if structure.kind == FIXED_LIMIT else None,
        opponents=opponents)


def _asks_for_change(words: str) -> bool:
    """Over-betting expecting change (TDA 2024 61): words that only ask for change are no
    declaration; the chips decide as if pushed silently."""
    return re.search(r"\bchange\b", words.lower()) is not None


def _reasonable(amount: Amount, situation: Situation) -> Amount:
    """TDA 2024 57: an amount whose unit is unclear ("five" at 200-400) is the highest
    reasonable amount not above the pot (bets in front included): the digits said times a
    power of ten, at least the minimum. With none up to the pot, the smallest that
    reaches the minimum."""
    pot = situation.pot if situation.pot is not None else 0
    total = amount
    while total < situation.min_to:
        total *= 10
    while total * 10 <= pot:
        total *= 10
    return total


# ---------------------------------------------------------------- the ruling


def _settle(situation: Situation, pushed: int, to: Amount) -> tuple[Amount, Amount, Amount]:
    """(to, returned, must_add) for a ruled total: what is out beyond it returns, what is
    missing the player adds; never past their all-in."""
    to = min(to, situation.all_in_to)
    reach = situation.in_front + pushed
    return to, max(0, reach - to), max(0, to - reach)


def _answer(situation: Situation, pushed: int, interpretation: str, to: Amount, code: str,
            detail: str) -> Ruling:
    ruled = to
    to, returned, must_add = _settle(situation, pushed, to)
    if interpretation == "call" and to < ruled:
        interpretation, detail = "all_in", f"{detail}; {_all_in_words(to)}"
    if interpretation in ("bet", "raise") and to == situation.all_in_to and to > situation.facing_to:
        interpretation = "all_in"
    return Ruling(interpretation, to, returned, must_add, cite(code), detail)


def _all_in_words(all_in_to: Amount) -> str:
    """Said when a ruled total is more than the player has: the detail's own number would
    otherwise contradict the answer's `to`."""
    return f"all the player has makes {all_in_to:,}: all-in for {all_in_to:,}"


def _floor(situation: Situation, pushed: int, code: str, detail: str) -> Ruling:
    """The floor decides; nothing moves until it does (the chips stay where they are)."""
    return Ruling("floor_decision", situation.in_front + pushed, 0, 0, cite(code), detail)


def _call(situation: Situation, pushed: int, code: str, detail: str) -> Ruling:
    if situation.to_call == 0:
        return _answer(situation, pushed, "check", situation.committed, code, detail)
    return _answer(situation, pushed, "call", situation.facing_to, code, detail)


def _bet_or_raise(situation: Situation, pushed: int, to: Amount, code: str, detail: str) -> Ruling:
    """A bet or raise to `to`, made at least the minimum (TDA 2024 43) and at most what the
    structure allows (pot limit: the pot; fixed limit: the one amount)."""
    if situation.all_in_to <= situation.facing_to:
        return _answer(situation, pushed, "all_in", situation.all_in_to, code,
                       f"{detail}; all the player has, {situation.all_in_to:,}, does not raise")
    if situation.to_call > 0 and not situation.raise_open:
        return _call(situation, pushed, "chips_not_reopened",
                     f"{detail}; but raising is closed to this player (an incomplete raise "
                     f"did not reopen the betting): a call of {situation.facing_to:,}")
    to = max(to, situation.min_to)
    if situation.structure == FIXED_LIMIT:
        to = situation.max_to
    if to > situation.max_to:
        beyond = (_all_in_words(situation.max_to) if situation.max_to == situation.all_in_to
                  else f"the pot limit allows at most {situation.max_to:,}")
        detail = f"{detail}; {beyond}"
    to = min(to, situation.max_to)
    interpretation = "raise" if situation.facing_to > 0 else "bet"
    return _answer(situation, pushed, interpretation, to, code, detail)


def interpret(situation: Situation, chips: Iterable[int] = (), said: str | None = None,
              order: str | None = None) -> Ruling:
    """The action made of chips pushed in one motion and words said (declarations.md)."""
    chips = tuple(chips)
    pushed = sum(chips)
    if any(chip < 1 for chip in chips):
        raise _invalid("every chip pushed is worth at least 1")
    if pushed > situation.stack:
        raise _invalid(f"chips pushed {pushed:,} are more than the stack {situation.stack:,}",
                       pushed=pushed, stack=situation.stack)
    words = said.strip() if said else ""
    if words and chips and situation.rules == ROBERTS:
        spoken = declaration(words)
        if spoken is not None and spoken.amount is not None:
            ruled = _words(situation, chips, spoken, words, order)
            return Ruling(ruled.interpretation, ruled.to, ruled.returned, ruled.must_add,
                          cite("spoken_amount_wins"), f"{ruled.detail} (the cash-game rule: the spoken "
                          f"amount wins over the chips; {ruled.rule})")
    if words and chips:
        if order is None:
            return _floor(situation, pushed, "declaration_unclear",
                          f"'{words}' was said and {pushed:,} pushed, and nobody says which came first: "
                          "the floor decides")
        if order == "chips_first":
            return _chips(situation, chips)
    if words:
        if _asks_for_change(words) and chips:
            ruled = _chips(situation, chips, note=f"'{words}': expecting change does not make it a call")
            return Ruling(ruled.interpretation, ruled.to, ruled.returned, ruled.must_add,
                          cite("over_bet_change"), f"{ruled.detail} ({ruled.rule})")
        spoken = declaration(words)
        if spoken is None:
            if chips and order == "simultaneous":
                return _chips(situation, chips, note=f"'{words}' is not a clear declaration, so the chips play")
            return _floor(situation, pushed, "declaration_unclear",
                          f"'{words}' is not a declaration the rules know: the floor decides")
        return _words(situation, chips, spoken, words, order)
    return _chips(situation, chips)


def _chips(situation: Situation, chips: tuple[int, ...], note: str = "",
           raise_said: str = "") -> Ruling:
    """A silent push (TDA 2024 44, 45, 46, 51-B, 61); `raise_said`, when "raise" was said
    with no amount, how it came ("said first" or "said with the chips")."""
    pushed = sum(chips)
    reach = situation.in_front + pushed
    prefix = f"{note}; " if note else ""
    prior = situation.prior_chips > 0
    if not chips:
        raise _invalid("nothing was pushed and nothing said")
    last = pushed == situation.stack
    if situation.to_call > 0 and reach < situation.facing_to:
        return _undercall(situation, pushed, pushed, prefix, "undercall")
    if situation.to_call == 0:
        if len(chips) == 1:
            detail = (f"{prefix}one {chips[0]:,} chip with nothing to call: a bet of the most the chip "
                      f"allows")
            return _bet_or_raise(situation, pushed, reach, "single_chip_bet", detail)
        return _bet_or_raise(situation, pushed, reach, "chips_bet",
                             f"{prefix}{pushed:,} pushed with nothing to call: a bet of {pushed:,}")
    # TDA 2024 46-C-2: when the chips already out cover the call, the combined bet is
    # judged by the 50% standard alone (no single-chip call, no "every chip needed").
    covered = prior and situation.prior_chips >= situation.facing_to
    if len(chips) == 1 and not raise_said and not covered:
        code = "chips_already_out" if prior else "single_chip_call"
        return _call(situation, pushed, code,
                     f"{prefix}one {chips[0]:,} chip facing a bet of {situation.facing_to:,} with no "
                     f"raise declared: a call")
    if raise_said:
        code = "raise_with_chips" if len(chips) == 1 else "raise_with_several_chips"
        return _bet_or_raise(situation, pushed, reach, code,
                             f"{prefix}'raise' {raise_said}: a raise to the {reach:,} pushed, "
                             "at least the minimum")
    smallest = min(chips)
    if reach - smallest < situation.facing_to and not covered:
        code = "chips_already_out" if prior else "chips_all_needed"
        out = f" with the {situation.in_front:,} already out" if situation.in_front else ""
        return _call(situation, pushed, code,
                     f"{prefix}every chip was needed to call {situation.facing_to:,}{out}: removing "
                     f"the {smallest:,} leaves {reach - smallest:,}")
    raised_by = reach - situation.facing_to
    half = situation.increment
    if last:
        detail = f"{prefix}the player's last chips, {reach:,} in all"
        if not situation.raise_open:
            return _call(situation, pushed, "chips_not_reopened",
                         f"{detail}; raising is closed to this player: a call of {situation.facing_to:,}")
        if raised_by * 2 < half:
            detail += f": an all-in although {raised_by:,} is below half the last full raise of {half:,}"
        return _answer(situation, pushed, "all_in", min(reach, situation.max_to), "last_chips_all_in", detail)
    code = "chips_already_out" if prior else "chips_fifty_percent"
    if raised_by * 2 >= half:
        return _bet_or_raise(situation, pushed, reach, code,
                             f"{prefix}{reach:,} reaches the call of {situation.facing_to:,} plus "
                             f"{raised_by:,}, at least half the last full raise of {half:,}: a raise, "
                             "made a full raise")
    return _call(situation, pushed, code,
                 f"{prefix}{reach:,} is the call of {situation.facing_to:,} plus {raised_by:,}, less "
                 f"than half the last full raise of {half:,}: a call, the rest returns")


def _undercall(situation: Situation, pushed: int, amount: Amount, prefix: str, code: str) -> Ruling:
    """Less than the call (TDA 2024 51-B): the last chips are an all-in; otherwise a full
    call heads-up or facing the round's opening bet, else the floor's decision. `amount`
    is what counts as pushed (a bare amount said counts as pushed, TDA 2024 40-C)."""
    reach = situation.in_front + amount
    if amount == situation.stack:
        return _answer(situation, pushed, "all_in", reach, code,
                       f"{prefix}the player's last chips, {reach:,}, less than the {situation.facing_to:,} "
                       "to call: all-in for less")
    if situation.opponents == 1 or situation.facing_opening_bet:
        where = "heads-up" if situation.opponents == 1 else "facing the opening bet"
        return _call(situation, pushed, code,
                     f"{prefix}{reach:,} is less than the {situation.facing_to:,} to call; {where} an "
                     "undercall is a full call")
    return _floor(situation, pushed, "undercall_floor",
                  f"{prefix}{reach:,} is less than the {situation.facing_to:,} to call, multi-way "
                  "facing a raise: the floor decides")


def _words(situation: Situation, chips: tuple[int, ...], spoken: Declaration, words: str,
           order: str | None) -> Ruling:
    """A verbal declaration (TDA 2024 40, 43-B, 54-D, 57); the chips only settle returns
    and what must be added."""
    pushed = sum(chips)
    action = spoken.action
    quoted = f"'{words}'"
    if action == "fold":
        return _answer(situation, pushed, "fold", situation.committed, "verbal_binding",
                       f"{quoted} in turn is binding: a fold")
    if action == "check":
        if situation.to_call > 0:
            return _floor(situation, pushed, "declaration_unclear",
                          f"{quoted} facing a bet of {situation.facing_to:,} is not an action: the floor decides")
        return _answer(situation, pushed, "check", situation.committed, "verbal_binding",
                       f"{quoted} in turn is binding: a check")
    if action == "call":
        if situation.to_call == 0:
            return _answer(situation, pushed, "check", situation.committed, "verbal_binding",
                           f"{quoted} with nothing to call: a check")
        return _answer(situation, pushed, "call", situation.facing_to, "verbal_binding",
                       f"{quoted} in turn is binding: a call of {situation.facing_to:,}")
    if action == "all_in":
        return _bet_or_raise(situation, pushed, situation.max_to, "verbal_binding",
                             f"{quoted}: all-in, as much as the structure allows, {situation.max_to:,}")
    if action == "pot":
        return _pot(situation, pushed, quoted)
    if action == "amount":
        named = spoken.amount or 0
        if named < situation.big_blind:
            return _bet_five(situation, pushed, named, quoted)
        return _spoken_push(situation, pushed, named, quoted)
    amount = spoken.amount
    if amount is None:
        # "raise" or "bet" with no amount: the chips say how much (TDA 2024 44: a single
        # oversized chip is then the largest raise it allows).
        if chips:
            said = "said with the chips" if order == "simultaneous" else "said first"
            return _chips(situation, chips, raise_said=said if situation.to_call > 0 else "")
        return _bet_or_raise(situation, pushed, situation.min_to, "verbal_binding",
                             f"{quoted} with no amount binds a bet or raise of at least the minimum, "
                             f"{situation.min_to:,}")
    if amount < situation.big_blind and not spoken.by:
        return _bet_five(situation, pushed, amount, quoted)
    if spoken.by:
        return _spoken_bet(situation, pushed, situation.facing_to + amount, "raise_amount",
                           f"{quoted}: a raise of {amount:,} over {situation.facing_to:,}")
    return _spoken_bet(situation, pushed, amount, "raise_amount",
                       f"{quoted}: a {action} states the total, {amount:,}, unless 'raise by' is said")


def _bet_five(situation: Situation, pushed: int, amount: Amount, quoted: str) -> Ruling:
    total = _reasonable(amount, situation)
    return _spoken_bet(situation, pushed, total, "bet_five",
                       f"{quoted}: the unit is unclear, so the highest reasonable amount not above "
                       f"the pot of {situation.pot or 0:,}: {total:,}")


def _spoken_bet(situation: Situation, pushed: int, to: Amount, code: str, detail: str) -> Ruling:
    if to < situation.min_to <= situation.all_in_to:
        detail = f"{detail}; below the minimum, so made the minimum, {situation.min_to:,}"
    return _bet_or_raise(situation, pushed, to, code, detail)


def _spoken_push(situation: Situation, pushed: int, amount: Amount, quoted: str) -> Ruling:
    """TDA 2024 40-C: a bare amount said is the same as silently pushing that amount. No
    denominations were said, so one chip can always go: the 50% standard decides."""
    if amount > situation.stack:
        amount = situation.stack
    reach = situation.in_front + amount
    detail = f"{quoted} is the same as pushing {amount:,} silently"
    if situation.to_call == 0:
        return _bet_or_raise(situation, pushed, reach, "bare_amount", f"{detail}: a bet")
    if reach < situation.facing_to:
        return _undercall(situation, pushed, amount, f"{detail}; ", "bare_amount")
    raised_by = reach - situation.facing_to
    if raised_by * 2 >= situation.increment and raised_by > 0:
        return _bet_or_raise(situation, pushed, reach, "bare_amount",
                             f"{detail}: {raised_by:,} over the call is at least half the last full "
                             f"raise of {situation.increment:,}, so a raise, made a full raise")
    return _call(situation, pushed, "bare_amount",
                 f"{detail}: less than half a raise over the call, so a call of {situation.facing_to:,}")


def _pot(situation: Situation, pushed: int, quoted: str) -> Ruling:
    """"Pot" (TDA 2024 54-D): pot limit, the maximum; no limit, binds a valid bet or raise
    (the minimum unless the chips say more); fixed limit, the one amount."""
    if situation.structure == POT_LIMIT:
        call = situation.to_call
        limit = situation.pot_limit_max
        assert situation.pot is not None  # pot_limit_max has checked it: a pot-limit situation names its pot
        arithmetic = (f"pot {situation.pot:,} + call {call:,} = {situation.pot + call:,}: "
                      f"{'raise' if situation.facing_to else 'bet'} to at most {limit:,}")
        return _bet_or_raise(situation, pushed, limit, "pot_pot_limit", f"{quoted} in pot limit: {arithmetic}")
    if situation.structure == FIXED_LIMIT:
        return _bet_or_raise(situation, pushed, situation.max_to, "pot_fixed_limit",
                             f"{quoted} in fixed limit: the one amount allowed, {situation.max_to:,}")
    reach = situation.in_front + pushed
    return _bet_or_raise(situation, pushed, max(reach, situation.min_to), "pot_no_limit",
                         f"{quoted} is not an amount in no limit but binds a valid "
                         f"{'raise' if situation.facing_to else 'bet'}: at least {situation.min_to:,}")


# ---------------------------------------------------------------- at a table


@dataclass(frozen=True)
class Pushed:
    """What the floor saw at a table: chips pushed in one motion, words said, which first."""
    chips: tuple[int, ...] = ()
    said: str | None = None
    order: str | None = None


@dataclass(frozen=True)
class ChipsRuled:
    """What a player pushed and said, beside what it was ruled to be (the betting event
    that follows is the ruled action)."""
    hand_id: str
    seat: int
    player_id: str
    chips: tuple[int, ...]
    said: str | None
    order: str | None = field(metadata=PUBLIC)
    ruling: Ruling


def ruled_action(betting: BettingState, seat: int, pushed: Pushed) -> tuple[Ruling, str, Amount | None]:
    """The ruling for the seat to act and the betting action it makes (action, to). A
    floor decision is no action: it is refused with the rule, and nothing is written
    until the floor enters what it decided."""
    if betting.to_act != seat:
        raise Violation("not_your_turn", "chips and words are ruled for the player to act only",
                        numbers={"seat": seat})
    found = interpret(situation_from_betting(betting, seat), pushed.chips, pushed.said, pushed.order)
    if found.interpretation == "floor_decision":
        raise Violation("floor_decision", found.detail, found.rule, {"to": found.to})
    action = found.interpretation
    if action == "all_in":
        if betting.highest == 0:
            action = "bet"
        elif found.to <= betting.highest:
            action = "call"
        else:
            action = "raise"
    to = found.to if action in ("bet", "raise") else None
    return found, action, to
