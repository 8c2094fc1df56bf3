"""`cardroom phh import`: hand histories from files and folders, each replayed (and kept
as an audited hand) by the service, counted by variant. PHH, and the hand histories of
PokerStars, Full Tilt, PartyPoker, iPoker, Ongame and Absolute (told by their first line,
or `--format pokerstars`, `--format fulltilt` ...), each hand read into the same record
(service.application.site_histories); GGPoker's format is not read.

A `.phh` file holds one hand; a `.phhs` file several, each under a `[name]` header (the
PHH format's hand-history collection), cut into its hands as the service cuts them
(domain.history.phh_collection): a hand that cannot be read is refused on its own, named
with its line, and the file's other hands are imported. Each hand is sent with `?store=true`
(a file of several hands in one request, which the service answers hand by hand: kept,
kept before, refused or unreadable with its line; a file the service will not keep whole,
too many hands or bytes, is sent hand by hand); the service keeps a hand under an id made
from its canonical PHH, so importing a folder twice stores each hand once and the second
import counts it `already` stored.
"matched": the replay ends with the record's finishing stacks; the summary names each hand
that was refused (and why) and each whose replay did not end with its recorded stacks.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from domain.history.phh import UnreadableHand
from domain.history.phh_collection import CollectedHand, hands_of
from service.application import site_histories
from service.cli.client import ApiError, Client

PHH_SUFFIXES = (".phh", ".phhs")
# The sites save their hand histories as .txt files (iPoker as .xml).
SUFFIXES = (*PHH_SUFFIXES, ".txt", ".xml")
FORMATS = ("auto", "phh", *site_histories.FORMATS)
_VARIANT = re.compile(r"^variant\s*=\s*['\"]([^'\"]+)['\"]", re.MULTILINE)


@dataclass(frozen=True)
class Hand:
    source: str
    text: str
    collected: CollectedHand | None = None
    """A .phhs file's hand, for the lines of the file its refusal names."""
    site_hand: site_histories.SiteHand | None = None
    """A site's hand (sent as text, read by the service into the same record)."""

    @property
    def variant(self) -> str:
        if self.site_hand is not None:
            return self.site_hand.variant
        found = _VARIANT.search(self.text)
        return found.group(1) if found else "?"


@dataclass
class VariantCount:
    hands: int = 0
    replayed: int = 0
    matched: int = 0
    stored: int = 0
    already: int = 0
    refused: int = 0


@dataclass
class ImportSummary:
    by_variant: dict[str, VariantCount] = field(default_factory=dict)
    refusals: list[tuple[str, str]] = field(default_factory=list)
    """(source, the service's reason) of each hand refused."""
    mismatches: list[tuple[str, str]] = field(default_factory=list)
    """(source, the stacks computed and recorded) of each hand whose replay ends elsewhere."""

    def count(self, variant: str) -> VariantCount:
        """The counts of `variant`, one hand more."""
        count = self.by_variant.setdefault(variant, VariantCount())
        count.hands += 1
        return count

    def refuse(self, source: str, count: VariantCount, reason: str) -> None:
        count.refused += 1
        self.refusals.append((source, reason))

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
            found += sorted((p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file()),
                            key=_natural)
        else:
            found.append(path)
    return found


def _natural(path: Path) -> list[object]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", str(path))]


def hands_in(path: Path, file_format: str = "auto") -> Iterator[Hand]:
    """The file's hands: a .phhs or a site's file's each on its own (its source names the
    hand and the line of its header), any other file as one hand. `file_format` "auto"
    tells a site's text by its first line."""
    text = path.read_text(encoding="utf-8")
    site = site_histories.format_of(text) if file_format == "auto" else None if file_format == "phh" else file_format
    if site is not None:
        for site_hand in site_histories.hands_in(text, site):
            yield Hand(f"{path}[hand #{site_hand.number}] (line {site_hand.line})", site_hand.text,
                       site_hand=site_hand)
        return
    collected = hands_of(text) if path.suffix == ".phhs" else None
    if collected is None:
        yield Hand(str(path), text)
        return
    for hand in collected:
        # Sent without the blank lines around it (the Idempotency-Key is made from the text
        # sent, as it always was); lines the service names count from its first line.
        body = hand.text.strip() + "\n"
        first_line = hand.line + hand.text[:len(hand.text) - len(hand.text.lstrip())].count("\n")
        yield Hand(f"{path}[{hand.name}] (line {hand.line})", body,
                   replace(hand, line=first_line, text=body))


def import_hand(client: Client, hand: Hand, summary: ImportSummary, store: bool) -> None:
    count = summary.count(hand.variant)
    query = {"store": "true"} if store else {}
    if hand.site_hand is not None:
        try:  # read here first: the service would count the lines from the hand's own first
            site_histories.to_record(hand.site_hand)
        except UnreadableHand as unreadable:
            summary.refuse(hand.source, count, f"invalid_hand_history: {unreadable}")
            return
        query["format"] = hand.site_hand.site
    try:
        answer = client.call("POST", "/v1/hand-histories" + ("?" + urlencode(query) if query else ""),
                             text=hand.text, content_type="text/plain" if hand.site_hand else "application/toml").json()
    except ApiError as refused:
        reason = str(refused) if hand.collected is None else hand.collected.file_line(str(refused))[1]
        summary.refuse(hand.source, count, reason)
        return
    _replayed(summary, count, hand.source, answer, store)


def import_whole_file(client: Client, text: str, hands: list[Hand], summary: ImportSummary) -> bool:
    """A file of several hands kept in one request (`?store=true`), each hand counted from
    the service's answer for it; False (nothing counted) when the service will not take
    the file whole (more hands or bytes than one request keeps), to be sent hand by hand."""
    site = hands[0].site_hand.site if hands[0].site_hand is not None else None
    try:
        answer = client.call("POST", "/v1/hand-histories?" + urlencode({"store": "true", "format": site or "phh"}),
                             text=text, content_type="text/plain" if site else "application/toml").json()
    except ApiError:
        return False
    for hand, entry in zip(hands, answer["hands"], strict=True):
        count = summary.count(entry.get("variant") or hand.variant)
        refusal = entry.get("unreadable") or entry.get("refused")
        if refusal is not None:
            status = "" if site else "422 " if "refused" in entry else "400 "
            summary.refuse(hand.source, count, f"{status}{refusal['code']}: {refusal['detail']}")
        else:
            _replayed(summary, count, hand.source, entry["outcome"], store=True)
    return True


def _replayed(summary: ImportSummary, count: VariantCount, source: str, answer: dict[str, Any], store: bool) -> None:
    """A hand the service replayed (and kept, when storing), counted."""
    count.replayed += 1
    if store:
        already = answer.get("already_stored") is True
        count.already += already
        count.stored += not already
    count.matched += answer.get("matches_record") is True
    if answer.get("matches_record") is False:
        summary.mismatches.append((source, f"replayed to {answer.get('finishing_stacks')}, but the "
                                           f"record says {answer.get('recorded_finishing_stacks')}"))


def import_files(client: Client, files: list[Path], store: bool,
                 advanced: Callable[[int], None], file_format: str = "auto") -> ImportSummary:
    """Every hand of `files`; `advanced(1)` after each file. A file that is not UTF-8 text
    is refused as a whole (no hand of it can be read), and the others imported."""
    summary = ImportSummary()
    for path in files:
        try:
            hands = list(hands_in(path, file_format))
        except UnicodeDecodeError as error:
            summary.refuse(str(path), summary.count("?"), f"invalid_phh: the file is not UTF-8 text: {error}")
            hands = []
        several = len(hands) > 1 and (hands[0].collected is not None or hands[0].site_hand is not None)
        if not (store and several and import_whole_file(client, path.read_text(encoding="utf-8"), hands, summary)):
            for hand in hands:
                import_hand(client, hand, summary, store)
        advanced(1)
    return summary
