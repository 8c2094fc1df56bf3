"""Every benchmark still runs. Each module `python -m bench` runs (found as it finds them,
so a new one is covered) runs as `python -m bench <module>` at its smoke sizes
(BENCH_SMOKE=1, bench/__init__.py) in a process of its own, and must finish in time and
print its figures, each a finite number. Nothing else runs the benchmarks between two
`make bench` runs: bench/flat_costs.py once stopped at its first hand after a signature
change it was not told of.

Each benchmark starts its servers as under `make bench`: on DATABASE_URL's server when it
is set, in a database of its own here (clocks, http and tables migrate DATABASE_URL's
database itself), else an embedded PostgreSQL (action_profile always starts its own, with
pg_stat_statements loaded); on CELERY_BROKER_URL when set, in this test
process's own Redis database (the clocks benchmark runs a Celery worker, which must take
no other test process's tasks: tests/conftest.py), else an embedded broker. A benchmark
that overruns gets a Ctrl-C (it stops its servers and drops its databases), then SIGKILL
for whatever of its process tree is left.

Marker `scale`: `make test-integration` runs these (CI once), `make test` leaves them out.
About 140 s on a loaded 2-core machine with the modules spread over two test processes
(230 s in one), two thirds of it the streams, tables, http, action_cost and action_profile
benchmarks, which start and stop gunicorn fifteen times between them (action_cost about
30 s, action_profile 45 s of it).
"""
from __future__ import annotations

import contextlib
import math
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.__main__ import bench_modules
from tests.processes import is_running, process_start_time, process_tree

pytestmark = [pytest.mark.integration, pytest.mark.scale]

PROJECT_ROOT = Path(__file__).resolve().parents[2]
BENCH_TIMEOUT_S = 240  # the slowest module (streams) takes about 50 s on a loaded machine
STOP_PATIENCE_S = 30  # after the Ctrl-C: gunicorn's graceful stop alone may take 10 s
FIGURE = re.compile(r"^   ([\w.]+) +(\S+)$", re.MULTILINE)
"""A figure's line as bench/__main__.py prints it: its key, then its value."""


@pytest.fixture
def bench_env(request: pytest.FixtureRequest) -> Iterator[dict[str, str]]:
    # A developer's own BENCH_* sizes (BENCH_FLAT_HANDS, BENCH_TABLES_PRODUCTION_ONLY...)
    # would take the smoke sizes' place.
    env = {name: value for name, value in os.environ.items() if not name.startswith("BENCH_")}
    env["BENCH_SMOKE"] = "1"
    if env.get("CELERY_BROKER_URL"):
        env["CELERY_BROKER_URL"] = request.getfixturevalue("broker_url")
    if not env.get("DATABASE_URL"):
        yield env
        return
    from bench.store import _scratch_database  # the benchmarks' own: fresh, dropped afterwards

    with _scratch_database(env["DATABASE_URL"]) as url:
        yield {**env, "DATABASE_URL": url}


@pytest.mark.parametrize("module", bench_modules([]))
def test_benchmark_runs_at_smoke_sizes_and_prints_finite_figures(module: str, bench_env: dict[str, str]) -> None:
    process = subprocess.Popen([sys.executable, "-m", "bench", module], cwd=PROJECT_ROOT, env=bench_env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    try:
        output, _ = process.communicate(timeout=BENCH_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        _stop_for_good(process)
        output, _ = process.communicate(timeout=STOP_PATIENCE_S)
        pytest.fail(f"`python -m bench {module}` ran past {BENCH_TIMEOUT_S} s:\n{output[-5000:]}")
    finally:
        _stop_for_good(process)  # also when the test itself is interrupted (pytest-timeout, Ctrl-C)
    assert process.returncode == 0, output[-5000:]
    figures = dict(FIGURE.findall(output))
    assert figures, f"no figure printed:\n{output}"
    not_finite = {key: shown for key, shown in figures.items() if not math.isfinite(float(shown.replace(",", "")))}
    assert not not_finite, f"figures that are not finite numbers: {not_finite}\n{output}"


def _stop_for_good(process: subprocess.Popen[str]) -> None:
    """Ctrl-C to the benchmark, then SIGKILL for whatever of its tree outlives its
    clean-up: its own process group (a Celery worker and its pool) and the servers it
    started in sessions of their own (gunicorn, PostgreSQL, Redis)."""
    if process.poll() is not None:
        return
    tree = {pid: start for pid in process_tree(process.pid) if (start := process_start_time(pid))}
    process.send_signal(signal.SIGINT)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=STOP_PATIENCE_S)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    for pid, start in tree.items():
        if is_running(pid, start):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + 10
    while left := [pid for pid, start in tree.items() if is_running(pid, start)]:
        assert time.monotonic() < deadline, f"still running after SIGKILL: {left}"
        time.sleep(0.1)
