"""The showdown at a live hold'em table, as the TDA 2024 rules and declarations.md say it:

- 16: "When a player is all-in and all betting action by all other players in the hand is
  complete, all hands are tabled face up" (before the rest of the board); nobody mucks.
- 17: "the last aggressor on the final betting round must table first"; with no bet on it,
  the first player left of the button; the others follow clockwise, showing or mucking;
  17-B: when all others muck, the last live hand wins without showing.
- 18-B: after a river bet, a caller who has kept their cards may ask to see the last
  aggressor's hand; asking for any other hand is the floor's call.
"""
from __future__ import annotations

import pytest

from domain.games import holdem
from domain.games.hand_events import PotAwarded
from domain.games.holdem import AskToSee, BoardDealt, CardsMucked, CardsShown, HandEnded, Muck, PostAction, ShowAsked, ShowCards, StartHand
from domain.rules.betting import BettingStructure
from domain.rules.cards import deck_texts
from domain.rules.violations import Violation

NL = BettingStructure("no-limit", small_blind=50, big_blind=100)
BUTTON = 0


def live_deck(hole: list[str], board: str) -> tuple[str, ...]:
    """A deck that deals `hole[k]` to the k-th seat left of the button and `board` (burning
    one card before each street), the rest of the pack after."""
    cards = lambda text: [text[i:i + 2] for i in range(0, len(text), 2)]  # noqa: E731
    wanted = [c for h in hole for c in cards(h)] + cards(board)
    spare = [c for c in deck_texts() if c not in wanted]
    b = cards(board)
    order = [c for h in hole for c in cards(h)]
    order += [spare.pop(), *b[:3], spare.pop(), b[3], spare.pop(), b[4]]
    return tuple(order + spare)


class Hand:
    """A live hand: three players A (button), B, C; B gets hole[0], C hole[1], A hole[2]."""

    def __init__(self, hole: list[str], board: str, *, stacks=(1000, 1000, 1000),
                 showdown: str = holdem.DECLARED, players=("A", "B", "C")):
        self.events, self.state = holdem.handle(None, StartHand(
            players, stacks, BUTTON, NL, deck=live_deck(hole, board), commitment="c", showdown=showdown))
        self.position = {name: k for k, name in enumerate(players)}

    def __call__(self, command):
        events, self.state = holdem.handle(self.state, command)
        self.events.extend(events)
        return events

    def act(self, name: str, action: str, to: int | None = None):
        return self(PostAction(self.position[name], action, to))

    def check_down(self):
        """Check (or call) every street to the river showdown."""
        while self.state.betting.to_act is not None:
            seat = self.state.betting.to_act
            owed = self.state.betting.highest - self.state.betting.bets[seat]
            self(PostAction(seat, "call" if owed else "check"))

    def name(self, seat: int) -> str:
        return self.state.players[seat]


# B: Ah Ad (aces), C: Kh Kd (kings), A: 7c 2d (nothing); board gives nobody more.
HOLE = ["AhAd", "KhKd", "7c2d"]
BOARD = "3s8s9hJcQd"


def test_all_in_with_the_betting_over_every_hand_is_tabled_face_up_before_the_flop_tda_16():
    hand = Hand(HOLE, BOARD, stacks=(1000, 300, 1000))
    hand.act("A", "fold")
    hand.act("B", "raise", 300)  # B is all in
    events = hand.act("C", "call")
    shown = [e for e in events if isinstance(e, CardsShown)]
    first_board = next(i for i, e in enumerate(events) if isinstance(e, BoardDealt))
    assert {(hand.name(e.position), e.cards) for e in shown} == {("B", "AhAd"), ("C", "KhKd")}
    assert all(events.index(e) < first_board for e in shown), "tabled before the rest of the board"
    assert not any(isinstance(e, CardsMucked) for e in events), "nobody may muck"
    assert hand.state.over


def test_hands_are_tabled_only_once_every_other_players_betting_is_over_tda_16():
    hand = Hand(HOLE, BOARD, stacks=(1000, 1000, 1000))
    hand.act("A", "fold")
    hand.act("B", "call")
    hand.act("C", "check")
    hand.act("B", "check")  # flop
    hand.act("C", "bet", 200)
    events = hand.act("B", "raise", 900)  # B all in, C may still call: no tabling yet
    assert not any(isinstance(e, CardsShown) for e in events)
    events = hand.act("C", "call")  # now C is all in too
    assert {hand.name(e.position) for e in events if isinstance(e, CardsShown)} == {"B", "C"}


def river_bet_called_three_ways() -> Hand:
    """C bets the river; A and B call."""
    hand = Hand(HOLE, BOARD)
    hand.act("A", "call")
    hand.act("B", "call")
    hand.act("C", "check")
    for _ in range(2):  # flop and turn checked through
        for name in ("B", "C", "A"):
            hand.act(name, "check")
    hand.act("B", "check")
    hand.act("C", "bet", 300)
    hand.act("A", "call")
    hand.act("B", "call")
    return hand


def checked_down_heads_up(hole=HOLE, showdown=holdem.DECLARED) -> Hand:
    """A folds; B and C check every street to the river showdown."""
    hand = Hand(hole, BOARD, showdown=showdown)
    hand.act("A", "fold")
    hand.act("B", "call")
    hand.act("C", "check")
    hand.check_down()
    return hand


def test_the_last_aggressor_of_the_river_shows_first_tda_17():
    hand = river_bet_called_three_ways()
    assert hand.state.awaiting == "showdown" and hand.name(hand.state.to_act) == "C"
    with pytest.raises(Violation) as refused:
        hand(ShowCards(hand.position["B"]))
    assert refused.value.code == "not_your_turn_to_show" and refused.value.rule == "TDA 2024 17"
    hand(ShowCards(hand.position["C"]))
    assert [hand.name(s) for s in hand.state.show_order] == ["C", "A", "B"], "then clockwise"
    assert hand.name(hand.state.to_act) == "A"


def test_with_no_bet_on_the_river_the_first_player_left_of_the_button_shows_first_tda_17():
    hand = Hand(HOLE, BOARD)
    hand.act("A", "call")
    hand.act("B", "call")
    hand.act("C", "check")
    hand.check_down()
    assert hand.name(hand.state.to_act) == "B"


def test_a_beaten_hand_may_be_mucked_and_stays_unshown_and_the_shown_hand_wins_tda_17():
    hand = checked_down_heads_up()
    hand(ShowCards(hand.position["B"]))  # aces
    events = hand(Muck(hand.position["C"]))  # kings: beaten, mucked
    assert events[0] == CardsMucked(hand.position["C"])
    assert not any(isinstance(e, CardsShown) and e.position == hand.position["C"] for e in hand.events)
    awarded = [e for e in events if isinstance(e, PotAwarded)]
    assert [hand.name(s) for a in awarded for s in a.winners] == ["B"]
    assert isinstance(events[-1], HandEnded) and events[-1].showdown


def test_when_every_other_hand_is_mucked_the_last_live_hand_wins_without_showing_tda_17_b():
    hand = checked_down_heads_up()
    events = hand(Muck(hand.position["B"]))  # the aces concede without showing
    assert not any(isinstance(e, CardsShown) for e in hand.events)
    awarded = [e for e in events if isinstance(e, PotAwarded)]
    assert [hand.name(s) for a in awarded for s in a.winners] == ["C"], "the kings win unshown"
    assert hand.state.over


def test_a_caller_may_ask_to_see_the_last_aggressors_hand_after_a_river_bet_tda_18_b():
    hand = river_bet_called_three_ways()
    events = hand(AskToSee(hand.position["B"]))
    assert events[:2] == [ShowAsked(hand.position["B"], hand.position["C"]), CardsShown(hand.position["C"], "KhKd")]
    assert hand.name(hand.state.to_act) == "A", "the order of show goes on after the aggressor"


def test_the_aggressors_mucked_hand_is_tabled_when_a_caller_asks_but_stays_dead_tda_18_b():
    hand = river_bet_called_three_ways()
    hand(Muck(hand.position["C"]))
    hand(AskToSee(hand.position["B"]))
    assert hand.state.shown[hand.position["C"]] and hand.state.mucked[hand.position["C"]]
    hand(ShowCards(hand.position["A"]))
    events = hand(ShowCards(hand.position["B"]))
    awarded = [e for e in events if isinstance(e, PotAwarded)]
    assert [hand.name(s) for a in awarded for s in a.winners] == ["B"]


def test_asking_to_see_without_a_river_bet_is_the_floors_decision_tda_18():
    hand = checked_down_heads_up()
    with pytest.raises(Violation) as refused:
        hand(AskToSee(hand.position["C"]))
    assert refused.value.code == "no_right_to_see" and refused.value.rule == "TDA 2024 18"


def test_the_aggressor_and_a_player_who_mucked_may_not_ask_to_see_tda_18_b():
    hand = river_bet_called_three_ways()
    with pytest.raises(Violation) as refused:
        hand(AskToSee(hand.position["C"]))
    assert refused.value.code == "no_right_to_see" and refused.value.rule == "TDA 2024 18-B"
    hand(ShowCards(hand.position["C"]))
    hand(Muck(hand.position["A"]))
    with pytest.raises(Violation) as refused:
        hand(AskToSee(hand.position["A"]))
    assert refused.value.code == "no_right_to_see"


def test_an_automatic_showdown_shows_in_order_and_mucks_the_beaten_hand():
    hand = checked_down_heads_up(["KhKd", "AhAd", "7c2d"], holdem.AUTOMATIC)
    decided = [(type(e).__name__, hand.name(e.position)) for e in hand.events
               if isinstance(e, (CardsShown, CardsMucked))]
    assert decided == [("CardsShown", "B"), ("CardsShown", "C")], "kings first, then the aces that beat them"
    hand = checked_down_heads_up(showdown=holdem.AUTOMATIC)
    decided = [(type(e).__name__, hand.name(e.position)) for e in hand.events
               if isinstance(e, (CardsShown, CardsMucked))]
    assert decided == [("CardsShown", "B"), ("CardsMucked", "C")], "the beaten kings are mucked"
