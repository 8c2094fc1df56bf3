"""Check Cardroom's public log without the operator: one file, the standard library and
`cryptography`, importing nothing of the service (copy it anywhere and run it).

What it checks, each from public data and public keys alone:
- a leaf: recomputed from an event's public form (what the keyless public view serves),
  its stream, version and type (`event_leaf`);
- RFC 9162 section 2.1.3.2 inclusion and 2.1.4.2 consistency proofs;
- C2SP signed notes (https://c2sp.org/signed-note): the log's Ed25519 signature (key type
  0x01) on a C2SP tlog-checkpoint, and witnesses' cosignature/v1 (key type 0x04,
  https://c2sp.org/tlog-cosignature), counted against a minimum;
- a whole proof answer (`GET /v1/log/proofs/{stream}/{version}`) against an event.

    python public_log_verifier.py verify-proof PROOF.json EVENT.json \\
        --log-key VKEY [--witness VKEY ...] [--min-witnesses K]
    python public_log_verifier.py monitor URL --log-key VKEY [--witness VKEY ...] \\
        [--min-witnesses K] [--state FILE] [--full] [--every SECONDS]

The monitor keeps the last checkpoint it trusted (FILE), checks that each new one is
consistent with it, and on a fork exits 1 keeping both signed notes as evidence.

Exit status 0: verified; 1: it does not verify (the reason is printed); 2: bad input.

The leaf (text, UTF-8, each line ending in a newline):

    cardroom-event/v1
    stream <stream id>
    version <version>
    type <event type>
    public <hex SHA-256 of the public form's canonical JSON>
    sealed <field>          one line a field the hand keeps sealed until it closes
    commitment <hex>        one line a per-card commitment the event publishes

The public form is the event as the keyless public view serves it while its hand is
live: a field named on a `sealed` line reads null (after the hand, the view may show it;
the verifier nulls it again). Canonical JSON: sorted keys, no spaces, UTF-8.
"""
from __future__ import annotations

import argparse
import base64
import binascii
import hashlib
import json
import os
import struct
import sys
import time
import urllib.request
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

LEAF_HEADER = "cardroom-event/v1"
ED25519 = 0x01
COSIGNATURE_V1 = 0x04
EM_DASH = "\u2014"
HTTP_TIMEOUT_S = 10


class NotVerified(Exception):
    """What was shown does not prove what it claims; the message says which part failed."""


# --- RFC 9162 hashing and proofs ------------------------------------------------------

def leaf_hash(leaf: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def root_from_inclusion(index: int, size: int, leaf: bytes, hashes: Sequence[bytes]) -> bytes:
    """RFC 9162 2.1.3.2: the root the inclusion path leads to (`leaf`: the leaf hash)."""
    if not 0 <= index < size:
        raise NotVerified(f"leaf {index} is not in a tree of {size}")
    fn, sn, r = index, size - 1, leaf
    for p in hashes:
        if sn == 0:
            raise NotVerified("the inclusion proof is longer than the tree is deep")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn & 1 == 0 and fn != 0:
                    fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise NotVerified("the inclusion proof is shorter than the tree is deep")
    return r


def verify_inclusion(index: int, size: int, leaf: bytes, hashes: Sequence[bytes], root: bytes) -> None:
    if root_from_inclusion(index, size, leaf, hashes) != root:
        raise NotVerified(f"leaf {index} is not in the tree of {size} with that root")


def verify_consistency(old_size: int, new_size: int, old_root: bytes, new_root: bytes,
                       hashes: Sequence[bytes]) -> None:
    """RFC 9162 2.1.4.2: the tree of `new_size` extends the tree of `old_size`."""
    if not 0 <= old_size <= new_size:
        raise NotVerified(f"a tree of {new_size} cannot extend one of {old_size}")
    if old_size == new_size:
        if hashes or old_root != new_root:
            raise NotVerified(f"two different trees of the same size {old_size}")
        return
    if old_size == 0:
        if hashes:
            raise NotVerified("a proof from the empty tree must be empty")
        return
    if not hashes:
        raise NotVerified("an empty consistency proof")
    path = list(hashes)
    if old_size & (old_size - 1) == 0:  # a power of two: the old root is the path's first hash
        path.insert(0, old_root)
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise NotVerified("the consistency proof is too long")
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            if not fn & 1:
                while fn & 1 == 0 and fn != 0:
                    fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise NotVerified("the consistency proof is too short")
    if fr != old_root or sr != new_root:
        raise NotVerified(f"the tree of {new_size} does not extend the tree of {old_size}")


# --- leaves ---------------------------------------------------------------------------

_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""One encoder for every leaf: json.dumps with options builds a new one each call (half its time
on an event's small document)."""


def canonical_json(value: Any) -> bytes:
    return _CANONICAL.encode(value).encode("utf-8")


def event_leaf(stream_id: str, version: int, type_: str, public_form: Mapping[str, Any],
               sealed: Iterable[str] = (), commitments: Iterable[str] = ()) -> bytes:
    """The leaf of one event. `public_form`: as the keyless view serves it; the `sealed`
    fields of its data are read as null whatever it shows."""
    sealed = list(sealed)
    form = dict(public_form)
    if sealed and isinstance(form.get("data"), Mapping):
        form["data"] = {**form["data"], **{name: None for name in sealed if name in form["data"]}}
    lines = [LEAF_HEADER, f"stream {stream_id}", f"version {version}", f"type {type_}",
             f"public {hashlib.sha256(canonical_json(form)).hexdigest()}"]
    lines += [f"sealed {name}" for name in sealed]
    lines += [f"commitment {value}" for value in commitments]
    return ("\n".join(lines) + "\n").encode("utf-8")


@dataclass(frozen=True)
class Leaf:
    stream_id: str
    version: int
    type: str
    public_sha256: str
    sealed: tuple[str, ...]
    commitments: tuple[str, ...]


def parse_leaf(leaf: bytes) -> Leaf:
    try:
        lines = leaf.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        raise NotVerified("a leaf that is not UTF-8") from None
    if lines[-1] != "" or len(lines) < 6 or lines[0] != LEAF_HEADER:
        raise NotVerified("not a cardroom-event/v1 leaf")
    fields: dict[str, list[str]] = {}
    for line in lines[1:-1]:
        name, _, value = line.partition(" ")
        fields.setdefault(name, []).append(value)
    try:
        return Leaf(fields["stream"][0], int(fields["version"][0]), fields["type"][0], fields["public"][0],
                    tuple(fields.get("sealed", ())), tuple(fields.get("commitment", ())))
    except (KeyError, ValueError):
        raise NotVerified("a leaf missing its stream, version, type or public digest") from None


# --- signed notes, checkpoints, cosignatures ------------------------------------------

def key_id(name: str, key_type: int, public_key: bytes) -> bytes:
    """C2SP signed-note: the first four bytes of SHA-256(name || 0x0A || type || key)."""
    return hashlib.sha256(name.encode("utf-8") + b"\n" + bytes([key_type]) + public_key).digest()[:4]


@dataclass(frozen=True)
class VerifierKey:
    name: str
    key_type: int
    public_key: bytes

    @property
    def key_id(self) -> bytes:
        return key_id(self.name, self.key_type, self.public_key)

    def vkey(self) -> str:
        encoded = base64.b64encode(bytes([self.key_type]) + self.public_key).decode("ascii")
        return f"{self.name}+{self.key_id.hex()}+{encoded}"


def parse_vkey(vkey: str) -> VerifierKey:
    """`name+hex(key id)+base64(type || public key)`, the id checked against the rest."""
    name, _, rest = vkey.strip().partition("+")
    hex_id, _, encoded = rest.partition("+")
    try:
        raw = base64.b64decode(encoded, validate=True)
        declared = bytes.fromhex(hex_id)
    except (binascii.Error, ValueError):
        raise NotVerified(f"not a verifier key: {vkey!r}") from None
    if not name or not raw or len(declared) != 4 or raw[0] not in (ED25519, COSIGNATURE_V1) or len(raw) != 33:
        raise NotVerified(f"not an Ed25519 or cosignature/v1 verifier key: {vkey!r}")
    key = VerifierKey(name, raw[0], raw[1:])
    if key.key_id != declared:
        raise NotVerified(f"the key id of {name} does not match its name and key")
    return key


@dataclass(frozen=True)
class Signature:
    name: str
    key_id: bytes
    signature: bytes


def split_note(note: str) -> tuple[str, list[Signature]]:
    """(text, signatures) of a signed note: the text ends at the last blank line."""
    text, blank, block = note.rpartition("\n\n")
    if not blank or not block.endswith("\n"):
        raise NotVerified("not a signed note: no blank line before the signatures")
    signatures = []
    for line in block[:-1].split("\n"):
        dash, _, rest = line.partition(" ")
        name, _, encoded = rest.partition(" ")
        try:
            raw = base64.b64decode(encoded, validate=True)
        except binascii.Error:
            raise NotVerified(f"a signature line that is not base64: {line!r}") from None
        if dash != EM_DASH or not name or len(raw) < 5:
            raise NotVerified(f"not a signature line: {line!r}")
        signatures.append(Signature(name, raw[:4], raw[4:]))
    return text + "\n", signatures


def cosigned_message(text: str, timestamp: int) -> bytes:
    """What a cosignature/v1 signs (C2SP tlog-cosignature)."""
    return f"cosignature/v1\ntime {timestamp}\n".encode() + text.encode("utf-8")


def _ed25519_valid(public_key: bytes, signature: bytes, message: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def signed_by(text: str, signatures: Sequence[Signature], key: VerifierKey) -> int | None:
    """None if `key` did not sign `text`; else 0 for a log's signature, or the timestamp of
    a witness's cosignature."""
    for found in signatures:
        if found.name != key.name or found.key_id != key.key_id:
            continue
        if key.key_type == ED25519 and _ed25519_valid(key.public_key, found.signature, text.encode("utf-8")):
            return 0
        if key.key_type == COSIGNATURE_V1 and len(found.signature) == 72:
            timestamp = struct.unpack(">Q", found.signature[:8])[0]
            if _ed25519_valid(key.public_key, found.signature[8:], cosigned_message(text, timestamp)):
                return timestamp
    return None


@dataclass(frozen=True)
class Checkpoint:
    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()


def parse_checkpoint(text: str) -> Checkpoint:
    """C2SP tlog-checkpoint: origin, decimal size, base64 root, optional extension lines."""
    lines = text.split("\n")
    if len(lines) < 4 or lines[-1] != "" or not lines[0]:
        raise NotVerified("not a checkpoint: origin, size and root, each on its line")
    size_text, root_text = lines[1], lines[2]
    if not size_text.isdigit() or (size_text != "0" and size_text.startswith("0")):
        raise NotVerified(f"not a checkpoint's tree size: {size_text!r}")
    try:
        root = base64.b64decode(root_text, validate=True)
    except binascii.Error:
        root = b""
    if len(root) != 32 or any(not line for line in lines[3:-1]):
        raise NotVerified("not a checkpoint: a root of 32 bytes, then non-empty extension lines")
    return Checkpoint(lines[0], int(size_text), root, tuple(lines[3:-1]))


def open_checkpoint(note: str, log_key: VerifierKey, witnesses: Sequence[VerifierKey] = (),
                    min_witnesses: int = 0) -> Checkpoint:
    """The checkpoint of a signed note the log signed and at least `min_witnesses` of the
    given witnesses cosigned (each witness counted once)."""
    text, signatures = split_note(note)
    checkpoint = parse_checkpoint(text)
    if checkpoint.origin != log_key.name:
        raise NotVerified(f"the checkpoint's origin {checkpoint.origin!r} is not the log key's {log_key.name!r}")
    if signed_by(text, signatures, log_key) is None:
        raise NotVerified("the log's signature on the checkpoint does not verify")
    cosigned = {w.vkey() for w in witnesses
                if w.key_type == COSIGNATURE_V1 and w.public_key != log_key.public_key
                and signed_by(text, signatures, w) is not None}
    if len(cosigned) < min_witnesses:
        raise NotVerified(f"{len(cosigned)} of the given witnesses cosigned the checkpoint; "
                          f"at least {min_witnesses} must")
    return checkpoint


# --- a proof answer -------------------------------------------------------------------

def verify_proof(proof: Mapping[str, Any], event: Mapping[str, Any], log_key: str,
                 witnesses: Sequence[str] = (), min_witnesses: int = 0) -> Checkpoint:
    """The whole check of one event: its leaf recomputed from `event` (its public form),
    the leaf in the tree of the proof's checkpoint, the checkpoint signed by the log and
    cosigned by enough witnesses. Returns the checkpoint; raises NotVerified."""
    try:
        leaf = base64.b64decode(proof["leaf"], validate=True)
        hashes = [base64.b64decode(h, validate=True) for h in proof["hashes"]]
        index, size, note = int(proof["index"]), int(proof["size"]), str(proof["checkpoint"])
    except (KeyError, TypeError, ValueError, binascii.Error):
        raise NotVerified("not a proof answer: index, leaf, size, hashes and checkpoint") from None
    stated = parse_leaf(leaf)
    if stated.version != event.get("version") or stated.type != event.get("type"):
        raise NotVerified("the event's version or type is not the leaf's")
    if event_leaf(stated.stream_id, stated.version, stated.type, event, stated.sealed, stated.commitments) != leaf:
        raise NotVerified("the event's public form does not hash to the leaf's digest")
    checkpoint = open_checkpoint(note, parse_vkey(log_key), [parse_vkey(w) for w in witnesses], min_witnesses)
    if checkpoint.size != size:
        raise NotVerified(f"the proof is for a tree of {size}, the checkpoint's has {checkpoint.size}")
    verify_inclusion(index, size, leaf_hash(leaf), hashes, checkpoint.root)
    return checkpoint


# --- a monitor -------------------------------------------------------------------------

def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=HTTP_TIMEOUT_S) as answer:
        return answer.read()


def _hashes(url: str) -> list[bytes]:
    return [base64.b64decode(h, validate=True) for h in json.loads(_get(url))["hashes"]]


def full_root(base_url: str, size: int) -> bytes:
    """The root recomputed from every leaf the log serves (RFC 9162 MTH), a leaf at a time."""
    stack: list[tuple[int, bytes]] = []  # (height, hash) of complete subtrees, left to right
    for index in range(size):
        leaf = base64.b64decode(json.loads(_get(f"{base_url}/v1/log/leaves/{index}"))["leaf"], validate=True)
        height, node = 0, leaf_hash(leaf)
        while stack and stack[-1][0] == height:
            node = node_hash(stack.pop()[1], node)
            height += 1
        stack.append((height, node))
    if not stack:
        return hashlib.sha256(b"").digest()
    node = stack.pop()[1]
    while stack:
        node = node_hash(stack.pop()[1], node)
    return node


def monitor_once(base_url: str, state: str, log_key: VerifierKey, witnesses: Sequence[VerifierKey],
                 min_witnesses: int, full: bool = False) -> Checkpoint:
    """Fetch the log's checkpoint, check it extends the one trusted before (kept in the file
    `state`), and trust it. On a fork both notes are kept beside `state` as evidence."""
    note = _get(f"{base_url}/v1/log/checkpoint").decode("utf-8")
    new = open_checkpoint(note, log_key, witnesses, min_witnesses)
    if full and full_root(base_url, new.size) != new.root:
        raise NotVerified(f"the leaves the log serves do not hash to its checkpoint of {new.size}")
    try:
        with open(state, encoding="utf-8") as file:
            trusted_note = file.read()
    except FileNotFoundError:
        trusted_note = None
    if trusted_note is not None:
        old = open_checkpoint(trusted_note, log_key)
        smaller, larger = sorted((old, new), key=lambda c: c.size)
        try:
            proof = _hashes(f"{base_url}/v1/log/consistency?from={smaller.size}&to={larger.size}")
            verify_consistency(smaller.size, larger.size, smaller.root, larger.root, proof)
        except NotVerified:
            evidence = f"{state}.fork-{int(time.time())}"
            with open(evidence, "w", encoding="utf-8") as file:
                file.write(trusted_note + "\n" + note)
            raise NotVerified(f"FORK: the checkpoint of {new.size} does not extend the trusted one of "
                              f"{old.size}; both kept in {evidence}") from None
        if new.size < old.size:
            return old
    with open(state + ".new", "w", encoding="utf-8") as file:
        file.write(note)
    os.replace(state + ".new", state)
    return new


def _read_json(path: str) -> Any:
    with open(path, encoding="utf-8") as file:
        return json.load(file)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Verify a Cardroom event against the public log, offline.")
    commands = parser.add_subparsers(dest="command", required=True)
    proof = commands.add_parser("verify-proof", help="an event's proof answer against its public form")
    proof.add_argument("proof", help="the JSON of GET /v1/log/proofs/{stream}/{version}")
    proof.add_argument("event", help="the JSON of the event as the keyless public view serves it")
    proof.add_argument("--log-key", required=True, help="the log's verifier key (GET /v1/log/keys, kept apart)")
    proof.add_argument("--witness", action="append", default=[], help="a witness's verifier key (repeat)")
    proof.add_argument("--min-witnesses", type=int, default=0, help="how many of them must have cosigned")
    monitor = commands.add_parser("monitor", help="follow the log's checkpoints, refusing a fork")
    monitor.add_argument("url", help="the service, e.g. https://cardroom.example")
    monitor.add_argument("--log-key", required=True)
    monitor.add_argument("--witness", action="append", default=[])
    monitor.add_argument("--min-witnesses", type=int, default=0)
    monitor.add_argument("--state", default="cardroom-log-checkpoint.txt", help="the last checkpoint trusted")
    monitor.add_argument("--full", action="store_true", help="recompute the tree from every leaf too")
    monitor.add_argument("--every", type=float, default=0, help="check again every so many seconds (0: once)")
    arguments = parser.parse_args(argv)
    if arguments.command == "monitor":
        return _monitor(arguments)
    try:
        checkpoint = verify_proof(_read_json(arguments.proof), _read_json(arguments.event), arguments.log_key,
                                  arguments.witness, arguments.min_witnesses)
    except (OSError, json.JSONDecodeError) as unreadable:
        print(f"cannot read the input: {unreadable}", file=sys.stderr)
        return 2
    except NotVerified as failed:
        print(f"NOT VERIFIED: {failed}")
        return 1
    print(f"verified: in {checkpoint.origin}'s tree of {checkpoint.size}")
    return 0


def _monitor(arguments: argparse.Namespace) -> int:
    while True:
        try:
            checkpoint = monitor_once(arguments.url.rstrip("/"), arguments.state, parse_vkey(arguments.log_key),
                                      [parse_vkey(w) for w in arguments.witness], arguments.min_witnesses,
                                      arguments.full)
        except NotVerified as failed:
            print(f"NOT VERIFIED: {failed}")
            return 1
        except (OSError, ValueError) as unreachable:
            print(f"cannot read the log: {unreachable}", file=sys.stderr)
            return 2
        print(f"trusted: {checkpoint.origin}'s tree of {checkpoint.size}", flush=True)
        if not arguments.every:
            return 0
        time.sleep(arguments.every)


if __name__ == "__main__":
    sys.exit(main())
