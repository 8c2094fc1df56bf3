"""`make lock`: write requirements/test.txt and requirements/run.txt, the exact versions
`make test` and `make run` install, for every interpreter named (3.11 and 3.12 at least).

Only pip does the resolving (`pip --python X install --dry-run --ignore-installed --report`):
first `.[embedded,test]` on the first interpreter, unconstrained (the newest versions
pyproject.toml allows); then on each other interpreter under those pins, so every Python
resolves the same versions or this stops; then `.[embedded]` under the same pins, the
subset `make run` needs. pip itself is pinned too (the Makefile upgrades to it first).
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REQUIRED_VERSIONS = {"3.11", "3.12"}


def interpreter(python: str) -> tuple[str, str]:
    """(its version, its executable's path): pip's --python wants the path."""
    found = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2], sys.executable)"],
                           capture_output=True, text=True)
    if found.returncode != 0:
        sys.exit(f"{python} does not run: {found.stderr.strip()[-300:]}\n"
                 "name each interpreter by its path: make lock LOCK_PYTHONS='python3.11 /path/to/python3.12'")
    version, executable = found.stdout.split()
    return version, executable


def resolve(python: str, extras: str, constraints: dict[str, str]) -> dict[str, str]:
    """{name: version} of what pip would install into an empty environment of `python`."""
    with tempfile.TemporaryDirectory() as scratch:
        report, pins = Path(scratch, "report.json"), Path(scratch, "constraints.txt")
        pins.write_text("".join(f"{name}=={version}\n" for name, version in constraints.items()))
        subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--dry-run",
                        "--ignore-installed", "--report", str(report), "-c", str(pins),
                        "pip", "-e", f"{ROOT}[{extras}]"], check=True)
        installs = json.loads(report.read_text())["install"]
    return {item["metadata"]["name"]: item["metadata"]["version"] for item in installs
            if not item["download_info"]["url"].startswith("file://" + str(ROOT))}


def write(path: Path, pins: dict[str, str], what: str, versions: list[str]) -> None:
    lines = [f"# {what}.",
             f"# Exact versions for Python {' and '.join(versions)} on x86_64 Linux, pip's constraints in the Makefile.",
             "# Written by `make lock` (requirements/lock.py): do not edit by hand.",
             *(f"{name}=={pins[name]}" for name in sorted(pins, key=str.lower))]
    path.write_text("\n".join(lines) + "\n")
    print(f"{path.relative_to(ROOT)}: {len(pins)} pins")


def main(pythons: list[str]) -> None:
    found = [interpreter(python) for python in pythons]
    versions, pythons = [version for version, _ in found], [executable for _, executable in found]
    if not REQUIRED_VERSIONS.issubset(versions):
        sys.exit(f"the lock is for Python {' and '.join(sorted(REQUIRED_VERSIONS))}; got {versions}: "
                 "make lock LOCK_PYTHONS='python3.11 /path/to/python3.12'")
    test = resolve(pythons[0], "embedded,test", {})
    for python in pythons[1:]:
        test |= resolve(python, "embedded,test", test)
    run: dict[str, str] = {}
    for python in pythons:
        run |= resolve(python, "embedded", test)
    write(ROOT / "requirements" / "test.txt", test, "`make test` (and lint, bench, the integration suites)", versions)
    write(ROOT / "requirements" / "run.txt", run, "`make run`: the service, its workers and the embedded servers", versions)


if __name__ == "__main__":
    main(sys.argv[1:] or ["python3.11", "python3.12"])
