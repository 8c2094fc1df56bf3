"""Every game the service plays or rules on, registered in one place.

A game registers its name with what it brings: its table rules (its decider module and
table adapter, domain.live: how a hand starts, how a table action becomes the game's
command, what the computer plays, what each viewer may see), whether the betting and
showdown rulings cover it (domain.rulings.betting, domain.rulings.showdown), the PHH
variant codes its records are written in (domain.history), and the form of a ruling of its
own the floor asks on the rulings page (domain.ruling_forms). Its event types, and what
each keeps secret, come with its decider module (`EVENT_TYPES`, declared field by field:
domain.secrecy), and are registered with the secrecy declarations when the game is.

The service asks the registry, never a list of names of its own: which games a table,
a tournament or a ruling may be created for (`names`), the rules of a table's game
(`table_rules`), the game a PHH variant code is played as (`game_of_variant`), the
rulings page's forms (`ruling_forms`). A game
added here (or by a test, `register` then `unregister`) is served by the API with no
line of service/ changed.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from domain import secrecy
from domain.games import dealt_games, dice_ruling_form, holdem, palace_ruling_form
from domain.games import mixed as mixed_games
from domain.games.draw import stream as draw_stream
from domain.history import phh, phh_draw, phh_mixed
from domain.live.games.common import Dealing, Opening, TableMove
from domain.live.games.dice import DiceGame
from domain.live.games.draw import DrawGame
from domain.live.games.holdem import HoldemGame
from domain.live.games.palace import PalaceGame
from domain.live.mixed import MixedTableGame
from domain.live.rotation import ROTATIONS, RotationTableGame
from domain.rules.betting import BettingStructure
from domain.rules.violations import Violation
from domain.ruling_forms import RulingForm
from domain.rulings import betting as betting_rulings
from domain.rulings import showdown
from domain.rulings.chips import HAND_GAMES


@dataclass(frozen=True)
class GameRules:
    """What the table needs from a game module: its decider and how to start and act."""
    name: str
    module: ModuleType | Any
    with_joker: bool
    start: Callable[[Opening], Any]
    """What the hand is dealt from -> the game's StartHand."""
    action: Callable[[TableMove, Any, Dealing | None], Any]
    """(the table's action, the hand, the dealing) -> the game's action command."""
    auto_action: Callable[[Any, int, bool], Any]
    """(hand state, position to act, timed out?) -> the game command the computer plays."""
    table_game: Any = None
    """Five-card draw, Palace Poker, dice and the mixed games: their adapter (`module`
    too), which reads the table's settings and draws what randomness the game needs."""
    adapter: Any = None
    """Every game's adapter (domain.live.games): what each viewer may see of its hand,
    its summary, its seats' status and bets, its legal actions, its deal's check."""
    dead_hand: Callable[[Any, int], Any] | None = None
    # (hand state, position to act) -> the game command that kills an away player's hand
    # at a tournament's table (citations "dead_hand": a fold, a free check or not); None: a
    # game no tournament deals.

    def settings_betting(self, settings: dict[str, Any], betting: BettingStructure) -> BettingStructure:
        """The structure the table bets with: a game with its own settings derives it."""
        return betting if self.table_game is None else self.table_game.betting(settings)

    @property
    def takes_betting(self) -> bool:
        """Whether a table of the game takes a betting description: hold'em and Omaha bet
        with it; five-card draw and Palace Poker read theirs into their settings."""
        return self.table_game is None or hasattr(self.table_game, "betting_settings")

    def settings_with_betting(self, settings: dict[str, Any], betting: Mapping[str, Any]) -> dict[str, Any]:
        """A game that derives its betting from its settings, given a betting description
        (api.md) as every table may be: `settings` with the fields the game reads from it
        (its `betting_settings`: five-card draw's structure, cap and heads-up rule, Palace
        Poker's structure and bets). Any other field must be what the settings derive
        (copied from a table's view, say), else `invalid_betting` names it."""
        folded = self.table_game.betting_settings(betting)
        for name, value in folded.items():
            if name in settings and settings[name] != value:
                raise Violation("invalid_betting", f"betting says {name} {value!r}, settings.{name} says "
                                f"{settings[name]!r}: give it once", numbers={name: value})
        merged = {**settings, **folded}
        derived = self.table_game.betting(merged).description()
        for name, value in betting.items():
            if name not in folded and derived.get(name) != (list(value) if isinstance(value, tuple) else value):
                raise Violation("invalid_betting", f"{self.name} derives betting.{name} from its settings "
                                f"({derived.get(name)!r}), not {value!r}", numbers={name: value})
        return merged

    def plays_for_chips(self, settings: dict[str, Any]) -> bool:
        """Chips move from hand to hand (else points decide: draw without betting, dice)."""
        return bool(self.adapter.plays_for_chips(settings))

    def uses_joker(self, settings: dict[str, Any]) -> bool:
        return self.with_joker or bool(self.adapter.with_joker(settings))

    def hands_in_match(self, settings: dict[str, Any]) -> int | None:
        """The table is finished after this many hands (None: when one player has every chip)."""
        hands: int | None = self.adapter.hands_in_match(settings)
        return hands

    @property
    def event_types(self) -> dict[str, type]:
        types: dict[str, type] = self.module.EVENT_TYPES
        return types


def table_game_rules(adapter: Any) -> GameRules:
    """The rules of a game with a table adapter of its own (settings, randomness, events:
    domain.live.games.dice.DiceGame's shape), as a test game or a new game registers them."""
    return GameRules(adapter.name, adapter, False, adapter.start, adapter.action, adapter.auto_action,
                     adapter, adapter)


Captions = Callable[[str, Mapping[str, Any], Callable[[int], str]], "str | None"]
"""(record type, its data in the game's form, position -> the player's name) -> the event
as a person says it, or None for an event it leaves to the shared words."""


@dataclass(frozen=True)
class Game:
    name: str
    table: GameRules | None = None
    """Played at a live table (None: ruled on only)."""
    betting_ruling: bool = False
    """POST /v1/rulings/betting covers it."""
    showdown_ruling: bool = False
    """POST /v1/rulings/showdown covers it."""
    phh_variants: tuple[str, ...] = ()
    """The PHH variant codes its records are written in."""
    decider: ModuleType | None = None
    """The decider its PHH records replay through (its `EVENT_TYPES`, `evolve`, `replay`)."""
    captions: Captions | None = None
    """Its own words for its events in the floor's replayer (else the shared ones, and an
    event none of them knows reads as its type in words)."""
    ruling_form: RulingForm | None = None
    """A ruling of its own, asked on the floor's rulings page."""
    whole_hand_chips_ruling: bool = False
    """POST /v1/rulings/chips replays its whole hand (else a situation describes it)."""

    @property
    def in_tournaments(self) -> bool:
        """Tournaments deal it: a table game betting with the tournament's levels (a game
        with settings of its own derives its betting from them, which no level overrides),
        which can kill an away player's hand (TDA 2024 30)."""
        return self.table is not None and self.table.table_game is None and self.table.dead_hand is not None


_GAMES: dict[str, Game] = {}


def register(game: Game) -> None:
    """Add a game; its events' secrecy declarations with it."""
    if game.name in _GAMES:
        raise ValueError(f"game {game.name!r} is registered already")
    if game.table is not None:
        secrecy.register(game.table.event_types.values())
    _GAMES[game.name] = game


def unregister(name: str) -> None:
    """Remove a game a test registered (its event names stay known to domain.secrecy,
    which holds nothing but their declarations)."""
    del _GAMES[name]


def game(name: str) -> Game | None:
    return _GAMES.get(name)


def names(where: Callable[[Game], bool] = lambda game: True) -> list[str]:
    """The registered games' names that `where` holds for, in order of registration."""
    return [name for name, game in _GAMES.items() if where(game)]


def table_names() -> list[str]:
    return names(lambda game: game.table is not None)


def table_rules(name: str) -> GameRules:
    """The rules of a table game, or `invalid_table` naming every table game."""
    found = _GAMES.get(name)
    if found is None or found.table is None:
        raise Violation("invalid_table", f"game must be one of {', '.join(sorted(table_names()))}, not {name!r}")
    return found.table


def decider(name: str) -> ModuleType:
    """The decider a stored record of this game replays through (hold'em's for a record
    that names no game: the first records stored named none)."""
    found = _GAMES.get(name)
    return found.decider if found is not None and found.decider is not None else holdem


def caption(name: str, type_name: str, data: Mapping[str, Any], player: Callable[[int], str]) -> str | None:
    """The game's own caption for the event, if it has one."""
    found = _GAMES.get(name)
    return None if found is None or found.captions is None else found.captions(type_name, data, player)


def ruling_forms() -> list[RulingForm]:
    """The registered games' own rulings' forms, in order of registration."""
    return [game.ruling_form for game in _GAMES.values() if game.ruling_form is not None]


def phh_variants() -> dict[str, tuple[str, ...]]:
    """Each game with a PHH form -> the variant codes its records are written in."""
    return {name: game.phh_variants for name, game in _GAMES.items() if game.phh_variants}


def game_of_variant(variant: str) -> str:
    """The game a PHH variant code's records are played as (hold'em when no game claims it)."""
    for name, game in _GAMES.items():
        if variant in game.phh_variants:
            return name
    return "holdem"


LIVE_MIXED_GAMES = ("stud", "stud_hi_lo", "razz", "omaha_hi_lo", "deuce_seven_triple_draw")
"""The mixed games (domain.games.mixed) a live table deals; the others are ruled on and replayed."""


def _holdem_table(variant: str) -> GameRules:
    """Hold'em and Omaha bet with the table's structure, dealt card by card: no `table_game`."""
    game = HoldemGame(variant)
    return GameRules(variant, holdem, False, game.start, game.action, game.auto_action,
                     dead_hand=game.dead_hand, adapter=game)


def _builtin_games() -> Iterable[Game]:
    """The games of domain/, each with its table adapter if a live table deals it and its
    ruling form if it has a ruling of its own: hold'em and Omaha, the games with settings
    of their own, the mixed games and their rotations; then the games only ruled on. The
    betting and showdown rulings' games and the PHH variant codes are read from the lists
    those rulings and the PHH reader check against."""
    variants: dict[str, tuple[str, ...]] = {}
    for code, (name, _kind) in {**phh.REPLAYABLE, **phh_mixed.VARIANTS}.items():
        variants[name] = (*variants.get(name, ()), code)
    variants[DrawGame.name] = tuple(phh_draw.VARIANTS)
    deciders = {**{name: holdem for name in holdem.VARIANTS}, DrawGame.name: draw_stream,
                **{name: mixed_games for name in dealt_games.DEALT_GAMES}}
    own_tables = {**{variant: _holdem_table(variant) for variant in holdem.VARIANTS},
                  **{adapter.name: table_game_rules(adapter) for adapter in (DrawGame, PalaceGame, DiceGame)}}
    rotation_tables = {name: table_game_rules(RotationTableGame(name)) for name in ROTATIONS}
    tables = {**own_tables, **{name: table_game_rules(MixedTableGame(name)) for name in LIVE_MIXED_GAMES},
              **rotation_tables}
    forms = {PalaceGame.name: palace_ruling_form.RULING_FORM, DiceGame.name: dice_ruling_form.RULING_FORM}
    # A rotation's hold'em and Omaha are registered for their decider alone: a hold'em or
    # Omaha record with a single or button blind is replayed and stored as their hands
    # (domain.history.phh.positional_blinds), and read back through domain.games.mixed.
    in_order = (*own_tables, *dealt_games.DEALT_GAMES, *rotation_tables, *betting_rulings.GAMES, *showdown.GAMES)
    for name in dict.fromkeys(in_order):
        yield Game(name, tables.get(name), name in betting_rulings.GAMES, name in showdown.GAMES, variants.get(name, ()),
                   deciders.get(name), ruling_form=forms.get(name), whole_hand_chips_ruling=name in HAND_GAMES)


for _game in _builtin_games():
    register(_game)
