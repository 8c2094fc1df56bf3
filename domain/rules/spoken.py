"""Words said at the table as a declaration (declarations.md "Spoken words"): the action
named ("raise", "call", "pot", "all in" ...) and the amount said, in digits ("8,000",
"8k") or in English words ("eight thousand", "fourteen hundred"). What a declaration
then counts as is domain.rules.declarations' ruling.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

_SMALL = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
          "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
          "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
          "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
          "seventy": 70, "eighty": 80, "ninety": 90}
_SCALES = {"hundred": 100, "thousand": 1000, "k": 1000, "million": 1_000_000}


def spoken_amount(words: str) -> int | None:
    """An amount said aloud: digits ("8,000", "8000", "8k", "2.5k") or English words
    ("eight thousand", "fourteen hundred", "two thousand five hundred"). None if the
    words hold no amount."""
    text = words.lower().replace(",", "").replace("-", " ")
    digits = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(k|thousand|hundred|million)?\s*", text)
    if digits:
        number, scale = digits.groups()
        value = Decimal(number) * (_SCALES[scale] if scale else 1)
        return int(value) if value == int(value) else None
    tokens = [token for token in text.split() if token != "and"]
    if not tokens or any(token not in _SMALL and token not in _SCALES for token in tokens):
        return None
    total, current = 0, 0
    for token in tokens:
        if token in _SMALL:
            current += _SMALL[token]
        elif token == "hundred":
            current = max(current, 1) * 100
        else:
            total += max(current, 1) * _SCALES[token]
            current = 0
    return total + current


@dataclass(frozen=True)
class Declaration:
    """What the words said: an action (`call`, `raise`, `bet`, `all_in`, `pot`, `check`,
    `fold`, or `amount` for a bare amount), an amount if one was said, and whether a
    raise was stated "by" rather than as a total."""
    action: str
    amount: int | None = None
    by: bool = False


_ACTION_WORDS = {"call": "call", "raise": "raise", "bet": "bet", "check": "check", "fold": "fold",
                 "all in": "all_in", "all-in": "all_in", "allin": "all_in", "pot": "pot",
                 "bet the pot": "pot", "raise the pot": "pot", "i bet the pot": "pot"}


def declaration(said: str) -> Declaration | None:
    """The words as a declaration, or None when they say nothing the rules know (then the
    floor decides: TDA 2024 Rule 1)."""
    text = re.sub(r"[.!?]+$", "", said.lower().strip()).strip()
    # "I raise ...", "I'm all in", "I am all in": the speaker's own words before the action.
    text = re.sub(r"^i(?:\s+am|['\u2019]m)?\s+", "", text)
    if text in _ACTION_WORDS:
        return Declaration(_ACTION_WORDS[text])
    amount = spoken_amount(text)
    if amount:
        return Declaration("amount", amount)
    # "Make it 1,200" names the total, as "raise to 1,200" does (a bet when nothing is to call).
    found = re.fullmatch(r"(raise|bet|make\s+it)\s*,?\s*(to\s+|by\s+)?(.+)", text)
    if found:
        action, preposition, rest = found.groups()
        amount = spoken_amount(rest)
        if amount:
            return Declaration("raise" if action.startswith("make") else action, amount,
                               by=(preposition or "").strip() == "by")
    return None
