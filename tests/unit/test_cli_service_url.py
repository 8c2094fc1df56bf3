"""The command line finds the local service where `make run` serves it, and shows ids
whole in its tables."""
from __future__ import annotations

import io

from rich.console import Console

from service.cli import main as cli
from service.cli.client import Answer, ApiError
from service.config import DEFAULT_PORT, SERVICE_URL_FILE


def test_the_url_make_run_wrote_wins(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDROOM_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PORT", "8123")
    (tmp_path / SERVICE_URL_FILE).write_text("http://127.0.0.1:8765\n")
    assert cli.default_url() == "http://127.0.0.1:8765"


def test_without_it_the_port_make_run_took_from_port(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDROOM_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PORT", "8123")
    assert cli.default_url() == "http://127.0.0.1:8123"
    monkeypatch.delenv("PORT")
    assert cli.default_url() == f"http://127.0.0.1:{DEFAULT_PORT}"


def test_a_table_on_a_narrow_terminal_shows_every_id_whole():
    player_id = "5eb2184a-7cd7-44e1-9c3a-0f2a6f1d2b77"
    out = io.StringIO()
    Console(file=out, width=40).print(cli._table("1 key", cli.KEY_COLUMNS,
                                                 [["key-1", "player", f"Ann Duke ({player_id})", "now", None]]))
    text = "".join(out.getvalue().split())  # folded onto lines of its column, never cut
    assert player_id.replace("-", "") in text.replace("-", "").replace("│", "") and "…" not in out.getvalue()


class _Players:
    """A client that knows one registered player."""

    def get(self, path: str) -> dict:
        if path == "/v1/players/p-1":
            return {"id": "p-1", "name": "Ann Duke"}
        raise ApiError(Answer(404, b'{"code": "not_found", "detail": "no player"}'))


def test_the_keys_table_names_each_player_beside_the_id():
    rows = cli._key_rows(_Players(), [
        {"id": "k1", "role": "player", "player_id": "p-1", "created_at": "t", "revoked_at": None},
        {"id": "k2", "role": "player", "player_id": "p-2", "created_at": "t", "revoked_at": None},
        {"id": "k3", "role": "floor", "player_id": None, "created_at": "t", "revoked_at": None}])
    assert [row[2] for row in rows] == ["Ann Duke (p-1)", "p-2", None]
