"""The card-by-card commitment (service.md): each opening proves its one card against the
root, binds its position and card, and says nothing of the other cards."""
from __future__ import annotations

import hashlib
import hmac
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.live import table_events, table_state
from domain.live.games.common import DECK_HASH
from domain.records import from_record
from domain.rules.cards import deck_texts
from domain.rules.deal_commitment import Opening, deal_root, openings, position_salt, verify_opening

SECRET = bytes(range(32))


def shuffled_deck(seed: int, with_joker: bool = False) -> tuple[str, ...]:
    deck = list(deck_texts(with_joker))
    random.Random(seed).shuffle(deck)
    return tuple(deck)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), joker=st.booleans(), data=st.data())
def test_every_opening_verifies_against_the_root_and_a_changed_card_does_not(seed, joker, data):
    deck = shuffled_deck(seed, joker)
    root = deal_root(deck, SECRET)
    positions = data.draw(st.lists(st.integers(0, len(deck) - 1), min_size=1, max_size=9, unique=True))
    for opening in openings(deck, SECRET, positions):
        assert opening.card == deck[opening.position]
        assert verify_opening(opening, root)
        other = next(card for card in deck if card != opening.card)
        assert not verify_opening(Opening(opening.position, other, opening.salt, opening.path), root)
        moved = (opening.position + 1) % len(deck)
        assert not verify_opening(Opening(moved, opening.card, opening.salt, opening.path), root)


def test_an_opening_carries_no_other_card_and_salts_differ_by_position():
    deck = shuffled_deck(3)
    (opening,) = openings(deck, SECRET, [5])
    assert opening.card == deck[5]
    assert len(opening.path) == 6, "52 leaves: six sibling hashes up to the root"
    assert all(len(sibling) == 64 and int(sibling, 16) >= 0 for _, sibling in opening.path)
    assert len({position_salt(SECRET, i) for i in range(52)}) == 52


def test_the_root_changes_with_the_order_and_with_the_secret():
    deck = shuffled_deck(1)
    swapped = (deck[1], deck[0]) + deck[2:]
    assert deal_root(deck, SECRET) != deal_root(swapped, SECRET)
    assert deal_root(deck, SECRET) != deal_root(deck, bytes(32))


def test_a_hand_opened_before_per_card_commitments_keeps_its_whole_deck_scheme():
    opened = from_record(table_events.TABLE_EVENT_TYPES, "HandOpened", {
        "hand_id": "t.1", "number": 1, "button": 0, "seats": [0, 1], "commitment": "c", "salt": "s"})
    assert opened.scheme == DECK_HASH
    assert table_state.evolve(table_state.replay([table_events.TableCreated("t", "holdem", {}, None, (), False, None)]),
                              opened).deal_scheme == DECK_HASH


def _canonical_root(deck: tuple[str, ...], secret: bytes, first: int) -> str:
    """The root as the module's docstring defines it, redone with nothing but hashlib and hmac."""
    def salt(position: int) -> str:
        return hmac.new(secret, f"cardroom-card-salt|{position}".encode(), "sha256").hexdigest()

    level = [hashlib.sha256(f"cardroom-card|{first + i}|{card}|{salt(first + i)}".encode()).hexdigest()
             for i, card in enumerate(deck)]
    while len(level) > 1:
        level = [hashlib.sha256(f"cardroom-node|{level[i]}|{level[i + 1]}".encode()).hexdigest()
                 if i + 1 < len(level) else level[i] for i in range(0, len(level), 2)]
    return level[0]


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), joker=st.booleans(), first=st.integers(0, 120))
def test_the_root_is_the_canonical_text_s_whoever_recomputes_it(seed, joker, first):
    deck = shuffled_deck(seed, joker)
    secret = random.Random(seed).randbytes(32)
    assert deal_root(deck, secret, first) == _canonical_root(deck, secret, first)
    opened = openings(deck, secret, [first + len(deck) - 1], first)[0]
    assert opened.salt == hmac.new(secret, f"cardroom-card-salt|{opened.position}".encode(), "sha256").hexdigest()


@pytest.mark.parametrize("length", [0, 1, 31, 32, 63, 64, 65, 200])
def test_the_root_is_the_canonical_text_s_for_a_secret_of_any_length(length):
    """The per-position salts are HMAC-SHA256 whatever the secret's length (a key longer
    than SHA-256's block is hashed first, a shorter one padded)."""
    deck = shuffled_deck(length, length % 2 == 1)
    secret = random.Random(length).randbytes(length)
    assert deal_root(deck, secret, length) == _canonical_root(deck, secret, length)
