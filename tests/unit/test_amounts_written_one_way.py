"""One number format (domain.rules.betting.chips): whatever a betting ruling answers, its
words never write an amount of four or more digits without its thousands separated, so a
floor person never reads "your action at 1000 ... 1,400" in one sentence."""
from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.rules.violations import Violation
from domain.rulings.betting import betting_ruling

UNSEPARATED = re.compile(r"(?<![\d,])\d{4,}")
CITATION = re.compile(r"(?:TDA|Robert's Rules)[^(),;]*")
ACTIONS = st.sampled_from(["bet", "raise", "call", "check", "fold"])


def unseparated(words: str) -> list[str]:
    return UNSEPARATED.findall(CITATION.sub("", words))


@settings(max_examples=120, deadline=None)
@given(blind=st.integers(1, 3000), stacks=st.lists(st.integers(1000, 90000), min_size=3, max_size=3),
       opening=st.integers(1, 40000), proposed=ACTIONS, to=st.integers(1, 120000))
def test_a_ruling_writes_every_amount_with_its_thousands_separated(
        blind: int, stacks: list[int], opening: int, proposed: str, to: int) -> None:
    # The button opens for any amount; the small blind proposes anything: legal or not,
    # with the arithmetic of the minimum, the maximum or the stack.
    request = {"game": "holdem", "betting": {"structure": "pot-limit" if to % 2 else "no-limit",
                                             "small_blind": blind, "big_blind": 2 * blind},
               "seats": [{"player": name, "stack": stack} for name, stack in zip(("SB", "BB", "BTN"), stacks)],
               "actions": [{"player": "BTN", "action": "raise", "to": max(opening, 4 * blind)}],
               "proposed": {"player": "SB", "action": proposed,
                            **({"to": to} if proposed in ("bet", "raise") else {})}}
    try:
        answer = betting_ruling(request)
    except Violation as refused:  # the opening raise itself may be refused: its words too
        assert unseparated(refused.detail) == [], refused.detail
        return
    verdict = answer["verdict"]
    assert unseparated(verdict.get("detail") or "") == [], verdict
