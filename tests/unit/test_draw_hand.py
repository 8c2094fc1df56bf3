"""Five-card draw, one hand, as the rule book says it (five-card-draw.md, seeds 000/004):
given a table, when a command, then the events or the violation."""
from __future__ import annotations

from collections.abc import Sequence

import pytest

from domain.games.draw import events as draw_events
from domain.games.draw import legal as draw_legal
from domain.games.draw.commands import Discard, Redeal, StartHand
from domain.games.draw.engine import handle
from domain.games.draw.events import (
    AntesPosted,
    CardsShown,
    DrawBegan,
    HandEnded,
    HoleCardsDealt,
    OpenersShown,
    PlayerDrew,
    PointsScored,
    RedealRequired,
    Redealt,
    SecondRoundBegan,
    StubReshuffled,
)
from domain.games.draw.legal import DrawOptions
from domain.games.draw_settings import DrawSettings
from domain.games.hand_events import CardsMucked, PostAction, PotAwarded, UncalledReturned
from domain.rules.cards import format_card, new_deck, parse_cards
from domain.rules.violations import Violation

DEFAULT = DrawSettings()


def stacked_deck(hands: Sequence[str], button: int, stub: str = "", joker: bool = False) -> tuple[str, ...]:
    """A full deck that deals `hands[seat]` to each seat (one card at a time from the left
    of the dealer; "" for a seat not dealt in), then `stub` on top of the remaining cards."""
    n = len(hands)
    order = [seat for seat in ((button + 1 + k) % n for k in range(n)) if hands[seat]]
    top = [parse_cards(hands[seat])[r] for r in range(5) for seat in order]
    top += parse_cards(stub) if stub else ()
    rest = [c for c in new_deck(with_joker=joker) if c not in top]
    return tuple(format_card(c) for c in top + rest)


class Table:
    """Keeps the events of one hand and the state they replay to."""

    def __init__(self, hands: Sequence[str], settings: DrawSettings = DEFAULT, button: int = 0,
                 stacks: Sequence[int] | None = None, stub: str = "", **start):
        n = len(hands)
        if stacks is None:
            stacks = () if not settings.betting else (settings.starting_chips,) * n
        deck = stacked_deck(hands, button, stub, joker=settings.joker is not None)
        self.events, self.state = handle(None, StartHand(tuple(f"P{i}" for i in range(n)), button,
                                                         settings, deck, tuple(stacks), **start))

    def __call__(self, command):
        events, self.state = handle(self.state, command)
        self.events.extend(events)
        return events

    def act(self, *moves):
        """("check",) / ("bet", 40) ... for whoever is to act, in turn."""
        for move in moves:
            self(PostAction(self.state.to_act, *move))

    def draw_all(self, *discards: str):
        """Each seat in draw order throws away the given cards ("" stands pat)."""
        for cards in discards:
            self(Discard(self.state.to_act, tuple(parse_and_text(cards))))


def parse_and_text(cards: str) -> list[str]:
    return [format_card(c) for c in parse_cards(cards)] if cards else []


def pot_winners(table: Table) -> list[tuple[int, ...]]:
    return [e.winners for e in table.events if isinstance(e, PotAwarded)]


THREE = ("AsAhKdQc2s", "7s7h8d9cTs", "3s4h5d6cJs")  # seat 0 pair of aces, 1 sevens, 2 nothing


# ------------------------------------------------------------------ ante and deal

def test_every_player_antes_and_the_pot_holds_the_antes():
    table = Table(THREE)
    assert AntesPosted((10, 10, 10)) in table.events
    assert table.state.stacks == (1990, 1990, 1990)
    assert sum(p.amount for p in table.state.pots) == 30


def test_the_ante_setting_is_what_everyone_puts_in():
    table = Table(THREE, DrawSettings(ante=25))
    assert table.state.stacks == (1975, 1975, 1975)


def test_a_stack_shorter_than_the_ante_is_all_in_for_what_it_has():
    table = Table(THREE, stacks=(2000, 6, 2000))
    assert AntesPosted((10, 6, 10)) in table.events
    assert table.state.stacks[1] == 0


def test_five_cards_are_dealt_one_at_a_time_starting_left_of_the_dealer():
    deck = tuple(format_card(c) for c in new_deck())  # 2s 2h 2d 2c 3s 3h ...
    events, _ = handle(None, StartHand(("A", "B", "C"), 1, DEFAULT, deck, (2000,) * 3))
    dealt = [e for e in events if isinstance(e, HoleCardsDealt)]
    assert dealt == [HoleCardsDealt(2, "2s2c3d4h5s"), HoleCardsDealt(0, "2h3s3c4d5h"),
                     HoleCardsDealt(1, "2d3h4s4c5d")]


def test_the_deck_must_be_a_full_deck_for_the_table():
    short = tuple(format_card(c) for c in new_deck())[:40]
    with pytest.raises(Violation) as caught:
        handle(None, StartHand(("A", "B"), 0, DEFAULT, short, (2000, 2000)))
    assert caught.value.code == "invalid_card"
    with_joker = tuple(format_card(c) for c in new_deck(with_joker=True))
    with pytest.raises(Violation):  # no joker at a table without the joker setting
        handle(None, StartHand(("A", "B"), 0, DEFAULT, with_joker, (2000, 2000)))


def test_hole_cards_are_seen_by_their_owner_only_and_the_deck_order_by_the_floor_only():
    table = Table(THREE)
    started, dealt = table.events[0], table.events[2]
    assert dealt == HoleCardsDealt(1, "7s7h8d9cTs")
    assert draw_events.visible_event(dealt, 1, "player") == dealt
    assert draw_events.visible_event(dealt, 0, "player") == HoleCardsDealt(1, None)
    assert draw_events.visible_event(dealt, None, "spectator") == HoleCardsDealt(1, None)
    assert draw_events.visible_event(started, 1, "player").deck is None
    assert draw_events.visible_event(started, None, "floor") == started


def test_the_commitment_is_carried_in_the_start_event():
    table = Table(THREE, commitment="ab" * 32)
    assert table.events[0].commitment == "ab" * 32


def test_the_players_setting_fixes_the_number_of_seats():
    with pytest.raises(Violation):
        Table(THREE, DrawSettings(players=4))
    assert Table(THREE, DrawSettings(players=3)).state.seat_count == 3


def test_seven_players_are_too_many():
    with pytest.raises(Violation):
        Table(THREE * 2 + ("2h2d2c3h3d",))


# ------------------------------------------------------------- first betting round

def test_the_first_betting_round_starts_left_of_the_dealer():
    assert Table(THREE, button=0).state.to_act == 1
    assert Table(THREE, button=2).state.to_act == 0


def test_the_smallest_bet_is_one_unit_twice_the_ante():
    table = Table(THREE)
    with pytest.raises(Violation) as caught:
        table(PostAction(1, "bet", 19))
    assert caught.value.code == "bet_below_minimum"
    table(PostAction(1, "bet", 20))
    assert Table(THREE, DrawSettings(ante=25)).state.betting.structure.opening_minimum == 50


def test_everyone_checks_then_the_cards_are_dealt_again_with_the_pot_kept_and_antes_again():
    table = Table(THREE)
    events = []
    for _ in range(3):
        events += table(PostAction(table.state.to_act, "check"))
    assert events[-1] == RedealRequired("all_checked")
    assert table.state.awaiting == "redeal" and table.state.to_act is None
    new = table(Redeal(stacked_deck(("KsKhKd2c3c", "QsQhQd2h3h", "JsJhJd2d3d"), 0), "cc" * 32))
    assert isinstance(new[0], Redealt) and new[0].commitment == "cc" * 32
    assert new[1] == AntesPosted((10, 10, 10))
    assert sum(p.amount for p in table.state.pots) == 60
    assert table.state.stacks == (1980, 1980, 1980)
    assert table.state.hands[0] == parse_cards("KsKhKd2c3c")
    assert table.state.to_act == 1 and table.state.redeals == 1


def test_a_player_who_folded_before_a_redeal_stays_out_of_it_and_antes_no_more():
    table = Table(THREE)
    table.act(("fold",), ("check",), ("check",))
    assert table.events[-1] == RedealRequired("all_checked")
    new = table(Redeal(stacked_deck(("KsKhKd2c3c", "", "JsJhJd2d3d"), 0)))
    assert new[1] == AntesPosted((10, 0, 10))
    assert [e.position for e in new if isinstance(e, HoleCardsDealt)] == [2, 0]
    assert table.state.hands[1] == ()


def test_a_redeal_is_only_possible_when_one_is_due():
    table = Table(THREE)
    with pytest.raises(Violation) as caught:
        table(Redeal(stacked_deck(THREE, 0)))
    assert caught.value.code == "illegal_action"


def test_with_second_round_left_of_dealer_an_all_check_round_goes_on_to_the_draw():
    table = Table(THREE, DrawSettings(second_round_start="left_of_dealer"))
    table.act(("check",), ("check",), ("check",))
    assert table.events[-1] == DrawBegan()
    assert table.state.awaiting == "draw" and table.state.to_act == 1


def test_the_first_bettor_is_the_opener():
    table = Table(THREE)
    table.act(("check",), ("bet", 40))
    assert table.state.opener == 2


def test_a_player_all_in_on_the_ante_plays_on_without_a_redeal_when_nobody_can_bet():
    table = Table(("AsAhKdQc2s", "7s7h8d9cTs"), stacks=(2000, 10))
    # Nobody can bet against an all-in player: no round, no "all check", on to the draw.
    assert table.state.phase == "draw"
    assert not any(isinstance(e, RedealRequired) for e in table.events)


# -------------------------------------------------------------- jacks or better

JACKS = DrawSettings(opening="jacks_or_better")


def test_a_bet_without_jacks_or_better_is_no_openers():
    table = Table(THREE, JACKS)  # seat 1 holds sevens, seat 2 nothing
    with pytest.raises(Violation) as caught:
        table(PostAction(1, "bet", 20))
    assert caught.value.code == "no_openers"
    assert draw_legal.legal_actions(table.state).bet is None
    table.act(("check",), ("check",))
    assert draw_legal.legal_actions(table.state).bet is not None  # seat 0 holds aces
    table.act(("bet", 20))
    assert table.state.opener == 0


def test_after_the_opening_anyone_may_call_or_raise_without_openers():
    table = Table(THREE, JACKS, button=2)  # seat 0 (aces) acts first
    table.act(("bet", 20), ("raise", 40), ("call",), ("call",))
    assert table.state.phase == "draw"


def test_without_the_requirement_a_small_pair_may_open():
    table = Table(THREE)
    table(PostAction(1, "bet", 20))
    assert table.state.opener == 1


def test_when_nobody_holds_openers_everyone_antes_again_and_the_cards_are_redealt():
    hands = ("2s3h5d7c9s", "7s7h8d9cTs", "3s4h5s6cJs")
    table = Table(hands, JACKS)
    table.act(("check",), ("check",), ("check",))
    assert table.events[-1] == RedealRequired("no_openers")


def test_left_of_dealer_with_jacks_redeals_only_when_nobody_could_open():
    settings = DrawSettings(opening="jacks_or_better", second_round_start="left_of_dealer")
    nobody = Table(("2s3h5d7c9s", "7s7h8d9cTs", "3s4h5s6cJs"), settings)
    nobody.act(("check",), ("check",), ("check",))
    assert nobody.events[-1] == RedealRequired("no_openers")
    # Seeds: the redeal is for when nobody CAN open; someone could (aces) but checked.
    could = Table(THREE, settings)
    could.act(("check",), ("check",), ("check",))
    assert could.events[-1] == DrawBegan()


def test_the_opener_shows_openers_at_the_end_even_without_a_showdown():
    table = Table(THREE, JACKS, button=2)
    table.act(("bet", 20), ("fold",), ("fold",))
    shown = [e for e in table.events if isinstance(e, OpenersShown)]
    assert shown == [OpenersShown(0, "AsAh")]
    assert not any(isinstance(e, CardsShown) for e in table.events)


def test_openers_are_not_recorded_without_the_requirement():
    table = Table(THREE, button=2)
    table.act(("bet", 20), ("fold",), ("fold",))
    assert not any(isinstance(e, OpenersShown) for e in table.events)


# ---------------------------------------------------------------------- the draw

def to_the_draw(settings: DrawSettings = DEFAULT, hands=THREE, button=0, stub="", **kw) -> Table:
    table = Table(hands, settings, button=button, stub=stub, **kw)
    table.act(("bet", 20), ("call",), ("call",))
    assert table.state.phase == "draw"
    return table


def test_the_draw_goes_in_turn_from_the_left_of_the_dealer():
    table = to_the_draw(button=1)
    assert table.state.to_act == 2
    with pytest.raises(Violation) as caught:
        table(Discard(0, ()))
    assert caught.value.code == "not_your_turn"
    table(Discard(2, ("3s", "4h", "5d")))
    assert table.state.to_act == 0


def test_the_player_gets_as_many_cards_as_thrown_from_the_stub():
    table = to_the_draw(stub="KsKh8c")
    events = table(Discard(1, ("8d", "9c", "Ts")))
    assert events == [PlayerDrew(1, 3, "8d9cTs", "KsKh8c")]
    assert table.state.hands[1] == parse_cards("7s7hKsKh8c")


def test_standing_pat_is_allowed():
    table = to_the_draw()
    assert table(Discard(1, ())) == [PlayerDrew(1, 0, "", "")]


def test_a_card_not_held_cannot_be_thrown_away():
    table = to_the_draw()
    with pytest.raises(Violation) as caught:
        table(Discard(1, ("As",)))
    assert caught.value.code == "invalid_discard"


@pytest.mark.parametrize("cards", [("Xx",), (7,), None, ("7s", "7s")])
def test_a_discard_that_is_not_a_list_of_cards_is_refused(cards):
    table = to_the_draw()
    with pytest.raises(Violation) as caught:
        table(Discard(1, cards))
    assert caught.value.code in ("invalid_card", "duplicate_card")


def test_draw_limit_is_three_without_an_ace_kept():
    table = to_the_draw()
    with pytest.raises(Violation) as caught:
        table(Discard(1, ("7s", "7h", "8d", "9c")))
    assert caught.value.code == "draw_limit_exceeded"
    assert caught.value.numbers == {"count": 4, "limit": 3}


def test_draw_limit_is_four_when_keeping_an_ace():
    table = to_the_draw(button=2)  # seat 0 (As Ah ...) draws first
    table(Discard(0, ("Ah", "Kd", "Qc", "2s")))
    assert table.state.drawn[0] == 4


def test_draw_limit_is_four_when_keeping_the_joker():
    settings = DrawSettings(joker="wild")
    table = to_the_draw(settings, hands=("Jk7d8c9hKs", "7s7h8d9cTs", "3s4h5d6cJs"), button=2)
    table(Discard(0, ("7d", "8c", "9h", "Ks")))
    assert table.state.drawn[0] == 4


def test_a_flat_draw_limit_of_three_ignores_the_ace():
    table = to_the_draw(DrawSettings(draw_limit=3), button=2)
    with pytest.raises(Violation) as caught:
        table(Discard(0, ("Ah", "Kd", "Qc", "2s")))
    assert caught.value.code == "draw_limit_exceeded"


def test_a_draw_limit_of_five_allows_all_cards():
    table = to_the_draw(DrawSettings(draw_limit=5))
    table(Discard(1, ("7s", "7h", "8d", "9c", "Ts")))
    assert table.state.drawn[1] == 5


def test_the_draw_options_say_how_many_cards_may_go():
    table = to_the_draw(button=2)
    assert draw_legal.legal_draw(table.state) == DrawOptions(0, 4, 3)  # seat 0 holds aces
    table(Discard(0, ()))
    assert draw_legal.legal_draw(table.state) == DrawOptions(1, 3, 3)
    flat = to_the_draw(DrawSettings(draw_limit=5), button=2)
    assert draw_legal.legal_draw(flat.state) == DrawOptions(0, 5, 5)


def test_each_player_draws_once():
    table = to_the_draw()
    table(Discard(1, ()))
    with pytest.raises(Violation) as caught:
        table(Discard(1, ()))
    assert caught.value.code == "not_your_turn"


def test_how_many_cards_a_player_drew_is_public_but_not_which():
    table = to_the_draw(stub="KsKh8c")
    drew = table(Discard(1, ("8d", "9c", "Ts")))[0]
    assert draw_events.visible_event(drew, 0, "player") == PlayerDrew(1, 3, None, None)
    assert draw_events.visible_event(drew, None, "spectator") == PlayerDrew(1, 3, None, None)
    assert draw_events.visible_event(drew, 1, "player") == drew
    assert draw_events.visible_event(drew, None, "floor") == drew


SIX = ("2s3s4s5s7h", "2h3h4h5h7d", "2d3d4d5d7c", "2c3c4c5c7s", "8s9sTsJs6h", "8h9hThJh6d")


def test_when_the_stub_runs_out_the_other_players_discards_are_reshuffled():
    table = Table(SIX, DrawSettings(draw_limit=5), button=5)
    table.act(("bet", 20), *[("call",)] * 5)
    for seat in range(4):  # 30 dealt, 22 in the stub: four draws of five leave 2
        table(Discard(seat, tuple(parse_and_text(SIX[seat]))))
    assert len(table.state.stub) == 2
    events = table(Discard(4, tuple(parse_and_text(SIX[4]))))
    reshuffle, drew = events
    assert isinstance(reshuffle, StubReshuffled) and reshuffle.count == 20
    assert not set(reshuffle.cards) & set(parse_and_text(SIX[4]))  # not the drawer's own
    assert len(set(parse_cards(drew.received))) == 5
    assert draw_events.visible_event(reshuffle, 4, "player") == StubReshuffled(20, None)


def test_the_reshuffled_stub_follows_the_callers_order():
    order = tuple(reversed(stacked_deck(SIX, 5)))
    table = Table(SIX, DrawSettings(draw_limit=5), button=5, reshuffle_order=order)
    table.act(("bet", 20), *[("call",)] * 5)
    for seat in range(4):
        table(Discard(seat, tuple(parse_and_text(SIX[seat]))))
    reshuffle = table(Discard(4, tuple(parse_and_text(SIX[4]))))[0]
    position = {card: k for k, card in enumerate(order)}
    assert list(reshuffle.cards) == sorted(reshuffle.cards, key=position.__getitem__)


# -------------------------------------------------------------- second betting round

def test_the_opener_acts_first_after_the_draw():
    table = Table(THREE, button=0)
    table.act(("check",), ("bet", 20), ("call",), ("call",))  # seat 2 opens
    table.draw_all("8d9cTs", "3s4h5d", "KdQc2s")
    assert table.events[-1] == SecondRoundBegan(2)
    assert table.state.to_act == 2


def test_when_the_opener_folded_the_next_player_left_of_the_opener_acts_first():
    table = Table(THREE, button=2)
    # seat 0 checks, seat 1 opens, seat 2 raises, seat 0 calls, the opener folds
    table.act(("check",), ("bet", 20), ("raise", 60), ("call",), ("fold",))
    table.draw_all("KdQc2s", "3s4h5d")  # seats 0 then 2
    assert table.events[-1] == SecondRoundBegan(2)  # not seat 0, left of the dealer


def test_with_the_setting_the_second_round_starts_left_of_the_dealer():
    table = Table(THREE, DrawSettings(second_round_start="left_of_dealer"), button=0)
    table.act(("check",), ("bet", 20), ("call",), ("call",))  # seat 2 opens
    table.draw_all("", "", "")
    assert table.events[-1] == SecondRoundBegan(1)
    opener_first = Table(THREE, button=0)
    opener_first.act(("check",), ("bet", 20), ("call",), ("call",))
    opener_first.draw_all("", "", "")
    assert opener_first.events[-1] == SecondRoundBegan(2)


def test_no_limit_bets_after_the_draw_start_at_one_unit():
    table = to_the_draw()
    table.draw_all("", "", "")
    assert draw_legal.legal_actions(table.state).bet.min_to == 20


def test_fixed_limit_bets_one_unit_before_the_draw_and_two_after():
    settings = DrawSettings(structure="fixed-limit")
    table = Table(THREE, settings)
    with pytest.raises(Violation) as caught:
        table(PostAction(1, "bet", 40))
    assert caught.value.code == "wrong_fixed_amount"
    table.act(("bet", 20), ("call",), ("call",))
    table.draw_all("", "", "")
    assert draw_legal.legal_actions(table.state).bet.min_to == 40
    assert draw_legal.legal_actions(table.state).bet.max_to == 40


def test_fixed_limit_allows_a_bet_and_four_raises():
    table = Table(THREE, DrawSettings(structure="fixed-limit"))
    table.act(("bet", 20), ("raise", 40), ("raise", 60), ("raise", 80), ("raise", 100))
    legal = draw_legal.legal_actions(table.state)
    assert legal.raise_ is None and legal.raise_closed_reason == "raise_cap_reached"
    three_raises = Table(THREE, DrawSettings(structure="fixed-limit", raise_cap=4))
    three_raises.act(("bet", 20), ("raise", 40), ("raise", 60), ("raise", 80))
    assert draw_legal.legal_actions(three_raises.state).raise_ is None


def test_fixed_limit_heads_up_may_lift_the_cap():
    hands = THREE[:2]
    capped = Table(hands, DrawSettings(structure="fixed-limit", raise_cap=2))
    capped.act(("bet", 20), ("raise", 40))
    assert draw_legal.legal_actions(capped.state).raise_ is None
    lifted = Table(hands, DrawSettings(structure="fixed-limit", raise_cap=2, heads_up_uncapped=True))
    lifted.act(("bet", 20), ("raise", 40))
    assert draw_legal.legal_actions(lifted.state).raise_.min_to == 60


def test_pot_limit_caps_the_bet_at_the_pot():
    table = Table(THREE, DrawSettings(structure="pot-limit"))
    assert draw_legal.legal_actions(table.state).bet.max_to == 30
    with pytest.raises(Violation) as caught:
        table(PostAction(1, "bet", 40))
    assert caught.value.code == "above_pot_limit"


# --------------------------------------------------------------------- showdown

def test_the_best_hand_wins_the_pot_at_the_showdown_and_a_beaten_hand_is_mucked():
    # No bet on the second round: the first left of the dealer shows first (TDA 2024 17);
    # the computer mucks seat 2's hand, beaten by the one shown, and shows seat 0's.
    table = to_the_draw()
    table.draw_all("", "", "")
    table.act(("check",), ("check",), ("check",))
    shown = [e for e in table.events if isinstance(e, CardsShown)]
    assert [e.position for e in shown] == [1, 0]
    assert CardsMucked(2) in table.events
    assert shown[1] == CardsShown(0, "AsAhKdQc2s", "one_pair")
    assert PotAwarded(90, (0, 1, 2), (0,), (90,)) in table.events
    assert table.events[-1] == HandEnded((2060, 1970, 1970), (0, 0, 0), True)


def test_if_everyone_else_folds_the_last_player_takes_the_pot_without_showing():
    table = Table(THREE)
    table.act(("bet", 40), ("fold",), ("fold",))
    assert UncalledReturned(1, 40) in table.events
    assert not any(isinstance(e, CardsShown) for e in table.events)
    assert table.events[-1] == HandEnded((1990, 2020, 1990), (0, 0, 0), False)


def test_equal_hands_split_the_pot_and_the_odd_chip_goes_to_the_first_winner_left_of_the_button():
    hands = ("AsKsQsJs9h", "2c3d4h6s8c", "AhKhQhJh9d")  # seats 0 and 2 tie
    table = Table(hands, button=0)
    table.act(("bet", 21), ("call",), ("call",))  # pot 30 + 63 = 93
    table.draw_all("", "", "")
    table.act(("check",), ("check",), ("check",))
    assert [e for e in table.events if isinstance(e, PotAwarded)] == [
        PotAwarded(93, (0, 1, 2), (2, 0), (47, 46))]


def test_an_even_pot_splits_equally():
    hands = ("AsKsQsJs9h", "2c3d4h6s8c", "AhKhQhJh9d")
    table = Table(hands, button=0)
    table.act(("bet", 20), ("call",), ("call",))
    table.draw_all("", "", "")
    table.act(("check",), ("check",), ("check",))
    assert [e for e in table.events if isinstance(e, PotAwarded)] == [
        PotAwarded(90, (0, 1, 2), (2, 0), (45, 45))]


def test_a_wild_joker_makes_five_of_a_kind_which_beats_a_royal_flush():
    hands = ("9s9h9d9cJk", "ThJhQhKhAh", "2c3d4h6s8c")
    table = to_the_draw(DrawSettings(joker="wild"), hands=hands)
    table.draw_all("", "", "")
    table.act(("check",), ("check",), ("check",))
    shown = {e.position: e.category for e in table.events if isinstance(e, CardsShown)}
    assert shown == {0: "five_of_a_kind", 1: "royal_flush"}
    assert CardsMucked(2) in table.events
    assert pot_winners(table) == [(0,)]


def test_a_bug_joker_counts_only_as_an_ace_or_for_a_straight_or_flush():
    hands = ("JkKsKh7d2c", "QsQhQd3c4c", "5s6h8d9cTd")
    wild = to_the_draw(DrawSettings(joker="wild"), hands=hands)
    wild.draw_all("", "", "")
    wild.act(("check",), ("check",), ("check",))
    bug = to_the_draw(DrawSettings(joker="bug"), hands=hands)
    bug.draw_all("", "", "")
    bug.act(("check",), ("check",), ("check",))
    assert pot_winners(wild) == [(0,)]  # three kings beat three queens
    assert pot_winners(bug) == [(1,)]  # a pair of kings with an ace kicker loses to them


def test_an_all_in_player_stays_to_the_showdown_and_side_pots_go_to_the_right_hands():
    # seat 2 (best hand) is all-in short; seat 0 beats seat 1 for the side pot.
    hands = ("KsKhKd2c3c", "QsQhQd2h3h", "AsAhAdAc2d")
    table = Table(hands, button=2, stacks=(1000, 1000, 110))
    table.act(("bet", 100), ("call",), ("call",))  # seat 2 all-in for 100 after the ante
    table.draw_all("", "", "")
    table.act(("bet", 200), ("call",))
    pots = [e for e in table.events if isinstance(e, PotAwarded)]
    assert pots == [PotAwarded(330, (0, 1, 2), (2,), (330,)),
                    PotAwarded(400, (0, 1), (0,), (400,))]
    assert table.events[-1].stacks == (1090, 690, 330)
    assert sum(table.events[-1].stacks) == 2110


def test_after_the_hand_is_over_nothing_more_happens():
    table = Table(THREE)
    table.act(("bet", 40), ("fold",), ("fold",))
    with pytest.raises(Violation) as caught:
        table(PostAction(0, "check"))
    assert caught.value.code == "hand_over"


def test_betting_is_not_allowed_during_the_draw():
    table = to_the_draw()
    with pytest.raises(Violation) as caught:
        table(PostAction(1, "check"))
    assert caught.value.code == "not_your_turn"


# ---------------------------------------------------------------- no-betting mode

NO_BETTING = DrawSettings(mode="no-betting")


def test_no_betting_mode_deals_draws_once_each_and_the_best_hand_scores_a_point():
    table = Table(THREE, NO_BETTING, stub="2h2d3c6h6d8hAdAc")
    assert table.state.betting is None and table.state.to_act == 1
    assert not any(isinstance(e, AntesPosted) for e in table.events)
    table.draw_all("8d9cTs", "3s4h5d", "Qc2s")
    assert [e.count for e in table.events if isinstance(e, PlayerDrew)] == [3, 3, 2]
    assert table.state.hands[0] == parse_cards("AsAhKdAdAc")  # seat 0 drew the two aces
    assert table.events[-1] == HandEnded((0, 0, 0), (1, 0, 0), True)


def test_no_betting_mode_the_best_hand_scores_one_point():
    table = Table(THREE, NO_BETTING)
    table.draw_all("", "", "")
    assert table.events[-2] == PointsScored((0,))
    assert table.events[-1] == HandEnded((0, 0, 0), (1, 0, 0), True)


def test_no_betting_mode_every_tied_winner_scores_a_point():
    hands = ("AsKsQsJs9h", "AhKhQhJh9d", "2c3d4h6s8c")
    table = Table(hands, NO_BETTING)
    table.draw_all("", "", "")
    assert table.events[-1].points == (1, 1, 0)


def test_no_betting_mode_takes_no_stacks():
    with pytest.raises(Violation):
        Table(THREE, NO_BETTING, stacks=(2000, 2000, 2000))
