"""Mixed-game rotation tables, HORSE and 8-game: each hand is one game of the rotation,
played through domain.live.mixed's dealer, and the game changes on the orbit as card
rooms change it.

- HORSE: limit hold'em, Omaha hi-lo, razz, seven-card stud, stud hi-lo.
- 8-game: 2-7 triple draw, limit hold'em, Omaha hi-lo, razz, stud, stud hi-lo, no-limit
  hold'em, pot-limit Omaha.
- A round of one game lasts one orbit: as many hands as there are players when it begins,
  stud games included (they have no button, but the button still moves, so the next game
  starts where an orbit ends). A round never outlasts the players left: when players bust
  the round ends once as many hands as players remain have been played.
- The settings are the fixed-limit ones of domain.live.mixed (small and big bet, the
  stud games' ante and bring-in, the other games' blinds); the big-bet games of 8-game
  play with the same blinds, no limit or pot limit, no cap. Only stud games take antes.
- Where the rotation stands is a fact of each hand (`RotationDealt`, the hand's first
  game event), so the next hand's game follows from the last hand alone.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.games import dealt_games
from domain.live.games.common import Dealing, Opening
from domain.live.mixed import EVENT_TYPES as MIXED_EVENT_TYPES
from domain.live.mixed import MAX_SEATS, MixedDeckCut, MixedSettings, MixedTableGame, MixedTableHand, start_command
from domain.rules.betting import FIXED_LIMIT, NO_LIMIT, POT_LIMIT, BettingStructure


@dataclass(frozen=True)
class Step:
    game: str
    kind: str
    label: str


LIMIT_HOLDEM = Step("rotation_holdem", FIXED_LIMIT, "limit hold'em")
OMAHA_HI_LO = Step("omaha_hi_lo", FIXED_LIMIT, "Omaha hi-lo")
RAZZ = Step("razz", FIXED_LIMIT, "razz")
STUD = Step("stud", FIXED_LIMIT, "seven-card stud")
STUD_HI_LO = Step("stud_hi_lo", FIXED_LIMIT, "stud hi-lo")
ROTATIONS: dict[str, tuple[Step, ...]] = {
    "horse": (LIMIT_HOLDEM, OMAHA_HI_LO, RAZZ, STUD, STUD_HI_LO),
    "eight_game": (Step("deuce_seven_triple_draw", FIXED_LIMIT, "2-7 triple draw"), LIMIT_HOLDEM,
                   OMAHA_HI_LO, RAZZ, STUD, STUD_HI_LO, Step("rotation_holdem", NO_LIMIT, "no-limit hold'em"),
                   Step("rotation_omaha", POT_LIMIT, "pot-limit Omaha")),
}


@dataclass(frozen=True)
class RotationDealt:
    """This hand is hand `hand` (from 0) of `hands` of round `round` (from 0, counting on
    through the rotation) of the table's rotation, whose step plays `game`."""
    round: int
    hand: int
    hands: int
    game: str


def next_position(last: RotationDealt | None, players: int, rotation: tuple[Step, ...]) -> RotationDealt:
    """Where the next hand stands, `players` being dealt in."""
    if last is None:
        return RotationDealt(0, 0, players, rotation[0].game)
    if last.hand + 1 < min(last.hands, players):
        return RotationDealt(last.round, last.hand + 1, last.hands, last.game)
    step = rotation[(last.round + 1) % len(rotation)]
    return RotationDealt(last.round + 1, 0, players, step.game)


class RotationTableGame(MixedTableGame):
    """A rotation of mixed games at one live table (the domain.live.games adapter
    shape; its start follows from the table's last hand)."""
    EVENT_TYPES = {**MIXED_EVENT_TYPES, "RotationDealt": RotationDealt}

    def __init__(self, name: str) -> None:
        self.name = name
        self.rotation = ROTATIONS[name]
        self.families = tuple(sorted({dealt_games.DEALT_GAMES[s.game].family for s in self.rotation}))
        self.max_seats = min(MAX_SEATS[family] for family in self.families)

    def settings(self, raw: Mapping[str, Any]) -> MixedSettings:
        return MixedSettings.from_dict(raw, self.families)

    def betting(self, raw: Mapping[str, Any]) -> BettingStructure:
        return self.settings(raw).structure()

    def start(self, opening: Opening) -> tuple[Any, ...]:
        """The game follows from the table's last hand (`opening.previous`)."""
        previous = opening.previous
        position = next_position(None if previous is None else previous.position, len(opening.players),
                                 self.rotation)
        step = self.step(position)
        game = dealt_games.DEALT_GAMES[step.game]
        start = start_command(game, opening.players, opening.stacks, opening.button, self.settings(opening.settings),
                              step.kind, antes_too=game.family == dealt_games.STUD)
        return position, MixedDeckCut(opening.deck), start

    def step(self, position: RotationDealt) -> Step:
        return self.rotation[position.round % len(self.rotation)]

    @staticmethod
    def evolve(hand: MixedTableHand | None, event: Any) -> MixedTableHand:
        if isinstance(event, RotationDealt):
            return MixedTableHand((), position=event)
        return MixedTableGame.evolve(hand, event)

    @staticmethod
    def handle(hand: MixedTableHand | None, command: Any, dealing: Dealing) -> tuple[list[Any], MixedTableHand]:
        if isinstance(command, tuple) and isinstance(command[0], RotationDealt):
            position, *rest = command
            events, hand = MixedTableGame.handle(RotationTableGame.evolve(hand, position), tuple(rest), dealing)
            return [position, *events], hand
        return MixedTableGame.handle(hand, command, dealing)

    def rotation_view(self, hand: MixedTableHand | None, players_next: int) -> dict[str, Any]:
        """The game being played (or last played) and the next hand's game."""
        position = None if hand is None else hand.position
        upcoming = next_position(position, players_next, self.rotation)
        current = None if position is None else self.step(position)
        return {
            "games": [step.label for step in self.rotation],
            "current": None if current is None else current.label,
            "hand_of_round": None if position is None else position.hand + 1,
            "hands_in_round": None if position is None else position.hands,
            "next": self.step(upcoming).label,
        }

