"""The legal betting actions as the API shows them: a table's `legal` (every game's one
shape), the notes a view shows beside it, and the betting ruling's `legal` (api.md)."""
from __future__ import annotations

from typing import Any

from domain.rules.betting import LegalActions
from domain.rules.citations import cite


def legal_shape(legal: LegalActions | None) -> dict[str, Any] | None:
    """The betting actions of `legal` in the one shape every game's `legal` has (api.md,
    README "Changelog"): each key an action the table takes, its value null or false when
    it is not allowed now, true when it is and takes nothing more, else its parameters
    (`to` and `adds` of a call, the `min_to` and `max_to` bounds of a bet or raise). Why
    raising is closed is no action: `legal_notes` says it, beside `legal`."""
    if legal is None:
        return None
    return {
        "fold": legal.fold,
        "check": legal.check,
        "call": {"to": legal.call.to, "adds": legal.call.adds} if legal.call else None,
        "bet": {"min_to": legal.bet.min_to, "max_to": legal.bet.max_to} if legal.bet else None,
        "raise": {"min_to": legal.raise_.min_to, "max_to": legal.raise_.max_to} if legal.raise_ else None,
    }


def legal_notes(legal: LegalActions | None) -> dict[str, Any]:
    """What a view shows beside `legal` about the betting actions, as the betting ruling
    says it: why raising is closed to the player to act (when nobody may bet either), or
    why it is open again after short all-ins (`raise_reopened`, TDA 2024 47-A)."""
    if legal is None:
        return {}
    notes: dict[str, Any] = {}
    if legal.raise_closed_reason is not None and legal.bet is None:
        notes["raise_closed_reason"] = legal.raise_closed_reason
    if legal.raise_reopened is not None:
        notes["raise_reopened"] = {"detail": legal.raise_reopened, "rule": cite("raise_reopened")}
    return notes


def legal_as_ruled(legal: LegalActions | None) -> dict[str, Any] | None:
    """The betting ruling's `legal` (api.md's answer): the actions, with why raising is
    closed (or reopened) among them, as the ruling has answered it since it was first
    published; a table's view keeps the actions alone and says why beside them (`legal_notes`)."""
    shape = legal_shape(legal)
    return None if shape is None else {**shape, **legal_notes(legal)}
