"""`cardroom phh import`: hand histories from files and folders, each replayed (and kept
as an audited hand) by the service, counted by variant.

A `.phh` file holds one hand; a `.phhs` file several, each under a `[name]` header (the
PHH format's hand-history collection). Each hand is sent with `?store=true` and an
Idempotency-Key made from its text, so importing a folder twice stores each hand once.
"matched": the replay ends with the record's finishing stacks.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from service.cli.client import ApiError, Client

PHH_SUFFIXES = (".phh", ".phhs")
_SECTION = re.compile(r"^\[[^\]\n]+\][ \t]*$", re.MULTILINE)
_VARIANT = re.compile(r"^variant\s*=\s*['\"]([^'\"]+)['\"]", re.MULTILINE)


@dataclass(frozen=True)
class Hand:
    source: str
    text: str

    @property
    def variant(self) -> str:
        found = _VARIANT.search(self.text)
        return found.group(1) if found else "?"


@dataclass
class VariantCount:
    hands: int = 0
    replayed: int = 0
    matched: int = 0
    stored: int = 0
    refused: int = 0


@dataclass
class ImportSummary:
    by_variant: dict[str, VariantCount] = field(default_factory=dict)
    refusals: list[tuple[str, str]] = field(default_factory=list)
    """(source, the service's reason) of each hand refused."""

    def total(self) -> VariantCount:
        total = VariantCount()
        for count in self.by_variant.values():
            for name in vars(total):
                setattr(total, name, getattr(total, name) + getattr(count, name))
        return total


def hand_files(paths: list[Path]) -> list[Path]:
    """The hand-history files named or found (recursively) in the folders named, in order."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted((p for p in path.rglob("*") if p.suffix in PHH_SUFFIXES and p.is_file()),
                            key=_natural)
        else:
            found.append(path)
    return found


def _natural(path: Path) -> list[object]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", str(path))]


def hands_in(path: Path) -> Iterator[Hand]:
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".phhs":
        yield Hand(str(path), text)
        return
    headers = list(_SECTION.finditer(text))
    for header, following in zip(headers, [*headers[1:], None]):
        body = text[header.end():following.start() if following else len(text)]
        yield Hand(f"{path}{header.group().strip()}", body.strip() + "\n")


def import_hand(client: Client, hand: Hand, summary: ImportSummary, store: bool) -> None:
    count = summary.by_variant.setdefault(hand.variant, VariantCount())
    count.hands += 1
    key = "phh-import-" + hashlib.sha256(hand.text.encode()).hexdigest()
    try:
        answer = client.call("POST", "/v1/hand-histories" + ("?store=true" if store else ""),
                             text=hand.text, content_type="application/toml",
                             headers={"Idempotency-Key": key} if store else {})
    except ApiError as refused:
        count.refused += 1
        summary.refusals.append((hand.source, str(refused)))
        return
    count.replayed += 1
    count.stored += store
    count.matched += answer.json().get("matches_record") is True


def import_files(client: Client, files: list[Path], store: bool,
                 advanced: Callable[[int], None]) -> ImportSummary:
    """Every hand of `files`; `advanced(1)` after each file."""
    summary = ImportSummary()
    for path in files:
        for hand in hands_in(path):
            import_hand(client, hand, summary, store)
        advanced(1)
    return summary
