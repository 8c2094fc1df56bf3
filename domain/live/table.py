"""A live table as a decider: seats and stacks across hands, the moving button, one hand at
a time delegated to the game's own decider, and the final standings.

The table's stream holds its own events (TableCreated, HandOpened, HandClosed,
TableFinished) with the game's hand events between a HandOpened and its HandClosed, so a
hand's history is a slice of the table stream and replaying the table replays its hands.

Randomness stays outside: StartNextHand carries the shuffled deck and a secret salt drawn
by the service. HandOpened, the hand's first event, publishes the commitment
(`deck_commitment(deck, salt)`) before any card is dealt or action taken; the deck and
salt are in the log too, and views hide them until the hand is over.

Time stays outside too: `handle(state, command, now_ms)` gets the time from the service.
On a table with an action clock, every command that passes the turn records the deadline
as a fact (ClockStarted, in the same append); ExpireClock acts on exactly that deadline
once it has passed, so a late, repeated or stale expiry is refused and changes nothing.
Absent players (sat out, or two clocks missed in a row) are played by the computer
(domain.live.autoplay) the moment their turn comes, in the same append as the action that
gave it to them; at a tournament's table their hand is dead (TDA 2024 30): dealt in, blinds
and antes posted, folded at their turn even with a check free.

A table created with `auto_deal` opens its next hand in the same append as the action
that closes a hand (once per command), with a shuffle and salt drawn through `draws`,
so a client plays on without asking for each hand; the commitment is still published
before the new hand's first card or action.

A cash table (`min_buy_in` and `max_buy_in` set) lets players come and go: they sit
down in an empty seat with a buy-in within the limits (SitDown), top up to at most the
maximum (TopUp) and stand up with their chips (StandUp), all between their hands (a
stand-up asked for during their hand is queued to its end: StandUpQueued); it
never finishes by itself, only when closed (CloseTable: at once between hands, else once
the current hand ends). Chips are conserved: every chip brought (seats at creation,
buy-ins, top-ups) minus every chip taken away (stand-ups) is on the table.

A tournament table (`tournament_id` set) mirrors one table of a tournament: its seats
are the tournament table's seats (EMPTY_SEAT where nobody sits), players are seated
(SeatPlayer) and removed (RemovePlayer) between hands only, each hand's button, blinds and
betting come from the tournament (StartNextHand's `button`, `big_blind`, `betting`: the
level in force, TDA 2024 23), and the table never finishes by itself: the tournament does.
"""
from __future__ import annotations

import re
from typing import Any, NamedTuple

from domain.live import table_names
from domain.live.games.common import Dealing, Draws, Opening, TableMove
from domain.live.table_commands import (
    Act,
    AdjustChips,
    CloseTable,
    Command,
    CreateTable,
    ExpireClock,
    FinishTournamentTable,
    RemovePlayer,
    ReturnToSeat,
    SeatPlayer,
    SitDown,
    SitOut,
    StandUp,
    StartNextHand,
    TopUp,
)
from domain.live.table_events import (
    TABLE_EVENT_CLASSES,
    TABLE_EVENT_TYPES,
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
    SeatStack,
    StandUpQueued,
    TableClosing,
    TableCreated,
    TableFinished,
    TimeBankSet,
    TimeBankUsed,
)
from domain.live.table_standings import busted_by, results_of, standings
from domain.live.table_state import EMPTY_SEAT, TableState, evolve, game_rules, hand_id_for
from domain.registry import GameRules
from domain.rules import deal_commitment
from domain.rules.betting import BettingStructure, chips, with_changes
from domain.rules.cards import deck_texts, parse_cards
from domain.rules.citations import cite
from domain.rules.declarations import ChipsRuled, ruled_action
from domain.rules.violations import Violation

MIN_SEATS = 2
MAX_SEATS = 10
# An hour a turn at most: a longer clock is no clock, and a deadline years away only
# burdens the scheduler.
MAX_ACTION_CLOCK_S = 3600
_SALT_HEX = re.compile(r"[0-9a-f]{64}")  # 32 bytes as lowercase hex
MISSED_CLOCKS_BEFORE_ABSENT = 2
# Why the computer acted (AutomaticAction.reason).
CLOCK_EXPIRED = "clock_expired"
SITTING_OUT = "sitting_out"
# An away player's hand at a tournament's table, killed at their turn (citations "dead_hand").
DEAD_HAND = "dead_hand"
# Why a player sat out (PlayerSatOut.reason).
REQUESTED = "requested"
MISSED_CLOCKS = "missed_clocks"



def event_types(game: str) -> dict[str, type]:
    """Every record type a table of `game` holds: its own events and the game's."""
    return {**game_rules(game).module.EVENT_TYPES, **TABLE_EVENT_TYPES}


# --------------------------------------------------------------------------- decide


def decide(state: TableState | None, command: Command, now_ms: int | None = None,
           draws: Draws | None = None) -> list[Any]:
    return handle(state, command, now_ms, draws)[0]


def handle(state: TableState | None, command: Command,
           now_ms: int | None = None, draws: Draws | None = None) -> tuple[list[Any], TableState]:
    """`decide` plus the state after its events (the game decider evolves them anyway).

    `now_ms` (ms since the epoch) is needed on a table with an action clock, to date the
    deadlines, and by ExpireClock; other tables ignore it. `draws`: fresh randomness for
    games that need more than the deal (draw redeals and reshuffles, Palace Poker's
    orders, dice rolls); hold'em ignores it."""
    events, after, _ = decided(state, command, now_ms, draws)
    return events, after


class Decided(NamedTuple):
    events: list[Any]
    state: TableState
    closed: tuple[int, TableState] | None
    """The index of the last HandClosed among `events` and the table right after it (between
    hands: what a snapshot keeps, an auto-deal table's next deal left out); None when no
    hand closed."""


def decided(state: TableState | None, command: Command,
            now_ms: int | None = None, draws: Draws | None = None) -> Decided:
    """`handle`, with the table right after the last hand it closed, as the decider
    evolved it on the way (a snapshot at the close needs no second fold)."""
    closes: list[TableState] = []
    events, after = _handled(state, command, now_ms, draws, closes)
    if not closes:
        return Decided(events, after, None)
    closed_at = next(i for i in range(len(events) - 1, -1, -1) if type(events[i]) is HandClosed)
    return Decided(events, after, (closed_at, closes[-1]))


def _handled(state: TableState | None, command: Command, now_ms: int | None, draws: Draws | None,
             closes: list[TableState]) -> tuple[list[Any], TableState]:
    """`handle`; `closes` gathers the table right after each HandClosed, in order."""
    if isinstance(command, CreateTable):
        if state is not None:
            raise Violation("illegal_action", "this table already exists")
        event = _create(command)
        created = evolve(None, event)
        if command.time_bank_s:
            if not 0 < command.time_bank_s <= MAX_ACTION_CLOCK_S or event.action_clock_s is None:
                raise Violation("invalid_table", f"a time bank is 1 to {MAX_ACTION_CLOCK_S} s, with an action clock",
                                numbers={"time_bank_s": command.time_bank_s})
            bank = TimeBankSet(command.time_bank_s)
            return [event, bank], evolve(created, bank)
        return [event], created
    if state is None:
        raise Violation("not_found", "no such table")
    if state.finished:
        raise Violation("table_finished", "the table has finished: no more hands")
    if isinstance(command, StartNextHand):
        return _turn_passed(*_start_next_hand(state, command, draws, closes), now_ms, draws, closes,
                            deal_next=False)
    if isinstance(command, Act):
        return _turn_passed(*_act(state, command, draws, closes), now_ms, draws, closes)
    if isinstance(command, ExpireClock):
        return _expire_clock(state, command, _required(now_ms), draws, closes)
    if isinstance(command, SitOut):
        return _sit_out(state, command, now_ms, draws, closes)
    if isinstance(command, ReturnToSeat):
        return _return_to_seat(state, command)
    if isinstance(command, (SeatPlayer, RemovePlayer)):
        return _change_seats(state, command)
    if isinstance(command, AdjustChips):
        return _adjust_chips(state, command)
    if isinstance(command, (SitDown, StandUp, TopUp)):
        return _cash_move(state, command)
    if isinstance(command, CloseTable):
        return _close(state)
    if isinstance(command, FinishTournamentTable):
        return _finish_for_tournament(state)
    raise Violation("illegal_action", f"unknown command {command!r}")


def _create(command: CreateTable) -> TableCreated:
    rules = game_rules(command.game)
    name = table_names.checked(command.name)
    # Parsing refuses what the game cannot play. Five-card draw and dice name their own
    # turn time limit (`turn_time_limit_s`), which is the table's action clock.
    game_settings = rules.adapter.settings(command.settings)
    turn_limit_s = getattr(game_settings, "turn_time_limit_s", None)
    action_clock_s = command.action_clock_s if command.action_clock_s is not None else turn_limit_s
    if turn_limit_s is not None and action_clock_s != turn_limit_s:
        raise Violation("invalid_table",
                        f"action_clock_s {command.action_clock_s} and the game's turn_time_limit_s "
                        f"{turn_limit_s} differ: give one of them, or the same number",
                        numbers={"action_clock_s": command.action_clock_s, "turn_time_limit_s": turn_limit_s})
    chips = rules.plays_for_chips(command.settings)
    seats = command.seats
    # Stud and the draw games seat fewer: the deck must serve every player still in.
    max_seats = getattr(rules.table_game, "max_seats", MAX_SEATS)
    if not MIN_SEATS <= len(seats) <= max_seats:
        raise Violation("invalid_table", f"a {command.game} table seats {MIN_SEATS} to {max_seats} players, "
                        f"not {len(seats)}", numbers={"seats": len(seats), "max_seats": max_seats})
    players = [seat.player_id for seat in seats if seat.player_id != EMPTY_SEAT]
    if len(set(players)) != len(players):
        raise Violation("invalid_table", "a player may take only one seat at a table")
    cash = _buy_in_limits(command)
    if EMPTY_SEAT in (seat.player_id for seat in seats) and command.tournament_id is None and not cash:
        raise Violation("invalid_table", "only a tournament's or a cash table has empty seats")
    for seat in seats:
        if cash and seat.player_id != EMPTY_SEAT:
            _check_buy_in(command.min_buy_in, command.max_buy_in, seat.stack)  # type: ignore[arg-type]
    for seat in seats:
        if seat.player_id == EMPTY_SEAT and seat.stack == 0:
            continue
        if isinstance(seat.stack, bool) or not isinstance(seat.stack, int) or seat.stack < 0 \
                or (chips and seat.stack == 0):
            raise Violation("invalid_table", f"{seat.player_id}'s stack must be a whole number of chips above 0, not {seat.stack!r}",
                            numbers={"stack": seat.stack})
    if action_clock_s is not None and not 0 < action_clock_s <= MAX_ACTION_CLOCK_S:
        raise Violation("invalid_table", f"the action clock must be 1 to {MAX_ACTION_CLOCK_S} seconds "
                        f"(or null), not {action_clock_s}", numbers={"action_clock_s": action_clock_s})
    if command.auto_deal and command.tournament_id is not None:
        raise Violation("invalid_table", "a tournament deals its tables' hands itself: no auto_deal")
    betting = rules.settings_betting(command.settings, command.betting)
    return TableCreated(command.table_id, command.game, dict(command.settings), betting,
                        tuple(seats), command.ranked, action_clock_s, command.tournament_id,
                        command.auto_deal, command.min_buy_in, command.max_buy_in, name)


def _buy_in_limits(command: CreateTable) -> bool:
    """Whether the table is a cash table, once its limits are checked: both or neither,
    whole chips, 0 < min <= max, on a table that plays for chips and no tournament's."""
    limits = (command.min_buy_in, command.max_buy_in)
    if limits == (None, None):
        return False
    numbers = {"min_buy_in": command.min_buy_in, "max_buy_in": command.max_buy_in}
    if None in limits or any(isinstance(v, bool) or not isinstance(v, int) for v in limits) \
            or not 0 < command.min_buy_in <= command.max_buy_in:  # type: ignore[operator]
        raise Violation("invalid_table", f"a cash table's buy-in limits are whole chips with 0 < min_buy_in "
                        f"<= max_buy_in, not {command.min_buy_in} and {command.max_buy_in}", numbers=numbers)
    if command.tournament_id is not None or not game_rules(command.game).plays_for_chips(command.settings):
        raise Violation("invalid_table", "only a table that plays for chips outside a tournament has buy-ins",
                        numbers=numbers)
    return True


def next_button(state: TableState) -> int:
    """The next seat clockwise from the last button that still has chips (the first seat
    with chips for the first hand)."""
    count = len(state.players)
    start = 0 if state.button is None else state.button + 1
    for step in range(count):
        seat = (start + step) % count
        if state.stacks[seat] > 0:
            return seat
    raise Violation("not_enough_players", "nobody has chips")


def seats_dealt_in(state: TableState) -> tuple[int, ...]:
    """The table seats dealt into the next hand: those with chips (every seat when the
    game plays for points)."""
    if not game_rules(state.game).plays_for_chips(state.settings):
        return tuple(range(len(state.players)))
    return tuple(seat for seat, stack in enumerate(state.stacks) if stack > 0)


def everyone_away(state: TableState) -> bool:
    """Whether every player the next hand would deal in is away: a tournament does not
    deal such a table, where every hand would be dead and the blinds would pass round an
    empty table hand after hand, deciding nothing; it waits for a player to come back."""
    seats = seats_dealt_in(state)
    return bool(seats) and all(state.sitting_out[seat] for seat in seats)


def _start_next_hand(state: TableState, command: StartNextHand, draws: Draws | None,
                     closes: list[TableState]) -> tuple[list[Any], TableState]:
    if state.hand_in_progress:
        raise Violation("hand_in_progress", f"hand {state.hand_id} is still being played",
                        numbers={"hand": state.hand_id})
    in_game = seats_dealt_in(state)
    if len(in_game) < MIN_SEATS:
        raise Violation("not_enough_players", f"a hand needs {MIN_SEATS} players with chips, {len(in_game)} have any",
                        numbers={"players_with_chips": len(in_game)})
    if command.action_clock_s is not None and not 0 <= command.action_clock_s <= MAX_ACTION_CLOCK_S:
        raise Violation("invalid_action_clock", f"an action clock is 1 to {MAX_ACTION_CLOCK_S} s (0: none), "
                        f"not {command.action_clock_s}", numbers={"action_clock_s": command.action_clock_s})
    salt = command.salt
    if _SALT_HEX.fullmatch(salt) is None:
        raise Violation("invalid_deal", "the salt must be 32 bytes as lowercase hex")
    rules = game_rules(state.game)
    cards = parse_cards(command.deck)
    if sorted(cards) != list(range(53 if rules.uses_joker(state.settings) else 52)):
        raise Violation("invalid_deal", "the deck must be every card of the pack exactly once")
    betting = state.betting if command.betting is None else command.betting
    if command.big_blind is not None:
        button, hand_button, betting = _given_positions(state, command, in_game, betting)
    else:
        button = next_button(state) if rules.plays_for_chips(state.settings) else _next_seat(state)
        hand_button = in_game.index(button)
    players = tuple(state.players[s] for s in in_game)
    stacks = tuple(state.stacks[s] for s in in_game)
    previous = state.hand
    start = None
    if getattr(rules.adapter, "makes_its_commitment", False):  # five-card draw and Palace Poker:
        # the game draws the rest of what it commits to (reshuffle and palace orders) and
        # makes the root itself
        if draws is None:
            raise ValueError(f"{rules.name} needs fresh randomness: the service passes `draws`")
        start = rules.start(Opening(players, stacks, hand_button, state.settings, betting, tuple(command.deck),
                                    None, Dealing(draws, salt), previous))
        scheme, commitment = deal_commitment.SCHEME, start.commitment
    else:
        scheme, commitment = rules.adapter.commit(cards, salt)
    number = state.hands_played + 1
    opened = HandOpened(hand_id_for(state.table_id, number), number, button, in_game, commitment, salt,
                        scheme)
    clock_set: list[Any] = []
    if command.action_clock_s is not None and (command.action_clock_s or None) != state.action_clock_s:
        clock_set = [ActionClockSet(command.action_clock_s or None)]
        state = evolve(state, clock_set[0])
    state = evolve(state, opened)
    if start is None:
        start = rules.start(Opening(players, stacks, hand_button, state.settings, betting, tuple(command.deck),
                                    commitment, _dealing(state, draws), previous))
    hand_events, hand = _game_handle(rules, None, start, _dealing(state, draws))
    return _with_closing(with_changes(state, hand=hand), [*clock_set, opened, *hand_events], closes)


def _given_positions(state: TableState, command: StartNextHand, in_game: tuple[int, ...],
                     betting: BettingStructure) -> tuple[int, int, BettingStructure]:
    """The table seat recorded as the button, the position the game takes as its button,
    and the betting, from a tournament's positions. The game puts the blinds on the two
    positions after its button (heads-up: the button and the next), so its button is
    the dealt-in seat two before the big blind (one before, heads-up). A dead button
    (TDA 2024 32) sits on an empty seat: the game's button is then the last player before the
    small blind, who acts last as the button would. An empty small blind seat is a dead
    small blind: nobody posts it."""
    seat_count = len(state.players)
    for name in ("button", "small_blind", "big_blind"):
        seat = getattr(command, name)
        if seat is not None and not 0 <= seat < seat_count:
            raise Violation("invalid_deal", f"the {name.replace('_', ' ')} seat must be 0..{seat_count - 1}",
                            numbers={name: seat})
    if command.big_blind not in in_game:
        raise Violation("invalid_deal", f"seat {command.big_blind} has no player with chips to post the big blind",
                        numbers={"big_blind": command.big_blind})
    big_blind = in_game.index(command.big_blind)
    if len(in_game) == 2:
        return in_game[(big_blind - 1) % 2], (big_blind - 1) % 2, betting
    dead_small_blind = command.small_blind is not None and command.small_blind not in in_game
    if dead_small_blind:
        betting = with_changes(betting, dead_small_blind=True)
    button = command.button if command.button is not None else in_game[(big_blind - 2) % len(in_game)]
    return button, (big_blind - 2) % len(in_game), betting


def _change_seats(state: TableState, command: SeatPlayer | RemovePlayer) -> tuple[list[Any], TableState]:
    if state.tournament_id is None:
        raise Violation("not_tournament_table", "players join and leave only a tournament's tables between hands")
    if state.hand_in_progress:
        raise Violation("hand_in_progress", f"hand {state.hand_id} is still being played: players move between hands",
                        cite("balance_between_hands"), {"hand": state.hand_id})
    if isinstance(command, RemovePlayer):
        seat = _seat_of(state, command.player_id)
        left = PlayerLeftTable(seat, command.player_id, state.stacks[seat], command.tournament_version)
        return [left], evolve(state, left)
    if command.player_id in state.players:
        raise Violation("already_seated", f"{command.player_id} already sits at this table",
                        numbers={"player": command.player_id})
    if not 0 <= command.seat < len(state.players) or state.players[command.seat] != EMPTY_SEAT:
        raise Violation("seat_taken", f"seat {command.seat} is not an empty seat of this table",
                        numbers={"seat": command.seat})
    if isinstance(command.stack, bool) or not isinstance(command.stack, int) or command.stack <= 0:
        raise Violation("invalid_stack", f"a player sits down with the chips they have, more than 0, not {command.stack!r}: no rebuy",
                        numbers={"stack": command.stack})
    if not command.re_entry and any(s.player_id == command.player_id for s in state.eliminated):
        raise Violation("no_rebuy", f"{command.player_id} busted at this table: no chips to bring back",
                        numbers={"player": command.player_id})
    seated = PlayerSeatedAtTable(command.seat, command.player_id, command.stack, command.tournament_version,
                                 command.re_entry)
    return [seated], evolve(state, seated)


def _adjust_chips(state: TableState, command: AdjustChips) -> tuple[list[Any], TableState]:
    if state.tournament_id is None:
        raise Violation("not_tournament_table", "only a tournament changes chips at its tables")
    if state.hand_in_progress:
        raise Violation("hand_in_progress", f"hand {state.hand_id} is still being played: chips change between hands",
                        numbers={"hand": state.hand_id})
    if command.change_id in state.chip_changes:
        raise Violation("already_applied", f"chip change {command.change_id} is already applied here",
                        numbers={"change_id": command.change_id})
    seat = _seat_of(state, command.player_id)
    if state.stacks[seat] + command.amount < 0:
        raise Violation("exceeds_stack", f"{command.player_id} has {state.stacks[seat]} chips, not {-command.amount}",
                        numbers={"stack": state.stacks[seat], "amount": command.amount})
    adjusted = ChipsAdjusted(seat, command.player_id, command.amount, command.change_id, command.reason)
    return [adjusted], evolve(state, adjusted)


# ------------------------------------------------------------------- cash tables


def _check_buy_in(minimum: int, maximum: int, buy_in: int) -> None:
    if isinstance(buy_in, bool) or not isinstance(buy_in, int) or not minimum <= buy_in <= maximum:
        raise Violation("buy_in_out_of_range", f"a buy-in here is {minimum} to {maximum} chips, not {buy_in!r}",
                        numbers={"buy_in": buy_in, "min_buy_in": minimum, "max_buy_in": maximum})


def _in_the_hand(state: TableState, seat: int) -> bool:
    return state.hand_in_progress and seat in state.hand_seats


def _cash_move(state: TableState, command: SitDown | StandUp | TopUp) -> tuple[list[Any], TableState]:
    """Sit down, top up or stand up at a cash table: the player's chips change only while
    they are not in a hand being played (their stack is in play until it ends)."""
    if not state.cash:
        raise Violation("not_cash_table", "players sit down, top up and stand up only at cash tables")
    if isinstance(command, SitDown):
        return _sit_down(state, command)
    seat = _seat_of(state, command.player_id)
    if isinstance(command, StandUp) and _in_the_hand(state, seat):
        if command.player_id in state.leaving:
            raise Violation("already_leaving", f"{command.player_id} already stands up when hand "
                            f"{state.hand_id} ends", numbers={"hand": state.hand_id, "player": command.player_id})
        queued = StandUpQueued(seat, command.player_id, state.hand_id)  # type: ignore[arg-type]
        return [queued], evolve(state, queued)
    if _in_the_hand(state, seat):
        raise Violation("hand_in_progress", f"{command.player_id} is in hand {state.hand_id}: "
                        "top up once it is over",
                        numbers={"hand": state.hand_id, "player": command.player_id})
    if isinstance(command, StandUp):
        left = PlayerLeftTable(seat, command.player_id, state.stacks[seat])
        return [left], evolve(state, left)
    stack, most = state.stacks[seat], state.max_buy_in
    assert most is not None, "a cash table is created with its buy-in range"
    if isinstance(command.amount, bool) or not isinstance(command.amount, int) or command.amount <= 0:
        raise Violation("invalid_top_up", f"a top-up is a whole number of chips above 0, not {command.amount!r}",
                        numbers={"amount": command.amount})
    if stack + command.amount > most:
        # A stack that won its way over the maximum takes no top-up at all ("at most -256
        # more" said nothing).
        room = f"at most {chips(most - stack)} more" if stack < most else "the stack is already at or over it"
        raise Violation("top_up_over_max", f"{chips(stack)} + {chips(command.amount)} = {chips(stack + command.amount)} chips is over "
                        f"the maximum buy-in of {chips(most)}: {room}",
                        numbers={"stack": stack, "amount": command.amount, "max_buy_in": most})
    adjusted = ChipsAdjusted(seat, command.player_id, command.amount, len(state.chip_changes) + 1, "top_up")
    return [adjusted], evolve(state, adjusted)


def _sit_down(state: TableState, command: SitDown) -> tuple[list[Any], TableState]:
    if state.closing:
        raise Violation("table_closing", "the table is closing: nobody sits down")
    if command.player_id == EMPTY_SEAT or command.player_id in state.players:
        raise Violation("already_seated", f"{command.player_id} already sits at this table",
                        numbers={"player": command.player_id})
    empty = [seat for seat, player in enumerate(state.players) if player == EMPTY_SEAT]
    seat = command.seat if command.seat is not None else (empty[0] if empty else None)
    if seat is None:
        raise Violation("table_full", f"all {len(state.players)} seats are taken",
                        numbers={"seats": len(state.players)})
    if seat not in empty:
        raise Violation("seat_taken", f"seat {seat} is not an empty seat of this table (empty: {empty})",
                        numbers={"seat": seat, "empty_seats": empty})
    _check_buy_in(state.min_buy_in, state.max_buy_in, command.buy_in)  # type: ignore[arg-type]
    seated = PlayerSeatedAtTable(seat, command.player_id, command.buy_in)
    return [seated], evolve(state, seated)


def _finish_for_tournament(state: TableState) -> tuple[list[Any], TableState]:
    if state.tournament_id is None:
        raise Violation("not_tournament_table", "only a tournament finishes its tables; close this one instead")
    if state.hand_in_progress:
        raise Violation("hand_in_progress", f"hand {state.hand_id} is being played: the table finishes after it")
    finished = TableFinished(standings(state))
    return [finished], evolve(state, finished)


def _close(state: TableState) -> tuple[list[Any], TableState]:
    """Any table but a tournament's: finished now, or, during a hand, when it ends. An
    early close rates nobody (no results), whatever the standings."""
    if state.tournament_id is not None:
        raise Violation("tournament_table", "a tournament closes its own tables")
    if state.closing:
        raise Violation("table_closing", f"the table already closes when hand {state.hand_id} ends",
                        numbers={"hand": state.hand_id})
    event: Any = TableClosing(state.hand_id) if state.hand_id is not None and state.hand_in_progress else TableFinished(standings(state))
    return [event], evolve(state, event)


def _next_seat(state: TableState) -> int:
    """Games for points: the button moves one seat on, chips or not."""
    return 0 if state.button is None else (state.button + 1) % len(state.players)


def _dealing(state: TableState, draws: Draws | None) -> Dealing | None:
    return None if draws is None or state.salt is None else Dealing(draws, state.salt)


def _act(state: TableState, command: Act, draws: Draws | None,
         closes: list[TableState]) -> tuple[list[Any], TableState]:
    if not state.hand_in_progress:
        raise Violation("hand_over", "no hand is being played: start the next hand")
    position = state.position_of(command.player_id)
    if position is None:
        raise Violation("not_your_turn", f"{command.player_id} is not dealt in this hand",
                        numbers={"player": command.player_id})
    ruled: list[Any] = []
    if command.pushed is not None:
        ruled, command = _ruled(state, position, command)
    rules = game_rules(state.game)
    dealing = _dealing(state, draws)
    move = TableMove(command.player_id, position, command.action, command.to, command.discard,
                     command.defender, command.keep, command.line)
    game_command = rules.action(move, state.hand, dealing)
    try:
        hand_events, hand = _game_handle(rules, state.hand, game_command, dealing)
    except Violation as refused:
        raise _about_players(refused, state, command.player_id) from None
    return _with_closing(with_changes(state, hand=hand), [*ruled, *hand_events], closes)


def _about_players(refused: Violation, state: TableState, player_id: str) -> Violation:
    """A game's refusal of a table action, with who tried (`player`) and, when it was not
    their turn, whose turn it is (`to_act_player`): the game counts positions, the table
    and its clients know players. A `seat` the game names is its position in the hand:
    at the table `seat` is the table seat, as in every event, with `position` beside it."""
    numbers = {**refused.numbers}
    numbers.setdefault("player", player_id)
    position = numbers.get("seat")
    if type(position) is int and 0 <= position < len(state.hand_seats):
        numbers["seat"], numbers["position"] = state.hand_seats[position], position
    if refused.code in ("not_your_turn", "not_your_turn_to_show") and state.to_act is not None:
        numbers.setdefault("to_act_player", state.to_act)
    return Violation(refused.code, refused.detail, refused.rule, numbers)


def _ruled(state: TableState, position: int, command: Act) -> tuple[list[Any], Act]:
    """Chips and words (domain.rules.declarations) become the action they are ruled to be; the
    ruling is recorded beside it."""
    # Hold'em hands hold their betting; the table games' adapters wrap a game that does.
    betting = getattr(state.hand, "betting", None) or getattr(getattr(state.hand, "game", None), "betting", None)
    pushed = command.pushed
    if betting is None or pushed is None:
        raise Violation("illegal_action", "chips and words are ruled in betting games only")
    found, action, to = ruled_action(betting, position, pushed)
    event = ChipsRuled(state.hand_id, state.hand_seats[position], command.player_id, pushed.chips,  # type: ignore[arg-type]
                       pushed.said, pushed.order, found)
    return [event], with_changes(command, action=action, to=to, pushed=None)


# ------------------------------------------------------------- clocks and absences


def _required(now_ms: int | None) -> int:
    if now_ms is None:
        raise ValueError("the service passes the time (now_ms) for clocks")
    return now_ms


def _turn_passed(events: list[Any], state: TableState, now_ms: int | None, draws: Draws | None,
                 closes: list[TableState], *, deal_next: bool = True) -> tuple[list[Any], TableState]:
    """After the turn moved: the computer plays every absent player whose turn comes, an
    auto-deal table opens its next hand if these events closed one (`deal_next`: at most
    once per command, so absent players alone never play hand after hand), then the next
    present player's clock starts."""
    events = list(events)
    while (seat := state.seat_to_act) is not None and state.sitting_out[seat]:
        played, state = _play_for(state, seat, _away_reason(state), draws, closes)
        events.extend(played)
    if deal_next and _deals_next(state, events):
        opened, state = _start_next_hand(state, fresh_deal(state, draws), draws, closes)
        return _turn_passed([*events, *opened], state, now_ms, draws, closes, deal_next=False)
    seat = state.seat_to_act
    if state.action_clock_s is not None and seat is not None:
        deadline = _required(now_ms) + state.action_clock_s * 1000
        started = ClockStarted(state.hand_id, seat, state.players[seat], deadline)  # type: ignore[arg-type]
        events.append(started)
        state = evolve(state, started)
    return events, state


def _deals_next(state: TableState, events: list[Any]) -> bool:
    """An auto-deal table whose hand these events closed goes on to the next hand, unless
    it has finished or (a cash table, which never finishes by itself) fewer than two
    players have chips left: the action that busted one stands and the table waits."""
    return state.auto_deal and not state.finished and not state.hand_in_progress \
        and any(type(event) is HandClosed for event in events) \
        and len(seats_dealt_in(state)) >= MIN_SEATS


def fresh_deal(state: TableState, draws: Draws | None) -> StartNextHand:
    """The next hand's shuffle and salt, drawn through `draws` (the caller's randomness)."""
    if draws is None:
        raise ValueError("auto_deal needs fresh randomness: the service passes `draws`")
    deck = deck_texts(game_rules(state.game).uses_joker(state.settings))
    return StartNextHand(draws.shuffled(deck), draws.salt())


def _play_for(state: TableState, seat: int, reason: str, draws: Draws | None,
              closes: list[TableState]) -> tuple[list[Any], TableState]:
    """The computer's action for table seat `seat` (whose turn it is), through the game's
    decider like any other action."""
    rules = game_rules(state.game)
    position = state.position_of(state.players[seat])
    assert position is not None, "an automatic action is taken only for a seat in the hand"
    marker = AutomaticAction(state.hand_id, seat, state.players[seat], reason)  # type: ignore[arg-type]
    state = evolve(state, marker)
    kill = rules.dead_hand if reason == DEAD_HAND else None
    command = kill(state.hand, position) if kill is not None else \
        rules.auto_action(state.hand, position, reason == CLOCK_EXPIRED)
    hand_events, hand = _game_handle(rules, state.hand, command, _dealing(state, draws))
    return _with_closing(with_changes(state, hand=hand), [marker, *hand_events], closes)


def _away_reason(state: TableState) -> str:
    """How an absent player's turn is played: at a tournament's table they are dealt in and
    post their blinds and antes, but their hand is dead (TDA 2024 30) and folded at once,
    a free check or not; elsewhere the computer stands in for them (domain.live.autoplay)."""
    if state.tournament_id is not None and game_rules(state.game).dead_hand is not None:
        return DEAD_HAND
    return SITTING_OUT


def _expire_clock(state: TableState, command: ExpireClock, now_ms: int, draws: Draws | None,
                  closes: list[TableState]) -> tuple[list[Any], TableState]:
    clock = state.clock
    if clock is None or (clock.hand_id, clock.seat, clock.deadline_at_ms) != \
            (command.hand_id, command.seat, command.deadline_at_ms):
        raise Violation("clock_not_running",
                        f"no clock of seat {command.seat} in hand {command.hand_id} ends at "
                        f"{command.deadline_at_ms}: the player acted, or it was already expired",
                        numbers={"seat": command.seat, "deadline_at_ms": command.deadline_at_ms})
    if now_ms < clock.deadline_at_ms:
        raise Violation("clock_not_expired",
                        f"the clock ends at {clock.deadline_at_ms}, {clock.deadline_at_ms - now_ms} ms from now",
                        numbers={"deadline_at_ms": clock.deadline_at_ms, "now_ms": now_ms})
    if state.time_bank_s and clock.player_id not in state.time_banks_used:
        # The player's time bank, whole, before the clock acts for them.
        used = TimeBankUsed(clock.hand_id, clock.seat, clock.player_id, state.time_bank_s)
        extended = ClockStarted(clock.hand_id, clock.seat, clock.player_id,
                                clock.deadline_at_ms + state.time_bank_s * 1000)
        state = evolve(evolve(state, used), extended)
        return [used, extended], state
    expired = ClockExpired(clock.hand_id, clock.seat, clock.player_id, clock.deadline_at_ms, now_ms)
    state = evolve(state, expired)
    events: list[Any] = [expired]
    if state.missed_clocks[clock.seat] >= MISSED_CLOCKS_BEFORE_ABSENT and not state.sitting_out[clock.seat]:
        sat_out = PlayerSatOut(clock.seat, clock.player_id, MISSED_CLOCKS)
        state = evolve(state, sat_out)
        events.append(sat_out)
    # This turn is a timeout (check or fold) even for a player who is now away; the
    # computer's fuller policy plays their later turns.
    played, state = _play_for(state, clock.seat, CLOCK_EXPIRED, draws, closes)
    return _turn_passed([*events, *played], state, now_ms, draws, closes)


def _seat_of(state: TableState, player_id: str) -> int:
    seat = state.seat_of(player_id)
    if seat is None:
        raise Violation("not_seated", f"{player_id} has no seat at this table", numbers={"player": player_id})
    return seat


def _sit_out(state: TableState, command: SitOut, now_ms: int | None, draws: Draws | None,
             closes: list[TableState]) -> tuple[list[Any], TableState]:
    seat = _seat_of(state, command.player_id)
    if state.sitting_out[seat]:
        raise Violation("already_sitting_out", f"{command.player_id} is already sitting out",
                        numbers={"player": command.player_id})
    sat_out = PlayerSatOut(seat, command.player_id, REQUESTED)
    state = evolve(state, sat_out)
    if state.seat_to_act != seat:
        return [sat_out], state
    # Their turn, perhaps with their clock running: the computer acts now.
    return _turn_passed([sat_out], state, now_ms, draws, closes)


def _return_to_seat(state: TableState, command: ReturnToSeat) -> tuple[list[Any], TableState]:
    seat = _seat_of(state, command.player_id)
    if not state.sitting_out[seat]:
        raise Violation("not_sitting_out", f"{command.player_id} is not sitting out",
                        numbers={"player": command.player_id})
    returned = PlayerReturned(seat, command.player_id)
    return [returned], evolve(state, returned)


def automatic_flags(events: list[Any]) -> list[bool]:
    """Which of `events` the computer played: the game events after an AutomaticAction, up
    to the next table event."""
    flags = []
    automatic = False
    for event in events:
        if type(event) in TABLE_EVENT_CLASSES:
            automatic = isinstance(event, AutomaticAction)
            flags.append(False)
        else:
            flags.append(automatic)
    return flags


def _game_handle(rules: GameRules, hand: Any, command: Any, dealing: Dealing | None) -> tuple[list[Any], Any]:
    if dealing is None and rules.table_game is not None:
        raise ValueError(f"{rules.name} needs fresh randomness: the service passes `draws`")
    handled: tuple[list[Any], Any] = rules.adapter.handle(hand, command, dealing)
    return handled


def _closing(state: TableState, closes: list[TableState]) -> tuple[list[Any], TableState]:
    """HandClosed (and TableFinished) once the game's hand is over, and the table after
    them (evolved once: the checks below read it); the table right after HandClosed goes
    to `closes`."""
    if state.hand is None or not state.hand.over:
        return [], state
    rules = game_rules(state.game)
    chips = rules.plays_for_chips(state.settings)
    hand_points = getattr(state.hand, "points", ())
    stacks = tuple(SeatStack(seat, state.players[seat], state.hand.stacks[position],
                             hand_points[position] if hand_points else None)
                   for position, seat in enumerate(state.hand_seats))
    busted = tuple(entry.player_id for entry in stacks if chips and entry.stack == 0)
    closed = HandClosed(state.hand_id, stacks, busted, busted_by(state, busted))  # type: ignore[arg-type]
    events: list[Any] = [closed]
    after = evolve(state, closed)
    closes.append(after)
    with_chips = [seat for seat, stack in enumerate(after.stacks) if stack > 0]
    hands = rules.hands_in_match(state.settings)
    if state.closing:
        finished = TableFinished(standings(after))
        return [*events, finished], evolve(after, finished)
    if state.cash:
        for player_id in state.leaving:
            seat = after.players.index(player_id)
            left = PlayerLeftTable(seat, player_id, after.stacks[seat])
            events.append(left)
            after = evolve(after, left)
        return events, after  # players come and go between hands; the floor closes it
    if state.tournament_id is not None:
        return events, after  # the tournament finishes it
    if (chips and len(with_chips) < MIN_SEATS) or (hands is not None and after.hands_played >= hands):
        final = standings(after)
        finished = TableFinished(final, results_of(final))
        return [*events, finished], evolve(after, finished)
    return events, after


def _with_closing(state: TableState, events: list[Any],
                  closes: list[TableState]) -> tuple[list[Any], TableState]:
    closing, state = _closing(state, closes)
    return [*events, *closing], state
