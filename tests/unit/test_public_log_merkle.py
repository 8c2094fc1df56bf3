"""RFC 9162 hashing and proofs (domain.transparency.merkle) against the RFC 6962 test
vectors of certificate-transparency-go and transparency-dev/merkle, and checked by the
public verifier (service.public_log_verifier): every proof verifies, a changed leaf or
hash does not."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.transparency import merkle
from service.public_log_verifier import NotVerified, verify_consistency, verify_inclusion

# The reference leaves and the root of each tree of 1..8 of them (RFC 6962 test vectors).
LEAVES = [bytes.fromhex(h) for h in
          ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"]]
ROOTS = [bytes.fromhex(h) for h in [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"]]
INCLUSION = {
    (0, 8): ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
             "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
             "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"],
    (5, 8): ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
             "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
             "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"],
}
CONSISTENCY = {
    (2, 8): ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
             "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"],
    (6, 8): ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
             "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
             "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"],
    (2, 5): ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
             "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"],
}


def tree(leaves: list[bytes]) -> merkle.Subtree:
    nodes = merkle.complete_subtrees([merkle.leaf_hash(leaf) for leaf in leaves])
    return lambda level, index: nodes[(level, index)]


def test_the_empty_tree_hashes_as_sha256_of_nothing() -> None:
    assert merkle.root(0, tree([])).hex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


@pytest.mark.parametrize("size", range(1, 9))
def test_roots_are_rfc_6962s(size: int) -> None:
    assert merkle.root(size, tree(LEAVES)) == ROOTS[size - 1]


@pytest.mark.parametrize("index, size", sorted(INCLUSION))
def test_inclusion_proofs_are_the_reference_paths(index: int, size: int) -> None:
    proof = merkle.inclusion_proof(index, size, tree(LEAVES))
    assert [h.hex() for h in proof] == INCLUSION[(index, size)]
    verify_inclusion(index, size, merkle.leaf_hash(LEAVES[index]), proof, ROOTS[size - 1])


@pytest.mark.parametrize("old, new", sorted(CONSISTENCY))
def test_consistency_proofs_are_the_reference_proofs(old: int, new: int) -> None:
    proof = merkle.consistency_proof(old, new, tree(LEAVES))
    assert [h.hex() for h in proof] == CONSISTENCY[(old, new)]
    verify_consistency(old, new, ROOTS[old - 1], ROOTS[new - 1], proof)


def test_a_store_growing_leaf_by_leaf_keeps_the_same_subtrees() -> None:
    kept: dict[tuple[int, int], bytes] = {}
    for index, leaf in enumerate(LEAVES):
        for level, at, hash_ in merkle.parents_completed(index, leaf, lambda lv, i: kept[(lv, i)]):
            kept[(level, at)] = hash_
    assert kept == merkle.complete_subtrees([merkle.leaf_hash(leaf) for leaf in LEAVES])


leaf_lists = st.lists(st.binary(max_size=8), min_size=1, max_size=40, unique=True)


@settings(max_examples=60, deadline=None)
@given(leaf_lists, st.data())
def test_every_inclusion_proof_verifies_and_a_changed_leaf_does_not(leaves: list[bytes], data: st.DataObject) -> None:
    size = len(leaves)
    index = data.draw(st.integers(0, size - 1))
    subtree = tree(leaves)
    proof = merkle.inclusion_proof(index, size, subtree)
    root = merkle.root(size, subtree)
    verify_inclusion(index, size, merkle.leaf_hash(leaves[index]), proof, root)
    with pytest.raises(NotVerified):
        verify_inclusion(index, size, merkle.leaf_hash(leaves[index] + b"!"), proof, root)
    if size > 1:
        with pytest.raises(NotVerified):
            verify_inclusion((index + 1) % size, size, merkle.leaf_hash(leaves[index]), proof, root)


@settings(max_examples=60, deadline=None)
@given(leaf_lists, st.data())
def test_every_consistency_proof_verifies_and_a_rewritten_past_does_not(leaves: list[bytes], data: st.DataObject) -> None:
    new = len(leaves)
    old = data.draw(st.integers(1, new))
    subtree = tree(leaves)
    proof = merkle.consistency_proof(old, new, subtree)
    verify_consistency(old, new, merkle.root(old, subtree), merkle.root(new, subtree), proof)
    changed = data.draw(st.integers(0, old - 1))
    forked = tree([*leaves[:changed], leaves[changed] + b"!", *leaves[changed + 1:]])
    with pytest.raises(NotVerified):
        verify_consistency(old, new, merkle.root(old, forked), merkle.root(new, subtree), proof)


def test_the_public_verifier_is_one_file_of_the_standard_library_and_cryptography() -> None:
    import ast
    import sys
    from pathlib import Path

    import service.public_log_verifier as verifier

    tree = ast.parse(Path(verifier.__file__).read_text())
    roots = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    roots |= {node.module.split(".")[0] for node in ast.walk(tree)
              if isinstance(node, ast.ImportFrom) and node.module and not node.level}
    assert roots - {"__future__"} <= set(sys.stdlib_module_names) | {"cryptography"}, roots
