"""The sites' hand histories read into PHH records (service.application.site_histories):
PokerStars through domain.history.pokerstars, the other sites through PokerKit's parsers,
each replayed through our rules to the stacks its history implies (tests/pokerstars,
tests/site_histories: hands written in each site's own format)."""
from __future__ import annotations

from pathlib import Path

import pytest

from domain.history.phh import UnreadableHand, parse, write_phh
from domain.history.phh_games import replay
from service.application import site_histories

TESTS = Path(__file__).resolve().parents[1]
FULL_TILT = (TESTS / "site_histories" / "fulltilt-cash-showdown.txt").read_text()


def test_the_pokerstars_session_is_told_by_its_first_line_and_each_hand_replays_to_its_stacks():
    text = (TESTS / "pokerstars" / "session.txt").read_text()
    assert site_histories.format_of(text) == "pokerstars"
    hands = site_histories.hands_in(text, "pokerstars")
    stacks = [replay(site_histories.to_record(hand)).finishing_stacks for hand in hands]
    # cents, the rake given back to Carol; chips and side pots; limit; pot limit heads-up
    assert stacks == [(160, 1225, 1690), (2940, 3860, 2500, 0), (495, 595, 410), (4550, 5450)]
    assert [site_histories.to_record(hand).finishing_stacks for hand in hands] == stacks


def test_a_pokerstars_hand_it_cannot_read_is_refused_with_its_line():
    text = (TESTS / "pokerstars" / "cash-nl-all-in.txt").read_text().replace("Carol: calls $1", "Carol: dances")
    with pytest.raises(UnreadableHand) as refused:
        site_histories.to_record(site_histories.hands_in(text, "pokerstars")[0])
    assert refused.value.line == 18 and "an action we do not read" in refused.value.reason


def test_a_full_tilt_hand_is_read_by_pokerkit_and_replays_to_its_stacks():
    assert site_histories.format_of(FULL_TILT) == "fulltilt"
    (hand,) = site_histories.hands_in(FULL_TILT, "fulltilt")
    assert (hand.number, hand.line, hand.variant) == ("18534237905", 1, "NT")
    record = site_histories.to_record(hand)
    # Cents: Ann and Cid put in $1.70 each, Bob his $0.10 blind; Cid's tens win $3.50
    # (PokerKit's engine, like ours, takes no rake: the $0.10 goes back to Cid).
    assert (record.players, record.starting_stacks) == (("Ann", "Bob", "Cid"), (1000, 1250, 800))
    assert record.blinds_or_straddles == (5, 10, 0) and record.min_bet == 10
    assert replay(record).finishing_stacks == (830, 1240, 980)
    fields = dict(record.metadata)
    assert (fields["_source"], fields["_amounts_in"], fields["table"]) == ("Full Tilt Poker", "USD cents", "Aster")
    assert parse(write_phh(record)) == record  # the same record as PHH text


def test_a_partypoker_hand_is_read_by_pokerkit_and_replays_to_its_stacks():
    text = (TESTS / "site_histories" / "partypoker-cash-showdown.txt").read_text()
    assert site_histories.format_of(text) == "partypoker"
    (hand,) = site_histories.hands_in(text, "partypoker")
    record = site_histories.to_record(hand)
    # The same hand as the Full Tilt one, written as PartyPoker writes it (a raise is what
    # the player puts in, the stakes on their own line, amounts with their currency).
    assert record.starting_stacks == (1000, 1250, 800) and replay(record).finishing_stacks == (830, 1240, 980)
    fields = dict(record.metadata)
    assert (fields["_source"], fields["_amounts_in"], fields["winnings"]) == ("PartyPoker", "USD cents", [0, 0, 340])


def test_a_full_tilt_session_is_cut_into_its_hands_and_a_broken_one_refused_with_its_line():
    second = FULL_TILT.replace("#18534237905", "#18534237906").replace("Bob folds", "Dan folds")
    hands = site_histories.hands_in(FULL_TILT + "\n\n" + second, "fulltilt")
    assert [(h.number, h.line) for h in hands] == [("18534237905", 1), ("18534237906", 35)]
    assert replay(site_histories.to_record(hands[0])).finishing_stacks == (830, 1240, 980)
    with pytest.raises(UnreadableHand) as refused:
        site_histories.to_record(hands[1])  # Dan is not seated
    assert refused.value.line == 35 and "PokerKit's Full Tilt Poker reader" in refused.value.reason


def test_an_amount_that_is_not_whole_cents_is_refused():
    text = FULL_TILT.replace("Seat 2: Bob ($12.50)", "Seat 2: Bob ($12.505)")
    with pytest.raises(UnreadableHand) as refused:
        site_histories.to_record(site_histories.hands_in(text, "fulltilt")[0])
    assert "12.505 is not a whole number of cents" in refused.value.reason


def test_phh_and_ggpoker_are_no_site_it_reads():
    assert site_histories.format_of('variant = "NT"\n') is None
    ggpoker = ("Poker Hand #RC1234567890: Hold'em No Limit ($0.02/$0.05) - 2024/01/01 12:00:00\n"
               "Table 'RushAndCash123' 6-max Seat #1 is the button\n")
    assert site_histories.format_of(ggpoker) is None
