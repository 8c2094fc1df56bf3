"""A player's identity: registered once under a display name.

Stream `player-<id>`; the only fact so far is `PlayerRegistered`. Ratings and keys refer
to the player id, never to the name, so a name may repeat across players.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import reduce

from domain.rules.violations import Violation

NAME_MAX_LENGTH = 100
# Control characters (Unicode category Cc) would corrupt table displays and hand
# histories; the bidirectional embeddings, overrides and isolates (U+202A-202E,
# U+2066-2069) would make a name display as another one ("\u202ennA" shows as "Ann")
# and reorder the text around it. Right-to-left names themselves, and the marks
# U+200E/U+200F, are fine. The blank characters are exactly those str.strip() removes,
# written out so the HTTP schema can publish this same pattern and agree with the rule
# character for character.
_CONTROL = r"\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069"
_BLANK_OR_CONTROL = r"\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202a-\u202f\u205f\u2066-\u2069\u3000"
NAME_PATTERN = f"^[^{_CONTROL}]*[^{_BLANK_OR_CONTROL}][^{_CONTROL}]*$"


@dataclass(frozen=True)
class RegisterPlayer:
    player_id: str
    name: str


@dataclass(frozen=True)
class PlayerRegistered:
    player_id: str
    name: str


@dataclass(frozen=True)
class Player:
    player_id: str | None = None
    name: str | None = None

    @property
    def registered(self) -> bool:
        return self.player_id is not None


INITIAL = Player()
EVENT_TYPES: dict[str, type] = {"PlayerRegistered": PlayerRegistered}


def decide(state: Player, command: RegisterPlayer) -> list[PlayerRegistered]:
    if state.registered:
        raise Violation(
            "player_exists",
            f"player {command.player_id} is already registered as {state.name!r}",
            numbers={"player": command.player_id},
        )
    if len(command.name) > NAME_MAX_LENGTH:
        raise Violation(
            "invalid_name",
            f"a player's name has at most {NAME_MAX_LENGTH} characters, not {len(command.name)}",
            numbers={"length": len(command.name), "max_length": NAME_MAX_LENGTH},
        )
    if not re.fullmatch(NAME_PATTERN, command.name):
        raise Violation(
            "invalid_name", "a player's name must not be blank or contain control characters"
        )
    return [PlayerRegistered(player_id=command.player_id, name=command.name.strip())]


def evolve(state: Player, event: PlayerRegistered) -> Player:
    return Player(player_id=event.player_id, name=event.name)


def replay(events: Iterable[PlayerRegistered]) -> Player:
    return reduce(evolve, events, INITIAL)
