"""Stud past eight players: seven-card stud is dealt to at most eight (Robert's Rules), but
histories from nine- and ten-handed games exist. They replay: the players who fold free
the cards, and when the deck runs out on seventh street one common card is dealt face up
for every player still in (Robert's Rules, seven-card stud). A deck that runs out before
seventh street is a clear refusal naming the street and the count, never a failure."""
from __future__ import annotations

import pytest

from domain.games import mixed
from domain.games.hand_events import PostAction
from domain.history.phh import parse
from domain.history.phh_games import replay
from domain.rules.betting import BettingStructure
from domain.rules.violations import Violation

# Nine seats at 5-10, an ante of 1 and a bring-in of 2.
NINE_SEATS = """\
variant = "{variant}"
ante_trimming_status = true
antes = [1, 1, 1, 1, 1, 1, 1, 1, 1]
bring_in = 2
small_bet = 5
big_bet = 10
starting_stacks = [500, 500, 500, 500, 500, 500, 500, 500, 500]
"""

# Nine-handed stud: seven fold on third street; aces full beat a ten-high straight.
NINE_HANDED_STUD = NINE_SEATS.format(variant="F7S") + """\
actions = [
  "d dh p1 AsKsQh", "d dh p2 3d4d9s", "d dh p3 5h6h2c", "d dh p4 7c8cJd", "d dh p5 9hTdTc",
  "d dh p6 2d3sKh", "d dh p7 4s5s8d", "d dh p8 6s7s9d", "d dh p9 2h3hJc",
  "p3 pb", "p4 f", "p5 f", "p6 f", "p7 f", "p8 f", "p9 f", "p1 cc", "p2 f",
  "d dh p1 Ah", "d dh p3 7h", "p1 cc", "p3 cc",
  "d dh p1 Ad", "d dh p3 8h", "p1 cbr 10", "p3 cc",
  "d dh p1 Kd", "d dh p3 9c", "p1 cc", "p3 cc",
  "d dh p1 2s", "d dh p3 Ts", "p1 cc", "p3 cc",
  "p1 sm AsKsQhAhAdKd2s", "p3 sm 5h6h2c7h8h9cTs",
]
finishing_stacks = [520, 499, 487, 499, 499, 499, 499, 499, 499]
"""

# Nine-handed razz: eight players see seventh street, for which 51 cards dealt leave one:
# the common card (`d db 7s`) plays in every hand.
NINE_HANDED_RAZZ_COMMON_CARD = NINE_SEATS.format(variant="FR") + """\
actions = [
  "d dh p1 6hJc9c", "d dh p2 4dQs4c", "d dh p3 2s6c5d", "d dh p4 Ad6s4s", "d dh p5 JdKsTh",
  "d dh p6 Kh8s9h", "d dh p7 7d5s7h", "d dh p8 Qc9d9s", "d dh p9 AhAc3c", "p5 pb", "p6 f",
  "p7 cc", "p8 cc", "p9 cc", "p1 cc", "p2 cc", "p3 cc", "p4 cc", "d dh p1 As", "d dh p2 6d",
  "d dh p3 Tc", "d dh p4 2h", "d dh p5 Js", "d dh p7 Qd", "d dh p8 5c", "d dh p9 Kd", "p4 cc",
  "p5 cc", "p7 cc", "p8 cc", "p9 cc", "p1 cc", "p2 cc", "p3 cc", "d dh p1 8d", "d dh p2 8c",
  "d dh p3 3h", "d dh p4 2d", "d dh p5 5h", "d dh p7 Ts", "d dh p8 Kc", "d dh p9 Jh", "p2 cc",
  "p3 cc", "p4 cc", "p5 cc", "p7 cc", "p8 cc", "p9 cc", "p1 cc", "d dh p1 7c", "d dh p2 3d",
  "d dh p3 Td", "d dh p4 3s", "d dh p5 2c", "d dh p7 Qh", "d dh p8 8h", "d dh p9 4h", "p2 cc",
  "p3 cc", "p4 cc", "p5 cc", "p7 cc", "p8 cc", "p9 cc", "p1 cc", "d db 7s", "p2 cc", "p3 cc",
  "p4 cc", "p5 cc", "p7 cc", "p8 cc", "p9 cc", "p1 cc",
]
players = ["P0", "P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8"]
finishing_stacks = [497, 497, 497, 522, 497, 499, 497, 497, 497]
"""


def test_a_nine_handed_stud_history_replays_to_its_stacks():
    record = parse(NINE_HANDED_STUD)
    assert record.player_count == 9
    assert replay(record).finishing_stacks == record.finishing_stacks == (520, 499, 487, 499, 499, 499, 499,
                                                                          499, 499)


def test_a_nine_handed_razz_history_deals_the_common_card_on_seventh_street_and_replays():
    record = parse(NINE_HANDED_RAZZ_COMMON_CARD)
    result = replay(record)
    assert result.finishing_stacks == record.finishing_stacks
    assert sum(len(a.cards) for a in record.actions if type(a).__name__ == "HoleCardsDealt") + 1 == 52


def test_a_deck_run_out_before_seventh_street_is_refused_with_the_count():
    # Ten-handed, nobody folds: 30 cards on third street, 10 more on fourth and on fifth:
    # sixth street needs 10 of the 2 left.
    cards = iter(f"{rank}{suit}" for rank in "23456789TJQKA" for suit in "shdc")
    structure = BettingStructure(kind="fixed-limit", small_bet=5, big_bet=10, raise_cap=4)
    _, state = mixed.handle(None, mixed.StartHand("stud", tuple(f"P{i}" for i in range(10)), (500,) * 10, 9,
                                                  structure, (1,) * 10, (0,) * 10, bring_in=2))
    with pytest.raises(Violation) as refused:
        while True:
            if state.phase == "deal":
                seat = next(s for s in range(10) if state.due[s])
                dealt = "".join(next(cards) for _ in range(3 if state.street == 0 else 1))
                state = mixed.handle(state, mixed.DealCards(seat, dealt))[1]
            else:
                b = state.betting
                action = "bring_in" if state.bring_in_due else "call" if b.highest > b.bets[b.to_act] else "check"
                state = mixed.handle(state, PostAction(b.to_act, action))[1]
    assert (refused.value.code, refused.value.rule) == ("deck_exhausted", "RRP seven-card stud")
    assert refused.value.numbers == {"players": 10, "needed": 10, "left": 2} and state.street == 3
