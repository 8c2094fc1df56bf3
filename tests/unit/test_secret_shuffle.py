"""The deck shuffle: one `secrets` draw per deck, every order equally likely."""
from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest

from domain.rules.cards import new_deck, shuffled
from service.application import commands
from service.application.commands import SecretShuffle, draw_deal


def test_a_shuffled_deck_holds_every_card_once():
    order = shuffled(new_deck(), SecretShuffle())

    assert sorted(order) == list(new_deck())
    assert len(order) == 52


def test_every_order_of_four_cards_comes_up_about_equally_often():
    draws = 24_000
    counts = Counter(shuffled((0, 1, 2, 3), SecretShuffle()) for _ in range(draws))

    assert set(counts) == set(itertools.permutations((0, 1, 2, 3)))
    expected = draws / 24
    chi_square = sum((seen - expected) ** 2 / expected for seen in counts.values())
    # 23 degrees of freedom: above 60 happens by chance about once in 20,000 runs.
    assert chi_square < 60, counts


def test_a_number_beyond_n_factorial_is_drawn_again_not_folded_back(monkeypatch):
    asked: list[int] = []
    numbers = iter([7, 6, 5])  # 3! = 6: 7 and 6 are refused, 5 is used

    def randbits(bits: int) -> int:
        asked.append(bits)
        return next(numbers)

    monkeypatch.setattr(commands.secrets, "randbits", randbits)
    items = ["a", "b", "c"]
    SecretShuffle().shuffle(items)

    assert asked == [3, 3, 3]  # 6 needs 3 bits
    # 5 = 2 + 3 * 1: index 2 swaps with 2, then index 1 with 1; the order stays.
    assert items == ["a", "b", "c"]


@pytest.mark.parametrize("number, expected", [(0, ["b", "c", "a"]), (1, ["c", "a", "b"]), (4, ["a", "c", "b"])])
def test_the_drawn_number_picks_the_order_by_fisher_yates(monkeypatch, number, expected):
    monkeypatch.setattr(commands.secrets, "randbits", lambda bits: number)
    items = ["a", "b", "c"]
    SecretShuffle().shuffle(items)

    assert items == expected


def test_a_deal_is_a_whole_deck_and_a_fresh_salt():
    deal = draw_deal()

    assert sorted(deal.deck) == sorted(draw_deal().deck)
    assert len(set(deal.deck)) == 52
    assert len(deal.salt) == 64 and deal.salt != draw_deal().salt
    assert math.factorial(52).bit_length() == 226  # one 226-bit draw per deck
