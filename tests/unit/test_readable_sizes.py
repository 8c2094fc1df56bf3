"""Modules and functions a person can read (issue 36): in domain/, service/ and workers/, no
module over 800 lines and no function over 80 (tests, bench and migrations excepted).
A module that grows past it is split by what it holds, not granted an exception."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ("domain", "service", "workers")
MOST_MODULE_LINES = 800
MOST_FUNCTION_LINES = 80


def _modules() -> list[Path]:
    return sorted(path for folder in CHECKED for path in (ROOT / folder).rglob("*.py"))


def test_no_module_over_800_lines():
    long = {str(path.relative_to(ROOT)): lines for path in _modules()
            if (lines := len(path.read_text().splitlines())) > MOST_MODULE_LINES}
    assert long == {}


def test_no_function_over_80_lines():
    long = {}
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > MOST_FUNCTION_LINES:
                    long[f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"] = lines
    assert long == {}


def test_the_check_sees_the_code():
    # Guards the two tests above against passing on an empty walk (a moved folder).
    assert len(_modules()) > 200
