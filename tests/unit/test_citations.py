"""One table of rule citations (domain.rules.citations): every rule the code cites comes from
it and names its edition (spec README "Rule numbers"), and a refusal that applies no rule
carries none."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from domain.rules.citations import CITATIONS, cite, rule_for
from domain.rules.violations import Violation
from service.http.api.rulings import problem_from_violation

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*ROOT.glob("domain/**/*.py"), *ROOT.glob("service/**/*.py")])
TABLE = ROOT / "domain" / "citations.py"
# What a citation looks like: a rule book's name and a number.
CITATION_LOOKING = re.compile(r"\b(TDA|RRP|Robert's Rules|seed)\s+(\d|RP|limit|rule)", re.IGNORECASE)
# A TDA 2024 rule: 43, 47-A, 45-B-2, RP-8-A.
TDA_RULE = r"(RP-)?\d+(-[A-Z](-\d)?)?"
# A TDA number without its edition: "TDA 45-A" means different rules in 2024 and 2026.
EDITIONLESS_TDA = re.compile(r"\bTDA (?!20(24|26)\b)[\dR]")


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.body and isinstance(node.body[0], ast.Expr) \
                and isinstance(node.body[0].value, ast.Constant):
            found.add(id(node.body[0].value))
    return found


def _code_strings(path: Path) -> list[tuple[int, str]]:
    """The string literals of a module that are values (not docstrings)."""
    tree = ast.parse(path.read_text())
    docstrings = _docstrings(tree)
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings]


def test_every_citation_names_its_edition():
    for code, citation in CITATIONS.items():
        assert re.fullmatch(rf"TDA 2024 {TDA_RULE}(, {TDA_RULE})*|RRP [a-z][a-z :-]+( \d+)?|seed 00\d",
                            citation), code


def test_the_spec_readme_numbers_are_the_2024_ones():
    assert cite("raise_below_minimum") == "TDA 2024 43"
    assert cite("raise_not_reopened") == "TDA 2024 47-A"
    assert cite("raise_not_reopened_fixed_limit") == "TDA 2024 47-B"
    assert cite("fixed_limit_all_in_raise") == "RRP limit 6"
    assert cite("odd_chip") == "TDA 2024 20"
    assert cite("hand_for_hand_busts") == "TDA 2024 RP-8-A"
    assert cite("dice_poker") == "seed 003"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_citation_looking_string_in_the_code_comes_from_the_table(path):
    if path == TABLE:
        return
    cited = {citation for citation in CITATIONS.values()}
    strays = [(line, text[match.start():match.start() + 30])
              for line, text in _code_strings(path) for match in CITATION_LOOKING.finditer(text)
              if _citation_at(text, match.start()) not in cited]
    assert strays == [], f"cite these through domain.rules.citations.cite: {strays}"


def _citation_at(text: str, start: int) -> str | None:
    """The table citation written at `start` (a description may quote one)."""
    return next((c for c in CITATIONS.values() if text.startswith(c, start)
                 and not text[start + len(c):start + len(c) + 1].isalnum()
                 and text[start + len(c):start + len(c) + 2] not in ("-A", "-B", "-C", "-D")), None)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_comment_or_docstring_cites_a_tda_rule_without_its_edition(path):
    lines = [n for n, line in enumerate(path.read_text().splitlines(), 1) if EDITIONLESS_TDA.search(line)]
    assert lines == [], f"{path.name}: name the edition at lines {lines}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_violation_takes_its_rule_from_the_table_or_from_another_violation(path):
    """A `rule` given to Violation is `cite(...)`, a name bound to a citation, or a rule
    passed on from a violation caught; a bare string would be a rule nobody looked up."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Violation"):
            continue
        rule = node.args[2] if len(node.args) > 2 else next(
            (k.value for k in node.keywords if k.arg == "rule"), None)
        assert not isinstance(rule, ast.Constant), f"{path.name}:{node.lineno}: {ast.unparse(rule)}"


def test_a_violation_with_a_code_in_the_table_cites_it_by_itself():
    assert Violation("raise_below_minimum", "raise to 450 is below the minimum").rule == "TDA 2024 43"
    assert Violation("not_your_turn", "it is Ann's turn").rule == ""
    assert Violation("wrong_fixed_amount", "x", cite("fixed_limit_all_in_raise")).rule == "RRP limit 6"


def test_a_refusal_that_applies_no_rule_carries_no_rule_key():
    problem = problem_from_violation(Violation("not_your_turn", "it is Ann's turn", numbers={"seat": 1}))
    assert "rule" not in problem.extensions and problem.extensions["numbers"] == {"seat": 1}
    cited = problem_from_violation(Violation("raise_cap_reached", "the betting is capped"))
    assert cited.extensions["rule"] == "TDA 2024 48"
    assert rule_for("no_such_code") == ""
