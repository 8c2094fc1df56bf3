"""Tournaments as a service: the application functions HTTP views and Celery tasks share.

Stream `tournament-<id>`, on the one handling path (service.application.handling): every
write loads the stream, folds the domain's `evolve`, lets `decide` judge the command and
appends with the expected version (and the caller's idempotency key). Randomness (the seat draw, balancing ties) is drawn here with
`secrets` and travels in the command, so the event records it and replay never draws.
Times are whole seconds since the epoch: the store refuses floats in events.

Deadlines (the start time, level ends) are facts derivable from the log; `due_commands`
says what a clock sweep should record at `now`, and acting twice changes nothing because
each command is decided on the state at the version it read.
"""
from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import reduce
from typing import Any

from domain.records import from_record, to_record
from domain.rules.violations import Violation
from domain.tournaments import commands as tournament_commands
from domain.tournaments import decider as tournament_decider
from domain.tournaments import events as tournament_events
from domain.tournaments import evolver as tournament_evolver
from domain.tournaments import tournament
from domain.tournaments.cashier import reconcile
from domain.tournaments.clock import read_clock, roll_forward
from domain.tournaments.payouts import chip_chop, icm_chop, icm_equities
from domain.tournaments.structure import level_number
from service.adapters.store.base import NewEvent, RecordedEvent
from service.application import ratings
from service.application.handling import Decision, Loaded, StreamKind, UnknownEventType, UnreadableStream, folded
from service.application.parts import Application

STREAM_PREFIX = "tournament-"
TOURNAMENT_RATING_GAME = "tournament"
CACHED_STREAMS = 256
# Without an expected version from the caller a lost race is retried on fresh state:
# the command is judged again, so nothing stale is written.
RETRIES_WITHOUT_EXPECTED_VERSION = 5
SEED_BITS = 32  # small enough to survive any JSON client as a number


@dataclass(frozen=True)
class Outcome:
    version: int
    events: tuple[dict[str, Any], ...]  # {"version", "type", "data"} of each recorded event
    state: Any
    deduplicated: bool = False


def _evolve_record(state: tournament.Tournament, record: RecordedEvent) -> tournament.Tournament:
    if record.type not in tournament_events.EVENT_TYPES:
        raise UnknownEventType(record.type)
    return tournament_evolver.evolve(state, from_record(tournament_events.EVENT_TYPES, record.type, record.data))


def _fold(state: tournament.Tournament, records: Sequence[RecordedEvent]) -> tournament.Tournament:
    return folded(state, records, _evolve_record)


TOURNAMENTS: StreamKind[tournament.Tournament] = StreamKind(
    STREAM_PREFIX, tournament.INITIAL, _fold, cached=CACHED_STREAMS, retries=RETRIES_WITHOUT_EXPECTED_VERSION)


def _execute(app: Application, tournament_id: str, command: Any, *, expected_version: int | None = None,
             idempotency_key: str | None = None, actor: str | None = None,
             metadata: Mapping[str, Any] | None = None,
             loaded: Loaded[tournament.Tournament] | None = None) -> Outcome:
    """Decide `command` on the tournament's state (`loaded` if the caller has it) and
    append what it decided; `metadata` goes on every event."""
    def decide(loaded: Loaded[tournament.Tournament]) -> Decision[tournament.Tournament]:
        events = tournament_decider.decide(loaded.state, command)
        return Decision([NewEvent(*to_record(event), metadata=dict(metadata or {})) for event in events],
                        reduce(tournament_evolver.evolve, events, loaded.state), events)

    handled = app.tournaments.handle(stream_id(tournament_id), decide, expected_version=expected_version,
                                     idempotency_key=idempotency_key, actor=actor, loaded=loaded)
    # A tournament's events are public; who wrote them (the metadata) is not in the answer.
    return Outcome(handled.version, tuple({"version": e["version"], "type": e["type"], "data": e["data"]}
                                          for e in handled.events), handled.state, handled.deduplicated)


# --- tournaments -----------------------------------------------------------------------

def stream_id(tournament_id: str) -> str:
    return STREAM_PREFIX + tournament_id


def new_seed() -> int:
    return secrets.randbits(SEED_BITS)


@dataclass(frozen=True)
class LoadedTournament:
    tournament_id: str
    version: int
    state: tournament.Tournament
    game: str
    betting: str
    idempotency_keys: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    """Keys recorded on the stream -> (first, last) version they wrote."""

    @property
    def exists(self) -> bool:
        return self.version > 0


def load_tournament(app: Application, tournament_id: str, *, read: bool = True) -> LoadedTournament:
    """The tournament as it is now; with `read` False, as this process last read or wrote
    it when it holds it (no read: for a caller that read it in the transaction it is in,
    whose own writes keep what it holds current, and whose writes are appended at the
    version they were decided on)."""
    stream = stream_id(tournament_id)
    loaded = app.tournaments.load(stream) if read else app.tournaments.held_or_load(stream)
    # The game and betting kind are the tables' business, not the tournament decider's:
    # they ride in the creation event's metadata.
    return LoadedTournament(tournament_id, loaded.version, loaded.state,
                            str(loaded.first_metadata.get("game", "")),
                            str(loaded.first_metadata.get("betting", "")), loaded.idempotency_keys)


def create_tournament(app: Application, tournament_id: str, settings: tournament_commands.Settings,
                      game: str, betting: str, *, actor: str | None = None,
                      idempotency_key: str | None = None, now: float | None = None) -> Outcome:
    """`now`: a start before it is refused (None: not checked, for replaying old schedules)."""
    return _execute(app, tournament_id, tournament_commands.CreateTournament(tournament_id, settings, now),
                    expected_version=0, idempotency_key=idempotency_key, actor=actor,
                    metadata={"game": game, "betting": betting})


def send(app: Application, tournament_id: str, command: Any, *, expected_version: int | None = None,
         actor: str | None = None, idempotency_key: str | None = None) -> Outcome:
    """Any tournament command on an existing tournament. A command that finishes the
    tournament also rates it (idempotent: the clock sweep retries if this is lost)."""
    current = app.tournaments.load_for_write(stream_id(tournament_id), expected_version)
    if not current.version:
        raise Violation("unknown_tournament", f"there is no tournament {tournament_id}")
    outcome = _execute(app, tournament_id, command, expected_version=expected_version,
                       idempotency_key=idempotency_key, actor=actor, loaded=current)
    if outcome.state.status == tournament.FINISHED:
        rate_finished(app, tournament_id, outcome.state)
    return outcome


def rating_result_id(tournament_id: str) -> str:
    return STREAM_PREFIX + tournament_id


def rate_finished(app: Application, tournament_id: str, state: tournament.Tournament) -> None:
    ratings.record_result(app, state.rating_result(rating_result_id(tournament_id), TOURNAMENT_RATING_GAME),
                          actor="tournament")


def due_commands(state: tournament.Tournament, now: int) -> list[Any]:
    """What the clock sweep records at `now`: the start once its time has come, and each
    level that began by itself since the last recorded one, stamped with the moment it
    began (so recording it leaves the derived clock exactly as it was)."""
    settings = state.settings
    if settings is None:
        return []
    if state.status == tournament.REGISTERING:
        # Only with auto_start: otherwise the director starts it (early or late).
        if settings.auto_start and now >= settings.starts_at and len(state.registered) >= settings.min_players:
            return [tournament_commands.StartTournament(at=now, seed=new_seed())]
        return []
    if state.status == tournament.RUNNING and state.rebuys_expired(now):
        return [tournament_commands.ExpireRebuys(at=now, seed=new_seed())]
    clock = state.clock
    if state.status != tournament.RUNNING or clock.period_index is None or clock.paused:
        return []
    rolled = roll_forward(clock, now)
    commands: list[Any] = []
    began = clock.ends_at
    assert rolled.period_index is not None
    for index in range(clock.period_index + 1, rolled.period_index + 1):
        commands.append(tournament_commands.StartLevel(index, at=int(began)))
        began += clock.periods[index].length_s
    return commands


def act_on_deadlines(app: Application, tournament_id: str, now: int, *,
                     actor: str = "clock") -> list[Outcome]:
    """Record whatever is due, each at the version it was decided on; a conflict means
    someone else acted first and the next sweep looks again."""
    outcomes = []
    loaded = load_tournament(app, tournament_id)
    if loaded.state.status == tournament.FINISHED:
        rate_finished(app, tournament_id, loaded.state)
        return []
    version = loaded.version
    for command in due_commands(loaded.state, now):
        outcome = send(app, tournament_id, command, expected_version=version, actor=actor)
        outcomes.append(outcome)
        version = outcome.version
    return outcomes


def tournament_ids(app: Application) -> list[str]:
    return [s[len(STREAM_PREFIX):] for s in app.store.list_streams(STREAM_PREFIX)]


# --- the read view ---------------------------------------------------------------------

def tournament_view(loaded: LoadedTournament, now: float) -> dict[str, Any]:
    """Status, level and clock derived from the events and `now`, tables, standings and
    payouts: what `GET /v1/tournaments/{id}` answers. A state whose instants no date
    can show (stored before the limits on them) is an UnreadableStream."""
    try:
        return _view(loaded, now)
    except (ValueError, OverflowError, OSError) as refused:
        raise UnreadableStream(stream_id(loaded.tournament_id), loaded.version, str(refused)) from refused


def _view(loaded: LoadedTournament, now: float) -> dict[str, Any]:
    state = loaded.state
    settings = state.settings
    assert settings is not None
    view: dict[str, Any] = {
        "id": loaded.tournament_id,
        "version": loaded.version,
        "name": settings.name,
        "game": loaded.game,
        "betting": loaded.betting,
        "status": state.status,
        "starts_at": tournament.iso(settings.starts_at),
        "starting_stack": settings.starting_stack,
        "buy_in": settings.buy_in,
        "table_size": settings.table_size,
        "late_registration_until_level": settings.late_registration_until_level,
        "hand_for_hand": state.hand_for_hand,
        "registered": list(state.registered) if state.status == tournament.REGISTERING else [],
        "entries": state.entries,
        "players_left": state.seating.players if state.status != tournament.REGISTERING else len(state.registered),
        "clock": _clock_view(state, now),
        "tables": _tables_view(loaded.tournament_id, state),
        "standings": _standings_view(state),
        "prize_pool": state.prize_pool,
        "payouts": [{"place": place, "amount": amount} for place, amount in enumerate(state.payout_table(), start=1)],
        "prizes": _prizes_view(state),
        "money": money_view(state),
        "bounties": bounty_ledger(state),
        "deal": _deal_view(state),
        "chips": _chips_view(state),
        "pending_moves": [{"move_id": m.move_id, "player_id": m.player_id, "to_table": m.to_table,
                           "to_seat": m.to_seat + 1, "asked_at": tournament.iso(m.at)} for m in state.pending_moves],
        "moves": moves_view(state, now),
        "awaiting_rebuy": [{"player_id": a.player_id, "table": a.table, "busted_at": tournament.iso(a.at),
                            "until": _rebuy_until(state, a)} for a in state.awaiting_rebuy],
        "auto_start": settings.auto_start,
        "min_players": settings.min_players,
        "action_clock_s": settings.action_clock_s,
        "time_bank_s": settings.time_bank_s,
        "undo": _undo_view(state),
    }
    return view


def _rebuy_until(state: tournament.Tournament, awaited: tournament_events.RebuyAwaited) -> str:
    """When the wait ends: an instant at physical tables, the next hand's end at service tables."""
    settings = state.required_settings
    if settings.tables == tournament_commands.TABLES_PHYSICAL:
        return tournament.iso(awaited.at + settings.rebuy_grace_s)
    return "the end of the next hand at the table"


def _undo_view(state: tournament.Tournament) -> dict[str, Any] | None:
    """What POST .../undo would undo, and what blocks it."""
    act = state.undoable
    if act is None:
        return None
    return {"kind": act.kind, "event": type(act.event).__name__, "blocked_by": state.undo_blocked_by}


def moves_view(state: tournament.Tournament, now: float) -> dict[str, Any]:
    """Moves to call out, seats counted from 1: pending (physical tables, until seated
    or move_call_s), the recent ones (newest first) and the floor's queued moves."""
    settings = state.required_settings
    pending = {c.move_id for c in state.pending_move_calls(now)}

    def shown(call: tournament.MoveCall) -> dict[str, Any]:
        return {"move_id": call.move_id, "player_id": call.player_id, "from_table": call.from_table,
                "from_seat": call.from_seat + 1, "to_table": call.to_table, "to_seat": call.to_seat + 1,
                "reason": call.reason, "at": tournament.iso(call.at), "pending": call.move_id in pending,
                "pending_until": tournament.iso(call.at + settings.move_call_s) if call.move_id in pending else None,
                "seated_at": None if call.seated_at is None else tournament.iso(call.seated_at)}

    return {
        "pending": [shown(c) for c in state.move_calls if c.move_id in pending],
        "recent": [shown(c) for c in reversed(state.move_calls)],
        "queued": [{"move_id": m.move_id, "player_id": m.player_id, "to_table": m.to_table,
                    "to_seat": m.to_seat + 1} for m in state.pending_moves],
    }


def _chips_view(state: tournament.Tournament) -> dict[str, Any]:
    """The chip ledger: chips in play = issued - removed."""
    if state.status == tournament.REGISTERING:
        return {}
    with_chips = state.players_with_chips
    return {"in_play": state.chips_in_play, "issued": state.chips_issued, "removed": state.chips_removed,
            "rebuys": state.rebuys, "add_ons": state.add_ons, "known": state.chips_known,
            "uncounted": state.chips_in_play - state.chips_known,
            # The ledger knows the chips in play exactly, whoever holds them.
            "average_stack": state.chips_in_play // with_chips if with_chips else None}


def _clock_view(state: tournament.Tournament, now: float) -> dict[str, Any]:
    reading = read_clock(state.clock, now)
    periods = state.clock.periods
    view: dict[str, Any] = {
        "started": reading.started,
        # Periods and seats are counted from 1 at the edge; events keep their indexes.
        "period": None if reading.period_index is None else reading.period_index + 1, "level": reading.level,
        "on_break": reading.on_break, "paused": reading.paused,
        "remaining_s": int(reading.remaining_s), "blinds": None, "next": None,
        "ends_at": None if not reading.started or reading.paused else tournament.iso(now + reading.remaining_s),
    }
    if reading.level_in_force is not None:
        view["blinds"] = _blinds(periods[reading.level_in_force])
    if reading.period_index is not None and reading.period_index + 1 < len(periods):
        following = periods[reading.period_index + 1]
        view["next"] = ({"break": True, "minutes": following.minutes, "seconds": following.seconds}
                        if following.is_break else
                        {"break": False, "level": level_number(periods, reading.period_index + 1),
                         **_blinds(following)})
    return view


def _blinds(period: Any) -> dict[str, Any]:
    return {"small_blind": period.small_blind, "big_blind": period.big_blind, "ante": period.ante,
            "big_blind_ante": period.big_blind_ante}


def _tables_view(tournament_id: str, state: tournament.Tournament) -> list[dict[str, Any]]:
    shown = []
    waiting = state.awaiting_players
    for table in state.seating.tables:
        if table is None:
            continue
        shown.append({
            "number": table.number,
            # The live table's id (service.application.tournament_tables.table_id_for), where its players act.
            "table_id": f"{tournament_id}-table-{table.number}",
            "players": [{"seat": seat, "player_id": player, "chips": state.stack_of(player),
                         "awaiting_rebuy": player in waiting}
                        for seat, player in enumerate(table.seats, start=1) if player is not None],
            "playing_hand": table.number in state.hands_in_progress,
        })
    return shown


def _standings_view(state: tournament.Tournament) -> list[dict[str, Any]]:
    order = state.finishing_order() if state.status == tournament.FINISHED else \
        sorted(state.standings, key=lambda e: e.place)
    return [{"player_id": e.player_id, "place": e.place, **({"busted_by": e.busted_by} if e.busted_by else {})}
            for e in order]


def _prizes_view(state: tournament.Tournament) -> list[dict[str, Any]]:
    if state.status != tournament.FINISHED or state.settings is None:
        return []
    return [{"player_id": p.player_id, "place": p.place, "amount": p.amount} for p in state.prizes()]


# --- money -----------------------------------------------------------------------------

def money_view(state: tournament.Tournament) -> dict[str, Any]:
    """The event's prices and the cashier's reconciliation (running-events.md, Money)."""
    s = state.required_settings
    books = reconcile(state)
    return {
        "buy_in": s.buy_in, "fee": s.fee, "rebuy_price": s.rebuy_price, "rebuy_fee": s.rebuy_fee,
        "add_on_price": s.add_on_price, "add_on_fee": s.add_on_fee, "guarantee": s.guarantee,
        "payout_unit": s.payout_unit,
        "payout_kind": "fixed" if s.payout_fixed else "preset" if s.payout_preset else "percent",
        "bounty": {"kind": s.bounty_kind, "amount": s.bounty, "cash_percent": s.bounty_cash_percent}
        if s.bounty_kind else None,
        "reconciliation": {
            "collected": books.collected, "contributions": books.contributions, "fees": books.fees,
            "bounties": books.bounties, "overlay": books.overlay, "prize_pool": books.prize_pool,
            "prizes_paid": books.prizes_paid, "bounties_paid": books.bounties_paid, "paid": books.paid,
            "left": books.left,
        },
    }


def bounty_ledger(state: tournament.Tournament) -> list[dict[str, Any]]:
    """Per player who won or carries a bounty: the bounties won (whose, cash, added to
    their own head), the cash total and the bounty on their head now."""
    won: dict[str, list[dict[str, Any]]] = {}
    for award in state.bounties_won:
        won.setdefault(award.winner, []).append({"busted": award.busted, "cash": award.cash, "head": award.head})
    players = sorted(set(won) | {p for p, head in state.bounty_heads.items() if head})
    return [{"player_id": p, "won": won.get(p, []), "cash": sum(w["cash"] for w in won.get(p, [])),
             "head": state.bounty_heads.get(p, 0)} for p in players]


def _deal_view(state: tournament.Tournament) -> dict[str, Any] | None:
    deal = state.deal
    if deal is None:
        return None
    return {"shares": [{"player_id": s.player_id, "amount": s.amount, **({"place": s.place} if s.place else {})}
                       for s in deal.shares],
            "left_to_play_for": deal.left_to_play_for, "remaining_pool": deal.remaining_pool,
            "at": tournament.iso(deal.at)}


def deal_figures(state: tournament.Tournament) -> dict[str, Any]:
    """For the players left: the prizes still open, each player's chips, ICM equity and
    whole-unit ICM deal, and the chip chop (running-events.md, Deals). A deal needs every
    player's chips: chips not yet counted (physical tables) are a 422 `stacks_unknown`."""
    players = sorted(state.seating.where, key=lambda p: (-state.stack_of(p), p))  # the chip leader first
    stacks = [state.stack_of(p) for p in players]
    prizes = state.open_prizes()
    if any(stack <= 0 for stack in stacks) or state.chips_known != state.chips_in_play:
        raise Violation("stacks_unknown", "a deal needs every player's chips: count them first (chips in play "
                        f"{state.chips_in_play}, counted {state.chips_known})",
                        numbers={"chips_in_play": state.chips_in_play, "chips_known": state.chips_known})
    if len(players) < 2:
        raise Violation("invalid_stacks", f"a deal is between 2 players or more, not {len(players)}",
                        numbers={"players": len(players)})
    equities = icm_equities(stacks, prizes)
    icm = icm_chop(stacks, prizes)
    chop = chip_chop(stacks, prizes)
    return {
        "remaining_pool": state.remaining_pool, "open_prizes": list(prizes),
        "players": [{"player_id": p, "chips": stack, "icm_equity": round(equity, 2), "icm": deal, "chip_chop": chopped}
                    for p, stack, equity, deal, chopped in zip(players, stacks, equities, icm, chop)],
    }
