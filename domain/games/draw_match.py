"""A five-card draw match at one table: the hands in a row, the button, the end, the results
(five-card-draw.md "The game ends after a set number of hands", seeds 000 and 004).

Each hand is its own stream decided by domain.games.draw.engine; this decider keeps what lasts
between hands: chips (betting mode) or points (no-betting mode), the button and the
number of hands played. `next_hand(state, deck, ...)` builds the StartHand for the next
hand (only players still in the game: a player with no chips is out); the finished hand
is reported back with `RecordHand` (`hand_result(hand_state)` builds it).

The button starts where StartMatch puts it and after every hand moves one seat to the
left, to the next seat still in the game. The match ends after `settings.hands` hands (or
rounds), or sooner in betting mode when fewer than two players have chips. The most chips
(points) wins; players level at the top share it as a draw, which a ranked game rates
halfway between a win and a loss (both seeds).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import reduce

from domain.games.draw.commands import StartHand
from domain.games.draw.state import HandState
from domain.games.draw_settings import MAX_PLAYERS, MIN_PLAYERS, DrawSettings
from domain.rules.betting import with_changes
from domain.rules.violations import Violation

WIN = "win"
DRAW = "draw"
LOSS = "loss"


# ------------------------------------------------------------------ commands


@dataclass(frozen=True)
class StartMatch:
    players: tuple[str, ...]
    settings: DrawSettings
    button: int = 0


@dataclass(frozen=True)
class RecordHand:
    """A finished hand: its players (the seats dealt in, in table order), their stacks
    after it (betting mode) and the points each scored (no-betting mode)."""
    players: tuple[str, ...]
    stacks: tuple[int, ...]
    points: tuple[int, ...]


Command = StartMatch | RecordHand


# -------------------------------------------------------------------- events


@dataclass(frozen=True)
class MatchStarted:
    players: tuple[str, ...]
    settings: DrawSettings
    button: int
    stacks: tuple[int, ...]


@dataclass(frozen=True)
class HandRecorded:
    """`number` counts from 1; `stacks` and `points` are the match totals after it."""
    number: int
    stacks: tuple[int, ...]
    points: tuple[int, ...]


@dataclass(frozen=True)
class ButtonMoved:
    button: int


@dataclass(frozen=True)
class PlayerResult:
    """`score`: chips (betting) or points (no-betting); `place` 1 = best, shared on ties."""
    player: str
    seat: int
    score: int
    place: int
    outcome: str


@dataclass(frozen=True)
class MatchEnded:
    """Results best first."""
    results: tuple[PlayerResult, ...]


Event = MatchStarted | HandRecorded | ButtonMoved | MatchEnded
EVENT_TYPES: dict[str, type] = {cls.__name__: cls for cls in (
    MatchStarted, HandRecorded, ButtonMoved, MatchEnded)}


# --------------------------------------------------------------------- state


@dataclass(frozen=True)
class MatchState:
    settings: DrawSettings
    players: tuple[str, ...]
    button: int
    stacks: tuple[int, ...]
    points: tuple[int, ...]
    hands_played: int
    results: tuple[PlayerResult, ...]

    @property
    def over(self) -> bool:
        return bool(self.results)

    @property
    def in_game(self) -> tuple[int, ...]:
        """Seats still playing: everyone in no-betting mode, else those with chips."""
        if not self.settings.betting:
            return tuple(range(len(self.players)))
        return tuple(seat for seat, chips in enumerate(self.stacks) if chips > 0)

    @property
    def scores(self) -> tuple[int, ...]:
        return self.stacks if self.settings.betting else self.points


def evolve(state: MatchState | None, event: Event) -> MatchState:
    if isinstance(event, MatchStarted):
        n = len(event.players)
        return MatchState(event.settings, event.players, event.button, event.stacks,
                          (0,) * n, 0, ())
    if state is None:
        raise TypeError(f"a five-card draw match begins with MatchStarted, not {event!r}")
    if isinstance(event, HandRecorded):
        return with_changes(state, hands_played=event.number, stacks=event.stacks,
                            points=event.points)
    if isinstance(event, ButtonMoved):
        return with_changes(state, button=event.button)
    if isinstance(event, MatchEnded):
        return with_changes(state, results=event.results)
    raise TypeError(f"not a five-card draw match event: {event!r}")


def replay(events: Iterable[Event]) -> MatchState:
    state = reduce(evolve, events, None)
    if state is None:
        raise TypeError("a five-card draw match is replayed from its MatchStarted: no events given")
    return state


# -------------------------------------------------------------------- decide


def decide(state: MatchState | None, command: Command) -> list[Event]:
    if isinstance(command, StartMatch):
        return _start(state, command)
    if state is None:
        raise Violation("illegal_action", "the match has not started")
    if state.over:
        raise Violation("hand_over", "the match is over")
    if isinstance(command, RecordHand):
        return _record(state, command)
    raise Violation("illegal_action", f"unknown command {command!r}")


def _start(state: MatchState | None, command: StartMatch) -> list[Event]:
    if state is not None:
        raise Violation("illegal_action", "the match has already started")
    command.settings.validate()
    n = len(command.players)
    expected = command.settings.players
    if not MIN_PLAYERS <= n <= MAX_PLAYERS or (expected and n != expected) \
            or len(set(command.players)) != n:
        raise Violation("illegal_action",
                        f"five-card draw seats {MIN_PLAYERS} to {MAX_PLAYERS} distinct players"
                        f"{f' (this table: {expected})' if expected else ''}, not {n}",
                        numbers={"players": n})
    if isinstance(command.button, bool) or not isinstance(command.button, int) \
            or not 0 <= command.button < n:
        raise Violation("illegal_action", f"button must be a seat 0..{n - 1}")
    chips = command.settings.starting_chips if command.settings.betting else 0
    return [MatchStarted(tuple(command.players), command.settings, command.button, (chips,) * n)]


def next_hand(state: MatchState, deck: tuple[str, ...], commitment: str | None = None,
              reshuffle_order: tuple[str, ...] | None = None) -> StartHand:
    """The StartHand of the next hand: the players still in, their stacks, the button."""
    if state.over:
        raise Violation("hand_over", "the match is over")
    seats = state.in_game
    return StartHand(
        players=tuple(state.players[s] for s in seats), button=seats.index(state.button),
        settings=state.settings, deck=tuple(deck),
        stacks=tuple(state.stacks[s] for s in seats) if state.settings.betting else (),
        commitment=commitment, reshuffle_order=reshuffle_order)


def hand_result(hand: HandState) -> RecordHand:
    """The RecordHand for a finished hand."""
    if not hand.over:
        raise Violation("illegal_action", "the hand is not over yet")
    stacks = tuple(int(s) for s in hand.stacks) if hand.settings.betting else ()
    return RecordHand(hand.players, stacks, hand.points)


def _record(state: MatchState, command: RecordHand) -> list[Event]:
    seats = state.in_game
    players = tuple(state.players[s] for s in seats)
    if tuple(command.players) != players:
        raise Violation("illegal_action",
                        f"the hand was not dealt to the players in the game {list(players)}",
                        numbers={"players": list(command.players)})
    n = len(state.players)
    stacks = list(state.stacks)
    points = list(state.points)
    if state.settings.betting:
        if len(command.stacks) != len(seats) or any(s < 0 for s in command.stacks) \
                or sum(command.stacks) != sum(state.stacks):
            raise Violation("illegal_action",
                            f"the stacks after a hand must total the {sum(state.stacks)} chips in play",
                            numbers={"stacks": list(command.stacks)})
        for seat, chips in zip(seats, command.stacks):
            stacks[seat] = chips
    else:
        if len(command.points) != len(seats) or any(p not in (0, 1) for p in command.points) \
                or not any(command.points):
            raise Violation("illegal_action", "a round scores 1 point for each best hand, 0 otherwise",
                            numbers={"points": list(command.points)})
        for seat, scored in zip(seats, command.points):
            points[seat] += scored
    number = state.hands_played + 1
    events: list[Event] = [HandRecorded(number, tuple(stacks), tuple(points))]
    scores = stacks if state.settings.betting else points
    still_in = [seat for seat in range(n) if not state.settings.betting or stacks[seat] > 0]
    if number >= state.settings.hands or len(still_in) < 2:
        events.append(MatchEnded(_results(state.players, scores)))
    else:
        events.append(ButtonMoved(_next_button(state.button, still_in, n)))
    return events


def _next_button(button: int, still_in: list[int], n: int) -> int:
    """One seat to the left: the next seat clockwise still in the game."""
    return next((button + step) % n for step in range(1, n + 1) if (button + step) % n in still_in)


def _results(players: tuple[str, ...], scores: list[int]) -> tuple[PlayerResult, ...]:
    """Most chips or points first; level players share a place; level at the top: draw."""
    top = max(scores)
    leaders = scores.count(top)
    results = []
    for seat in sorted(range(len(players)), key=lambda s: (-scores[s], s)):
        place = 1 + sum(1 for other in scores if other > scores[seat])
        outcome = LOSS if scores[seat] < top else WIN if leaders == 1 else DRAW
        results.append(PlayerResult(players[seat], seat, scores[seat], place, outcome))
    return tuple(results)
