"""The mixed games' own rules, as the rule books state them: the stud bring-in and openers,
the open pair, completing, split pots with their odd chips, draws and the short deck's
button blind. Hands are played through domain.games.mixed with named cards."""
from __future__ import annotations

import pytest

from domain.games import draw_family, mixed, stud
from domain.games.dealt_hand import MixedState
from domain.games.hand_events import PostAction
from domain.rules.betting import FIXED_LIMIT, NO_LIMIT, BettingStructure
from domain.rules.cards import parse_cards
from domain.rules.pots import LEFT_OF_BUTTON, Pot
from domain.rules.split_pots import award_high_low
from domain.rules.violations import Violation


def c(text: str) -> int:
    return parse_cards(text)[0]


# ---------------------------------------------------------------- bring-in and openers


def test_stud_the_lowest_up_card_brings_it_in_clubs_lowest_on_equal_ranks() -> None:
    # Robert's Rules, seven-card stud 1: "the lowest upcard by suit starts the action";
    # suits rank clubs, diamonds, hearts, spades from the lowest.
    assert stud.bring_in_seat([c("2d"), c("2c"), c("Ks")], razz=False) == 1
    assert stud.bring_in_seat([c("2s"), c("2h"), c("3c")], razz=False) == 1
    assert stud.bring_in_seat([c("As"), c("Kc"), c("Qd")], razz=False) == 2  # the ace is high


def test_razz_the_highest_up_card_brings_it_in_the_ace_is_low() -> None:
    assert stud.bring_in_seat([c("Kd"), c("Ks"), c("As")], razz=True) == 1  # spades highest
    assert stud.bring_in_seat([c("As"), c("2c"), c("3d")], razz=True) == 2


def test_two_pair_showing_opens_before_a_higher_single_pair() -> None:
    # Found by a live table's PHH export that PokerKit read differently: 5-5-3-3 showing
    # is the best hand against T-T-6-5 (the shape before the ranks).
    ups = [(c("3c"), c("3s"), c("5d"), c("5c")), (c("Ts"), c("Tc"), c("6c"), c("5s"))]
    assert stud.opener_seat(ups, razz=False) == 0
    # Razz: one pair is lower than two pair, whatever the ranks.
    razz_ups = [(c("Kc"), c("Kd"), c("Qh"), c("Js")), (c("2c"), c("2d"), c("3h"), c("3s"))]
    assert stud.opener_seat(razz_ups, razz=True) == 0


def test_an_unknown_up_card_leaves_the_bring_in_to_the_record() -> None:
    assert stud.bring_in_seat([c("2d"), None, c("Ks")], razz=False) is None


def test_later_streets_are_opened_by_the_best_hand_showing() -> None:
    ups = [(c("Ah"), c("Kd")), (c("3c"), c("3d")), None]
    assert stud.opener_seat(ups, razz=False) == 1  # a pair beats ace-king
    # Razz: the lowest hand, pairs count against; equal hands: the first from the left.
    razz_ups = [(c("3c"), c("3d")), (c("7h"), c("5d")), (c("7s"), c("5c"))]
    assert stud.opener_seat(razz_ups, razz=True) == 1


def test_an_open_pair_on_fourth_street_is_any_pair_showing_among_live_hands() -> None:
    assert stud.open_pair([(c("9c"), c("9d")), (c("Ah"), c("Kd"))])
    assert not stud.open_pair([None, (c("Ah"), c("Kd"))])


# ---------------------------------------------------------------- playing stud hands


def _stud_hand(game: str = "stud", stacks=(1000, 1000, 1000)) -> MixedState:
    structure = BettingStructure(kind=FIXED_LIMIT, small_bet=20, big_bet=40, raise_cap=4)
    n = len(stacks)
    _, state = mixed.handle(None, mixed.StartHand(
        game, tuple(f"p{i}" for i in range(n)), tuple(stacks), n - 1, structure,
        antes=(2,) * n, blinds=(0,) * n, bring_in=5))
    return state


def _play(state: MixedState, *commands) -> MixedState:
    for command in commands:
        _, state = mixed.handle(state, command)
    return state


def test_the_bring_in_player_acts_first_and_may_complete_instead() -> None:
    state = _play(_stud_hand(), mixed.DealCards(0, "AhKh9c"), mixed.DealCards(1, "QdJd2c"),
                  mixed.DealCards(2, "7s6s8d"))
    assert state.to_act == 1  # the deuce of clubs
    completed = _play(state, PostAction(1, "bet", 20))
    assert completed.betting.highest == 20 and completed.to_act == 2
    posted = _play(state, PostAction(1, "bring_in"))
    assert posted.betting.bets[1] == 5 and posted.to_act == 2
    # After the bring-in the next player completes to the small bet, not to 5 + 20.
    raised = _play(posted, PostAction(2, "raise", 20))
    assert raised.betting.highest == 20
    with pytest.raises(Violation) as refused:
        mixed.handle(posted, PostAction(2, "raise", 25))
    assert refused.value.code == "wrong_fixed_amount"


def test_when_everyone_calls_the_bring_in_the_street_ends_without_an_option() -> None:
    state = _play(_stud_hand(), mixed.DealCards(0, "AhKh9c"), mixed.DealCards(1, "QdJd2c"),
                  mixed.DealCards(2, "7s6s8d"), PostAction(1, "bring_in"),
                  PostAction(2, "call"), PostAction(0, "call"))
    assert state.phase == "deal" and state.street == 1


def _fourth_street(fourth: tuple[str, str, str] = ("9d", "3c", "Tc"), game: str = "stud") -> MixedState:
    """Third street dealt AhKh9c, QdJd2c, 7s6s8d, brought in and called round; `fourth` dealt."""
    return _play(_stud_hand(game), mixed.DealCards(0, "AhKh9c"), mixed.DealCards(1, "QdJd2c"),
                 mixed.DealCards(2, "7s6s8d"), PostAction(1, "bring_in"),
                 PostAction(2, "call"), PostAction(0, "call"),
                 *(mixed.DealCards(seat, card) for seat, card in enumerate(fourth)))


def test_fourth_street_with_an_open_pair_allows_the_big_bet_and_raises_follow_it() -> None:
    state = _fourth_street()
    assert state.to_act == 0  # nines showing open
    big = _play(state, PostAction(0, "bet", 40))
    assert big.betting.highest == 40
    assert _play(big, PostAction(1, "raise", 80)).betting.highest == 80


def test_a_bet_naming_no_amount_on_fourth_street_is_refused_as_a_rule_not_a_crash() -> None:
    state = _fourth_street()
    with pytest.raises(Violation) as refused:
        mixed.handle(state, PostAction(0, "bet"))
    assert refused.value.code == "illegal_action"


def test_fourth_street_without_an_open_pair_keeps_the_small_bet() -> None:
    state = _fourth_street(("Td", "3c", "4c"))
    with pytest.raises(Violation) as refused:
        mixed.handle(state, PostAction(state.to_act, "bet", 40))
    assert refused.value.code == "wrong_fixed_amount"


def test_stud_hi_lo_has_no_open_pair_option() -> None:
    state = _fourth_street(game="stud_hi_lo")
    with pytest.raises(Violation):
        mixed.handle(state, PostAction(0, "bet", 40))


# ---------------------------------------------------------------- split pots


def test_the_odd_chip_of_a_split_pot_goes_to_the_high_half() -> None:
    # TDA 2024 rule 20: in split-pot games the odd chip goes to the high hand.
    awards = award_high_low([Pot(101, (0, 1))], {0: 9, 1: 5}, {1: 7}, 1, 2, LEFT_OF_BUTTON)
    assert [(a.amount, a.winners, a.shares) for a in awards] == [(51, (0,), (51,)), (50, (1,), (50,))]


def test_equal_lows_quarter_the_pot() -> None:
    awards = award_high_low([Pot(400, (0, 1, 2))], {0: 9, 1: 5, 2: 5}, {1: 7, 2: 7}, 2, 3,
                            LEFT_OF_BUTTON)
    assert [(a.winners, a.shares) for a in awards] == [((0,), (200,)), ((1, 2), (100, 100))]


def test_one_hand_best_both_ways_scoops() -> None:
    awards = award_high_low([Pot(300, (0, 1))], {0: 9, 1: 5}, {0: 8, 1: 7}, 1, 2, LEFT_OF_BUTTON)
    assert {w for a in awards for w in a.winners} == {0}
    assert sum(a.amount for a in awards) == 300


def test_in_stud_an_odd_chip_between_equal_hands_goes_to_the_highest_card_by_suit() -> None:
    # TDA 2024 rule 20: in stud games the odd chip goes to the high card by suit.
    def order(seats):
        return sorted(seats, key={0: 1, 1: 2}.get, reverse=True)
    awards = award_high_low([Pot(101, (0, 1))], {0: 9, 1: 9}, {}, 1, 2, LEFT_OF_BUTTON, order)
    assert awards[0].winners == (1, 0) and awards[0].shares == (51, 50)


# ---------------------------------------------------------------- draws and blinds


def _draw_hand(game: str, structure: BettingStructure, stacks=(1000, 1000, 1000)):
    n = len(stacks)
    _, state = mixed.handle(None, mixed.StartHand(
        game, tuple(f"p{i}" for i in range(n)), tuple(stacks), n - 1, structure,
        antes=(0,) * n, blinds=(5, 10) + (0,) * (n - 2)))
    return state


def test_draws_go_in_order_from_the_button_left_and_replace_as_many_cards() -> None:
    structure = BettingStructure(kind=FIXED_LIMIT, small_bet=10, big_bet=20, big_blind=10)
    state = _play(_draw_hand("deuce_seven_triple_draw", structure),
                  mixed.DealCards(0, "7h6c4c3d2c"), mixed.DealCards(1, "AsQs6s5c3c"),
                  mixed.DealCards(2, "KdKc8c7d7s"), PostAction(2, "call"),
                  PostAction(0, "call"), PostAction(1, "check"))
    assert state.phase == "draw" and state.next_to_draw == 0
    with pytest.raises(Violation) as refused:
        mixed.handle(state, draw_family.Discard(1, "AsQs"))
    assert refused.value.code == "not_your_turn"
    state = _play(state, draw_family.Discard(0, ""), draw_family.Discard(1, "AsQs"))
    with pytest.raises(Violation) as refused:
        mixed.handle(state, mixed.DealCards(1, "2h"))
    assert refused.value.code == "invalid_card"
    state = _play(state, mixed.DealCards(1, "2h4d"), draw_family.Discard(2, "KdKc"),
                  mixed.DealCards(2, "9h8h"))
    assert state.phase == "action" and state.street == 1 and state.to_act == 0


def test_nobody_draws_twice_while_the_replacements_are_still_due() -> None:
    structure = BettingStructure(kind=FIXED_LIMIT, small_bet=10, big_bet=20, big_blind=10)
    state = _play(_draw_hand("deuce_seven_triple_draw", structure),
                  mixed.DealCards(0, "7h6c4c3d2c"), mixed.DealCards(1, "AsQs6s5c3c"),
                  mixed.DealCards(2, "KdKc8c7d7s"), PostAction(2, "call"),
                  PostAction(0, "call"), PostAction(1, "check"),
                  draw_family.Discard(0, ""), draw_family.Discard(1, "AsQs"), draw_family.Discard(2, "KdKc"))
    assert state.phase == "draw" and state.next_to_draw is None
    with pytest.raises(Violation) as refused:
        mixed.handle(state, draw_family.Discard(1, ""))
    assert refused.value.code == "illegal_action"


def test_a_button_blind_makes_the_first_seat_act_first() -> None:
    # Short deck as played at Triton: antes from everyone, one blind on the button.
    structure = BettingStructure(kind=NO_LIMIT, min_bet=10, big_blind=10)
    _, state = mixed.handle(None, mixed.StartHand(
        "short_deck", ("a", "b", "c"), (500, 500, 500), 2, structure,
        antes=(10, 10, 10), blinds=(0, 0, 10)))
    state = _play(state, mixed.DealCards(0, "AhKh"), mixed.DealCards(1, "QdJd"),
                  mixed.DealCards(2, "7s6s"))
    assert state.to_act == 0 and state.betting.highest == 10
    with pytest.raises(Violation) as refused:
        mixed.handle(state, mixed.DealCards(0, "5c"))
    assert refused.value.code in ("invalid_card", "illegal_action")


def test_razz_tied_hands_give_the_odd_chip_to_the_highest_card_by_suit() -> None:
    # TDA 2024 rule 20, stud games: the odd chip goes to the highest card by suit. Antes
    # of 1 and a bring-in of 4 called twice make a pot of 15; both wheels tie, and the ten
    # of spades outranks the ten of hearts: 8 to the spades, 7 to the hearts.
    structure = BettingStructure(kind=FIXED_LIMIT, small_bet=20, big_bet=40, raise_cap=4)
    _, state = mixed.handle(None, mixed.StartHand(
        "razz", ("a", "b", "c"), (1000, 1000, 1000), 2, structure, antes=(1, 1, 1),
        blinds=(0, 0, 0), bring_in=4))
    state = _play(state, mixed.DealCards(0, "As2s3s"), mixed.DealCards(1, "Ah2h3h"),
                  mixed.DealCards(2, "KcQcJc"))
    assert state.to_act == 2  # the highest up card brings it in
    state = _play(state, PostAction(2, "bring_in"), PostAction(0, "call"), PostAction(1, "call"),
                  mixed.DealCards(0, "4s"), mixed.DealCards(1, "4h"), mixed.DealCards(2, "Kd"))
    assert state.to_act == 0  # 4-3 showing twice: the first from the dealer's left opens
    state = _play(state, PostAction(0, "check"), PostAction(1, "check"), PostAction(2, "fold"))
    for a_card, b_card in (("5s", "5h"), ("9s", "9h"), ("Ts", "Th")):
        state = _play(state, mixed.DealCards(0, a_card), mixed.DealCards(1, b_card))
        state = _play(state, PostAction(state.to_act, "check"))
        state = _play(state, PostAction(state.to_act, "check"))
    state = _play(state, mixed.SettleShowdown())
    assert [(a.winners, a.shares) for a in state.awards] == [((0, 1), (8, 7))]


def test_when_the_deck_runs_out_seventh_street_is_one_common_card() -> None:
    # Robert's Rules, seven-card stud 8: too few cards for everyone's last card: one card
    # is dealt face up in the center, a common card for every hand.
    state = _stud_hand(stacks=(1000, 1000))
    state = _play(state, mixed.DealCards(0, "AhKh9c"), mixed.DealCards(1, "QdJd2c"),
                  PostAction(1, "bring_in"), PostAction(0, "call"))
    for first, second in (("9d", "3c"), ("4h", "5h"), ("6s", "7s")):
        state = _play(state, mixed.DealCards(0, first), mixed.DealCards(1, second))
        state = _play(state, PostAction(state.to_act, "check"))
        state = _play(state, PostAction(state.to_act, "check"))
    state = _play(state, mixed.DealBoard("9h"))
    state = _play(state, PostAction(state.to_act, "check"))
    state = _play(state, PostAction(state.to_act, "check"), mixed.SettleShowdown())
    assert state.board == (parse_cards("9h")[0],)
    assert state.awards[0].winners == (0,)  # three nines with the common nine
