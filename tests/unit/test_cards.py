"""Cards: reading and writing them, decks, shuffling with an injected RNG, commitments."""
from __future__ import annotations

import hashlib
import random
import secrets

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.rules.cards import (
    JOKER,
    RANKS,
    SUITS,
    card_rank,
    card_suit,
    deck_commitment,
    format_card,
    format_cards,
    new_deck,
    parse_card,
    parse_cards,
    shuffled,
    verify_deck_commitment,
)
from domain.rules.violations import Violation


def test_ace_of_spades_and_ten_of_diamonds_read_as_rank_and_suit():
    ace = parse_card("As")
    ten = parse_card("Td")
    assert (card_rank(ace), card_suit(ace)) == (14, "s")
    assert (card_rank(ten), card_suit(ten)) == (10, "d")


@pytest.mark.parametrize("text", ["Jk", "JK", "jk", "Joker", "joker"])
def test_the_joker_is_written_jk_or_joker(text):
    assert parse_card(text) == JOKER
    assert format_card(JOKER) == "Jk"


def test_ten_may_be_written_10_and_case_does_not_matter():
    assert parse_card("10h") == parse_card("Th") == parse_card("th") == parse_card("TH")


@pytest.mark.parametrize("text", ["", "A", "1s", "Ax", "Asd", "Kk", "11s", "??"])
def test_text_that_is_not_a_card_is_an_invalid_card(text):
    with pytest.raises(Violation) as raised:
        parse_card(text)
    assert raised.value.code == "invalid_card"
    assert repr(text) in raised.value.detail


def test_every_card_of_the_deck_reads_back_as_it_is_written():
    for card in new_deck(with_joker=True):
        assert parse_card(format_card(card)) == card


def test_the_deck_lists_each_rank_and_suit_once():
    deck = new_deck()
    assert len(deck) == 52 == len(set(deck))
    assert {format_card(c) for c in deck} == {r + s for r in RANKS for s in SUITS}
    assert new_deck(with_joker=True) == deck + (JOKER,)


@pytest.mark.parametrize("text", ["AsKsJk", "As Ks Jk", "As,Ks, Joker", " AsKs\tJk "])
def test_several_cards_read_from_concatenated_or_separated_text(text):
    assert parse_cards(text) == (parse_card("As"), parse_card("Ks"), JOKER)


def test_several_cards_read_from_a_list_of_strings():
    assert format_cards(parse_cards(["As", "10d", "Jk"])) == "AsTdJk"


def test_a_card_given_twice_is_a_duplicate_card():
    with pytest.raises(Violation) as raised:
        parse_cards("AsKsAs")
    assert raised.value.code == "duplicate_card"
    assert "As appears twice" in raised.value.detail


def test_two_jokers_are_a_duplicate_card_since_the_deck_has_one():
    with pytest.raises(Violation) as raised:
        parse_cards(["Jk", "Joker"])
    assert raised.value.code == "duplicate_card"


def test_unreadable_text_inside_a_hand_names_where_reading_stopped():
    with pytest.raises(Violation) as raised:
        parse_cards("AsKxQs")
    assert raised.value.code == "invalid_card"
    assert "'KxQs'" in raised.value.detail


def test_the_joker_has_no_rank_or_suit_of_its_own():
    for read in (card_rank, card_suit):
        with pytest.raises(Violation) as raised:
            read(JOKER)
        assert raised.value.code == "invalid_card"


def test_a_seeded_shuffle_gives_the_same_order_every_time():
    deck = new_deck()
    assert shuffled(deck, random.Random(7)) == shuffled(deck, random.Random(7))
    assert shuffled(deck, random.Random(7)) != shuffled(deck, random.Random(8))


@pytest.mark.parametrize("source", [random.Random(1), secrets.SystemRandom(), secrets])
def test_a_shuffle_is_a_new_order_of_the_same_cards(source):
    deck = new_deck(with_joker=True)
    order = shuffled(deck, source)
    assert sorted(order) == list(deck)
    assert deck == tuple(range(53))  # the deck passed in is left alone


def test_the_commitment_is_sha256_of_the_cards_then_the_salt_in_hex():
    order = parse_cards("As2hKc")
    salt = bytes.fromhex("00ff10")
    expected = hashlib.sha256(b"As2hKc|00ff10").hexdigest()
    assert deck_commitment(order, salt) == expected


def test_a_revealed_order_and_salt_verify_against_the_commitment():
    order = shuffled(new_deck(), random.Random(3))
    salt = b"table-9 hand-41"
    commitment = deck_commitment(order, salt)
    assert verify_deck_commitment(order, salt, commitment)
    assert verify_deck_commitment(order, salt, commitment.upper())


def test_a_changed_order_or_salt_fails_verification():
    order = shuffled(new_deck(), random.Random(3))
    salt = b"salt"
    commitment = deck_commitment(order, salt)
    swapped = (order[1], order[0]) + order[2:]
    assert not verify_deck_commitment(swapped, salt, commitment)
    assert not verify_deck_commitment(order, b"other salt", commitment)


@given(st.lists(st.sampled_from(range(53)), min_size=1, max_size=12, unique=True))
def test_formatted_cards_parse_back_to_the_same_cards(cards):
    assert parse_cards(format_cards(cards)) == tuple(cards)


def test_deck_texts_are_the_new_deck_formatted():
    from domain.rules.cards import deck_texts

    assert deck_texts() == tuple(format_card(c) for c in new_deck())
    assert deck_texts(with_joker=True) == tuple(format_card(c) for c in new_deck(with_joker=True))


def test_a_list_of_texts_parses_alike_whether_canonical_or_not():
    assert parse_cards(["As", "Kd", "Jk"]) == parse_cards(["AS", "kd", "joker"]) == (48, 46, 52)
    with pytest.raises(Violation) as raised:
        parse_cards(["As", "Xx"])
    assert raised.value.code == "invalid_card"
    with pytest.raises(Violation) as raised:
        parse_cards(["As", "as"])
    assert raised.value.code == "duplicate_card"


def test_formatting_cards_refuses_a_number_that_is_not_a_card():
    assert format_cards((48, 44, 52)) == "AsKsJk"
    with pytest.raises(Violation) as raised:
        format_cards((48, 53))
    assert raised.value.code == "invalid_card" and "53" in raised.value.detail
