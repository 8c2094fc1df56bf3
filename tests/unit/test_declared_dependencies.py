"""What the code imports is what pyproject.toml declares, and the lock files pin it (issue 36).

`make run` installs the runtime dependencies and the embedded servers (`.[embedded]`) and
nothing else, so every package that domain/, service/, workers/ and migrations/ import must
be declared there; tests/ and bench/ may use the test extra too. A package that only comes
along with another (psutil with the embedded servers) does not count: it may go when that
one changes. An extra asked of a declared package counts (psycopg[pool] brings psycopg_pool).
"""
from __future__ import annotations

import ast
import sys
import tomllib
from contextlib import suppress
from importlib.metadata import PackageNotFoundError, distribution, packages_distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
OWN_PACKAGES = {"domain", "service", "workers", "migrations", "tests", "bench", "tools"}
RUNTIME_FOLDERS = ("domain", "service", "workers", "migrations")
TEST_FOLDERS = ("tests", "bench", "tools")
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
RUNTIME = [*PROJECT["dependencies"], *PROJECT["optional-dependencies"]["embedded"]]
TEST = PROJECT["optional-dependencies"]["test"]


def imported(folders: tuple[str, ...]) -> dict[str, str]:
    """{top-level module: a file importing it} for every third-party import in the folders."""
    found: dict[str, str] = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.partition(".")[0]
                    if top not in sys.stdlib_module_names and top not in OWN_PACKAGES and top != "__future__":
                        found.setdefault(top, str(path.relative_to(ROOT)))
    return found


def declared(requirements: list[str]) -> set[str]:
    """The distributions these requirements name, with what the extras they ask for bring."""
    names: set[str] = set()
    for line in requirements:
        requirement = Requirement(line)
        names.add(canonicalize_name(requirement.name))
        for extra in requirement.extras:
            for brought in distribution(requirement.name).requires or []:
                dependency = Requirement(brought)
                if dependency.marker is not None and dependency.marker.evaluate({"extra": extra}):
                    names.add(canonicalize_name(dependency.name))
    return names


def undeclared(folders: tuple[str, ...], requirements: list[str]) -> list[str]:
    allowed = declared(requirements)
    providers = packages_distributions()
    missing = []
    for module, path in sorted(imported(folders).items()):
        distributions = {canonicalize_name(name) for name in providers.get(module, [])}
        if not distributions & allowed:
            missing.append(f"{module} ({path}; installed from {sorted(distributions) or 'nothing'})")
    return missing


def pins(lock: str) -> dict[str, str]:
    lines = (ROOT / "requirements" / lock).read_text().splitlines()
    return {canonicalize_name(name): version
            for name, _, version in (line.partition("==") for line in lines if line and not line.startswith("#"))}


def test_what_running_imports_is_declared_for_make_run():
    assert undeclared(RUNTIME_FOLDERS, RUNTIME) == []


def test_what_tests_and_benchmarks_import_is_declared_for_make_test():
    assert undeclared(TEST_FOLDERS, RUNTIME + TEST) == []


def test_an_import_of_an_undeclared_package_is_caught(tmp_path, monkeypatch):
    """psutil is installed (the embedded servers need it) but the runtime does not declare it."""
    (tmp_path / "probe").mkdir()
    (tmp_path / "probe" / "uses_psutil.py").write_text("import psutil\nimport flask\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert [line.partition(" ")[0] for line in undeclared(("probe",), RUNTIME)] == ["psutil"]


def needed_by(names: set[str]) -> set[str]:
    """What these installed distributions require themselves (no extras asked)."""
    needed: set[str] = set()
    for name in names:
        for line in distribution(name).requires or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                needed.add(canonicalize_name(requirement.name))
    return needed


@pytest.mark.parametrize(("lock", "requirements"), [("run.txt", RUNTIME), ("test.txt", RUNTIME + TEST)])
def test_the_lock_pins_every_declared_package_within_its_bounds(lock, requirements):
    pinned = pins(lock)
    unmet = []
    for line in requirements:
        requirement = Requirement(line)
        version = pinned.get(canonicalize_name(requirement.name))
        if version is None or not requirement.specifier.contains(version, prereleases=True):
            unmet.append(f"{line} (locked: {version})")
    assert unmet == [], "pyproject.toml changed since the lock was made: run `make lock`"


def test_make_run_pins_what_make_test_pins_and_no_test_tool():
    run, test = pins("run.txt"), pins("test.txt")
    assert {name: test.get(name) for name in run} == run
    # A package the tests declare is in the runtime lock only where a runtime package needs it
    # (psutil: the embedded servers; packaging).
    assert declared(TEST) & run.keys() <= needed_by(set(run))
    assert {"pytest", "hypothesis", "schemathesis", "treys", "phevaluator", "ruff", "mypy", "selenium"}.isdisjoint(run)


def test_the_installed_versions_are_the_locked_ones():
    """`make test` installs from the lock: a stale virtualenv or a missed constraint shows here."""
    locked = pins("test.txt")
    installed = {}
    for name in locked:
        with suppress(PackageNotFoundError):
            installed[name] = distribution(name).version
    assert {name: version for name, version in installed.items() if version != locked[name]} == {}
