"""bench/action_profile.py names each millisecond: a function's own time goes to the layer
of the module it is in, and a builtin's or a standard-library function's to its callers'
layers, in proportion to what each call site spent in it."""
from __future__ import annotations

import sysconfig

import pytest

from bench.action_profile import OTHER, layer_seconds

STDLIB = sysconfig.get_paths()["stdlib"]
DECIDER = ("/src/domain/live/table.py", 10, "handle")
STORE = ("/src/service/adapters/store/postgres.py", 20, "append")
SHA = ("~", 0, "<built-in method _hashlib.openssl_sha256>")
COPY = ("~", 0, "<method 'copy' of 'dict' objects>")
DEEPCOPY = (f"{STDLIB}/copy.py", 128, "deepcopy")
ORPHAN = (f"{STDLIB}/threading.py", 1, "run")


class _Stats:
    """pstats.Stats' table: function -> (calls, primitive calls, own s, cumulative s, callers),
    each caller -> (calls, primitive calls, own s in this call site, cumulative s)."""

    def __init__(self) -> None:
        self.stats = {
            DECIDER: (1, 1, 0.004, 0.01, {}),
            STORE: (1, 1, 0.002, 0.01, {}),
            SHA: (4, 4, 0.003, 0.003, {}),
            COPY: (4, 4, 0.004, 0.004, {DEEPCOPY: (1, 1, 0.001, 0.001), STORE: (3, 3, 0.003, 0.003)}),
            DEEPCOPY: (1, 1, 0.001, 0.002, {DECIDER: (1, 1, 0.001, 0.002)}),
            ORPHAN: (1, 1, 0.005, 0.005, {}),
        }


def test_own_time_goes_to_the_module_s_layer_and_library_time_to_its_callers() -> None:
    seconds = layer_seconds(_Stats())  # type: ignore[arg-type]
    assert seconds == pytest.approx({
        "decider (domain)": 0.004 + 0.001 + 0.001,  # its own, deepcopy's, deepcopy's copies
        "round trips (store, psycopg, libpq)": 0.002 + 0.003,  # its own, its copies
        "hashing (SHA-256, HMAC)": 0.003,  # a layer of its own, whoever calls it
        OTHER: 0.005,  # the standard library, called from nowhere profiled
    })
