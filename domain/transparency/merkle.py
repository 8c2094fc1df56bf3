"""RFC 9162 (Certificate Transparency 2.0) section 2.1: the Merkle tree of the public log.

A leaf hashes as SHA-256(0x00 || leaf), a node as SHA-256(0x01 || left || right); a tree
of n > 1 leaves splits at k, the largest power of two below n. The proofs are the
audit paths of 2.1.3 (inclusion) and 2.1.4 (consistency), generated here from a function
that answers the hash of any complete subtree (`Subtree(level, index)`: the leaves
index * 2**level up to (index + 1) * 2**level), so a store keeps those hashes once and
never rehashes the leaves to answer a proof. Verifying them is the public verifier's
(service.public_log_verifier): it imports nothing of this project, so anyone can run it.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable

Subtree = Callable[[int, int], bytes]
"""(level, index) -> the hash of that complete subtree."""

EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(leaf: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def split(n: int) -> int:
    """k of RFC 9162: the largest power of two smaller than n (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


def range_hash(start: int, end: int, subtree: Subtree) -> bytes:
    """MTH of the leaves [start, end), start aligned as the recursion always leaves it (a
    multiple of the largest power of two not above end - start)."""
    size = end - start
    if size == 0:
        return EMPTY_ROOT
    if size & (size - 1) == 0:  # a complete subtree, kept as it is
        level = size.bit_length() - 1
        return subtree(level, start >> level)
    k = split(size)
    return node_hash(range_hash(start, start + k, subtree), range_hash(start + k, end, subtree))


def root(size: int, subtree: Subtree) -> bytes:
    return range_hash(0, size, subtree)


def inclusion_proof(index: int, size: int, subtree: Subtree) -> list[bytes]:
    """PATH(index, D[0:size]), leaf-most hash first."""
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size}")
    return _path(index, 0, size, subtree)


def _path(index: int, start: int, end: int, subtree: Subtree) -> list[bytes]:
    size = end - start
    if size == 1:
        return []
    k = split(size)
    if index < start + k:
        return _path(index, start, start + k, subtree) + [range_hash(start + k, end, subtree)]
    return _path(index, start + k, end, subtree) + [range_hash(start, start + k, subtree)]


def consistency_proof(old_size: int, new_size: int, subtree: Subtree) -> list[bytes]:
    """PROOF(old_size, D[0:new_size]): empty when old_size is 0 or the sizes are equal."""
    if not 0 <= old_size <= new_size:
        raise ValueError(f"no consistency from {old_size} to {new_size}")
    if old_size in (0, new_size):
        return []
    return _subproof(old_size, 0, new_size, True, subtree)


def _subproof(m: int, start: int, end: int, whole: bool, subtree: Subtree) -> list[bytes]:
    """SUBPROOF(m, D[start:end], b) of RFC 9162 2.1.4.1, m counted from `start`."""
    size = end - start
    if m == size:
        return [] if whole else [range_hash(start, end, subtree)]
    k = split(size)
    if m <= k:
        return _subproof(m, start, start + k, whole, subtree) + [range_hash(start + k, end, subtree)]
    return _subproof(m - k, start + k, end, False, subtree) + [range_hash(start, start + k, subtree)]


def subtrees_read(compute: Callable[[Subtree], object]) -> list[tuple[int, int]]:
    """The complete subtrees `compute` reads (a proof, a root), found by running it on
    placeholder hashes: which ones a proof needs never depends on their values, so a store
    fetches them all in one read."""
    wanted: list[tuple[int, int]] = []

    def record(level: int, index: int) -> bytes:
        wanted.append((level, index))
        return EMPTY_ROOT
    compute(record)
    return wanted


def complete_subtrees(leaf_hashes: list[bytes]) -> dict[tuple[int, int], bytes]:
    """Every complete subtree's hash of these leaves, by (level, index): what a store keeps
    (and what tests build a tree from)."""
    nodes = {(0, i): h for i, h in enumerate(leaf_hashes)}
    level, width = 0, len(leaf_hashes)
    while width > 1:
        for i in range(width // 2):
            nodes[(level + 1, i)] = node_hash(nodes[(level, 2 * i)], nodes[(level, 2 * i + 1)])
        level, width = level + 1, width // 2
    return nodes


def parents_completed(index: int, leaf: bytes, nodes: Subtree) -> list[tuple[int, int, bytes]]:
    """The complete subtrees the leaf at `index` closes (itself first): (level, index, hash),
    each from its left sibling (`nodes`) and the one just made. Appending leaf n adds one
    node per trailing one bit of n, so a store grows by about two rows a leaf."""
    made = [(0, index, leaf_hash(leaf))]
    level, at = 0, index
    while at & 1:
        right = made[-1][2]
        at >>= 1
        made.append((level + 1, at, node_hash(nodes(level, 2 * at), right)))
        level += 1
    return made
