"""Every member a problem document may carry is in the documented Problem schema, which
forbids any other (`additionalProperties: false`): a view that adds one the schema does not
name answers outside its own contract (the schemathesis run found `hands` of a 400
`invalid_phh` so). Read from the source: each keyword given to `Problem(...)`."""
from __future__ import annotations

import ast
from pathlib import Path

from service.http.api.schemas import ProblemSchema

SERVICE = Path(__file__).resolve().parents[2] / "service"
NOT_IN_THE_BODY = {"headers"}  # Problem's own parameter: the answer's headers


def _extension_keywords() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in SERVICE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Problem":
                for keyword in node.keywords:
                    if keyword.arg is not None and keyword.arg not in NOT_IN_THE_BODY:
                        found.setdefault(keyword.arg, []).append(f"{path.relative_to(SERVICE.parent)}:{node.lineno}")
    return found


def test_every_problem_member_a_view_adds_is_documented():
    documented = set(ProblemSchema().fields)
    extensions = _extension_keywords()
    assert {"numbers", "hands", "line"} <= set(extensions)  # the scan finds them
    assert {name: where for name, where in extensions.items() if name not in documented} == {}
