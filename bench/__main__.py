"""`make bench`: run every benchmark module, print each figure beside its references,
and write them all to bench/results.json (not under BENCH_SMOKE=1: those figures mean nothing).

A benchmark module exposes `run() -> dict[str, float]`. Keys name the figure
("evaluation.cardroom_7card_per_s"); reference libraries measured in the same run use
the same prefix ("evaluation.treys_7card_per_s"), so they print side by side.
"""
from __future__ import annotations

import importlib
import json
import pkgutil
import sys
import time
from pathlib import Path

from bench import SMOKE

RESULTS = Path(__file__).with_name("results.json")


def bench_modules(selected: list[str]) -> list[str]:
    """The benchmark modules (every module of bench/ but `_`-named ones), or those selected;
    tests/integration/test_bench_smoke.py runs each of them."""
    names = sorted(
        m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)])
        if not m.name.startswith("_")
    )
    return [n for n in names if not selected or n in selected]


def rate_limits_in_force() -> str:
    """The limits the servers started here run with (the environment's, else the defaults):
    the HTTP figures are measured behind them, and the benchmarks' clients stay under them."""
    from service.config import Config
    from service.http.rate_limits import MEMORY_URL, storage_url

    config = Config.from_env()
    # Without CELERY_BROKER_URL the benchmarks start an embedded Redis broker, and count there.
    in_memory = config.broker_url is not None and storage_url(config) == MEMORY_URL
    counted_in = "each web process's memory" if in_memory else "the Redis broker"
    return (f"rate limits: {config.rate_limit_per_key or 'none'} per key (not the admin key), "
            f"{config.rate_limit_per_address or 'none'} per address, counted in {counted_in}")


def main(argv: list[str]) -> int:
    results: dict[str, float] = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    print(rate_limits_in_force(), flush=True)
    for name in bench_modules(argv):
        started = time.perf_counter()
        print(f"== {name}", flush=True)
        figures = importlib.import_module(f"bench.{name}").run()
        for key, value in figures.items():
            # Ratios and milliseconds are small numbers: more decimals for them.
            shown = f"{value:,}" if not isinstance(value, float) else f"{value:,.1f}" if abs(value) >= 10 else f"{value:.3g}"
            print(f"   {key:<55} {shown:>16}")
        print(f"   ({time.perf_counter() - started:.1f} s)", flush=True)
        if not SMOKE:  # results.json holds measured figures only
            results.update(figures)
            RESULTS.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    print("smoke sizes (BENCH_SMOKE=1): no figure written" if SMOKE else f"figures written to {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
