"""`make bench`'s modules (bench/__main__.py runs them).

`BENCH_SMOKE=1` runs every module at the smallest sizes that still take its code paths,
in seconds: the test suite's check that each benchmark still runs
(tests/integration/test_bench_smoke.py). Its figures mean nothing and are written nowhere.
"""
from __future__ import annotations

import os
from typing import TypeVar

SMOKE = os.environ.get("BENCH_SMOKE") == "1"

Size = TypeVar("Size")


def size(full: Size, smoke: Size) -> Size:
    """`full` for a measurement; `smoke` under BENCH_SMOKE=1."""
    return smoke if SMOKE else full
