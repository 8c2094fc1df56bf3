"""The sealed fields of a table's events (declared SEALED on the event's field,
domain.secrecy): stored apart from the event's data, so a read path has to ask the store to
reveal them (service.adapters.store.base.Reveal).

They hold the shuffle's secrets until the hand is closed: the deck orders, reshuffle
orders, the salt of the deal's commitment and the values behind a pending roll. No
role sees them before the hand's HandClosed event. Then a hand committed card by card
(domain.rules.deal_commitment: every card game's) shows its orders and salt to the floor and
admin only (metadata `floor_only`, service.application.commands; the others get per-card
openings derived from them, service.application.views); a hand committed whole shows
them to everyone, so anyone can check the deal against the commitment.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.secrecy import secrets_named
from service.adapters.store.base import Reveal

HAND_CLOSED = "HandClosed"
REVEAL_CLOSED_HANDS = Reveal.closed_by(HAND_CLOSED)
"""How views read a table's log: sealed fields only of hands whose HandClosed is stored."""


def seal(type_name: str, data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(public data, sealed fields) of a record about to be stored. The public data keeps
    each sealed field as null, so an event has the same shape revealed or not."""
    names = secrets_named(type_name).sealed
    if not names:
        return dict(data), {}
    sealed = {name: data[name] for name in names if name in data}
    return {**data, **dict.fromkeys(sealed)}, sealed


def hidden(type_name: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """The data with its sealed fields as null: how an event whose hand is not closed reads,
    whether its secrets were stored sealed or (events written before sealing) in its data."""
    names = secrets_named(type_name).sealed
    if not names:
        return dict(data)
    return {**data, **dict.fromkeys(name for name in names if name in data)}
