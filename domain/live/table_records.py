"""Hand events as a table's stream records them: `seat` is always the table seat.

A game's decider counts the players of a hand by their `position` in it (0 for the first
dealt in, as HandOpened.seats lists them), while the table's own events count the seats
at the table. Both kinds share one stream, so the table records each hand event in its
*table form* (schema version POSITIONS_NAMED): every field that names a player by number
names the table seat, the hand's position kept beside it under a name of its own:

- an event about one player (ActionTaken, HoleCardsDealt, CardsShown, ...): its
  `position`, and `seat`, the table seat;
- ShowAsked's `target`, SecondRoundBegan's `first_to_act`, HandStarted's `button`
  (Palace Poker: `dealer`): the table seat, the position beside it with `_position` added
  to the name;
- PotAwarded's and PointsScored's lists of positions (`eligible`, `winners`): the table
  seats, the positions beside them (`eligible_positions`, `winner_positions`);
- HandEnded's `stacks` (and five-card draw's `points`), one per position: one entry per
  player, `{"seat", "position", "player_id", "stack", "points"}`, the shape of
  HandClosed's stacks (domain.live.table_events.SeatStack) with the position added.

Lists that follow the hand's own order beside its `players` (HandStarted's stacks, antes
and blinds, AntesPosted's amounts) say which player each entry is by that list and stay
as they are.

`at_table` makes the table form from a game's record, `in_hand` gives the game its own
form back (it needs nothing but the record: the positions are kept). `upcast` reads a
record written before (schema version SEAT_WAS_POSITION: hand events' `seat` was the
position, HandClosed's stacks one per table seat) in the table form; the store's reader
calls it (service.adapters.store.upcasting), so every reader sees one shape and stored
text never changes. Each needs the hand's seating (HandSeating), followed record by
record with `seating_after`.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.frozen import made_at_once
from domain.records import from_record

SEAT_WAS_POSITION = 1
"""The schema version of records written before positions were named: a hand event's
`seat` was its position, HandClosed listed one stack per table seat."""
POSITIONS_NAMED = 2
"""Hand events name the position `position`; in a table's stream, the table form."""

_HAND_OPENED = "HandOpened"
_HAND_CLOSED = "HandClosed"
_HAND_ENDED = "HandEnded"

# Hand events about one player, named by `position` (and in the table form `seat` too).
_ABOUT_ONE_PLAYER = frozenset({
    "ActionTaken", "UncalledReturned", "CardsMucked", "CardsShown", "HoleCardsDealt", "CardsDealt",
    "CardsDiscarded", "FalseOpenersFound", "OpenersShown", "OpenersSplit", "PlayerDrew", "ShowAsked"})
# Record type -> {another field naming a position: the name the position keeps in the table form}.
_OTHER_POSITIONS: dict[str, dict[str, str]] = {
    "ShowAsked": {"target": "target_position"},
    "SecondRoundBegan": {"first_to_act": "first_to_act_position"},
    "HandStarted": {"button": "button_position", "dealer": "dealer_position"},
}
# A game's start event names the players in position order, in its field `players` (hold'em,
# draw, the mixed games and Palace Poker's HandStarted, dice's GameStarted, any other game's).
_PLAYERS = "players"
# Record type -> {field listing positions: the name the positions keep in the table form}.
_POSITION_LISTS: dict[str, dict[str, str]] = {
    "PotAwarded": {"eligible": "eligible_positions", "winners": "winner_positions"},
    "PointsScored": {"winners": "winner_positions"},
}


@made_at_once
@dataclass(frozen=True)
class HandSeating:
    """Who sits where in the hand being recorded: position k is table seat `seats[k]`, and
    player `players[k]` once the game's first event has named them (every game's start
    event lists its `players` in position order)."""
    seats: tuple[int, ...]
    players: tuple[str, ...] = ()


def seating_after(seating: HandSeating | None, type_name: str,
                  data: Mapping[str, Any]) -> HandSeating | None:
    """The seating once this record is read: a HandOpened seats a new hand; the hand's
    first record with `players` names them."""
    if type_name == _HAND_OPENED:
        return HandSeating(tuple(data["seats"]))
    if seating is not None and not seating.players and _PLAYERS in data:
        return HandSeating(seating.seats, tuple(data[_PLAYERS]))
    return seating


def at_table(type_name: str, data: Mapping[str, Any], seating: HandSeating | None) -> dict[str, Any]:
    """A hand event's record in the game's form -> its table form (table events, which
    count table seats already, come back as they are)."""
    shown = dict(data)
    if seating is None:
        return shown
    if type_name in _ABOUT_ONE_PLAYER:
        shown["seat"] = seating.seats[shown["position"]]
    others = _OTHER_POSITIONS.get(type_name)  # most records have none: no empty dict to go through
    if others is not None:
        for field, position_field in others.items():
            if field in shown:
                position = shown[field]
                # The draw's second round may have nobody left to act (None).
                shown[field] = None if position is None else seating.seats[position]
                shown[position_field] = position
    lists = _POSITION_LISTS.get(type_name)
    if lists is not None:
        for field, position_field in lists.items():
            if field in shown:
                shown[position_field] = shown[field]
                shown[field] = [seating.seats[position] for position in shown[field]]
    if type_name == _HAND_ENDED:
        points = shown.pop("points", None)
        shown["stacks"] = [
            {"seat": seat, "position": position, "player_id": seating.players[position],
             "stack": stack, "points": None if points is None else points[position]}
            for position, (seat, stack) in enumerate(zip(seating.seats, shown["stacks"]))]
    return shown


def in_hand(type_name: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """A record in the table form -> the game's form (what the game's decider evolves)."""
    shown = dict(data)
    if type_name in _ABOUT_ONE_PLAYER:
        del shown["seat"]
    for field, position_field in _OTHER_POSITIONS.get(type_name, {}).items():
        if position_field in shown:
            shown[field] = shown.pop(position_field)
    for field, position_field in _POSITION_LISTS.get(type_name, {}).items():
        if position_field in shown:
            shown[field] = shown.pop(position_field)
    if type_name == _HAND_ENDED:  # its entries are in position order
        entries = shown["stacks"]
        shown["stacks"] = [entry["stack"] for entry in entries]
        if entries[0]["points"] is not None:
            shown["points"] = [entry["points"] for entry in entries]
    return shown


def named_positions(type_name: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """A hand event's record in the game's form as written before positions were named
    (SEAT_WAS_POSITION: its `seat` was the position) -> as written now. Imported hands
    (no table's stream) need nothing more."""
    shown = dict(data)
    if type_name in _ABOUT_ONE_PLAYER:
        shown["position"] = shown.pop("seat")
    return shown


def event_of(event_types: Mapping[str, type], type_name: str, data: Mapping[str, Any]) -> Any:
    """The domain event of a table record in the table form (what the table evolves)."""
    return from_record(event_types, type_name, in_hand(type_name, data))


def upcast(type_name: str, data: Mapping[str, Any], seating: HandSeating | None) -> dict[str, Any]:
    """A table's record written before positions were named (SEAT_WAS_POSITION) -> the
    table form. Hand events were in the game's form of then; HandClosed listed every table
    seat's stack (and, for games played for points, every table seat's points) by index."""
    if type_name != _HAND_CLOSED:
        return at_table(type_name, named_positions(type_name, data), seating)
    if seating is None:
        raise ValueError("a HandClosed follows its hand's HandOpened")
    shown = dict(data)
    points = shown.pop("points", None) or None
    shown["stacks"] = [
        {"seat": seat, "player_id": player, "stack": shown["stacks"][seat],
         "points": None if points is None else points[seat]}
        for seat, player in zip(seating.seats, seating.players)]
    return shown

