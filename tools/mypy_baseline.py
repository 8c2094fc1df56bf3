"""mypy strict over service/ and workers/, held to a committed baseline that only shrinks.

`make lint` runs this after mypy on domain/ (which allows no error at all). It counts the
errors of each module and fails when a module has more than `mypy_baseline.txt` allows,
a module the baseline does not name being allowed none. When a module has fewer, it says
so and passes: lower the baseline (`--update`) in the same commit, so that nobody can
bring those errors back.

    python tools/mypy_baseline.py            # check against the baseline
    python tools/mypy_baseline.py --update   # write today's counts as the baseline
"""
from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = Path(__file__).with_name("mypy_baseline.txt")
CHECKED = ("service", "workers")
_HEADER = ("# mypy strict errors per module of service/ and workers/: `make lint` fails when one grows.\n"
           "# Lower a count when you fix errors (`python tools/mypy_baseline.py --update`); never raise one.\n")
_ERROR = re.compile(r"^(?P<path>[^:\s]+\.py):\d+: error: ", re.MULTILINE)


def count_errors(mypy_output: str) -> Counter[str]:
    """Errors per module (by path) in mypy's report; notes are not errors."""
    return Counter(match["path"] for match in _ERROR.finditer(mypy_output))


def read_baseline(text: str) -> dict[str, int]:
    """`path count` lines; blank lines and `#` comments are skipped."""
    counts: dict[str, int] = {}
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            path, count = line.split()
            counts[path] = int(count)
    return counts


def format_baseline(counts: Mapping[str, int]) -> str:
    return _HEADER + "".join(f"{path} {count}\n" for path, count in sorted(counts.items()) if count)


def compare(baseline: Mapping[str, int], current: Mapping[str, int]) -> tuple[list[str], list[str]]:
    """(the modules whose errors grew, those whose errors shrank), a line each."""
    grew = [f"{path}: {count} errors, the baseline allows {baseline.get(path, 0)}"
            for path, count in sorted(current.items()) if count > baseline.get(path, 0)]
    shrank = [f"{path}: {current.get(path, 0)} errors, the baseline says {count}"
              for path, count in sorted(baseline.items()) if current.get(path, 0) < count]
    return grew, shrank


def run_mypy() -> str:
    """mypy with the project's settings (strict) over CHECKED; its report."""
    result = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", *CHECKED],
                            cwd=ROOT, capture_output=True, text=True, check=False)
    if result.returncode not in (0, 1):  # 2: mypy could not check at all (a crash, bad options)
        raise SystemExit(f"mypy failed:\n{result.stdout}{result.stderr}")
    return result.stdout


def main(argv: list[str]) -> int:
    current = count_errors(run_mypy())
    if argv == ["--update"]:
        BASELINE.write_text(format_baseline(current))
        print(f"{BASELINE.relative_to(ROOT)}: {sum(current.values())} errors in {len(current)} modules")
        return 0
    grew, shrank = compare(read_baseline(BASELINE.read_text()), current)
    for line in shrank:
        print(f"fewer mypy errors, lower the baseline (python tools/mypy_baseline.py --update): {line}")
    for line in grew:
        print(f"more mypy errors than the baseline allows: {line}")
    if grew:
        print(f"fix them (.venv/bin/mypy {' '.join(CHECKED)} lists them); the baseline only shrinks")
        return 1
    print(f"mypy on {', '.join(CHECKED)}: {sum(current.values())} errors, none beyond the baseline")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
