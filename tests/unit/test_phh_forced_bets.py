"""The forced-bet structures PokerKit accepts replay here too: ante-only hands, uniform antes
not trimmed (`ante_trimming_status = false`), a single blind on the first seat and a button
blind (as PokerKit's short-deck examples post it: `blinds_or_straddles = [0, ..., 0, x]`)."""
from __future__ import annotations

import pytest

from domain.history.phh import parse, positional_blinds
from domain.history.phh_games import replay
from domain.rules.violations import Violation

HAND = """\
variant = "{variant}"
ante_trimming_status = {trimming}
antes = {antes}
blinds_or_straddles = {blinds}
min_bet = 100
starting_stacks = [1000, 1000, 1000]
actions = ["d dh p1 AsAd", "d dh p2 7c2h", "d dh p3 KsKd", {actions}]
"""


def record(antes="[0, 0, 0]", blinds="[50, 100, 0]", actions='"p3 f", "p1 cc", "p2 cc"',
           trimming="true", variant="NT"):
    return parse(HAND.format(variant=variant, trimming=trimming, antes=antes, blinds=blinds, actions=actions))


def test_an_ante_only_hand_opens_left_of_the_button_at_the_minimum_bet():
    hand = record(antes="[25, 25, 25]", blinds="[0, 0, 0]", actions='"p1 cbr 100", "p2 f", "p3 f"')
    assert replay(hand).finishing_stacks == (1050, 975, 975) and not positional_blinds(hand)
    with pytest.raises(Violation) as refused:
        replay(record(antes="[25, 25, 25]", blinds="[0, 0, 0]", actions='"p1 cbr 50"'))
    assert refused.value.code == "bet_below_minimum"


def test_uniform_antes_every_stack_covers_post_the_same_untrimmed():
    hand = record(antes="[25, 25, 25]", trimming="false", actions='"p3 f", "p1 cc", "p2 f"')
    assert replay(hand).finishing_stacks == (1150, 875, 975)


def test_a_button_blind_is_posted_by_the_button_who_acts_last():
    hand = record(antes="[25, 25, 25]", blinds="[0, 0, 100]", actions='"p1 cbr 300", "p2 f", "p3 f"')
    assert positional_blinds(hand)
    assert replay(hand).finishing_stacks == (1150, 975, 875)
    with pytest.raises(Violation) as refused:  # p1 acts first, not p3
        replay(record(antes="[25, 25, 25]", blinds="[0, 0, 100]", actions='"p3 cc"'))
    assert refused.value.code == "not_your_turn"


def test_a_single_blind_on_the_first_seat_is_the_bet_the_others_face():
    hand = record(blinds="[100, 0, 0]", actions='"p2 f", "p3 cbr 300", "p1 f"')
    assert replay(hand).finishing_stacks == (900, 1000, 1100)
    omaha = parse(HAND.format(variant="PO", trimming="true", antes="[0, 0, 0]", blinds="[100, 0, 0]",
                              actions='"p2 f", "p3 f"').replace("AsAd", "AsAdKhQh")
                  .replace("7c2h", "7c2h3d4d").replace("KsKd", "KsKdJcTc"))
    assert positional_blinds(omaha) and replay(omaha).finishing_stacks == (1000, 1000, 1000)
