"""The data key (service.adapters.integrity.data_cipher): CARDROOM_DATA_KEY when set, else a
key made once in the data directory, readable by its owner alone, the same for every process."""
from __future__ import annotations

import stat
from pathlib import Path

import pytest

from service.adapters.integrity import data_cipher
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
