"""Rulings on the record: who ruled, on which hand, what was asked and decided, and why.

Stream `rulings-<subject>`, one per table (the subject is the table id) or per imported
hand (the subject is the hand's id): a table's own stream, its version and its players'
`If-Match`, are untouched by a ruling. The only fact is `FloorRuled`; when it was made is
the time the store recorded it (the domain keeps no clock).

Cards named in a ruling are given apart, in `cards`, not in the question's or the
decision's words: that field is declared owner-only with no owner (`visible_to` is empty),
so only the floor reads it, and the application shows it to everyone once the hand is
closed (service.application.floor_rulings). Words are not searched for cards: a floor
person who writes a hole card into the question has published it.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import reduce

from domain import secrecy
from domain.rules.cards import format_card, parse_cards
from domain.rules.violations import Violation

TEXT_MAX_LENGTH = 2000
RULE_MAX_LENGTH = 100
MAX_CARDS = 52


@dataclass(frozen=True)
class RecordRuling:
    subject: str
    """The table id, or the imported hand's id: what the stream is about."""
    hand: str
    question: str
    decision: str
    ruled_by: str
    """The floor person: the id of the API key they ruled with."""
    role: str
    rule: str | None = None
    note: str | None = None
    cards: tuple[str, ...] = ()
    at_version: int | None = None
    """The version of the hand's stream the ruling is about, its step in the replayer (the
    application puts the hand's last one for None: the domain does not read the table)."""


@dataclass(frozen=True)
class FloorRuled:
    subject: str
    hand: str
    at_version: int
    question: str
    decision: str
    ruled_by: str
    role: str
    rule: str | None = None
    note: str | None = None
    cards: tuple[str, ...] = field(default=(), metadata=secrecy.OWNER_ONLY)
    """The cards the ruling turned on: the floor's alone until the hand is closed."""
    visible_to: tuple[str, ...] = ()
    """No player: `cards` is the floor's (domain.secrecy.OWNER_BY_LIST)."""


@dataclass(frozen=True)
class RulingsLog:
    subject: str | None = None
    rulings: int = 0


INITIAL = RulingsLog()
EVENT_TYPES: dict[str, type] = {"FloorRuled": FloorRuled}
secrecy.register(EVENT_TYPES.values())


def _text(name: str, value: str | None, limit: int, *, required: bool) -> str | None:
    cleaned = (value or "").strip()
    if not cleaned:
        if required:
            raise Violation("invalid_ruling", f"a ruling on the record needs its {name}", numbers={"field": name})
        return None
    if len(cleaned) > limit:
        raise Violation("invalid_ruling", f"a ruling's {name} has at most {limit:,} characters, not {len(cleaned):,}",
                        numbers={"field": name, "length": len(cleaned), "max_length": limit})
    return cleaned


def decide(state: RulingsLog, command: RecordRuling) -> list[FloorRuled]:
    if state.subject is not None and state.subject != command.subject:
        raise Violation("invalid_ruling", f"this log records the rulings of {state.subject}, not {command.subject}")
    if command.at_version is None or command.at_version < 1:
        raise Violation("invalid_ruling", "a ruling sits at a step of its hand, version 1 or later",
                        numbers={"at_version": command.at_version})
    if len(command.cards) > MAX_CARDS:
        raise Violation("invalid_ruling", f"a ruling names at most {MAX_CARDS} cards, not {len(command.cards)}",
                        numbers={"cards": len(command.cards), "max_cards": MAX_CARDS})
    cards = tuple(format_card(card) for card in parse_cards(command.cards))
    return [FloorRuled(
        subject=command.subject, hand=command.hand, at_version=command.at_version,
        question=_text("question", command.question, TEXT_MAX_LENGTH, required=True) or "",
        decision=_text("decision", command.decision, TEXT_MAX_LENGTH, required=True) or "",
        ruled_by=command.ruled_by, role=command.role,
        rule=_text("rule", command.rule, RULE_MAX_LENGTH, required=False),
        note=_text("note", command.note, TEXT_MAX_LENGTH, required=False),
        cards=cards)]


def evolve(state: RulingsLog, event: FloorRuled) -> RulingsLog:
    return RulingsLog(subject=event.subject, rulings=state.rulings + 1)


def replay(events: Iterable[FloorRuled]) -> RulingsLog:
    return reduce(evolve, events, INITIAL)
