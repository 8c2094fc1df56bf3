"""What `make run` tells the person at the terminal, and what it sets up for /metrics."""
from __future__ import annotations

import logging

from service.devserver import banner, fresh_metrics_dir
from service.http.gunicorn_config import _NamedAddress


def test_the_banner_says_the_url_the_admin_keys_file_and_the_data_folder(tmp_path):
    lines = banner("http://127.0.0.1:8000", str(tmp_path / "admin-key"), tmp_path)

    text = "\n".join(lines)
    assert lines[0] == "Cardroom is running at http://127.0.0.1:8000"
    assert "http://127.0.0.1:8000/docs" in text and "http://127.0.0.1:8000/metrics" in text
    assert f"admin key: {tmp_path / 'admin-key'}" in text and f"data folder: {tmp_path}" in text


def test_the_metrics_of_an_earlier_run_are_emptied_at_start(tmp_path):
    (tmp_path / "metrics").mkdir()
    (tmp_path / "metrics" / "counter_123.db").write_bytes(b"old")

    directory = fresh_metrics_dir(tmp_path)

    assert directory == tmp_path / "metrics" and list(directory.iterdir()) == []


def test_gunicorns_listening_line_names_the_address_it_left_empty():
    record = logging.LogRecord("gunicorn.error", logging.INFO, __file__, 1, "Listening at: %s (%s)", ("", 9631), None)

    _NamedAddress("http://127.0.0.1:8000").filter(record)

    assert record.getMessage() == "Listening at: http://127.0.0.1:8000 (one SO_REUSEPORT socket per worker) (9631)"
