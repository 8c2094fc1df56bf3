"""Five-card draw in PHH (docs/phh-five-card-draw.md): replayed through our draw decider,
exported from its events, and round-tripped."""
from __future__ import annotations

import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from domain.games.draw import engine as draw_engine
from domain.games.draw import legal as draw_legal
from domain.games.draw.commands import Discard, Redeal, StartHand
from domain.games.draw.events import Redealt, StubReshuffled
from domain.games.draw.state import DRAW, REDEAL
from domain.games.draw_settings import DrawSettings
from domain.games.hand_events import PostAction
from domain.history.phh import parse, write_phh
from domain.history.phh_draw import recorded_deck
from domain.history.phh_games import phh_from_events, replay
from domain.rules.cards import deck_texts, format_card, new_deck
from domain.rules.violations import Violation

HEADER = """\
variant = "N5CD"
ante_trimming_status = true
antes = [10, 10, 10]
min_bet = 20
starting_stacks = [2000, 2000, 2000]
players = ["Ann", "Bob", "Cy"]
"""
OPENED_AND_DRAWN = HEADER + """\
actions = ["d dh p1 AsAhKd7c2s", "d dh p2 QsQhJd9c3s", "d dh p3 8s8h5d4c3h",
  "p1 cbr 60", "p2 cc", "p3 f",
  "p1 sd Kd7c2s", "d dh p1 AdTc4h", "p2 sd Jd9c3s", "d dh p2 Qd5s6s",
  "p1 cc", "p2 cbr 100", "p1 cc", "p1 sm AsAhAdTc4h", "p2 sm QsQhQd5s6s"]
"""


def test_trip_aces_after_the_draw_beat_trip_queens_and_take_the_antes_and_bets():
    result = replay(parse(OPENED_AND_DRAWN))
    # Ann: 2000 - 10 ante - 60 - 100 + the pot 30 + 120 + 200 = 2180.
    assert result.finishing_stacks == (2180, 1830, 1990)
    assert result.winners == (0,)
    assert [p.amount for p in result.pots] == [350]


def test_discards_and_deals_may_be_written_all_discards_first_as_the_wsop_records_do():
    wsop_order = OPENED_AND_DRAWN.replace(
        '"p1 sd Kd7c2s", "d dh p1 AdTc4h", "p2 sd Jd9c3s", "d dh p2 Qd5s6s"',
        '"p1 sd Kd7c2s", "p2 sd Jd9c3s", "d dh p1 AdTc4h", "d dh p2 Qd5s6s"')
    assert replay(parse(wsop_order)).finishing_stacks == (2180, 1830, 1990)


def test_the_export_of_a_replayed_hand_round_trips():
    result = replay(parse(OPENED_AND_DRAWN))
    exported = phh_from_events(result.events)
    assert exported.variant == "N5CD" and exported.min_bet == 20
    assert parse(write_phh(exported)) == exported
    assert replay(exported).finishing_stacks == result.finishing_stacks
    assert replay(exported).events == result.events


def test_everyone_checking_the_first_round_redeals_with_the_pot_kept():
    text = HEADER + """\
actions = ["d dh p1 As7hKd5c2s", "d dh p2 QsTh8d9c3s", "d dh p3 Js8h6d4c3h",
  "p1 cc", "p2 cc", "p3 cc",
  "d dh p1 AhAdKc7c2h", "d dh p2 Qh9h9s4s3d", "d dh p3 Jh8c6c4d3c",
  "p1 cbr 20", "p2 f", "p3 f"]
"""
    result = replay(parse(text))
    # Two antes each (60) went in; Ann's bet of 20 comes back uncalled.
    assert result.finishing_stacks == (2040, 1980, 1980)
    assert any(type(e) is Redealt for e in result.events)


def test_a_draw_over_the_limit_is_the_first_illegal_action():
    text = OPENED_AND_DRAWN.replace('"p1 sd Kd7c2s", "d dh p1 AdTc4h"',
                                    '"p2 sd QsQhJd9c", "d dh p2 AdTc4h2c"')
    with pytest.raises(Violation) as refused:
        replay(parse(text))
    assert refused.value.numbers["action_index"] == 6


def test_four_cards_may_be_drawn_only_keeping_an_ace():
    text = OPENED_AND_DRAWN.replace('"p2 sd Jd9c3s", "d dh p2 Qd5s6s"',
                                    '"p2 sd QhJd9c3s", "d dh p2 Qd5s6s2c"')
    with pytest.raises(Violation) as refused:
        replay(parse(text))
    assert refused.value.code == "draw_limit_exceeded"
    assert refused.value.numbers["action_index"] == 8


def test_a_min_bet_that_is_not_twice_the_ante_is_not_our_game():
    with pytest.raises(Violation) as refused:
        replay(parse(OPENED_AND_DRAWN.replace("min_bet = 20", "min_bet = 25")))
    assert refused.value.code == "unsupported_forced_bets"


def test_a_card_dealt_twice_names_the_deal():
    text = OPENED_AND_DRAWN.replace('"d dh p2 QsQhJd9c3s"', '"d dh p2 AsQhJd9c3s"')
    with pytest.raises(Violation) as refused:
        replay(parse(text))
    assert refused.value.code == "duplicate_card"
    assert refused.value.numbers["action_index"] == 1


def test_unknown_cards_replay_when_nobody_shows_them():
    text = HEADER + """\
actions = ["d dh p1 AsAhKd7c2s", "d dh p2 ??????????", "d dh p3 ??????????",
  "p1 cbr 60", "p2 f", "p3 f"]
"""
    assert replay(parse(text)).finishing_stacks == (2020, 1990, 1990)


def test_a_showdown_that_needs_unknown_cards_is_refused():
    text = OPENED_AND_DRAWN.replace('"d dh p2 QsQhJd9c3s"', '"d dh p2 ??????????"').replace(
        '"p2 sd Jd9c3s", "d dh p2 Qd5s6s"', '"p2 sd", "p1 cc"').replace(
        '"p1 cc", "p2 cbr 100", "p1 cc", "p1 sm AsAhAdTc4h", "p2 sm QsQhQd5s6s"', '"p2 cc"')
    with pytest.raises(Violation) as refused:
        replay(parse(text))
    assert refused.value.code == "unknown_cards"


def test_fixed_limit_settings_travel_in_user_defined_fields():
    text = OPENED_AND_DRAWN.replace('variant = "N5CD"', 'variant = "F5CD"').replace(
        "min_bet = 20", 'small_bet = 20\nbig_bet = 40\n_draw_limit = 5\n_raise_cap = 4').replace(
        '"p1 cbr 60"', '"p1 cbr 20"').replace('"p2 cbr 100"', '"p2 cbr 40"')
    result = replay(parse(text))
    assert result.finishing_stacks == (2000 - 10 - 20 - 40 + 150, 2000 - 70, 1990)
    exported = phh_from_events(result.events)
    assert dict(exported.metadata)["_draw_limit"] == 5 and dict(exported.metadata)["_raise_cap"] == 4


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 6))
# The stub runs out and the reshuffled discards deal a discarded card (3s) again.
@example(seed=506, players=6)
def test_any_hand_our_decider_plays_exports_and_replays_to_the_same_stacks(seed, players):
    log, state = _played(seed, players)
    record = phh_from_events(log)
    assert replay(parse(write_phh(record))).finishing_stacks == tuple(state.stacks)


def _played(seed, players):
    """A hand our decider plays with random legal commands (the seed fixes them all)."""
    rng = random.Random(seed)
    settings_ = DrawSettings(draw_limit=5)
    deck = [format_card(c) for c in new_deck()]
    rng.shuffle(deck)
    names = tuple(f"P{i}" for i in range(players))
    log, state = draw_engine.handle(None, StartHand(names, players - 1, settings_, tuple(deck),
                                                  (500,) * players))
    while not state.over:
        if state.phase == REDEAL:
            rng.shuffle(deck)
            command = Redeal(tuple(deck))
        elif state.phase == DRAW:
            seat = state.to_act
            hand = [format_card(c) for c in state.hands[seat]]
            command = Discard(seat, tuple(rng.sample(hand, rng.randint(0, 5))))
        else:
            legal = draw_legal.legal_actions(state)
            options = ["fold"] + (["check"] if legal.check else ["call"])
            options += ["bet"] * bool(legal.bet) + ["raise"] * bool(legal.raise_)
            action = rng.choice(options)
            to = {"bet": legal.bet, "raise": legal.raise_}.get(action)
            command = PostAction(state.to_act, action,
                                      rng.randint(to.min_to, to.max_to) if to else None)
        events, state = draw_engine.handle(state, command)
        log += events
    return log, state


def _reshuffled_record():
    """Seed 506's six-handed hand: all in before the draw; p1-p5 draw 18 of the stub's 22,
    and p6's fifth card is 3s, p1's discard, from the reshuffled discards."""
    log, _ = _played(506, 6)
    assert any(type(e) is StubReshuffled for e in log)
    text = write_phh(phh_from_events(log))
    assert '"p1 sd 3s5d5hJd"' in text and '"d dh p6 6h9cAdAs3s"' in text
    return text


def test_a_discard_dealt_again_from_the_reshuffled_discards_replays():
    result = replay(parse(_reshuffled_record()))
    assert result.finishing_stacks == (0, 0, 0, 0, 0, 3000)
    assert any(type(e) is StubReshuffled for e in result.events)


def test_a_card_still_held_cannot_come_from_the_reshuffled_discards():
    # p1 kept 2s: it is not among the discards the stub is topped up with.
    text = _reshuffled_record().replace("6h9cAdAs3s", "6h9cAdAs2s")
    with pytest.raises(Violation) as refused:
        replay(parse(text))
    assert refused.value.code == "invalid_card"
    assert refused.value.numbers["action_index"] == 24  # p6's draw, which deals them


def test_a_recorded_deck_deals_the_named_hands_one_card_at_a_time():
    built = recorded_deck(DrawSettings(), [["As", "Ks", "Qs", "Js", "Ts"], ["2h", "3h", "4h", "5h", "7d"]],
                          [["9c", "8c"]])
    assert built.deck[:10] == ("As", "2h", "Ks", "3h", "Qs", "4h", "Js", "5h", "Ts", "7d")
    assert built.deck[10:12] == ("9c", "8c") and len(set(built.deck)) == 52


def test_after_the_stub_runs_out_a_discard_may_be_named_again_and_is_reshuffled_first():
    deck = deck_texts()
    hands = [list(deck[5 * k:5 * k + 5]) for k in range(6)]
    stub = list(deck[30:])
    # Four players draw five each (20 of the stub's 22); the fifth gets the last two and
    # then two of the first player's discards.
    receipts = [stub[0:5], stub[5:10], stub[10:15], stub[15:20], stub[20:22] + [hands[0][3], hands[0][1]]]
    built = recorded_deck(DrawSettings(draw_limit=5), hands, receipts)
    assert built.deck[30:] == tuple(stub)
    assert built.reshuffle_order[:2] == (hands[0][3], hands[0][1])
    assert sorted(built.reshuffle_order) == sorted(deck)
    # A card the stub still deals is dealt once only.
    receipts[1][0] = hands[0][3]
    with pytest.raises(Violation) as refused:
        recorded_deck(DrawSettings(draw_limit=5), hands, receipts)
    assert refused.value.code == "duplicate_card"
