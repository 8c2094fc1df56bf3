"""A game is one plug-in: outside domain/ few files name it (issue 30's recount).

The reviewer's recount, `grep -rli <game> service workers openapi.yaml | grep -v __pycache__`,
run in Python: for each built-in game, the files outside domain/ and tests/ that name it
(templates, scripts and openapi.yaml included) are at most FILES_PER_GAME. openapi.yaml
is counted although its lists of games are generated from domain.registry; a game with
no endpoint of its own is named there in those generated lists alone."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEARCHED = ("service", "workers", "openapi.yaml")
FILES_PER_GAME = 4
GAMES = ("palace", "dice", "stud", "razz", "badugi", "omaha")
WITHOUT_ENDPOINTS = ("stud", "razz", "badugi", "omaha")
"""Games no endpoint, schema or page of service/ serves on its own."""


def _searched_files() -> list[Path]:
    found = []
    for name in SEARCHED:
        path = ROOT / name
        found.extend([path] if path.is_file() else
                     (f for f in sorted(path.rglob("*")) if f.is_file() and "__pycache__" not in f.parts))
    return found


FILES = {path.relative_to(ROOT).as_posix(): path.read_bytes().decode("utf-8", "replace").lower()
         for path in _searched_files()}


def naming(game: str) -> list[str]:
    return sorted(name for name, text in FILES.items() if game in text)


def test_the_recount_reads_the_files_grep_reads() -> None:
    assert "openapi.yaml" in FILES and "service/http/pages/templates/floor/rulings.html" in FILES
    assert naming("holdem")  # the default game is named: the search finds what is there


@pytest.mark.parametrize("game", GAMES)
def test_few_files_outside_domain_name_a_game(game: str) -> None:
    assert len(naming(game)) <= FILES_PER_GAME, naming(game)


@pytest.mark.parametrize("game", WITHOUT_ENDPOINTS)
def test_a_game_without_endpoints_is_named_only_in_the_registrys_generated_lists(game: str) -> None:
    # openapi.yaml's enums of games (schemas.RegisteredGame) are the only mention.
    assert naming(game) == ["openapi.yaml"]
    mentions = [line.strip() for line in FILES["openapi.yaml"].splitlines() if game in line]
    assert mentions and all(re.fullmatch(rf"- {game}[a-z_]*", line) for line in mentions), mentions
