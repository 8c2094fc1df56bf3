"""A game's ruling of its own, as the floor's rulings page asks it: the form's fields, an
example filled in, how the filled form reads as the ruling's request, and the answer in
words. A game declares one in its registration (domain.registry `Game.ruling_form`); the
page lays out every registered game's form with no line naming the game.

Text in, text out: the page (service.http.pages.rulings_forms) checks the request with the
API's schema of the same path when the API has one (`POST /v1/rulings/<path>`), and the
ruling itself refuses what the rules refuse. The field readers here are the page's too.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

FORM_FIELD_MAX = 20_000
"""Characters per field: far more than any situation, little enough to parse at once."""

TEXT, NUMBER, LINES, CHECKBOX = "text", "number", "lines", "checkbox"
"""How a field is typed: a line of text, a whole number, lines of text, ticked or not."""


class FormError(ValueError):
    """A field that does not read as what it stands for: said to the person who typed it."""


@dataclass(frozen=True)
class FormField:
    name: str
    label: str
    kind: str = TEXT
    syntax: str = ""
    """How to write it, shown as code (`name banner palace [soldiers]`)."""
    hint: str = ""
    """Said after the syntax: what else the person needs (the lines a scorecard has)."""


@dataclass(frozen=True)
class RulingForm:
    path: str
    """`/floor/rulings/<path>`; the API's twin, when it has one, is `POST /v1/rulings/<path>`."""
    title: str
    fields: tuple[FormField, ...]
    request: Callable[[Mapping[str, str]], dict[str, Any]]
    """The filled form -> the ruling's request (FormError when a field does not read)."""
    rule: Callable[[dict[str, Any]], dict[str, Any]]
    words: Callable[[dict[str, Any]], list[str]]
    """The ruling's answer, said as the floor would say it, with the rule."""
    example: Mapping[str, str] = field(default_factory=dict)
    """A filled form the rules answer (the page shows it as each field's placeholder)."""


# ---------------------------------------------------------------- reading the fields


def read_text(form: Mapping[str, str], name: str) -> str:
    value = form.get(name, "")
    if len(value) > FORM_FIELD_MAX:
        raise FormError(f"{name}: at most {FORM_FIELD_MAX:,} characters")
    return value.strip()


def read_amount(form: Mapping[str, str], name: str, *, required: bool = False) -> int | None:
    value = read_text(form, name).replace(",", "").replace("_", "")
    if not value:
        if required:
            raise FormError(f"{name.replace('_', ' ')}: give an amount")
        return None
    if not value.isdigit() or len(value) > 15:
        raise FormError(f"{name.replace('_', ' ')}: {value[:40]!r} is not a whole number of chips")
    return int(value)


def read_lines(form: Mapping[str, str], name: str) -> list[list[str]]:
    """The field's non-blank lines, each split into its words."""
    return [line.split() for line in read_text(form, name).splitlines() if line.strip()]


def read_number(word: str, where: str) -> int:
    cleaned = word.replace(",", "")
    if not cleaned.isdigit() or len(cleaned) > 15:
        raise FormError(f"{where}: {word[:40]!r} is not a whole number")
    return int(cleaned)


def ticked(form: Mapping[str, str], name: str) -> bool:
    return form.get(name, "") == "on"
