"""The live table's state and how each event changes it (`evolve`, `replay`): seats and
stacks across hands, the button, the hand being played (the game's own state), clocks,
absences and standings."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain import registry
from domain.live.games.common import DECK_HASH
from domain.live.table_commands import TableSeat
from domain.live.table_events import (
    ActionClockSet,
    AutomaticAction,
    ChipsAdjusted,
    ClockExpired,
    ClockStarted,
    HandClosed,
    HandOpened,
    PlayerLeftTable,
    PlayerReturned,
    PlayerSatOut,
    PlayerSeatedAtTable,
    PotWinners,
    Result,
    Standing,
    StandUpQueued,
    TableClosing,
    TableCreated,
    TableFinished,
    TimeBankSet,
    TimeBankUsed,
)
from domain.registry import GameRules
from domain.rules.betting import BettingStructure, with_changes
from domain.rules.declarations import ChipsRuled

EMPTY_SEAT = ""
"""A tournament table's seat where nobody sits (stack 0)."""

# ------------------------------------------------------------------------ the games


def game_rules(game: str) -> GameRules:
    return registry.table_rules(game)


# ---------------------------------------------------------------------------- state


@dataclass(frozen=True)
class TableState:
    table_id: str
    game: str
    settings: dict[str, Any]
    betting: BettingStructure
    ranked: bool
    action_clock_s: int | None
    players: tuple[str, ...]
    stacks: tuple[int, ...]
    """Between hands; during a hand the hand state holds the live stacks."""
    button: int | None
    hands_played: int
    hand_id: str | None
    """The current hand, or the last one once it is closed."""
    hand_seats: tuple[int, ...]
    hand: Any
    """The game's state of the current (or last) hand."""
    commitment: str | None
    salt: str | None
    eliminated: tuple[Standing, ...]
    finished: bool
    clock: ClockStarted | None = None
    """The pending action clock, if any."""
    sitting_out: tuple[bool, ...] = ()
    """Per table seat: the computer plays for this player."""
    missed_clocks: tuple[int, ...] = ()
    time_bank_s: int = 0  # each player's bank at this table (TimeBankSet)
    time_banks_used: frozenset[str] = frozenset()  # players who used theirs here
    """Per table seat: clocks run out in a row."""
    points: tuple[int, ...] = ()
    """Per table seat: points scored so far (games played for points)."""
    results: tuple[Result, ...] = ()
    """Once finished: each player's win/draw/loss."""
    tournament_id: str | None = None
    departures: tuple[PlayerLeftTable, ...] = ()
    """Tournament tables: the last time each player left here with chips, until they sit
    here again (a move's chips are on their way to another table)."""
    last_busted: tuple[TableSeat, ...] = ()
    """Who lost their last chip in the last hand, with the stack they began it with."""
    last_busted_by: tuple[PotWinners, ...] = ()
    """Who busted them: the winners of the highest-numbered pot each was in."""
    auto_deal: bool = False
    chip_changes: tuple[int, ...] = ()
    """Tournament tables: the tournament's chip changes applied here (their ids); cash
    tables: their top-ups (numbered 1, 2, ...)."""
    deal_scheme: str = DECK_HASH
    """How the current (or last) hand's commitment was made (HandOpened.scheme)."""
    min_buy_in: int | None = None
    max_buy_in: int | None = None
    closing: bool = False
    """Closed during the current hand: it finishes when the hand ends."""
    leaving: tuple[str, ...] = ()
    """Cash tables: players who stand up when the current hand ends (StandUpQueued)."""
    name: str | None = None
    """What the room calls the table (TableCreated.name); None: unnamed."""

    @property
    def cash(self) -> bool:
        return self.min_buy_in is not None

    @property
    def chips(self) -> int:
        """Every chip at the table, a hand in progress included (its stacks as it began)."""
        return sum(self.stacks)

    @property
    def hand_in_progress(self) -> bool:
        return self.hand is not None and not self.hand.over

    @property
    def live_stacks(self) -> tuple[int, ...]:
        """Every table seat's chips behind right now (a hand in progress included)."""
        if not self.hand_in_progress:
            return self.stacks
        stacks = list(self.stacks)
        for position, table_seat in enumerate(self.hand_seats):
            stacks[table_seat] = self.hand.stacks[position]
        return tuple(stacks)

    @property
    def to_act(self) -> str | None:
        """The player to act in the current hand, if any."""
        seat = self.seat_to_act
        return None if seat is None else self.players[seat]

    @property
    def seat_to_act(self) -> int | None:
        """The table seat to act in the current hand, if any."""
        if not self.hand_in_progress or self.hand.to_act is None:
            return None
        seat: int = self.hand_seats[self.hand.to_act]
        return seat

    def seat_of(self, player_id: str) -> int | None:
        if player_id == EMPTY_SEAT:
            return None
        return self.players.index(player_id) if player_id in self.players else None

    def position_of(self, player_id: str) -> int | None:
        for position, table_seat in enumerate(self.hand_seats):
            if self.players[table_seat] == player_id:
                return position
        return None


def hand_id_for(table_id: str, number: int) -> str:
    """Hand ids name their table, so a hand's history is found without an index."""
    return f"{table_id}.{number}"


def table_id_of_hand(hand_id: str) -> tuple[str, int] | None:
    table_id, dot, number = hand_id.rpartition(".")
    if not dot or not table_id or not number.isdigit():
        return None
    return table_id, int(number)


# --------------------------------------------------------------------------- evolve


def evolve(state: TableState | None, event: Any) -> TableState:
    kind = type(event)
    if kind is TableCreated:
        return _created(event)
    if state is None:
        raise ValueError(f"a table stream begins with TableCreated, not {kind.__name__}")
    if kind is HandOpened:
        return with_changes(state, hands_played=event.number, hand_id=event.hand_id,
                            hand_seats=event.seats, button=event.button, hand=None,
                            commitment=event.commitment, salt=event.salt, deal_scheme=event.scheme)
    if kind is ActionClockSet:
        return with_changes(state, action_clock_s=event.action_clock_s)
    if kind is TimeBankSet:
        return with_changes(state, time_bank_s=event.seconds)
    if kind is TimeBankUsed:
        return with_changes(state, time_banks_used=state.time_banks_used | {event.player_id})
    if kind is HandClosed:
        return _closed(with_changes(state, clock=None, missed_clocks=_met_clock(state)), event)
    if kind is TableFinished:
        return with_changes(state, finished=True, results=event.results)
    if kind is TableClosing:
        return with_changes(state, closing=True)
    if kind is StandUpQueued:
        return with_changes(state, leaving=(*state.leaving, event.player_id))
    if kind is ClockStarted:
        return with_changes(state, clock=event, missed_clocks=_met_clock(state))
    if kind is ClockExpired:
        missed = _put(state.missed_clocks, event.seat, state.missed_clocks[event.seat] + 1)
        return with_changes(state, clock=None, missed_clocks=missed)
    if kind in (AutomaticAction, ChipsRuled):
        return state
    if kind is PlayerSatOut:
        return with_changes(state, sitting_out=_put(state.sitting_out, event.seat, True))
    if kind is PlayerReturned:
        return with_changes(state, sitting_out=_put(state.sitting_out, event.seat, False),
                            missed_clocks=_put(state.missed_clocks, event.seat, 0))
    if kind is PlayerSeatedAtTable:
        seated = _with_seat(state, event.seat, event.player_id, event.stack,
                            tuple(d for d in state.departures if d.player_id != event.player_id))
        if not event.re_entry:
            return seated
        return with_changes(seated, eliminated=tuple(s for s in state.eliminated if s.player_id != event.player_id))
    if kind is ChipsAdjusted:
        return with_changes(state, stacks=_put(state.stacks, event.seat, state.stacks[event.seat] + event.amount),
                            chip_changes=state.chip_changes + (event.change_id,))
    if kind is PlayerLeftTable:
        departures = tuple(d for d in state.departures if d.player_id != event.player_id)
        state = with_changes(state, leaving=tuple(p for p in state.leaving if p != event.player_id))
        return _with_seat(state, event.seat, EMPTY_SEAT, 0,
                          departures + ((event,) if event.stack else ()))
    return with_changes(state, hand=game_rules(state.game).module.evolve(state.hand, event))


def _met_clock(state: TableState) -> tuple[int, ...]:
    """A clock ended by anything but its expiry was met: its player acted in time, so
    their run of missed clocks is over."""
    if state.clock is None:
        return state.missed_clocks
    return _put(state.missed_clocks, state.clock.seat, 0)


def _with_seat(state: TableState, seat: int, player_id: str, stack: int,
               departures: tuple[PlayerLeftTable, ...]) -> TableState:
    return with_changes(state, players=_put(state.players, seat, player_id),
                        stacks=_put(state.stacks, seat, stack),
                        sitting_out=_put(state.sitting_out, seat, False),
                        missed_clocks=_put(state.missed_clocks, seat, 0), departures=departures)


def _put(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1:]


def _created(event: TableCreated) -> TableState:
    seat_count = len(event.seats)
    return TableState(
        table_id=event.table_id, game=event.game, settings=event.settings, betting=event.betting,
        ranked=event.ranked, action_clock_s=event.action_clock_s,
        players=tuple(seat.player_id for seat in event.seats),
        stacks=tuple(seat.stack for seat in event.seats), button=None, hands_played=0,
        hand_id=None, hand_seats=(), hand=None, commitment=None, salt=None, eliminated=(),
        finished=False, clock=None, sitting_out=(False,) * seat_count,
        missed_clocks=(0,) * seat_count, points=(0,) * seat_count,
        tournament_id=event.tournament_id, auto_deal=event.auto_deal,
        min_buy_in=event.min_buy_in, max_buy_in=event.max_buy_in, name=event.name)


def _closed(state: TableState, event: HandClosed) -> TableState:
    # state.stacks still holds the stacks the hand started with.
    start_stacks = {state.players[seat]: state.stacks[seat] for seat in state.hand_seats}
    remaining = sum(1 for stack in state.stacks if stack > 0)
    # Players out in the same hand: the bigger starting stack takes the better place
    # (house practice: the TDA has no numbered rule for it, tournaments.md); equal stacks
    # share it.
    busted = sorted(event.busted, key=lambda p: -start_stacks[p])
    places = []
    worst_place = remaining
    for player in busted:
        better = sum(1 for other in busted if start_stacks[other] > start_stacks[player])
        places.append(Standing(player, worst_place - len(busted) + 1 + better, 0))
    stacks, points = list(state.stacks), list(state.points)
    for entry in event.stacks:
        stacks[entry.seat] = entry.stack
        if entry.points is not None:
            points[entry.seat] += entry.points
    return with_changes(state, stacks=tuple(stacks), eliminated=state.eliminated + tuple(places),
                        points=tuple(points), last_busted=tuple(TableSeat(p, start_stacks[p]) for p in busted),
                        last_busted_by=event.busted_by)


def replay(events: Any) -> TableState:
    state = None
    for event in events:
        state = evolve(state, event)
    return state  # type: ignore[return-value]
