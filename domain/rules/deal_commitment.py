"""The card-by-card commitment to a deal (service.md "Provably fair deals, without exposing
mucked cards"): each deck position gets its own salt, each (position, card, salt) a leaf
hash, and the leaves a Merkle root that the hand's first event publishes before any card
is dealt. After the hand, one card is proven by its opening (position, card, salt and
the sibling hashes up to the root), so a player can check their own cards, the board and
the hands shown down without being given any other card.

The per-position salts come from the hand's one secret salt (HMAC-SHA256 of the
position), so the store seals one 32-byte secret as before; an opened salt says nothing
about the secret or about any other position's salt. The floor, who holds the secret and
the whole deck, recomputes the root from them.

Canonical text, so anyone can redo the check without this code:
- salt of position i: hmac_sha256(key=secret, msg=b"cardroom-card-salt|<i>"), as hex;
- leaf: sha256(b"cardroom-card|<i>|<card>|<salt hex>") (card as "As", "Td", "Jk");
- node: sha256(b"cardroom-node|" + left hex + b"|" + right hex); a level with an odd
  count carries its last hash up unchanged;
- root: the single hash left, as lowercase hex.

A hand with more than one committed sequence (five-card draw: the deck and the order
discards are reshuffled in, and again for each redeal) numbers positions across the whole
hand: a sequence whose first card is position `first` has its own root over positions
first, first+1, ...; so no two cards of a hand share a salt, and an opened salt never
unlocks a leaf hash another opening's path shows.

Orders a hand may need more of than it can commit to one by one (a Palace draw deck may be
reshuffled as often as players buy, a draw hand dealt again as often as nobody opens) are
fixed by the secret too, before the first action, in one of two ways:
- ranked (`ranked_order`): the root covers one more leaf per card, its "key" (the leaf
  of card c at position first + i, c the i-th card of the canonical deck), and the order
  labelled L sorts the cards by sha256(b"cardroom-rank|<L>|<card>|<salt hex>") as hex
  (ties, never seen, by card). A card dealt from it is opened at its key leaf, so anyone
  who saw it recomputes its rank; cards dealt one after another from one order have
  rising ranks. A key opened gives that card's rank in every order, which is safe only
  where a viewer cannot tell what lies between ranks (Palace's draw deck: the discards it
  sorts are face down, and every card dealt from it is public);
- derived (`derived_order`): the cards sorted by hmac_sha256(key=secret,
  msg=b"cardroom-order|<L>|<card>") as hex. Nobody but the floor can recompute it, so the
  game commits to such an order card by card on its own root when it deals from it, and
  the floor checks that the order is the one the secret (bound by the first root: every
  salt of it comes from the secret) fixed.
"""
from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

SCHEME = "merkle-sha256 per card (docs: domain/rules/deal_commitment.py)"
LEFT = "L"
RIGHT = "R"


@dataclass(frozen=True)
class Opening:
    """One deck position proven against the root: `path` lists (side, hash) from the leaf
    up, side saying where the sibling sits."""
    position: int
    card: str
    salt: str
    path: tuple[tuple[str, str], ...]


def position_salt(secret: bytes, position: int) -> str:
    return hmac.digest(secret, _salt_message(position), "sha256").hex()


def _salt_message(position: int) -> bytes:
    return b"cardroom-card-salt|%d" % position


_HMAC_BLOCK = 64
"""SHA-256's block size: HMAC pads its key to it (RFC 2104)."""
_INNER_PAD = bytes(byte ^ 0x36 for byte in range(256))
_OUTER_PAD = bytes(byte ^ 0x5C for byte in range(256))


def _position_salts(secret: bytes, positions: range) -> list[str]:
    """`position_salt` of each position: HMAC-SHA256 as RFC 2104 defines it, the hashes of
    the padded key begun once and copied per position (keying an HMAC, which `hmac.digest`
    does per call, costs as much as the rest; `hmac.HMAC.copy` is Python around the copy)."""
    key = (hashlib.sha256(secret).digest() if len(secret) > _HMAC_BLOCK else secret).ljust(_HMAC_BLOCK, b"\0")
    inner, outer = hashlib.sha256(key.translate(_INNER_PAD)), hashlib.sha256(key.translate(_OUTER_PAD))
    salts = []
    for position in positions:
        salted = inner.copy()
        salted.update(_salt_message(position))
        finished = outer.copy()
        finished.update(salted.digest())
        salts.append(finished.hexdigest())
    return salts


def leaf_hash(position: int, card: str, salt: str) -> str:
    return hashlib.sha256(f"cardroom-card|{position}|{card}|{salt}".encode("ascii")).hexdigest()


def _node(left: str, right: str) -> str:
    return hashlib.sha256(f"cardroom-node|{left}|{right}".encode("ascii")).hexdigest()


@lru_cache(maxsize=256)
def _levels(deck: tuple[str, ...], secret: bytes, first: int) -> tuple[tuple[str, ...], ...]:
    """Every level of the tree, leaves first. Cached: a closed hand's views are read again
    and again, each needing the same tree."""
    positions = range(first, first + len(deck))
    level = tuple(map(leaf_hash, positions, deck, _position_salts(secret, positions)))
    levels = [level]
    while len(level) > 1:
        odd = level[-1:] if len(level) % 2 else ()
        level = (*map(_node, level[0::2], level[1::2]), *odd)
        levels.append(level)
    return tuple(levels)


def deal_root(deck: Sequence[str], secret: bytes, first: int = 0) -> str:
    """The commitment published before the deal: the Merkle root over every position
    (`deck[i]` at position first + i)."""
    return _levels(tuple(deck), secret, first)[-1][0]


def openings(deck: Sequence[str], secret: bytes, positions: Sequence[int],
             first: int = 0) -> tuple[Opening, ...]:
    """The openings of `positions` (in the order asked; `deck[i]` is position first + i),
    and of no other card."""
    levels = _levels(tuple(deck), secret, first)
    opened = []
    for position in positions:
        path = []
        index = position - first
        for level in levels[:-1]:
            sibling = index ^ 1
            if sibling < len(level):
                path.append((RIGHT if sibling > index else LEFT, level[sibling]))
            index //= 2
        opened.append(Opening(position, deck[position - first], position_salt(secret, position), tuple(path)))
    return tuple(opened)


def verify_opening(opening: Opening, root: str) -> bool:
    """True when the opening leads to `root` (compared in constant time)."""
    current = leaf_hash(opening.position, opening.card, opening.salt)
    for side, sibling in opening.path:
        current = _node(current, sibling) if side == RIGHT else _node(sibling, current)
    return hmac.compare_digest(current, root.strip().lower())


def order_rank(label: str, card: str, salt: str) -> str:
    """The rank of `card` in the ranked order `label`, from its key leaf's salt."""
    return hashlib.sha256(f"cardroom-rank|{label}|{card}|{salt}".encode("ascii")).hexdigest()


def ranked_order(keys: Sequence[str], secret: bytes, first: int, label: str) -> tuple[str, ...]:
    """The order `label` of the cards whose keys are committed at positions first, first+1,
    ... (`keys[i]` at first + i): sorted by rank, ties by card."""
    salts = _position_salts(secret, range(first, first + len(keys)))
    rank = {card: order_rank(label, card, salts[i]) for i, card in enumerate(keys)}
    return tuple(sorted(keys, key=lambda card: (rank[card], card)))


def derived_order(cards: Sequence[str], secret: bytes, label: str) -> tuple[str, ...]:
    """The order `label` of `cards` that the secret fixes, recomputable only with it."""
    rank = {card: hmac.digest(secret, f"cardroom-order|{label}|{card}".encode("ascii"), "sha256").hex()
            for card in cards}
    return tuple(sorted(cards, key=lambda card: (rank[card], card)))
