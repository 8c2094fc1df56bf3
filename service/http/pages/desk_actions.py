"""What the desk's forms do (service.http.pages.desk posts them): each action reads its
form's fields, builds the domain command the API's view of the same name sends, and names
the roles that may send it (the clock is the organisers').

Actions that cannot be taken back lightly ask first: `confirm` says the consequence in
words (who is out and in what place, which level the clock goes to and with what time),
and the desk shows that on a page of its own with the same fields and a Confirm button,
before anything is sent (what the rules would refuse is refused at once instead: the
command is decided on the state first, and nothing is written). A form sent with
`confirmed=yes` acts at once. The question is
the server's, so it works with the pages' Content-Security-Policy (no inline script) and
without JavaScript at all.
"""
from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from flask import request

from domain.rules.violations import Violation
from domain.tournaments import commands as tournament_commands
from domain.tournaments import events as tournament_events
from domain.tournaments import tournament
from domain.tournaments.clock import LevelSet, read_clock
from domain.tournaments.seating import floor_move
from domain.tournaments.structure import level_number, period_index_of_level
from service.application import tournaments
from service.application.players import register_player
from service.http.api import application, event_store
from service.http.api.tables import actor_name
from service.http.api.tournament_floor import check_undo_rights
from service.http.api.tournament_requests import FLOOR, ORGANISERS
from service.http.auth import current_principal
from service.http.pages.frame import chips, clock_time
from service.http.problems import Problem

DESK_ROLES = ("admin", "organiser", "floor")
NAME_MAX = 100
REASON_MAX = 500
MAX_CHIPS = 2**53
"""The largest count a form takes (what a JSON number holds exactly)."""
CONFIRMED = "yes"


@dataclass(frozen=True)
class Context:
    """What an action reads: the tournament as loaded, the moment, the players' names."""
    loaded: tournaments.LoadedTournament
    now: int
    names: Mapping[str, str]

    @property
    def state(self) -> tournament.Tournament:
        return self.loaded.state

    def name(self, player_id: str) -> str:
        return self.names.get(player_id) or player_id


@dataclass(frozen=True)
class Action:
    roles: tuple[str, ...]
    command: Callable[[Context, str], Any]
    """(the context, the form's id) -> the domain command."""
    done: str
    confirm: Callable[[Context, list[object]], str | None] | None = None
    """(the context, the events the command would record) -> the consequence in words when
    the action must be confirmed first (None: at once)."""
    asks: tuple[str, ...] = ()
    """Refusals the confirmation page answers (its form asks for what is missing): shown
    the question instead of the refusal."""


# ---------------------------------------------------------------------- form fields


def text(name: str, max_length: int = NAME_MAX) -> str:
    value = request.form.get(name, "").strip()
    if not value or len(value) > max_length or "\x00" in value:
        raise invalid(name, f"1 to {max_length} characters, no NUL")
    return value


def whole(name: str, low: int, high: int) -> int:
    raw = request.form.get(name, "").strip()
    if not raw.lstrip("-").isdigit() or not low <= int(raw) <= high:
        raise invalid(name, f"a whole number from {low} to {high}")
    return int(raw)


def invalid(field: str, message: str) -> Problem:
    return Problem(400, "validation_error", f"{field}: {message}",
                   errors=[{"location": "form", "field": field, "messages": [message]}])


def confirmed() -> bool:
    return request.form.get("confirmed") == CONFIRMED


def _player(context: Context) -> str:
    return text("player_id")


def _seat_words(context: Context, player_id: str) -> str:
    at = context.state.seating.where.get(player_id)
    return f" (table {at[0]}, seat {at[1] + 1})" if at else ""


# --------------------------------------------------------------------------- the clock


def _target_period(context: Context) -> int:
    """The period a level form asks for: a step from the current one, or a level by number."""
    periods = context.state.clock.periods
    if request.form.get("step"):
        current = read_clock(context.state.clock, context.now).period_index or 0
        index = current + whole("step", -400, 400)
        if not 0 <= index < len(periods):
            raise Problem(422, "no_such_level", "there is no period there: the structure has "
                                                f"{len(periods)} periods", numbers={"period": index + 1})
        return index
    return period_index_of_level(periods, whole("level", 1, 200))


def _period_words(periods: tuple[Any, ...], index: int) -> str:
    period = periods[index]
    if period.is_break:
        return "the break"
    blinds = f"{chips(period.small_blind)}/{chips(period.big_blind)}" + (f" ante {chips(period.ante)}" if period.ante else "")
    return f"level {level_number(periods, index)} ({blinds})"


def _set_level(context: Context, form_id: str) -> Any:
    return tournament_commands.SetLevel(_target_period(context), at=context.now)


def _confirm_level(context: Context, events: list[object]) -> str:
    """Says the time the level will have as the decision records it: its full time going
    forward, the time it had when the clock left it going back."""
    periods = context.state.clock.periods
    reading = read_clock(context.state.clock, context.now)
    target = _target_period(context)
    now_at = (f"{_period_words(periods, reading.period_index)} with {clock_time(reading.remaining_s)} left"
              if reading.period_index is not None else "not started")
    remaining = next((e.remaining_s for e in events if isinstance(e, LevelSet)), periods[target].length_s)
    full = remaining >= periods[target].length_s
    return (f"The clock goes from {now_at} to {_period_words(periods, target)} with "
            f"{clock_time(remaining)}{' (its full time)' if full else ' left (the time it had)'}. "
            "Hands dealt from now play its blinds.")


def _adjust(context: Context, form_id: str) -> Any:
    return tournament_commands.AdjustClock(whole("seconds", -86400, 86400), at=context.now, confirm=confirmed())


def _confirm_adjust(context: Context, events: list[object]) -> str | None:
    """Only an adjustment that leaves more time than the whole period asks first (a typo
    such as +6000 s on a 20-minute level)."""
    reading = read_clock(context.state.clock, context.now)
    if reading.period_index is None:
        return None
    seconds = whole("seconds", -86400, 86400)
    length = context.state.clock.periods[reading.period_index].length_s
    after = int(reading.remaining_s) + seconds
    if after <= length:
        return None
    return (f"Adding {clock_time(seconds)} leaves {clock_time(after)} on a period of "
            f"{clock_time(length)}: longer than the whole period.")


def _start(context: Context, form_id: str) -> Any:
    return tournament_commands.StartTournament(at=context.now, seed=tournaments.new_seed())


def _confirm_start(context: Context, events: list[object]) -> str | None:
    settings = context.state.settings
    assert settings is not None
    early = int(settings.starts_at - context.now)
    if early <= 0:
        return None
    return (f"The published start is {tournament.iso(settings.starts_at)}, in {clock_time(early)}. "
            f"Starting now draws the seats for the {len(context.state.registered)} players registered "
            "and starts level 1; later entrants are late registrations.")


# ------------------------------------------------------------------------- the players


def _register(context: Context, form_id: str) -> Any:
    """A new player by name (the form's id makes the same player of a form sent twice),
    or a registered player by id (a re-entry of a player who is out)."""
    player_id = text("player_id") if request.form.get("player_id", "").strip() else ""
    if player_id:
        if event_store().stream_version(f"player-{player_id}") == 0:
            raise Problem(422, "unknown_player", f"no player {player_id} is registered")
    else:
        name = text("name")
        player_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"cardroom:desk:{form_id}"))
        if event_store().stream_version(f"player-{player_id}") == 0:
            register_player(application(), player_id, name, actor=actor_name(current_principal()))
    return tournament_commands.Register(player_id, at=context.now, seed=tournaments.new_seed())


def _move(context: Context, form_id: str) -> Any:
    """A floor move. The desk numbers seats from 1, as its tables show them, so a seat
    that is not open is refused in the desk's numbers."""
    player, table, seat = _player(context), whole("to_table", 1, 100000), whole("to_seat", 1, 10)
    try:
        floor_move(context.state.seating, player, table, seat - 1)
    except Violation as refused:
        if refused.code != "seat_taken":
            raise
        raise Problem(422, "seat_taken", f"seat {seat} at table {table} is not an open seat",
                      numbers={"table": table, "seat": seat}) from None
    return tournament_commands.MovePlayer(player, table, seat - 1, at=context.now)


def _eliminate(context: Context, form_id: str) -> Any:
    """The player out, and who busted them when the floor says (bounties, records): in a
    split pot, the pot's other winners too."""
    busted_by = request.form.get("busted_by", "").strip()
    split = tuple(dict.fromkeys(w.strip() for w in request.form.getlist("also_busted_by")
                                if w.strip() and w.strip() != busted_by))
    if any(len(w) > NAME_MAX for w in split):
        raise invalid("also_busted_by", f"player ids of 1 to {NAME_MAX} characters")
    return tournament_commands.Eliminate((tournament_commands.Bust(_player(context), 0, busted_by=text("busted_by") if busted_by else None,
                                                                   also_busted_by=split),),
                                         at=context.now, seed=tournaments.new_seed())


def _confirm_eliminate(context: Context, events: list[object]) -> str:
    """In words, what the bust records: out and placed, or (in the rebuy period) the seat
    kept until they rebuy or decline."""
    player = _player(context)
    who = f"{context.name(player)}{_seat_words(context, player)}"
    if any(isinstance(e, tournament_events.RebuyAwaited) for e in events):
        return (f"{who} is out of chips. In the rebuy period they keep the seat until they rebuy or "
                "decline (or their time passes); the desk then shows Rebuy and Decline for them.")
    return f"{who} is out of the tournament, {_placed_words(context, events, player)}."


def _placed_words(context: Context, events: list[object], player: str) -> str:
    place = next((e.place for event in events if isinstance(event, tournament_events.PlayersEliminated)
                  for e in event.eliminations if e.player_id == player), None)
    return f"placed {_ordinal(place)} of {context.state.entries} entries" if place else "placed"


def _deal(context: Context, form_id: str) -> Any:
    """The deal agreed: a field `amount:<player_id>` for each player left, and what is
    left to play for."""
    shares = tuple(tournament_commands.DealShare(player, whole(f"amount:{player}", 0, MAX_CHIPS))
                   for player in sorted(context.state.seating.where))
    return tournament_commands.RecordDeal(shares, whole("left_to_play_for", 0, MAX_CHIPS), at=context.now)


def _confirm_deal(context: Context, events: list[object]) -> str:
    deal = next(e for e in events if isinstance(e, tournament_events.DealRecorded))
    shares = ", ".join(f"{context.name(s.player_id)} {chips(s.amount)}" for s in deal.shares)
    left = (f"; {chips(deal.left_to_play_for)} is left to play for, paid to the winner" if deal.left_to_play_for
            else "; nothing is left to play for")
    return (f"The deal pays {shares}{left}: {chips(deal.remaining_pool)} in all, the prize money still to pay. "
            "Their prizes follow the deal whatever their places; a deal is recorded once.")


def _decline(context: Context, form_id: str) -> Any:
    return tournament_commands.DeclineRebuy(_player(context), at=context.now, seed=tournaments.new_seed())


def _confirm_decline(context: Context, events: list[object]) -> str:
    player = _player(context)
    return (f"{context.name(player)}{_seat_words(context, player)} declines the rebuy and is out of the "
            f"tournament, {_placed_words(context, events, player)}.")


def _rebuy(context: Context, form_id: str) -> Any:
    return tournament_commands.Rebuy(_player(context), at=context.now, double=request.form.get("double") == "yes",
                                     seed=tournaments.new_seed())


def _disqualify(context: Context, form_id: str) -> Any:
    return tournament_commands.Disqualify(_player(context), text("reason", REASON_MAX), at=context.now,
                                          seed=tournaments.new_seed())


def _confirm_disqualify(context: Context, events: list[object]) -> str:
    player = _player(context)
    return (f"{context.name(player)}{_seat_words(context, player)} is disqualified: out at once, "
            "their chips taken out of play. The reason is recorded in the log.")


def _ordinal(place: int) -> str:
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


def _table_counts(context: Context, form_id: str) -> Any:
    """Physical tables: the chip counts the floor has for one table, a field
    `chips:<player_id>` for each player at it, left blank for a player not counted. A
    player counted at 0 is out; the others' counts are reported with them; without anyone
    out, the counts alone."""
    state = context.state
    number = whole("table", 1, 100000)
    table = next((t for t in state.seating.tables if t is not None and t.number == number), None)
    if table is None:
        raise Problem(422, "unknown_table", f"there is no table {number} in play", numbers={"table": number})
    counts = tuple(tournament_commands.ChipCount(player, whole(f"chips:{player}", 0, MAX_CHIPS))
                   for player in table.seats if player is not None and request.form.get(f"chips:{player}", "").strip())
    if not counts:
        raise invalid("chips", "count at least one player's chips")
    busted = tuple(tournament_commands.Bust(c.player_id, state.stack_of(c.player_id)) for c in counts if c.chips == 0)
    if busted:
        return tournament_commands.Eliminate(busted, at=context.now, seed=tournaments.new_seed(), counts=counts)
    return tournament_commands.ReportChipCounts(counts, at=context.now)


def undo_words(context: Context) -> str | None:
    """What Undo would take back, in words; None when nothing can be."""
    act = context.state.undoable
    if act is None or context.state.undo_blocked_by is not None:
        return None
    return _act_words(context, act)


def undo_blocked_words(context: Context) -> str | None:
    """Why the last elimination, rebuy or clock change can no longer be undone, in words."""
    act, blocked = context.state.undoable, context.state.undo_blocked_by
    if act is None or blocked is None:
        return None
    return f"{_act_words(context, act)} can no longer be undone: {BLOCKERS.get(blocked, 'something later')} depends on it."


BLOCKERS = {"PlayerMoved": "a move", "TableBroken": "a table broken", "HandDealt": "a hand dealt",
            "HandFinished": "a hand finished", "ChipsCounted": "a chip count", "PlayersEliminated": "a later bust",
            "RebuyTaken": "a later rebuy", "PlayerRegistered": "a registration", "TournamentFinished": "the finish",
            "DealRecorded": "the deal"}


def _act_words(context: Context, act: Any) -> str:
    if act.kind == "elimination":
        return "the elimination of " + ", ".join(context.name(s.player_id) for s in act.seats)
    if act.kind == "rebuy":
        return f"the rebuy of {context.name(getattr(act.event, 'player_id', ''))}"
    return f"the clock change ({CLOCK_CHANGES.get(type(act.event).__name__, 'the last one')})"


def _undo(context: Context) -> Any:
    """Undo, with the roles of what it takes back, as the API judges them."""
    check_undo_rights(context.state, current_principal().role)
    return tournament_commands.Undo(at=context.now)


CLOCK_CHANGES = {"ClockPaused": "pause", "ClockResumed": "resume", "ClockAdjusted": "adjustment",
                 "LevelSet": "level set"}


ACTIONS: dict[str, Action] = {
    "start": Action(FLOOR, _start, "The tournament started.", _confirm_start),
    "pause": Action(ORGANISERS, lambda c, f: tournament_commands.PauseClock(at=c.now), "The clock is paused."),
    "resume": Action(ORGANISERS, lambda c, f: tournament_commands.ResumeClock(at=c.now), "The clock runs again."),
    "adjust": Action(ORGANISERS, _adjust, "The clock is adjusted.", _confirm_adjust),
    "level": Action(ORGANISERS, _set_level, "The level is set.", _confirm_level),
    "register": Action(DESK_ROLES, _register, "Registered."),
    "rebuy": Action(FLOOR, _rebuy, "Rebuy taken."),
    "decline": Action(FLOOR, _decline, "Rebuy declined: the player is out.", _confirm_decline),
    "seated": Action(FLOOR, lambda c, f: tournament_commands.ConfirmSeated(whole("move_id", 1, 2**31 - 1), at=c.now),
                     "Seated: the move is done."),
    "undo": Action(FLOOR, lambda c, f: _undo(c), "Undone."),
    "add-on": Action(FLOOR, lambda c, f: tournament_commands.AddOn(_player(c), at=c.now), "Add-on taken."),
    "move": Action(FLOOR, _move, "Move made or queued."),
    "cancel-move": Action(FLOOR, lambda c, f: tournament_commands.CancelMove(whole("move_id", 0, 2**31 - 1)),
                          "Move cancelled."),
    "eliminate": Action(FLOOR, _eliminate, "Elimination recorded.", _confirm_eliminate, asks=("busted_by_required",)),
    "deal": Action(ORGANISERS, _deal, "The deal is recorded.", _confirm_deal),
    "disqualify": Action(FLOOR, _disqualify, "Disqualification recorded.", _confirm_disqualify),
    "counts": Action(FLOOR, _table_counts, "Chip counts recorded."),
    "hand-for-hand": Action(FLOOR, lambda c, f: tournament_commands.StartHandForHand(at=c.now), "Hand-for-hand is on."),
    "hand-for-hand-off": Action(FLOOR, lambda c, f: tournament_commands.StopHandForHand(
        at=c.now, seed=tournaments.new_seed()), "Hand-for-hand is off."),
}
