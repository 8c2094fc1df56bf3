"""`make test-ha` alone runs these (`-m ha`): `make test` and `make test-integration` leave
them out, skipped with the reason. A SIGTERM (`timeout` in .ci/run) unwinds the test like a
Ctrl-C, so the cluster it started is stopped and its folder removed."""
from __future__ import annotations

import signal
from typing import Any

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "ha" in (config.getoption("markexpr") or "").replace("not ha", ""):
        return
    skip = pytest.mark.skip(reason="a Patroni cluster under load: `make test-ha` runs it")
    for item in items:
        if item.get_closest_marker("ha"):
            item.add_marker(skip)


def pytest_configure(config: pytest.Config) -> None:
    if "ha" in (config.getoption("markexpr") or "").replace("not ha", ""):
        signal.signal(signal.SIGTERM, _interrupt)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}: stopping, and stopping what the test started")
