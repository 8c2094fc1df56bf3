"""Five-card draw openers (declarations.md "Five-card draw: openers"; Robert's Rules,
draw): splitting openers is declared and the discards kept aside; false openers make a
dead hand, the pot carried to the next deal when nobody else had acted, else played for.

Where the sources are silent the module decides (marked "house" below): exactly one
caller takes the pot as the last live hand; found after the draw or at the showdown the
pot plays among the others; callers' bets stand (nothing is returned but uncalled chips);
when every other player folded to the false opener the pot is carried to the next deal,
which deals again everyone who was in when the bet was made.
"""
from __future__ import annotations

import pytest

from domain.games.draw import computer as draw_computer
from domain.games.draw import openers as draw_openers
from domain.games.draw.commands import Discard, FalseOpeners, OpenWithoutProof, Redeal
from domain.games.draw.events import FalseOpenersFound, OpenersShown, OpenersSplit, visible_event
from domain.games.draw_settings import DrawSettings
from domain.games.hand_events import PotAwarded
from domain.rules.cards import format_card
from domain.rules.violations import Violation
from tests.unit.test_draw_hand import Table, parse_and_text, stacked_deck

JACKS = DrawSettings(opening="jacks_or_better")
# Button seat 0: seat 1 acts and draws first. Seat 1 holds jacks and four hearts.
SPLIT = ("9c9d5s4c3d", "JsJhQhKh2h", "7s7h8d9sTs")
# Seat 1 holds nothing: an opening there is false.
FALSE = ("9c9d5s4c3d", "Tc8h6d4h2c", "7s7h8d9sTs")


def opened_and_called(hands, *, proven: bool = True) -> Table:
    table = Table(hands, JACKS)
    if proven:
        table.act(("bet", 20))
    else:
        table(OpenWithoutProof(1, 20))
    table.act(("call",), ("call",))
    return table


def test_an_opener_who_throws_part_of_the_openers_away_must_say_so():
    table = opened_and_called(SPLIT)
    with pytest.raises(Violation) as refused:
        table(Discard(1, tuple(parse_and_text("Js"))))
    assert refused.value.code == "split_openers_undeclared"
    assert refused.value.rule == "RRP draw: splitting openers"


def test_splitting_openers_declared_keeps_the_discards_aside_and_proves_them_at_the_end():
    table = opened_and_called(SPLIT)
    events = table(Discard(1, tuple(parse_and_text("Js")), split_openers=True))
    split = next(e for e in events if isinstance(e, OpenersSplit))
    assert split.cards == "Js"
    assert parse_and_text("Js")[0] not in [format_card(c) for c in table.state.muck]
    # The discards kept aside are the opener's own: nobody else sees them.
    assert visible_event(split, 1, "player").cards == "Js"
    assert visible_event(split, 2, "player").cards is None
    assert visible_event(split, None, "spectator").cards is None
    table.draw_all("", "")
    table.act(("check",), ("check",), ("check",))
    assert next(e for e in table.events if isinstance(e, OpenersShown)) == OpenersShown(1, "JsJh")


def test_only_the_opener_splits_openers():
    table = opened_and_called(SPLIT)
    table(Discard(1, ()))
    with pytest.raises(Violation) as refused:
        table(Discard(2, tuple(parse_and_text("7s")), split_openers=True))
    assert refused.value.code == "illegal_action"


def test_the_computer_player_declares_the_split_it_makes():
    table = opened_and_called(("9c9d5s4c3d", "JsJhTh9h8h", "7s7h8d9sTs"))
    move = draw_computer.auto_action(table.state, 1)
    assert move.split_openers is draw_openers.breaks_openers(table.state, 1, move.cards)


def test_false_openers_before_anyone_else_acted_carry_the_pot_to_the_next_deal():
    table = Table(FALSE, JACKS)
    table(OpenWithoutProof(1, 20))
    events = table(FalseOpeners(1))
    assert events == [FalseOpenersFound(1, "carried")]
    assert table.state.awaiting == "redeal"
    pot_before = sum(table.state.betting.committed)
    assert pot_before == 3 * 10 + 20  # the antes and the opening bet stay in
    table(Redeal(stacked_deck(SPLIT, 0)))
    # The next deal: everyone antes again and the false opener is dealt in too.
    assert sum(table.state.betting.committed) == pot_before + 3 * 10
    assert all(table.state.hands[seat] for seat in range(3))


def test_false_openers_after_two_callers_the_pot_plays_among_them():
    table = opened_and_called(FALSE, proven=False)
    assert table(FalseOpeners(1))[0] == FalseOpenersFound(1, "pot_plays")
    assert table.state.betting.folded[1] and table.state.hands[1] == ()
    table.draw_all("", "")
    table.act(("check",), ("check",))
    awards = [e for e in table.events if isinstance(e, PotAwarded)]
    assert [a.winners for a in awards] == [(0,)]  # nines beat sevens; the dead hand plays no part
    assert sum(a.amount for a in awards) == 3 * 10 + 3 * 20  # the opener's chips stay in the pot
    assert not any(isinstance(e, OpenersShown) for e in table.events)


def test_false_openers_with_exactly_one_caller_the_caller_takes_the_pot():
    """House: the one caller is the last live hand and takes the pot, their call included."""
    table = Table(FALSE, JACKS)
    table(OpenWithoutProof(1, 20))
    table.act(("call",), ("fold",))
    table(FalseOpeners(1))
    awards = [e for e in table.events if isinstance(e, PotAwarded)]
    assert [a.winners for a in awards] == [(2,)] and sum(a.amount for a in awards) == 3 * 10 + 2 * 20
    assert table.state.over


def test_false_openers_found_at_the_showdown_the_pot_goes_to_the_best_other_hand():
    """House: an opener who cannot prove the openers at the end of the hand has a dead hand
    even when it would have won."""
    table = Table(FALSE, JACKS, stub="AsAdAh")
    table(OpenWithoutProof(1, 20))
    table.act(("call",), ("call",))
    table.draw_all("Tc8h6d", "", "")  # the false opener draws three aces
    table.act(("check",), ("check",), ("check",))
    assert FalseOpenersFound(1, "pot_plays") in table.events
    assert [e.winners for e in table.events if isinstance(e, PotAwarded)] == [(0,)]  # nines


def test_everyone_folding_to_a_false_opener_carries_the_pot_and_deals_them_again():
    """House: no live hand is left, so the pot goes to the next deal, which deals again
    everyone who was in when the bet was made."""
    table = Table(FALSE, JACKS)
    table(OpenWithoutProof(1, 20))
    table.act(("fold",), ("fold",))
    assert FalseOpenersFound(1, "carried") in table.events
    assert table.state.awaiting == "redeal" and table.state.betting.contenders == (0, 1, 2)


def test_an_opener_who_held_openers_is_proven():
    table = opened_and_called(SPLIT)
    with pytest.raises(Violation) as refused:
        table(FalseOpeners(1))
    assert refused.value.code == "openers_proven"
    with pytest.raises(Violation):
        table(FalseOpeners(2))


def test_an_opening_without_proof_is_only_the_first_bet_under_jacks_or_better():
    table = Table(FALSE, DrawSettings())
    with pytest.raises(Violation):
        table(OpenWithoutProof(1, 20))


# Robert's Rules, draw (jacks or better): an opener whose straight or flush also holds a
# qualifying pair (the joker counting in it) may throw the rest away and draw to the pair:
# keeping the pair keeps openers, so nothing is split and nothing is kept aside.
WILD_JACKS = DrawSettings(opening="jacks_or_better", joker="wild")
JOKER_STRAIGHT = ("9c9d5s4c3d", "JkJhTc9h8s", "7s7h8d9sTs")  # seat 1: a straight, and jacks with the joker


def joker_straight_opened() -> Table:
    table = Table(JOKER_STRAIGHT, WILD_JACKS)
    table.act(("bet", 20))
    table.act(("call",), ("call",))
    return table


def test_an_opener_keeping_a_pair_from_a_straight_draws_without_splitting_openers():
    table = joker_straight_opened()
    events = table(Discard(1, tuple(parse_and_text("Tc9h8s"))))
    assert not any(isinstance(e, OpenersSplit) for e in events)
    assert draw_openers.breaks_openers(table.state, 1, ["Tc", "9h", "8s"]) is False


def test_throwing_the_joker_from_such_a_straight_still_splits_the_openers():
    table = joker_straight_opened()
    with pytest.raises(Violation) as refused:
        table(Discard(1, tuple(parse_and_text("JkTc9h"))))
    assert refused.value.code == "split_openers_undeclared"
    assert draw_openers.breaks_openers(table.state, 1, ["Jk", "Tc", "9h"]) is True


def test_with_the_bug_only_an_ace_pairs_the_joker():
    bug = DrawSettings(opening="jacks_or_better", joker="bug")
    table = Table(("9c9d5s4c3d", "JkAhKhQh9h", "7s7h8d9sTs"), bug)  # a flush, and aces with the bug
    table.act(("bet", 20))
    table.act(("call",), ("call",))
    assert draw_openers.breaks_openers(table.state, 1, ["Kh", "Qh", "9h"]) is False
    assert draw_openers.breaks_openers(table.state, 1, ["Ah", "Qh", "9h"]) is True
