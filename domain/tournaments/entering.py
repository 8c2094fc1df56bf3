"""Entries and money: registration (late, re-entries), the start, rebuys and add-ons, and
the deal.
"""
from __future__ import annotations

import random
from functools import reduce

from domain.rules.betting import chips as chips_written  # "chips" names a stack here
from domain.tournaments.clock import LevelStarted
from domain.tournaments.commands import AddOn, DeclineRebuy, ExpireRebuys, Rebuy, RecordDeal, Register, Settings, StartTournament, Unregister
from domain.tournaments.events import AddOnTaken, DealRecorded, PlayerRegistered, PlayerSeated, PlayerUnregistered, RebuyDeclined, RebuyTaken, TournamentStarted
from domain.tournaments.evolver import evolve
from domain.tournaments.placing import out_after_waiting
from domain.tournaments.seating import draw_seating, seat_late_entrant
from domain.tournaments.settling import balance, settle
from domain.tournaments.tournament import REGISTERING, RUNNING, Tournament, late_registration_open, level_of, rebuy_open, refuse


def register(state: Tournament, command: Register) -> list[object]:
    settings = state.required_settings
    player = command.player_id
    if state.status == REGISTERING:
        if player in state.registered:
            raise refuse("already_registered", f"player {player} is already registered", player=player)
        return [PlayerRegistered(player)]
    if state.status != RUNNING or not late_registration_open(state, settings, command.at):
        raise refuse("registration_closed", "registration is closed",
                     late_registration_until_level=settings.late_registration_until_level,
                     level=level_of(state, command.at))
    if player in state.seating.where or any(b.player_id == player for b in state.round_busts):
        raise refuse("already_registered", f"player {player} is still in the tournament", player=player)
    entries = state.entries_by_player.get(player, 0)
    if entries > settings.re_entries_allowed:
        raise refuse(
            "re_entry_not_allowed",
            f"player {player} has entered {entries} times; {settings.re_entries_allowed} re-entries allowed",
            entries=entries, re_entries_allowed=settings.re_entries_allowed,
        )
    registered = PlayerRegistered(player, re_entry=entries > 0)
    _, seat = seat_late_entrant(state.seating, player, random.Random(command.seed))
    events: list[object] = [registered, PlayerSeated(seat, command.seed)]
    after = reduce(evolve, events, state)
    return events + balance(after, command.seed, command.at)


def unregister(state: Tournament, command: Unregister) -> list[object]:
    if state.status != REGISTERING:
        raise refuse("registration_closed", "players unregister only before the start")
    if command.player_id not in state.registered:
        raise refuse("not_registered", f"player {command.player_id} is not registered")
    return [PlayerUnregistered(command.player_id)]


def start(state: Tournament, command: StartTournament) -> list[object]:
    settings = state.required_settings
    if state.status != REGISTERING:
        raise refuse("already_started", "the tournament has already started")
    # The director starts it, early or late (starts_at is the published time); the clock
    # sweep does only with auto_start and min_players (service.application.tournaments).
    if len(state.registered) < 2:
        raise refuse("not_enough_players", f"a tournament starts with at least 2 players, not "
                     f"{len(state.registered)}", registered=len(state.registered), min_players=2)
    seats, buttons = draw_seating(state.registered, settings.table_size, random.Random(command.seed))
    return [TournamentStarted(command.at, command.seed, seats, buttons), LevelStarted(0, command.at)]


def rebuy_or_add_on(state: Tournament, command: Rebuy | AddOn) -> list[object]:
    events = _taken_events(state, state.required_settings, command)
    if isinstance(command, Rebuy) and command.player_id in state.awaiting_players:
        # The seat kept for them no longer holds balancing and breaking back.
        events += settle(reduce(evolve, events, state), command.at, command.seed)
    return events


def decline_rebuy(state: Tournament, command: DeclineRebuy) -> list[object]:
    awaited = next((a for a in state.awaiting_rebuy if a.player_id == command.player_id), None)
    if awaited is None:
        raise refuse("not_awaiting_rebuy", f"player {command.player_id} is not waiting to rebuy",
                     player=command.player_id)
    declined = RebuyDeclined(command.player_id, command.at)
    return [declined, *out_after_waiting(evolve(state, declined), (awaited,), command.at, command.seed)]


def expire_rebuys(state: Tournament, command: ExpireRebuys) -> list[object]:
    expired = state.rebuys_expired(command.at)
    if not expired:
        raise refuse("nothing_expired", "no busted player's time to rebuy has passed")
    return out_after_waiting(state, expired, command.at, command.seed)


def _taken_events(state: Tournament, settings: Settings, command: Rebuy | AddOn) -> list[object]:
    rebuy = isinstance(command, Rebuy)
    what, code = ("rebuy", "rebuy") if rebuy else ("add-on", "add_on")
    price = settings.rebuy_price if rebuy else settings.add_on_price
    if price == 0:
        raise refuse(f"{code}_not_offered", f"this tournament offers no {what}")
    player = command.player_id
    if player not in state.seating.where:
        raise refuse("not_seated", f"player {player} is not in the tournament", player=player)
    if not rebuy and player in state.awaiting_players:
        raise refuse("awaiting_rebuy", f"player {player} is out of chips: a rebuy comes before an add-on",
                     player=player)
    until = settings.rebuy_until_level if rebuy else settings.add_on_until_level
    level = level_of(state, command.at)
    if level is None or level > until:
        raise refuse(f"{code}_closed", f"{what}s end with level {until} (and the break after it); "
                     f"this is level {level}", level=level, until_level=until)
    taken = (state.rebuys_by_player if rebuy else state.add_ons_by_player).get(player, 0)
    allowed = settings.rebuys_allowed if rebuy else settings.add_ons_allowed
    count = 2 if isinstance(command, Rebuy) and command.double else 1
    if count == 2 and not settings.double_rebuy:
        raise refuse("double_rebuy_not_offered", "this tournament offers no double rebuy")
    if (allowed or not rebuy) and taken + count > allowed:  # rebuys: 0 allowed means no limit
        raise refuse(f"{code}_limit", f"player {player} has taken {taken} {what}s of the {allowed} allowed",
                     taken=taken, allowed=allowed, asked=count)
    stack = state.stack_of(player)
    threshold = settings.rebuy_at_or_below or settings.starting_stack
    if rebuy and stack > threshold:
        raise refuse("rebuy_above_starting_stack", f"player {player} has {chips_written(stack)} chips: a rebuy is taken at or "
                     f"below {chips_written(threshold)}", stack=stack, rebuy_at_or_below=threshold,
                     starting_stack=settings.starting_stack)
    chips = settings.rebuy_chips if rebuy else settings.add_on_chips
    return [RebuyTaken(player, chips * count, count) if rebuy else AddOnTaken(player, chips)]


def record_deal(state: Tournament, command: RecordDeal) -> list[object]:
    """A deal among the players left (running-events.md): every one of them named once,
    amounts and what is left to play for not negative, together the prize money still to pay."""
    if state.deal is not None:
        raise refuse("deal_exists", "a deal was already recorded for this tournament")
    if state.awaiting_rebuy:
        raise refuse("awaiting_rebuy", "a busted player may still rebuy: settle that before a deal",
                     players=sorted(state.awaiting_players))
    settings = state.required_settings
    level = level_of(state, command.at)
    if late_registration_open(state, settings, command.at) or rebuy_open(state, settings, command.at) \
            or (settings.add_on_price > 0 and level is not None and level <= settings.add_on_until_level):
        # The pool could still grow: a deal shares out a pool that is settled.
        raise refuse("entries_open", "late registration, rebuys or add-ons are still open: the prize pool is not "
                     "settled yet", level=level)
    named = [share.player_id for share in command.shares]
    left = sorted(state.seating.where)
    if sorted(named) != left:
        raise refuse("deal_players", "a deal names every player left, once each",
                     named=sorted(named), players_left=left)
    if command.left_to_play_for < 0 or any(share.amount < 0 for share in command.shares):
        raise refuse("invalid_deal", "deal amounts and what is left to play for are not negative")
    places = sorted(share.place for share in command.shares)
    if any(places) and places != list(range(1, len(places) + 1)):
        raise refuse("deal_places", f"places agreed in a deal are none, or each of 1 to {len(places)} once",
                     places=places, players_left=len(places))
    remaining = state.remaining_pool
    agreed = sum(share.amount for share in command.shares) + command.left_to_play_for
    if agreed != remaining:
        raise refuse("deal_does_not_add_up", f"the deal's amounts and what is left to play for come to {agreed}, "
                     f"the prize money still to pay is {remaining}", agreed=agreed, remaining_pool=remaining)
    return [DealRecorded(command.shares, command.left_to_play_for, remaining, command.at)]
