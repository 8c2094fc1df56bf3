"""PokerStars hand histories read into PHH records and replayed through our rules to the
stacks the history implies (tests/pokerstars: hands written in PokerStars' own format)."""
from __future__ import annotations

from pathlib import Path

import pytest

from domain.history import pokerstars
from domain.history.phh import parse, write_phh
from domain.history.phh_games import replay

HANDS = Path(__file__).resolve().parents[1] / "pokerstars"


def hand(name: str) -> pokerstars.StarsHand:
    (only,) = pokerstars.hands_in((HANDS / name).read_text())
    return only


@pytest.mark.parametrize("name, stacks", [
    ("cash-nl-all-in.txt", (160, 1225, 1690)),         # cents; the rake given back to Carol
    ("tournament-side-pots.txt", (2940, 3860, 2500, 0)),
    ("cash-limit-muck.txt", (495, 595, 410)),
    ("cash-pot-limit-heads-up.txt", (4550, 5450)),
])
def test_each_hand_replays_to_the_stacks_its_history_implies(name, stacks):
    record = pokerstars.to_record(hand(name))
    assert record.finishing_stacks == stacks
    assert replay(record).finishing_stacks == stacks
    assert parse(write_phh(record)) == record  # the same record as PHH text


def test_a_cash_hand_reads_seats_from_the_button_in_cents_with_its_rake():
    record = pokerstars.to_record(hand("cash-nl-all-in.txt"))
    assert (record.variant, record.players) == ("NT", ("Alice", "Bob", "Carol"))  # Dave sits out
    assert record.blinds_or_straddles == (5, 10, 0) and record.min_bet == 10
    assert record.starting_stacks == (1000, 1235, 840)
    fields = dict(record.metadata)
    assert fields["_amounts_in"] == "USD cents" and fields["_rake"] == 49 and fields["hand"] == 233876543210
    actions = [text for text in write_phh(record).split("actions = ")[1].splitlines()[0].strip("[]").split(", ")]
    assert actions[:3] == ['"d dh p1 AhKd"', '"d dh p2 ????"', '"d dh p3 Th9h"']
    assert '"p1 cbr 830"' in actions and '"p3 cc"' in actions  # Carol's all-in call; 160 comes back


def test_a_tournament_hand_has_antes_and_side_pots_and_the_winner_takes_both():
    record = pokerstars.to_record(hand("tournament-side-pots.txt"))
    assert record.players == ("Dan", "Ann", "Ben", "Cat") and record.antes == (10, 10, 10, 10)
    result = replay(record)
    assert [pot.amount for pot in result.pots] == [2460, 1400]
    assert dict(record.metadata)["_tournament"] == "2932345678"


def test_limit_and_pot_limit_read_as_their_structures():
    limit = pokerstars.to_record(hand("cash-limit-muck.txt"))
    assert (limit.variant, limit.small_bet, limit.big_bet, limit.blinds_or_straddles) == ("FT", 10, 20, (5, 10, 0))
    heads_up = pokerstars.to_record(hand("cash-pot-limit-heads-up.txt"))
    # Heads-up the button (Ivy, last) posts the small blind.
    assert (heads_up.variant, heads_up.players, heads_up.blinds_or_straddles) == ("PT", ("Hal", "Ivy"), (25, 50))


def test_a_session_file_is_cut_into_its_hands_with_their_lines():
    hands = pokerstars.hands_in((HANDS / "session.txt").read_text())
    assert [(h.number, h.line) for h in hands] == [("233876543210", 1), ("208957890123", 37),
                                                   ("233876543299", 75), ("233876543300", 111)]
    assert pokerstars.is_pokerstars((HANDS / "session.txt").read_text())
    assert not pokerstars.is_pokerstars('variant = "NT"\n')


@pytest.mark.parametrize("change, line, words", [
    (("Alice: posts small blind $0.05", "Alice: posts small & big blinds $0.15"), 7, "dead small blind"),
    (("Bob: posts big blind $0.10", "Carol: posts big blind $0.10"), 8, "out of position"),
    (("*** FLOP *** [2c 7d Ts]", "*** FIRST FLOP *** [2c 7d Ts]"), 14, "run twice"),
    (("Carol: calls $1", "Carol: dances"), 18, "an action we do not read"),
    (("Hold'em No Limit", "Razz"), 1, "not a hand we read"),
])
def test_what_a_record_cannot_say_is_refused_with_its_line(change, line, words):
    text = (HANDS / "cash-nl-all-in.txt").read_text().replace(*change)
    with pytest.raises(pokerstars.PokerStarsError) as refused:
        pokerstars.to_record(pokerstars.hands_in(text)[0])
    assert refused.value.line == line and words in refused.value.reason


def test_a_match_round_header_and_a_player_out_of_hand_are_read():
    text = (HANDS / "tournament-side-pots.txt").read_text().replace(
        "Hold'em No Limit - Level IV (50/100)", "Hold'em No Limit - Match Round I, Level IV (50/100)").replace(
        "Seat 6: Dan (3000 in chips)\n", "Seat 6: Dan (3000 in chips)\nSeat 7: Eli (2000 in chips) out of hand "
        "(moved from another table into small blind)\n")
    record = pokerstars.to_record(pokerstars.hands_in(text)[0])
    assert record.players == ("Dan", "Ann", "Ben", "Cat") and replay(record).finishing_stacks == record.finishing_stacks
