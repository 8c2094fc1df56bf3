"""Seven-card stud rules that hold'em has no counterpart for: who brings it in, who opens
the later streets, and the open-pair option on fourth street.

- Bring-in (third street): the lowest up card brings it in; between equal ranks the suit
  decides, clubs lowest, then diamonds, hearts, spades (stud and stud hi-lo; the ace is
  high). In razz the highest up card brings it in (the king; the ace is low), spades the
  highest suit.
- Later streets are opened by the best hand showing: the highest in stud and stud hi-lo,
  the lowest in razz. Only pairs, trips and quads and the high cards count (no straights
  or flushes of up cards); equal hands: the first of them from the dealer's left opens.
- Stud (high only): an open pair on fourth street lets a player bet the big bet instead of
  the small one (Robert's Rules of Poker, seven-card stud 4); not in stud hi-lo or razz.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from domain.rules.cards import Card
from domain.rules.lowball import ACE_LOW_RANK

# Suit index of domain.rules.cards (s h d c = 0 1 2 3) -> bring-in order, clubs lowest.
_SUIT_ORDER = (3, 2, 1, 0)


def _high_card_key(card: Card) -> tuple[int, int]:
    return card >> 2, _SUIT_ORDER[card & 3]


def _low_card_key(card: Card) -> tuple[int, int]:
    return ACE_LOW_RANK[card], _SUIT_ORDER[card & 3]


def bring_in_seat(up_cards: Sequence[Card | None], razz: bool) -> int | None:
    """The seat that brings it in, from each seat's third-street up card; None when a card
    is unknown (a record that does not name it): then nobody can tell."""
    cards = [(card, seat) for seat, card in enumerate(up_cards) if card is not None]
    if len(cards) < len(up_cards):
        return None
    if razz:
        return max(cards, key=lambda item: _low_card_key(item[0]))[1]
    return min(cards, key=lambda item: _high_card_key(item[0]))[1]


def showing_value(up_cards: Sequence[Card], razz: bool) -> tuple[int, ...]:
    """How good the up cards are for opening a street (higher opens): the shape first
    (trips above two pair above one pair above none), then the ranks; in razz the lowest
    hand scores highest (no pair best)."""
    counts = Counter(ACE_LOW_RANK[c] for c in up_cards) if razz else Counter(c >> 2 for c in up_cards)
    groups = sorted(((n, r) for r, n in counts.items()), reverse=True)
    value = tuple(n for n, _ in groups) + tuple(r for _, r in groups)
    return tuple(-x for x in value) if razz else value


def _all_known(cards: Sequence[Card | None]) -> tuple[Card, ...] | None:
    """The cards, or None when one of them is unknown."""
    known = tuple(card for card in cards if card is not None)
    return known if len(known) == len(cards) else None


def opener_seat(up_cards: Sequence[Sequence[Card | None] | None], razz: bool, first: int = 0) -> int | None:
    """The seat that opens a later street among the seats still in (None: not in); None
    when a live seat's up cards are unknown (the record says who opened). `first`: the
    seat on the dealer's left, the first of equal hands (seat 0 when the dealer is last,
    as PHH seats them)."""
    best_seat, best = None, None
    count = len(up_cards)
    for seat in ((first + step) % count for step in range(count)):
        showing = up_cards[seat]
        if showing is None:
            continue
        cards = _all_known(showing)
        if cards is None:
            return None
        value = showing_value(cards, razz)
        if best is None or value > best:
            best_seat, best = seat, value
    return best_seat


def open_pair(up_cards: Sequence[Sequence[Card | None] | None]) -> bool:
    """Some seat still in shows a pair on fourth street."""
    for showing in up_cards:
        cards = None if showing is None else _all_known(showing)
        if cards is not None and len(cards) >= 2:
            ranks = [c >> 2 for c in cards]
            if len(set(ranks)) < len(ranks):
                return True
    return False
