"""The data key (service.adapters.integrity.data_cipher): CARDROOM_DATA_KEY when set, else a
key made once in the data directory, readable by its owner alone, the same for every process;
with the retired keys, a ring whose ciphertexts name the key that sealed them, rotated by
`cardroom data-key new`."""
from __future__ import annotations

import base64
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from service.adapters.integrity import data_cipher
from service.adapters.store.cipher import DataKeyMissing, FieldCipher, SecretUnreadable, key_id
from service.config import Config


def test_without_a_configured_key_one_is_made_once_in_the_data_directory(tmp_path: Path) -> None:
    first = data_cipher(Config(data_dir=tmp_path))
    key_file = tmp_path / "data-key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    sealed = first.encrypt("AsKd", "table-t", 3, "data.cards")
    assert data_cipher(Config(data_dir=tmp_path)).decrypt(sealed, "table-t", 3, "data.cards") == "AsKd"


def test_the_configured_key_is_used_and_a_malformed_one_refused(tmp_path: Path) -> None:
    configured = Config.from_env({"CARDROOM_DATA_KEY": "ab" * 32, "CARDROOM_DATA_DIR": str(tmp_path)})
    data_cipher(configured)
    assert not (tmp_path / "data-key").exists()
    with pytest.raises(ValueError, match="64 hex digits"):
        data_cipher(Config(data_key="not hex", data_dir=tmp_path))
    with pytest.raises(ValueError, match="64 hex digits"):
        data_cipher(Config(data_key="ab" * 16, data_dir=tmp_path))  # 128 bits: too short


def test_a_malformed_configured_key_stops_the_start_naming_the_variable_not_the_value() -> None:
    from service.config import ConfigError

    with pytest.raises(ConfigError, match="CARDROOM_DATA_KEY must be 64 hex digits") as refused:
        Config.from_env({"CARDROOM_DATA_KEY": "secret-but-not-hex"})
    assert "secret-but-not-hex" not in str(refused.value)


# ---------------------------------------------------------------- the key ring and rotation

OLD, NEW, OTHER = bytes(range(32)), bytes(range(1, 33)), bytes(32)


def test_a_ring_of_two_keys_opens_both_generations_and_seals_under_the_current_one() -> None:
    before = FieldCipher(OLD).encrypt("AsKd", "table-t", 3, "data.cards")
    ring = FieldCipher(NEW, [OLD])
    after = ring.encrypt("2c7h", "table-t", 4, "data.cards")
    assert before.startswith(f"aesgcm2:{key_id(OLD)}:") and after.startswith(f"aesgcm2:{key_id(NEW)}:")
    assert ring.decrypt(before, "table-t", 3, "data.cards") == "AsKd"
    assert ring.decrypt(after, "table-t", 4, "data.cards") == "2c7h"
    assert ring.key_ids == [key_id(NEW), key_id(OLD)] and key_id(NEW) != key_id(OLD)
    with pytest.raises(DataKeyMissing):
        FieldCipher(OLD).decrypt(after, "table-t", 4, "data.cards")  # the old key does not open the new


def test_a_ciphertext_under_a_key_the_ring_lacks_is_refused_naming_that_key() -> None:
    before = FieldCipher(OLD).encrypt("AsKd", "table-t", 3, "data.cards")
    with pytest.raises(DataKeyMissing, match=f"sealed under data key {key_id(OLD)}, which this host's key ring") \
            as refused:
        FieldCipher(NEW).decrypt(before, "table-t", 3, "data.cards")
    assert refused.value.missing_key == key_id(OLD) and refused.value.version == 3
    assert OLD.hex() not in str(refused.value)


def test_a_ciphertext_retagged_with_another_keys_id_fails_authentication() -> None:
    ring = FieldCipher(NEW, [OLD])
    sealed = FieldCipher(OLD).encrypt("AsKd", "table-t", 3, "data.cards")
    retagged = sealed.replace(key_id(OLD), key_id(NEW), 1)
    with pytest.raises(SecretUnreadable, match="does not open") as refused:
        ring.decrypt(retagged, "table-t", 3, "data.cards")
    assert not isinstance(refused.value, DataKeyMissing)


def test_a_value_of_the_first_format_without_a_key_id_opens_under_any_key_of_the_ring() -> None:
    """Written before ciphertexts named their key: `aesgcm1:` and the place alone bound."""
    nonce = bytes(12)
    first_format = "aesgcm1:" + base64.b64encode(
        nonce + AESGCM(OLD).encrypt(nonce, b'"AsKd"', b"7:table-t:3:data.cards")).decode()
    assert FieldCipher(OLD).decrypt(first_format, "table-t", 3, "data.cards") == "AsKd"
    assert FieldCipher(NEW, [OTHER, OLD]).decrypt(first_format, "table-t", 3, "data.cards") == "AsKd"
    with pytest.raises(SecretUnreadable):
        FieldCipher(NEW).decrypt(first_format, "table-t", 3, "data.cards")
    with pytest.raises(SecretUnreadable):
        FieldCipher(OLD).decrypt(first_format, "table-t", 4, "data.cards")  # moved: still bound to where it lay


def test_retired_keys_come_from_the_environment_and_the_data_directory(tmp_path: Path) -> None:
    (tmp_path / "data-keys").mkdir()
    (tmp_path / "data-keys" / key_id(OTHER)).write_text(OTHER.hex() + "\n")
    config = Config.from_env({"CARDROOM_DATA_KEY": NEW.hex(), "CARDROOM_DATA_KEYS_OLD": f"{OLD.hex()}, ",
                              "CARDROOM_DATA_DIR": str(tmp_path)})
    assert data_cipher(config).key_ids == [key_id(NEW), key_id(OLD), key_id(OTHER)]


def test_a_malformed_retired_key_stops_the_start_without_showing_it(tmp_path: Path) -> None:
    from service.config import ConfigError

    with pytest.raises(ConfigError, match="CARDROOM_DATA_KEYS_OLD must be keys of 64 hex digits") as refused:
        Config.from_env({"CARDROOM_DATA_KEYS_OLD": f"{OLD.hex()},abc123"})
    assert "abc123" not in str(refused.value)
    (tmp_path / "data-keys").mkdir()
    (tmp_path / "data-keys" / "notes.txt").write_text("abc123 is the old key\n")
    with pytest.raises(ValueError, match="notes.txt does not hold a retired data key") as refused_file:
        data_cipher(Config(data_dir=tmp_path))
    assert "abc123" not in str(refused_file.value)


def test_data_key_new_retires_the_key_file_and_makes_a_new_one(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from service.cli.main import main

    first = data_cipher(Config(data_dir=tmp_path))
    before = first.encrypt("AsKd", "table-t", 3, "data.cards")
    monkeypatch.delenv("CARDROOM_DATA_KEY", raising=False)
    monkeypatch.delenv("CARDROOM_DATA_KEYS_OLD", raising=False)
    monkeypatch.setenv("CARDROOM_DATA_DIR", str(tmp_path))
    printed = CliRunner().invoke(main, ["data-key", "new"])
    assert printed.exit_code == 0, printed.output

    ring = data_cipher(Config(data_dir=tmp_path))
    retired = tmp_path / "data-keys" / first.current_key
    assert stat.S_IMODE(retired.stat().st_mode) == 0o600 and stat.S_IMODE((tmp_path / "data-key").stat().st_mode) == 0o600
    assert ring.key_ids == [ring.current_key, first.current_key] and ring.current_key != first.current_key
    assert f"data key {ring.current_key} now seals new secrets" in printed.output
    assert "whoever holds the retired key still opens the rows it sealed" in " ".join(printed.output.split())
    assert ring.decrypt(before, "table-t", 3, "data.cards") == "AsKd"
    with pytest.raises(DataKeyMissing):
        first.decrypt(ring.encrypt("2c7h", "table-t", 4, "data.cards"), "table-t", 4, "data.cards")


def test_data_key_new_with_the_key_in_the_environment_prints_a_new_key_and_what_to_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from service.cli.main import main

    monkeypatch.setenv("CARDROOM_DATA_KEY", OLD.hex())
    monkeypatch.setenv("CARDROOM_DATA_DIR", str(tmp_path))
    printed = CliRunner().invoke(main, ["data-key", "new"])
    assert printed.exit_code == 0, printed.output
    new = printed.output.splitlines()[1]
    assert printed.output.startswith(f"new data key {key_id(bytes.fromhex(new))} ")
    assert f"add the current key ({key_id(OLD)}) to CARDROOM_DATA_KEYS_OLD" in printed.output
    assert not (tmp_path / "data-key").exists() and not (tmp_path / "data-keys").exists()
