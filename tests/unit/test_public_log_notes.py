"""C2SP signed notes, checkpoints and cosignatures (service.adapters.log_keys makes them,
service.public_log_verifier reads them), against the published vectors:
golang.org/x/mod/sumdb/note (PeterNeumann, EnochRoot), c2sp.org/signed-note
(example.com/foo) and a transparency-dev cosignature/v1 timestamp."""
from __future__ import annotations

import base64
import struct
from pathlib import Path

import pytest

from service.adapters.log_keys import LogKeyMissing, log_signer, new_signer, parse_signer, sign_note, with_cosignatures, witness_signer
from service.public_log_verifier import COSIGNATURE_V1, ED25519, NotVerified, open_checkpoint, parse_checkpoint, parse_vkey, signed_by, split_note

GO_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
GO_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
ENOCH_VKEY = "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop"
GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"
PETER_SIG = ("\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngot"
             "pRZb6KE6RyyBwJnAM=\n")
ENOCH_SIG = ("\u2014 EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33W"
             "Wd1RvMc+QQ=\n")
SPEC_VKEY = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"
SPEC_NOTE = ("This is an example message.\n\n\u2014 example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONnc"
             "AlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n")
COSIGNATURE = "ZGhGuQAAAABm/qTPeyKXD+R2rzyQsxPiP8mXum7qq/iF0u4vanlqJyocWODBt97w9uL+8qT7S5gxEHWWOworDcFiEBYJXORmnFBOBA=="


def test_the_go_signing_key_signs_the_go_note_byte_for_byte() -> None:
    signer = parse_signer(GO_SKEY)
    assert signer.verifier.vkey() == GO_VKEY
    assert signer.text() == GO_SKEY
    assert sign_note(GO_TEXT, signer) == GO_TEXT + "\n" + PETER_SIG


def test_a_note_signed_twice_verifies_under_each_key_and_no_other() -> None:
    text, signatures = split_note(GO_TEXT + "\n" + PETER_SIG + ENOCH_SIG)
    assert text == GO_TEXT
    assert signed_by(text, signatures, parse_vkey(GO_VKEY)) == 0
    assert signed_by(text, signatures, parse_vkey(ENOCH_VKEY)) == 0
    assert signed_by(text.replace("problem", "answer"), signatures, parse_vkey(GO_VKEY)) is None


def test_the_c2sp_example_note_verifies() -> None:
    text, signatures = split_note(SPEC_NOTE)
    assert text == "This is an example message.\n"
    assert signed_by(text, signatures, parse_vkey(SPEC_VKEY)) == 0


def test_a_cosignature_carries_its_timestamp_big_endian_after_the_key_id() -> None:
    blob = base64.b64decode(COSIGNATURE)
    assert len(blob) == 4 + 8 + 64
    assert struct.unpack(">Q", blob[4:12])[0] == 1727964367


def test_a_vkey_whose_id_does_not_match_is_refused() -> None:
    with pytest.raises(NotVerified, match="does not match"):
        parse_vkey(GO_VKEY.replace("c74f20a3", "00000000"))


ORIGIN = "cardroom.test/log"


def checkpoint_text(size: int = 7, root: bytes = b"\x01" * 32) -> str:
    return f"{ORIGIN}\n{size}\n{base64.b64encode(root).decode()}\n"


def test_a_checkpoint_signed_and_cosigned_meets_the_policy_and_counts_each_witness_once() -> None:
    log = new_signer(ORIGIN, ED25519)
    witnesses = [new_signer(f"witness{i}.test", COSIGNATURE_V1) for i in range(3)]
    note = sign_note(checkpoint_text(), log)
    note = with_cosignatures(note, [w.signature_line(checkpoint_text(), 1_800_000_000) for w in witnesses[:2]])
    note = with_cosignatures(note, [witnesses[0].signature_line(checkpoint_text(), 1_800_000_001)])
    keys = [w.verifier for w in witnesses]
    assert open_checkpoint(note, log.verifier, keys, 2).size == 7
    with pytest.raises(NotVerified, match="2 of the given witnesses"):
        open_checkpoint(note, log.verifier, keys, 3)
    forged = note.replace("\n7\n", "\n8\n", 1)
    with pytest.raises(NotVerified, match="log's signature"):
        open_checkpoint(forged, log.verifier, keys, 0)
    with pytest.raises(NotVerified, match="origin"):
        open_checkpoint(sign_note(checkpoint_text(), new_signer("other.test/log", ED25519)),
                        new_signer("other.test/log", ED25519).verifier)


@pytest.mark.parametrize("text", [
    f"{ORIGIN}\n07\n{base64.b64encode(bytes(32)).decode()}\n",
    f"{ORIGIN}\n7\n",
    f"{ORIGIN}\n7\nAAAA\n",
    f"{ORIGIN}\n7\n{base64.b64encode(bytes(32)).decode()}\n\nextension\n",
])
def test_malformed_checkpoints_are_refused(text: str) -> None:
    with pytest.raises(NotVerified):
        parse_checkpoint(text)


def test_a_host_without_the_key_never_makes_one_once_the_log_has_a_checkpoint(tmp_path: Path) -> None:
    with pytest.raises(LogKeyMissing):
        log_signer(None, tmp_path / "log-key", ORIGIN, create=False)
    assert not (tmp_path / "log-key").exists()
    made = log_signer(None, tmp_path / "log-key", ORIGIN, create=True)
    assert log_signer(None, tmp_path / "log-key", ORIGIN, create=False) == made
    assert (tmp_path / "log-key").stat().st_mode & 0o777 == 0o600
    with pytest.raises(ValueError, match="origin"):
        log_signer(made.text(), tmp_path / "unused", "another.test/log", create=False)
    assert witness_signer(tmp_path / "witness-key", "w.test").key_type == COSIGNATURE_V1
