"""The deal: antes, banner cards with distinct suits per group, set-aside banners and
their reshuffle, palace cards from the gathered rest, the draw deck and discard pile."""
from __future__ import annotations

import random

import pytest

from domain.games import palace as P
from domain.games import palace_decider
from domain.rules.cards import format_card, new_deck, shuffled
from domain.rules.violations import Violation

FULL_DECK = tuple(format_card(card) for card in new_deck())


def permutation(seed: int) -> tuple[str, ...]:
    return tuple(format_card(card) for card in shuffled(new_deck(), random.Random(seed)))


def start(players: int, deck: tuple[str, ...], dealer: int = 0, small_bet: int = 10,
          stacks: tuple[int, ...] | None = None, palace_order: tuple[str, ...] = FULL_DECK,
          banner_reshuffle_order: tuple[str, ...] = ()) -> P.StartHand:
    names = tuple(f"P{seat}" for seat in range(players))
    return P.StartHand(names, stacks or (1000,) * players, dealer, small_bet, 2 * small_bet,
                       "fixed-limit", deck, palace_order, banner_reshuffle_order)


def deck_starting(*top: str) -> tuple[str, ...]:
    return top + tuple(card for card in FULL_DECK if card not in top)


def banners_of(events: list[P.Event]) -> dict[str, str]:
    return {e.player: e.card for e in events if isinstance(e, P.BannerDealt)}


@pytest.mark.parametrize("small_bet, ante", [(10, 5), (15, 7), (1, 0), (40, 20)])
def test_every_player_antes_half_a_small_bet_rounded_down(small_bet, ante):
    state = P.replay(palace_decider.decide(P.INITIAL, start(4, permutation(1), small_bet=small_bet)))
    assert all(seat.stack == 1000 - ante for seat in state.seats)
    assert state.pot == 4 * ante


def test_a_stack_smaller_than_the_ante_antes_what_it_has():
    events = palace_decider.decide(P.INITIAL, start(3, permutation(1), stacks=(1000, 3, 1000)))
    antes = next(e for e in events if isinstance(e, P.AntesPosted))
    assert dict(zip(antes.players, antes.amounts)) == {"P1": 3, "P2": 5, "P0": 5}


def test_banners_are_dealt_face_up_one_each_starting_left_of_the_dealer():
    events = palace_decider.decide(P.INITIAL, start(4, deck_starting("2h", "3s", "4d", "5c"), dealer=1))
    dealt = [e for e in events if isinstance(e, P.BannerDealt)]
    assert [(e.player, e.card) for e in dealt] == [("P2", "2h"), ("P3", "3s"), ("P0", "4d"),
                                                   ("P1", "5c")]
    assert all(not hasattr(e, "visible_to") for e in dealt)


def test_a_banner_of_a_suit_already_in_the_group_is_set_aside_and_another_dealt():
    events = palace_decider.decide(P.INITIAL, start(3, deck_starting("Ah", "Kh", "Qs", "Js", "Th", "9d")))
    kinds = [(type(e).__name__, e.player, e.card) for e in events
             if isinstance(e, (P.BannerDealt, P.BannerSetAside))]
    assert kinds == [("BannerDealt", "P1", "Ah"), ("BannerSetAside", "P2", "Kh"),
                     ("BannerDealt", "P2", "Qs"), ("BannerSetAside", "P0", "Js"),
                     ("BannerSetAside", "P0", "Th"), ("BannerDealt", "P0", "9d")]


def test_players_five_to_eight_are_a_second_group_and_may_repeat_suits_of_the_first():
    deck = deck_starting("Ah", "As", "Ad", "Ac", "Kh", "Ks", "Kd", "Kc", "Qh", "Qs")
    events = palace_decider.decide(P.INITIAL, start(10, deck, dealer=9))
    assert banners_of(events) == {"P0": "Ah", "P1": "As", "P2": "Ad", "P3": "Ac", "P4": "Kh",
                                  "P5": "Ks", "P6": "Kd", "P7": "Kc", "P8": "Qh", "P9": "Qs"}


def test_players_nine_and_ten_are_a_third_group_with_different_suits():
    deck = deck_starting("Ah", "As", "Ad", "Ac", "Kh", "Ks", "Kd", "Kc", "Qh", "Jh", "Qs")
    events = palace_decider.decide(P.INITIAL, start(10, deck, dealer=9))
    assert banners_of(events)["P8"] == "Qh"
    assert banners_of(events)["P9"] == "Qs"
    assert [e.card for e in events if isinstance(e, P.BannerSetAside)] == ["Jh"]


def test_when_the_deck_runs_out_the_set_aside_banners_are_reshuffled_and_the_deal_goes_on():
    # P0..P2 get a heart, a spade and a diamond; every other heart, spade and diamond is
    # set aside before P3 gets the ace of clubs. P4 (group two) takes a club, and P5 sees
    # the other eleven clubs set aside: the deck is empty and the set-aside cards return.
    others = tuple(c for c in FULL_DECK if c[1] in "hsd" and c not in ("Ah", "As", "Ad"))
    clubs = tuple(c for c in FULL_DECK if c[1] == "c" and c != "Ac")
    deck = ("Ah", "As", "Ad") + others + ("Ac",) + clubs
    reshuffle = permutation(7)
    events = palace_decider.decide(P.INITIAL, start(6, deck, dealer=5, banner_reshuffle_order=reshuffle))
    reshuffled = [e for e in events if isinstance(e, P.SetAsideBannersReshuffled)]
    assert len(reshuffled) == 1
    set_aside_before = others + clubs[1:]
    assert sorted(reshuffled[0].order) == sorted(set_aside_before)
    assert reshuffled[0].order == tuple(c for c in reshuffle if c in set_aside_before)
    assert reshuffled[0].visible_to == ()
    first_non_club = next(c for c in reshuffled[0].order if c[1] != "c")
    assert banners_of(events)["P5"] == first_non_club
    assert len({banners_of(events)[p][1] for p in ("P4", "P5")}) == 2


def test_a_needed_banner_reshuffle_without_an_order_is_refused():
    others = tuple(c for c in FULL_DECK if c[1] in "hsd" and c not in ("Ah", "As", "Ad"))
    clubs = tuple(c for c in FULL_DECK if c[1] == "c" and c != "Ac")
    deck = ("Ah", "As", "Ad") + others + ("Ac",) + clubs
    with pytest.raises(Violation) as refused:
        palace_decider.decide(P.INITIAL, start(6, deck, dealer=5))
    assert refused.value.code == "shuffle_order_required"


def test_palace_cards_come_three_each_one_at_a_time_from_all_other_cards_gathered_and_shuffled():
    deck = deck_starting("Ah", "Kh", "Qs", "Js", "Th", "9d")  # Kh, Js, Th are set aside
    order = permutation(3)
    events = palace_decider.decide(P.INITIAL, start(3, deck, palace_order=order))
    shuffled_event = next(e for e in events if isinstance(e, P.PalaceDeckShuffled))
    banners = {"Ah", "Qs", "9d"}
    assert shuffled_event.order == tuple(c for c in order if c not in banners)
    assert {"Kh", "Js", "Th"} <= set(shuffled_event.order)  # set-aside cards are gathered too
    gathered = shuffled_event.order
    palaces = {e.player: e.cards for e in events if isinstance(e, P.PalaceCardsDealt)}
    assert palaces == {"P1": gathered[0:9:3], "P2": gathered[1:9:3], "P0": gathered[2:9:3]}
    state = P.replay(events)
    assert state.draw_deck == gathered[9:]
    assert len(state.draw_deck) == 52 - 3 - 9
    assert state.discard_pile == ()


def test_palace_cards_are_seen_by_their_owner_only_and_deck_orders_by_nobody():
    events = palace_decider.decide(P.INITIAL, start(4, permutation(5), palace_order=permutation(6)))
    for event in events:
        if isinstance(event, P.PalaceCardsDealt):
            assert event.visible_to == (event.player,)
            assert [p for p in ("P0", "P1", "P2", "P3") if P.can_see(event, p)] == [event.player]
        elif isinstance(event, P.PalaceDeckShuffled):
            assert not any(P.can_see(event, p) for p in ("P0", "P1", "P2", "P3"))
        else:
            assert all(P.can_see(event, p) for p in ("P0", "P1", "P2", "P3"))


def test_play_starts_left_of_the_dealer():
    state = P.replay(palace_decider.decide(P.INITIAL, start(5, permutation(2), dealer=3)))
    assert state.phase == P.TURN
    assert state.seats[state.to_act].player == "P4"


@pytest.mark.parametrize("players", [1, 11])
def test_palace_poker_takes_two_to_ten_players(players):
    with pytest.raises(Violation) as refused:
        palace_decider.decide(P.INITIAL, start(players, permutation(1)))
    assert refused.value.code == "illegal_action"


def test_the_deck_must_be_the_fifty_two_cards():
    with pytest.raises(Violation) as short:
        palace_decider.decide(P.INITIAL, start(3, permutation(1)[:51]))
    assert short.value.code == "invalid_card"
    with pytest.raises(Violation) as repeated:
        palace_decider.decide(P.INITIAL, start(3, permutation(1)[:51] + permutation(1)[:1]))
    assert repeated.value.code == "duplicate_card"


def test_a_hand_cannot_start_while_another_is_in_progress():
    state = P.replay(palace_decider.decide(P.INITIAL, start(3, permutation(1))))
    with pytest.raises(Violation) as refused:
        palace_decider.decide(state, start(3, permutation(2)))
    assert refused.value.code == "illegal_action"


def test_the_highest_card_drawn_deals_first():
    assert palace_decider.first_dealer([{"Ann": "9s", "Bob": "Kd", "Cy": "2c"}]) == "Bob"


def test_suits_are_unranked_so_tied_players_draw_again():
    first = {"Ann": "Ks", "Bob": "Kd", "Cy": "2c"}
    with pytest.raises(Violation) as tied:
        palace_decider.first_dealer([first])
    assert tied.value.code == "draw_again"
    assert tied.value.numbers == {"tied": ["Ann", "Bob"]}
    assert palace_decider.first_dealer([first, {"Ann": "3h", "Bob": "4h"}]) == "Bob"


def test_only_the_tied_players_draw_again():
    with pytest.raises(Violation) as refused:
        palace_decider.first_dealer([{"Ann": "Ks", "Bob": "Kd", "Cy": "2c"}, {"Ann": "3h", "Cy": "4h"}])
    assert refused.value.code == "illegal_action"


def test_redaction_keeps_the_number_of_hidden_cards():
    events = palace_decider.decide(P.INITIAL, start(3, permutation(4)))
    dealt_to_p1 = next(e for e in events if isinstance(e, P.PalaceCardsDealt) and e.player == "P1")
    assert P.redacted_for(dealt_to_p1, "P2") == P.PalaceCardsDealt("P1", ("??",) * 3, ("P1",))
    assert P.redacted_for(dealt_to_p1, "P1") == dealt_to_p1
    deck = next(e for e in events if isinstance(e, P.PalaceDeckShuffled))
    assert P.redacted_for(deck, "P1").order == ("??",) * deck.count
