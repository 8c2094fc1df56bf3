"""Cards as small ints, their text form, decks, shuffling with an injected RNG, and the
commitment that lets anyone check after the hand that the deck order was fixed before it.

A card is `rank_index * 4 + suit_index`: rank_index 0..12 for 2..A, suit_index 0..3 for
s h d c. So `card >> 2` is the rank index and `card & 3` the suit, which is what the
evaluator's tables are keyed on. The joker is 52, outside every rank and suit.
"""
from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable, Sequence
from typing import Protocol

from domain.rules.violations import Violation

Card = int

RANKS = "23456789TJQKA"
SUITS = "shdc"
JOKER: Card = 52
JOKER_TEXT = "Jk"

_TOKEN = re.compile(r"joker|jk|10[shdc]|[2-9tjqka][shdc]", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s,]*")


class ShuffleSource(Protocol):
    """What `shuffled` needs: `random.Random` and `secrets.SystemRandom` (`.shuffle`),
    or anything with `.randbelow(n)` such as the `secrets` module itself."""


def parse_card(text: str) -> Card:
    """"As" -> 48+0, "Td", "10d", "Jk" / "Joker" -> JOKER. Rank and suit are case-insensitive.

    Raises Violation("invalid_card") naming the text and the accepted form.
    """
    canonical = _CARD_OF_CANONICAL_TEXT.get(text)  # what format_card wrote: most calls
    if canonical is not None:
        return canonical
    cleaned = text.strip()
    lowered = cleaned.lower()
    if lowered in ("jk", "joker"):
        return JOKER
    if lowered.startswith("10") and len(lowered) == 3:
        lowered = "t" + lowered[2]
    if len(lowered) == 2:
        rank = RANKS.find(lowered[0].upper())
        suit = SUITS.find(lowered[1])
        if rank >= 0 and suit >= 0:
            return rank * 4 + suit
    raise Violation(
        "invalid_card",
        f"{text!r} is not a card: write rank {RANKS} then suit {SUITS} (e.g. 'As', 'Td'), "
        f"or 'Jk' for the joker",
        numbers={"card": text},
    )


def parse_cards(cards: str | Iterable[str]) -> tuple[Card, ...]:
    """"AsKs", "As Ks", "As,Ks" or ["As", "Ks"] -> (48, 44).

    Raises Violation("invalid_card") for text that is not a card and
    Violation("duplicate_card") when a card appears twice (the joker included: the deck has one).
    """
    parsed = tuple(parse_card(token) for token in _tokens(cards)) if isinstance(cards, str) else _parsed_items(cards)
    if len(set(parsed)) == len(parsed):
        return parsed
    seen: set[Card] = set()
    for card in parsed:
        if card in seen:
            raise Violation(
                "duplicate_card",
                f"{format_card(card)} appears twice in {format_cards(parsed)}: a deck holds each card once",
                numbers={"card": format_card(card)},
            )
        seen.add(card)
    return parsed


def _parsed_items(cards: Iterable[str]) -> tuple[Card, ...]:
    """Each item parsed: a whole deck as format_card wrote it (each hand's shuffle) by one
    lookup per card, anything else card by card."""
    items = tuple(cards)
    try:
        return tuple(map(_CARD_OF_CANONICAL_TEXT.__getitem__, items))
    except (KeyError, TypeError):
        return tuple(parse_card(item) for item in items)


def _tokens(text: str) -> list[str]:
    tokens: list[str] = []
    position = _SEPARATORS.match(text, 0).end()  # type: ignore[union-attr]
    while position < len(text):
        token = _TOKEN.match(text, position)
        if token is None:
            raise Violation(
                "invalid_card",
                f"cannot read a card at {text[position:]!r} in {text!r}: write rank {RANKS} "
                f"then suit {SUITS} (e.g. 'AsKs'), or 'Jk' for the joker",
                numbers={"cards": text, "position": position},
            )
        tokens.append(token.group())
        position = _SEPARATORS.match(text, token.end()).end()  # type: ignore[union-attr]
    return tokens


_TEXT_OF_CARD = tuple(RANKS[card >> 2] + SUITS[card & 3] for card in range(52)) + (JOKER_TEXT,)
_CARD_OF_CANONICAL_TEXT = {text: card for card, text in enumerate(_TEXT_OF_CARD)}


def format_card(card: Card) -> str:
    """48 -> "As"; JOKER -> "Jk"."""
    if not 0 <= card <= JOKER:
        raise Violation("invalid_card", f"{card} is not a card number (0..51, or 52 for the joker)")
    return _TEXT_OF_CARD[card]


def format_cards(cards: Iterable[Card]) -> str:
    """(48, 44) -> "AsKs", the concatenated form events and PHH use."""
    return "".join([format_card(card) for card in cards])


def card_rank(card: Card) -> int:
    """2..14 (ace high). The joker has no rank of its own: Violation("invalid_card")."""
    if card == JOKER:
        raise Violation("invalid_card", "the joker has no rank of its own")
    return (card >> 2) + 2


def card_suit(card: Card) -> str:
    """One of "shdc". The joker has no suit of its own: Violation("invalid_card")."""
    if card == JOKER:
        raise Violation("invalid_card", "the joker has no suit of its own")
    return SUITS[card & 3]


def new_deck(with_joker: bool = False) -> tuple[Card, ...]:
    """The 52 cards in a fixed order (2s 2h 2d 2c 3s ... Ac), then the joker if asked."""
    return tuple(range(53 if with_joker else 52))


def deck_texts(with_joker: bool = False) -> tuple[str, ...]:
    """`new_deck` as card texts: ("2s", "2h", ..., "Ac"[, "Jk"])."""
    return _TEXT_OF_CARD if with_joker else _TEXT_OF_CARD[:JOKER]


def shuffled(deck: Sequence[Card], rng: ShuffleSource) -> tuple[Card, ...]:
    """A new tuple in the order `rng.shuffle` gives; the deck passed in is left alone.

    The RNG is an argument so the domain never draws: the service passes
    `service.application.commands.SecretShuffle()` (drawn with `secrets`), tests a seeded
    `random.Random` (same seed, same order).
    """
    order = list(deck)
    shuffle = getattr(rng, "shuffle", None)
    if shuffle is not None:
        shuffle(order)
        return tuple(order)
    # Fisher-Yates on `randbelow`, for sources (the `secrets` module) that have no shuffle.
    for i in range(len(order) - 1, 0, -1):
        j = rng.randbelow(i + 1)  # type: ignore[attr-defined]
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def deck_commitment(order: Sequence[Card], salt: bytes) -> str:
    """Hex SHA-256 of the canonical text `<cards concatenated>|<salt as lowercase hex>`,
    e.g. sha256(b"As2h...Kc|9f3a...").

    Published before the deal, it binds the house to the order; revealing order and salt
    afterwards lets anyone recompute it. The salt stops guessing the order from the hash.
    """
    canonical = f"{format_cards(order)}|{salt.hex()}"
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def verify_deck_commitment(order: Sequence[Card], salt: bytes, commitment: str) -> bool:
    """True when `commitment` is `deck_commitment(order, salt)` (compared in constant time)."""
    return hmac.compare_digest(deck_commitment(order, salt), commitment.strip().lower())
