"""`make bench`'s figures of two commits side by side, measured in interleaved rounds.

    python tools/bench_compare.py 4bae23b main                     # every bench both sides have
    python tools/bench_compare.py 4bae23b main replay tournament --rounds 5 --out build/cmp.json

A side is a commit (checked out with `git worktree add --detach` into a temporary folder,
removed afterwards) or the folder of a checkout. Both run `python -m bench <name>` with this
interpreter and PYTHONPATH at their own checkout, so one virtualenv serves both: run the
tool with the newer side's (its dependencies are a superset). Each bench runs A, B, A, B ...
for --rounds rounds, so drift on a busy machine hits both alike; a run's figures are the
bench/results.json it writes (emptied before it, restored at the end). Each side's
DATABASE_URL is a scratch database of its own on --server, cardroom_cmp_a or cardroom_cmp_b,
made afresh before every run (the sides' migrations differ). Size variables (BENCH_FLAT_HANDS,
BENCH_SECONDS...) pass through from the environment; BENCH_SMOKE does not (no figure is
written under it).

Per figure: the medians of A and B, B/A, and which way is better, read from the key's name
(`direction`). A figure worse than A by more than --worse (10%) is flagged.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CARDROOM_SHARED_DIR") or ROOT.parent / "shared")
HIGHER, LOWER, UNJUDGED = "higher", "lower", "-"
Runs = dict[str, list[float]]  # figure -> its value in each run


def direction(key: str) -> tuple[str, str]:
    """Which way is better for a figure, and the words of its key that say so (first rule
    that matches): CPU is a cost; a rate (`per_s`, `rps`) is better higher; a time (`ms`,
    `us`, `s`, `p50`, `p99`, `mean`, `median`) and a count of failures or waste (`errors`,
    `missing`, `twice`, `duplicate`, `backlog`, `bytes`) are better lower; what is left of
    `_vs_` and `ratio` is a rate's share of a reference, better higher. Anything else (how
    many tables, events, hands a run made) says how big the run was: not judged."""
    words = re.split(r"[._]", key.lower())
    if "cpu" in words:
        return LOWER, "cpu"
    if "rps" in words or any(word == "per" and after == "s" for word, after in zip(words, words[1:])):
        return HIGHER, "per_s / rps"
    for rule, better, marks in ((LOWER, "a time or a cost", ("ms", "us", "s", "p50", "p99", "mean", "median")),
                                (LOWER, "a failure count", ("errors", "missing", "twice", "duplicate", "backlog", "bytes")),
                                (HIGHER, "a share", ("vs", "ratio"))):
        found = [mark for mark in marks if mark in words]
        if found:
            return rule, f"{better}: {'/'.join(found)}"
    return UNJUDGED, "a size of the run"


def ratio(a: float, b: float) -> float:
    """B/A; infinite when A is 0 and B is not (an error count that appeared)."""
    return b / a if a else (1.0 if b == 0 else float("inf"))


def is_worse(better: str, b_over_a: float, limit: float) -> bool:
    return b_over_a < 1 - limit if better == HIGHER else b_over_a > 1 + limit if better == LOWER else False


def figures(results_json: str) -> dict[str, float]:
    """A run's figures from the bench/results.json it wrote (numbers only)."""
    return {key: float(value) for key, value in json.loads(results_json).items()
            if isinstance(value, int | float) and not isinstance(value, bool)}


def compare(a: Runs, b: Runs, limit: float) -> list[tuple[str, float, float, float, str, str, bool]]:
    """Per figure both sides have: (key, median A, median B, B/A, better, why, worse)."""
    rows = []
    for key in sorted(a.keys() & b.keys()):
        median_a, median_b = statistics.median(a[key]), statistics.median(b[key])
        better, why = direction(key)
        b_over_a = ratio(median_a, median_b)
        rows.append((key, median_a, median_b, b_over_a, better, why, is_worse(better, b_over_a, limit)))
    return rows


@dataclass
class Side:
    label: str  # "a" or "b": also its database's name
    checkout: Path
    revision: str
    results_before: str | None = None

    @property
    def benches(self) -> set[str]:
        """What `make bench` runs there (bench/__main__.py's bench_modules)."""
        return {path.stem for path in (self.checkout / "bench").glob("*.py") if not path.stem.startswith("_")}

    def env(self, server: str) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items() if key != "BENCH_SMOKE"}
        return {**env, "PYTHONPATH": str(self.checkout), "CARDROOM_SHARED_DIR": str(SHARED),
                "DATABASE_URL": f"{server}/cardroom_cmp_{self.label}"}


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True).stdout.strip()


def prepare(spec: str, label: str, scratch: Path) -> Side:
    """A side's checkout, checked to import its own code (not this virtualenv's editable install)."""
    if Path(spec).is_dir():
        checkout = Path(spec).resolve()
        revision = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
                                  check=True, capture_output=True, text=True).stdout.strip() + " (checkout)"
    else:
        checkout, revision = scratch / label, git("rev-parse", "--short", spec)
        git("worktree", "add", "--detach", str(checkout), spec)
    side = Side(label, checkout, revision)
    imported = subprocess.run([sys.executable, "-c", "import bench, domain, service; print(domain.__file__, service.__file__)"],
                              cwd=checkout, env=side.env(""), check=True, capture_output=True, text=True).stdout.split()
    if not all(Path(path).is_relative_to(checkout) for path in imported):
        raise SystemExit(f"{spec}: imports {imported}, not its checkout's code")
    results = checkout / "bench" / "results.json"
    side.results_before = results.read_text() if results.exists() else None
    return side


def fresh_database(server: str, name: str) -> None:
    """Drop and create a scratch database (the maintenance connection only issues these two)."""
    import psycopg

    with psycopg.connect(f"{server}/postgres", autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')


def run_bench(side: Side, bench: str, server: str, log: Path) -> dict[str, float]:
    results = side.checkout / "bench" / "results.json"
    results.write_text("{}\n")
    fresh_database(server, f"cardroom_cmp_{side.label}")
    with log.open("a") as out:
        out.write(f"\n===== {bench} {side.label.upper()} {side.revision} {time.strftime('%H:%M:%S')}\n")
        out.flush()
        done = subprocess.run([sys.executable, "-m", "bench", bench], cwd=side.checkout, env=side.env(server),
                              stdout=out, stderr=subprocess.STDOUT, check=False)
    return figures(results.read_text()) if done.returncode == 0 else {}


def print_table(bench: str, rows: Iterable[tuple[str, float, float, float, str, str, bool]]) -> None:
    print(f"\n== {bench}\n  {'figure':<60} {'median A':>12} {'median B':>12} {'B/A':>7}  better  (from the name)")
    for key, median_a, median_b, b_over_a, better, why, worse in rows:
        print(f"  {key:<60} {median_a:>12.4g} {median_b:>12.4g} {b_over_a:>7.3f}  {better:<6}  ({why})"
              + ("  WORSE" if worse else ""), flush=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", help="the reference: a commit or a checkout's folder")
    parser.add_argument("b", help="the one compared with it")
    parser.add_argument("benches", nargs="*", help="bench modules (default: every one both sides have)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worse", type=float, default=0.10, help="flag a figure worse by more than this share")
    parser.add_argument("--server", default="postgresql://postgres@127.0.0.1:5432")
    parser.add_argument("--out", type=Path, help="write every run's figures here as JSON")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="bench-compare-") as scratch_dir:
        scratch = Path(scratch_dir)
        (scratch / "shared").symlink_to(SHARED)  # bench.replay finds the corpus beside its checkout
        sides = [prepare(args.a, "a", scratch), prepare(args.b, "b", scratch)]
        try:
            return _compare_benches(sides, args, scratch / "bench.log")
        finally:
            for side in sides:
                results = side.checkout / "bench" / "results.json"
                if side.results_before is not None:
                    results.write_text(side.results_before)
                if side.checkout.is_relative_to(scratch):
                    git("worktree", "remove", "--force", str(side.checkout))


def _compare_benches(sides: list[Side], args: argparse.Namespace, log: Path) -> int:
    a, b = sides
    benches = args.benches or sorted(a.benches & b.benches)
    print(f"A = {a.revision}, B = {b.revision}; {args.rounds} rounds; log: {log}")
    for only_one in sorted(a.benches ^ b.benches) if not args.benches else []:
        print(f"  {only_one}: only in {'A' if only_one in a.benches else 'B'}, not compared")
    runs: dict[str, dict[str, Runs]] = {}
    flagged: list[str] = []
    for bench in benches:
        runs[bench] = {"a": {}, "b": {}}
        for round_number in range(1, args.rounds + 1):
            for side in sides:
                started = time.perf_counter()
                measured = run_bench(side, bench, args.server, log)
                print(f"{bench} round {round_number} {side.label.upper()}: {time.perf_counter() - started:.0f} s"
                      + ("" if measured else " FAILED (see the log)"), flush=True)
                for key, value in measured.items():
                    runs[bench][side.label].setdefault(key, []).append(value)
        rows = compare(runs[bench]["a"], runs[bench]["b"], args.worse)
        print_table(bench, rows)
        flagged += [f"{key} B/A {b_over_a:.3f} ({better} is better)" for key, _, _, b_over_a, better, _, worse in rows if worse]
        if args.out:
            args.out.write_text(json.dumps(runs, indent=1) + "\n")
    print(f"\nworse by more than {args.worse:.0%}:" + "".join(f"\n  {line}" for line in flagged) if flagged
          else f"\nno figure worse by more than {args.worse:.0%}")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
