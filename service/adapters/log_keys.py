"""The Ed25519 keys that sign the public log's checkpoints and cosign them as a witness,
and the C2SP signed notes they make (https://c2sp.org/signed-note, tlog-cosignature).

Reading a note and checking a signature is the public verifier's
(service.public_log_verifier): this module only makes what it reads.

The log's key is CARDROOM_LOG_KEY when set (production: from a secret store, the same on
every host that may integrate), else <data dir>/log-key. Like the chain key it is never
given to PostgreSQL. A missing key file is created only while the log has no checkpoint
(`create`): once one exists, a host without the key refuses to sign and says so, rather
than start a second log under a key nobody trusts.

A key's text is the Go `note` private key form, `PRIVATE+KEY+<name>+<hex id>+base64(type
|| seed)`, so the same key reads in golang.org/x/mod/sumdb/note and its ports.
"""
from __future__ import annotations

import base64
import os
import struct
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from service.public_log_verifier import COSIGNATURE_V1, ED25519, EM_DASH, VerifierKey, cosigned_message, split_note

PRIVATE_PREFIX = "PRIVATE+KEY+"
LOG_KEY_FILE = "log-key"
"""The log's key in the data directory, when CARDROOM_LOG_KEY is not set."""


class LogKeyMissing(Exception):
    """The log has checkpoints, and this host was given no key to extend them with."""


@dataclass(frozen=True)
class NoteSigner:
    name: str
    key_type: int
    seed: bytes

    @property
    def _private(self) -> Ed25519PrivateKey:
        return Ed25519PrivateKey.from_private_bytes(self.seed)

    @property
    def verifier(self) -> VerifierKey:
        return VerifierKey(self.name, self.key_type,
                           self._private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw))

    def signature_line(self, text: str, timestamp: int | None = None) -> str:
        """`— <name> base64(key id || signature)`: a log's signature of the text, or (a
        witness key) its cosignature at `timestamp`."""
        if self.key_type == COSIGNATURE_V1:
            assert timestamp is not None
            signed = struct.pack(">Q", timestamp) + self._private.sign(cosigned_message(text, timestamp))
        else:
            signed = self._private.sign(text.encode("utf-8"))
        encoded = base64.b64encode(self.verifier.key_id + signed).decode("ascii")
        return f"{EM_DASH} {self.name} {encoded}\n"

    def text(self) -> str:
        encoded = base64.b64encode(bytes([self.key_type]) + self.seed).decode("ascii")
        return f"{PRIVATE_PREFIX}{self.name}+{self.verifier.key_id.hex()}+{encoded}"


def parse_signer(text: str) -> NoteSigner:
    body = text.strip()
    if not body.startswith(PRIVATE_PREFIX):
        raise ValueError("not a note signing key (PRIVATE+KEY+<name>+<id>+<key>)")
    name, _, rest = body[len(PRIVATE_PREFIX):].partition("+")
    hex_id, _, encoded = rest.partition("+")
    raw = base64.b64decode(encoded, validate=True)
    if len(raw) != 33 or raw[0] not in (ED25519, COSIGNATURE_V1):
        raise ValueError("not an Ed25519 note signing key")
    signer = NoteSigner(name, raw[0], raw[1:])
    if signer.verifier.key_id.hex() != hex_id:
        raise ValueError(f"the key id of {name} does not match its name and key")
    return signer


def new_signer(name: str, key_type: int) -> NoteSigner:
    return NoteSigner(name, key_type, os.urandom(32))


def sign_note(text: str, *signers: NoteSigner) -> str:
    """A signed note: the text (ending in a newline), a blank line, a line a signature."""
    if not text.endswith("\n"):
        raise ValueError("a note's text ends with a newline")
    return text + "\n" + "".join(signer.signature_line(text) for signer in signers)


def with_cosignatures(note: str, lines: list[str]) -> str:
    """The note with these cosignature lines after its own signatures (each once)."""
    text, _ = split_note(note)
    kept = note[len(text) + 1:]
    return note + "".join(line for line in lines if line not in kept)


def log_signer(key_text: str | None, key_file: Path, origin: str, *, create: bool) -> NoteSigner:
    """The log's signer: `key_text` (CARDROOM_LOG_KEY), else the key file, made only when
    `create` (the log has no checkpoint yet). Its name must be the origin: a checkpoint's
    origin is the name its key signs under."""
    if key_text is None:
        if not key_file.is_file():
            if not create:
                raise LogKeyMissing(f"the public log has checkpoints and this host has no key to sign more: "
                                    f"set CARDROOM_LOG_KEY or copy the log's key to {key_file}")
            _write_new(key_file, new_signer(origin, ED25519).text())
        key_text = key_file.read_text()
    signer = parse_signer(key_text)
    if signer.name != origin or signer.key_type != ED25519:
        raise ValueError(f"the log key is named {signer.name!r}; the log's origin is {origin!r} "
                         "(a new origin is a new log: give it a new key)")
    return signer


def witness_signer(key_file: Path, name: str) -> NoteSigner:
    """A witness's cosigning key, made once in `key_file`."""
    if not key_file.is_file():
        _write_new(key_file, new_signer(name, COSIGNATURE_V1).text())
    signer = parse_signer(key_file.read_text())
    if signer.key_type != COSIGNATURE_V1:
        raise ValueError(f"{key_file} is not a cosignature/v1 key")
    return signer


def _write_new(path: Path, text: str) -> None:
    """Whichever process comes first writes it (mode 0600); a later one reads that one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    with os.fdopen(descriptor, "w") as file:
        file.write(text + "\n")
