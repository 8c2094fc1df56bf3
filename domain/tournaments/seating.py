"""Multi-table seating: the initial draw, balancing (TDA 2024 11), breaking tables (TDA 2024 10),
late entrants (TDA 2024 8-A), and each table's next button and blinds with a dead button
(TDA 2024 32) and the heads-up button on the small blind (TDA 2024 34-B).

Randomness is an argument (a `random.Random` built from a seed the command carries and
the event records), so every draw can be audited and replay never draws again.

Tables are numbered from 1; seats from 0, clockwise. Per-table player counts are kept
both per table and as a histogram (how many tables hold k players), so the tolerance
check after an elimination costs O(seats per table), and finding the largest or the
smallest tables one pass over the counts, never over the players.
"""
from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from domain.rules.violations import Violation
from domain.tournaments.by_player import ByPlayer

BREAK_PREDETERMINED = "predetermined"  # the highest-numbered table breaks first
BREAK_RANDOM = "random"


@dataclass(frozen=True)
class Positions:
    """Button and blind seats of one hand. A dead button or dead small blind sits on an
    empty seat (TDA 2024 32): the seat is kept because the next hand moves on from it."""

    button: int
    small_blind: int
    big_blind: int
    dead_button: bool = False
    dead_small_blind: bool = False


@dataclass(frozen=True)
class Table:
    number: int
    seats: tuple[str | None, ...]
    # The last hand dealt here. Before the first hand it is a virtual "hand before" so
    # that the first hand's button lands on the drawn seat.
    positions: Positions | None = None

    @property
    def count(self) -> int:
        return sum(1 for p in self.seats if p is not None)


@dataclass(frozen=True)
class Seat:
    player_id: str
    table: int
    seat: int


@dataclass(frozen=True)
class Move:
    player_id: str
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    reason: str  # "balance" | "break" | "floor"


@dataclass(frozen=True)
class BalancePolicy:
    tolerance: int = 1  # allowed difference between tables when more than two remain
    break_order: str = BREAK_PREDETERMINED

    def tolerance_for(self, tables: int) -> int:
        # With two tables the difference is always at most one (TDA 2024 11).
        return 1 if tables <= 2 else self.tolerance


@dataclass(frozen=True)
class Seating:
    max_seats: int
    tables: tuple[Table | None, ...]  # index = number - 1; None once broken
    counts: tuple[int, ...]  # players per table; -1 for a broken table
    sizes: tuple[int, ...]  # sizes[k]: how many open tables hold k players
    where: ByPlayer[tuple[int, int]]  # player -> (table, seat)

    @property
    def players(self) -> int:
        return len(self.where)

    @property
    def open_tables(self) -> int:
        return sum(self.sizes)

    def table(self, number: int) -> Table:
        table = self.tables[number - 1] if 0 < number <= len(self.tables) else None
        if table is None:
            raise Violation("unknown_table", f"there is no open table {number}", numbers={"table": number})
        return table

    def open_table_numbers(self) -> list[int]:
        return [t.number for t in self.tables if t is not None]

    def spread(self) -> int:
        """Players at the largest table minus players at the smallest."""
        present = [k for k, n in enumerate(self.sizes) if n]
        return present[-1] - present[0] if present else 0


@dataclass(frozen=True)
class Rebalancing:
    seating: Seating
    moves: tuple[Move, ...]
    broken: tuple[int, ...]
    deferred: tuple[int, ...] = ()  # busy tables whose hand must end before the next move or break


def empty_seating(max_seats: int) -> Seating:
    if not 2 <= max_seats <= 10:
        raise Violation("invalid_table_size", f"a table seats 2 to 10 players, not {max_seats}")
    return Seating(max_seats, (), (), (0,) * (max_seats + 1), ByPlayer())


def tables_needed(players: int, max_seats: int) -> int:
    return max(1, math.ceil(players / max_seats))


def draw_seating(player_ids: Sequence[str], max_seats: int, rng: random.Random) -> tuple[tuple[Seat, ...], tuple[int, ...]]:
    """The initial random draw: the fewest tables, sizes differing by at most one, random
    seats, and a random button per table. Returns the seats and each table's button."""
    if len(set(player_ids)) != len(player_ids):
        raise Violation("duplicate_player", "a player is listed twice for the draw")
    if len(player_ids) < 2:
        raise Violation("not_enough_players", "a tournament starts with at least two players")
    order = list(player_ids)
    rng.shuffle(order)
    table_count = tables_needed(len(order), max_seats)
    seats: list[Seat] = []
    buttons: list[int] = []
    for index in range(table_count):
        players = order[index::table_count]
        chosen = rng.sample(range(max_seats), len(players))
        seats.extend(Seat(p, index + 1, s) for p, s in zip(players, chosen))
        buttons.append(rng.choice(chosen))
    return tuple(seats), tuple(buttons)


def seated(max_seats: int, seats: Iterable[Seat], buttons: Sequence[int]) -> Seating:
    """The seating an initial draw describes (what replay builds from the event)."""
    draft = _Draft(empty_seating(max_seats))
    for _ in buttons:
        draft.open_table()
    for seat in seats:
        draft.place(seat.player_id, seat.table, seat.seat)
    for number, button in enumerate(buttons, start=1):
        draft.set_positions(number, opening_positions(draft.tables[number - 1].seats, button))  # type: ignore[union-attr]
    return draft.freeze()


def opening_positions(seats: Sequence[str | None], button: int) -> Positions:
    """A virtual previous hand from which `next_positions` puts the button on `button`."""
    if sum(1 for p in seats if p is not None) <= 2:
        return Positions(button, button, button)
    return Positions(_previous_occupied(seats, button), button, _next_occupied(seats, button))


def next_positions(seats: Sequence[str | None], previous: Positions) -> Positions:
    """The next hand's button and blinds. The big blind moves to the next player every
    hand; the small blind goes on the seat that was big blind and the button on the seat
    that was small blind, dead if that player is gone (TDA 2024 32). Heads-up the button posts
    the small blind, and the big blind still moves on so nobody posts it twice (TDA 2024 34-B)."""
    occupied = sum(1 for p in seats if p is not None)
    if occupied < 2:
        raise Violation("not_enough_players", "a hand needs at least two players")
    big_blind = _next_occupied(seats, previous.big_blind)
    if occupied == 2:
        other = _next_occupied(seats, big_blind)
        return Positions(other, other, big_blind)
    small_blind = previous.big_blind
    button = previous.small_blind
    if previous.button == previous.small_blind:
        # Coming from a virtual or heads-up hand (the button posted the small blind): the
        # button goes to the player before the new small blind.
        button = _previous_occupied(seats, small_blind)
    return Positions(
        button, small_blind, big_blind,
        dead_button=seats[button] is None,
        dead_small_blind=seats[small_blind] is None,
    )


def next_big_blind(table: Table) -> int:
    """The seat that posts the big blind on the table's next hand."""
    if table.positions is None:
        raise Violation("not_enough_players", f"table {table.number} has no hand to follow")
    return _next_occupied(table.seats, table.positions.big_blind)


def worst_open_seat(table: Table) -> int:
    """Where a player moved in for balance sits (TDA 2024 11): the open seat the big blind
    reaches first, never the seat that posts the small blind next (the last big blind's)."""
    seats = table.seats
    n = len(seats)
    if table.positions is None:
        return seats.index(None)
    last_big_blind = table.positions.big_blind
    for step in range(1, n):
        seat = (last_big_blind + step) % n
        if seats[seat] is None:
            return seat
    raise Violation("table_full", f"table {table.number} has no open seat other than the small blind's")


def entrant_seats(table: Table) -> list[int]:
    """Open seats a late entrant may take (TDA 2024 8-A): any from which they are dealt into
    the table's next hand, that is neither the small blind nor between the small blind and
    the button. `positions` are the last hand's, so each seat is tried with the entrant in
    it and the next hand's button and blinds worked out as they will be."""
    open_seats = [i for i, p in enumerate(table.seats) if p is None]
    if table.positions is None or table.count < 2:
        return open_seats
    n = len(table.seats)
    allowed = []
    for seat in open_seats:
        seats = list(table.seats)
        seats[seat] = "entrant"
        upcoming = next_positions(seats, table.positions)
        from_button = (seat - upcoming.button) % n
        if 0 < from_button <= (upcoming.small_blind - upcoming.button) % n:
            continue  # between the button and the small blind, or on the small blind
        allowed.append(seat)
    return allowed


def seat_late_entrant(seating: Seating, player_id: str, rng: random.Random) -> tuple[Seating, Seat]:
    """A random open seat at the smallest tables (opening a table when all are full)."""
    if player_id in seating.where:
        raise Violation("already_seated", f"player {player_id} is already seated")
    draft = _Draft(seating)
    by_size: dict[int, list[int]] = {}
    for number in seating.open_table_numbers():
        if seating.counts[number - 1] < seating.max_seats:
            by_size.setdefault(seating.counts[number - 1], []).append(number)
    for size in sorted(by_size):
        for number in rng.sample(by_size[size], len(by_size[size])):
            allowed = entrant_seats(seating.table(number))
            if allowed:
                seat = rng.choice(allowed)
                draft.place(player_id, number, seat)
                _give_positions_if_new(draft, number, seat)
                return draft.freeze(), Seat(player_id, number, seat)
    number = draft.open_table()
    seat = rng.randrange(seating.max_seats)
    draft.place(player_id, number, seat)
    _give_positions_if_new(draft, number, seat)
    return draft.freeze(), Seat(player_id, number, seat)


def remove_player(seating: Seating, player_id: str) -> Seating:
    draft = _Draft(seating)
    draft.vacate(player_id)
    return draft.freeze()


def apply_seat(seating: Seating, seat: Seat) -> Seating:
    draft = _Draft(seating)
    while len(draft.tables) < seat.table:
        draft.open_table()
    draft.place(seat.player_id, seat.table, seat.seat)
    _give_positions_if_new(draft, seat.table, seat.seat)
    return draft.freeze()


def apply_move(seating: Seating, move: Move) -> Seating:
    draft = _Draft(seating)
    draft.move(move.player_id, move.to_table, move.to_seat)
    return draft.freeze()


def apply_break(seating: Seating, number: int) -> Seating:
    draft = _Draft(seating)
    draft.close_table(number)
    return draft.freeze()


def apply_positions(seating: Seating, number: int, positions: Positions) -> Seating:
    draft = _Draft(seating)
    draft.set_positions(number, positions)
    return draft.freeze()


def floor_move(seating: Seating, player_id: str, to_table: int, to_seat: int) -> Move:
    """A move the floor orders; checked, not chosen."""
    if player_id not in seating.where:
        raise Violation("not_seated", f"player {player_id} is not seated", numbers={"player": player_id})
    target = seating.table(to_table)
    if not 0 <= to_seat < len(target.seats) or target.seats[to_seat] is not None:
        # People count seats from 1 (the API's edge does too); the Move keeps the index.
        raise Violation("seat_taken", f"seat {to_seat + 1} at table {to_table} is not an open seat",
                        numbers={"table": to_table, "seat": to_seat + 1})
    from_table, from_seat = seating.where[player_id]
    return Move(player_id, from_table, from_seat, to_table, to_seat, "floor")


def rebalance(seating: Seating, rng: random.Random, policy: BalancePolicy = BalancePolicy(),
              busy: frozenset[int] = frozenset()) -> Rebalancing:
    """Break tables while the players fit on one fewer (TDA 2024 10), then move players from
    the largest to the smallest table until every table is within tolerance (TDA 2024 11).

    `busy`: tables playing a hand. Players leave a table between hands only, so a busy
    table is never broken nor a source of a balancing move (it may receive players: they
    are dealt in from its next hand). What cannot be done now is `deferred`: the tables
    whose next FinishHand lets it happen (the tournament rebalances then)."""
    draft = _Draft(seating)
    moves: list[Move] = []
    broken: list[int] = []
    while draft.open_count > 1 and tables_needed(draft.players, draft.max_seats) < draft.open_count:
        number = _table_to_break(draft, rng, policy, busy)
        if number in busy:
            # Balancing now would only move players off a table about to break.
            return Rebalancing(draft.freeze(), tuple(moves), tuple(broken), (number,))
        moves.extend(_break(draft, number, rng))
        broken.append(number)
    while draft.open_count > 1 and draft.spread() > policy.tolerance_for(draft.open_count):
        largest, smallest = draft.extremes()
        largest_tables = draft.tables_of_size(largest)
        sources = [number for number in largest_tables if number not in busy]
        if not sources:
            return Rebalancing(draft.freeze(), tuple(moves), tuple(broken), tuple(largest_tables))
        source = draft.tables[rng.choice(sources) - 1]
        target = draft.tables[rng.choice(draft.tables_of_size(smallest)) - 1]
        assert source is not None and target is not None
        player_seat = next_big_blind(source)
        player = source.seats[player_seat]
        assert player is not None
        to_seat = worst_open_seat(target)
        draft.move(player, target.number, to_seat)
        _give_positions_if_new(draft, target.number, to_seat)
        moves.append(Move(player, source.number, player_seat, target.number, to_seat, "balance"))
    return Rebalancing(draft.freeze(), tuple(moves), tuple(broken), ())


def _table_to_break(draft: _Draft, rng: random.Random, policy: BalancePolicy, busy: frozenset[int]) -> int:
    """The predetermined order waits for its table's hand; a random break draws among the
    tables between hands (a busy table only when every table is busy)."""
    if policy.break_order == BREAK_RANDOM:
        open_numbers = [t.number for t in draft.tables if t is not None]
        return rng.choice([n for n in open_numbers if n not in busy] or open_numbers)
    for table in reversed(draft.tables):
        if table is not None:
            return table.number
    raise AssertionError("no open table")


def _break(draft: _Draft, number: int, rng: random.Random) -> list[Move]:
    """Seat the broken table's players, in random order, at random open seats of the
    tables that are smallest at that moment (TDA 2024 10: any position, blinds included)."""
    table = draft.tables[number - 1]
    assert table is not None
    leaving = [(p, s) for s, p in enumerate(table.seats) if p is not None]
    rng.shuffle(leaving)
    buckets: dict[int, list[int]] = {}
    for index, count in enumerate(draft.counts):
        if count >= 0 and index != number - 1:
            buckets.setdefault(count, []).append(index + 1)
    moves = []
    for player, from_seat in leaving:
        size = min(k for k, tables in buckets.items() if tables)
        tables = buckets[size]
        target_number = tables.pop(rng.randrange(len(tables)))
        target = draft.tables[target_number - 1]
        assert target is not None
        to_seat = rng.choice([i for i, p in enumerate(target.seats) if p is None])
        draft.move(player, target_number, to_seat)
        _give_positions_if_new(draft, target_number, to_seat)
        buckets.setdefault(size + 1, []).append(target_number)
        moves.append(Move(player, number, from_seat, target_number, to_seat, "break"))
    draft.close_table(number)
    return moves


def _give_positions_if_new(draft: _Draft, number: int, seat: int) -> None:
    table = draft.tables[number - 1]
    if table is not None and table.positions is None:
        draft.set_positions(number, opening_positions(table.seats, seat))


def _next_occupied(seats: Sequence[str | None], after: int) -> int:
    n = len(seats)
    for step in range(1, n + 1):
        seat = (after + step) % n
        if seats[seat] is not None:
            return seat
    raise Violation("not_enough_players", "the table is empty")


def _previous_occupied(seats: Sequence[str | None], before: int) -> int:
    n = len(seats)
    for step in range(1, n + 1):
        seat = (before - step) % n
        if seats[seat] is not None:
            return seat
    raise Violation("not_enough_players", "the table is empty")


class _Draft:
    """A mutable working copy, so one decision copies the seating once, not per step."""

    def __init__(self, seating: Seating) -> None:
        self.max_seats = seating.max_seats
        self.tables: list[Table | None] = list(seating.tables)
        self.counts = list(seating.counts)
        self.sizes = list(seating.sizes)
        self.index = seating.where
        self.changes: dict[str, tuple[int, int] | None] = {}

    @property
    def open_count(self) -> int:
        return sum(self.sizes)

    @property
    def players(self) -> int:
        return len(self.index) + sum(
            (place is not None) - (player in self.index) for player, place in self.changes.items()
        )

    def locate(self, player_id: str) -> tuple[int, int] | None:
        if player_id in self.changes:
            return self.changes[player_id]
        return self.index.get(player_id)

    def spread(self) -> int:
        largest, smallest = self.extremes()
        return largest - smallest

    def extremes(self) -> tuple[int, int]:
        present = [k for k, n in enumerate(self.sizes) if n]
        return present[-1], present[0]

    def tables_of_size(self, size: int) -> list[int]:
        return [i + 1 for i, c in enumerate(self.counts) if c == size]

    def open_table(self) -> int:
        number = len(self.tables) + 1
        self.tables.append(Table(number, (None,) * self.max_seats))
        self.counts.append(0)
        self.sizes[0] += 1
        return number

    def close_table(self, number: int) -> None:
        table = self.tables[number - 1]
        if table is None or self.counts[number - 1] != 0:
            raise Violation("table_not_empty", f"table {number} still has players")
        self.sizes[0] -= 1
        self.counts[number - 1] = -1
        self.tables[number - 1] = None

    def set_positions(self, number: int, positions: Positions) -> None:
        table = self.tables[number - 1]
        assert table is not None
        self.tables[number - 1] = Table(table.number, table.seats, positions)

    def place(self, player_id: str, number: int, seat: int) -> None:
        table = self.tables[number - 1] if 0 < number <= len(self.tables) else None
        if table is None:
            raise Violation("unknown_table", f"there is no open table {number}")
        if not 0 <= seat < len(table.seats) or table.seats[seat] is not None:
            raise Violation("seat_taken", f"seat {seat} at table {number} is not open")
        if self.locate(player_id) is not None:
            raise Violation("already_seated", f"player {player_id} is already seated")
        seats = list(table.seats)
        seats[seat] = player_id
        self.tables[number - 1] = Table(number, tuple(seats), table.positions)
        self._resize(number, +1)
        self.changes[player_id] = (number, seat)

    def vacate(self, player_id: str) -> tuple[int, int]:
        place = self.locate(player_id)
        if place is None:
            raise Violation("not_seated", f"player {player_id} is not seated", numbers={"player": player_id})
        number, seat = place
        self.changes[player_id] = None
        table = self.tables[number - 1]
        assert table is not None
        seats = list(table.seats)
        seats[seat] = None
        self.tables[number - 1] = Table(number, tuple(seats), table.positions)
        self._resize(number, -1)
        return number, seat

    def move(self, player_id: str, to_table: int, to_seat: int) -> None:
        self.vacate(player_id)
        self.place(player_id, to_table, to_seat)

    def _resize(self, number: int, change: int) -> None:
        self.sizes[self.counts[number - 1]] -= 1
        self.counts[number - 1] += change
        self.sizes[self.counts[number - 1]] += 1

    def freeze(self) -> Seating:
        return Seating(
            self.max_seats, tuple(self.tables), tuple(self.counts), tuple(self.sizes),
            self.index.updated(self.changes),
        )
