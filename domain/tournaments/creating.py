"""CreateTournament: the settings checked once, before any event."""
from __future__ import annotations

from dataclasses import replace

from domain.tournaments.bounties import BOUNTY_KINDS
from domain.tournaments.commands import TABLES_PHYSICAL, TABLES_SERVICE, CreateTournament, Settings
from domain.tournaments.events import TournamentCreated
from domain.tournaments.payouts import RANK_BY_STARTING_STACK, RANK_SHARED, parse_fixed_amounts, parse_percentages
from domain.tournaments.seating import BREAK_PREDETERMINED, BREAK_RANDOM, empty_seating
from domain.tournaments.structure import Period, validate_structure
from domain.tournaments.tournament import Tournament, iso, refuse

# How far ahead a tournament may be scheduled: ten years.
LATEST_START_AHEAD_S = 3653 * 86400


def _iso_if_shown(epoch: float) -> str | float:
    """The instant in ISO 8601, or its seconds when it lies beyond the years ISO can write."""
    try:
        return iso(epoch)
    except (OverflowError, ValueError, OSError):
        return epoch


def create(state: Tournament, command: CreateTournament) -> list[object]:
    if state.settings is not None:
        raise refuse("tournament_exists", f"tournament {state.tournament_id} already exists")
    s = command.settings
    structure = validate_structure(s.structure)
    _check_money(s)
    empty_seating(s.table_size)
    if command.at is not None and s.starts_at > command.at + LATEST_START_AHEAD_S:
        # Beyond this the clock's instants (each level's end) soon leave the years a
        # datetime can show; nobody schedules a tournament a decade ahead.
        raise refuse("starts_too_late", f"the start is more than {LATEST_START_AHEAD_S // 86400} days "
                     f"from now ({iso(command.at)}): give an earlier time",
                     starts_at=_iso_if_shown(s.starts_at), latest=iso(command.at + LATEST_START_AHEAD_S))
    if command.at is not None and s.starts_at < command.at:
        raise refuse("starts_in_past", f"the start {iso(s.starts_at)} is in the past (it is now "
                     f"{iso(command.at)}): give a later time, or \"now\"",
                     starts_at=iso(s.starts_at), now=iso(command.at))
    if s.starting_stack <= 0 or s.buy_in < 0 or s.rebuy_price < 0 or s.add_on_price < 0:
        raise refuse("invalid_setting", "the starting stack is positive and prices are not negative")
    levels = sum(1 for p in structure if not p.is_break)
    if not 0 <= s.late_registration_until_level <= levels:
        raise refuse(
            "invalid_setting",
            f"late registration until level {s.late_registration_until_level}: the structure has {levels}",
            late_registration_until_level=s.late_registration_until_level, levels=levels,
        )
    for what, price, chips, allowed, until in (
        ("rebuy", s.rebuy_price, s.rebuy_chips, s.rebuys_allowed, s.rebuy_until_level),
        ("add_on", s.add_on_price, s.add_on_chips, s.add_ons_allowed, s.add_on_until_level),
    ):
        offered = price > 0
        # Rebuys: 0 allowed is no limit (the house default); add-ons are counted.
        if offered and (chips <= 0 or allowed < (0 if what == "rebuy" else 1) or not 1 <= until <= levels):
            raise refuse("invalid_setting", f"a {what.replace('_', '-')} offered gives chips (more than 0), "
                         f"at least one per player, until a level of the structure (1..{levels})",
                         **{f"{what}_chips": chips, f"{what}s_allowed": allowed, f"{what}_until_level": until,
                            "levels": levels})
        if not offered and (chips or allowed or until):
            raise refuse("invalid_setting", f"{what.replace('_', '-')} chips, count and level need a "
                         f"{what.replace('_', '-')} price")
    if s.re_entries_allowed < 0 or s.balance_tolerance < 1:
        raise refuse("invalid_setting", "re-entries are not negative and the tolerance is at least 1")
    if s.min_players < 2 or s.rebuy_at_or_below < 0 or s.rebuy_grace_s < 0 or s.move_call_s < 0 \
            or s.time_bank_s < 0 or (s.action_clock_s is not None and s.action_clock_s <= 0):
        raise refuse("invalid_setting", "min_players is at least 2; rebuy_at_or_below, rebuy_grace_s, move_call_s "
                     "and time_bank_s are not negative; action_clock_s is positive (or none)",
                     min_players=s.min_players, action_clock_s=s.action_clock_s)
    if s.break_order not in (BREAK_PREDETERMINED, BREAK_RANDOM):
        raise refuse("invalid_setting", f"unknown break order {s.break_order!r}")
    if s.bust_ranking not in (RANK_SHARED, RANK_BY_STARTING_STACK):
        raise refuse("invalid_setting", f"unknown bust ranking {s.bust_ranking!r}")
    if s.tables not in (TABLES_SERVICE, TABLES_PHYSICAL):
        raise refuse("invalid_setting", f"tables are \"service\" or \"physical\", not {s.tables!r}")
    _check_denominations(s, structure)
    return [TournamentCreated(command.tournament_id, replace(s, structure=structure))]


def _check_money(s: Settings) -> None:
    """Fees, guarantee, the payout table (exactly one kind) and bounties."""
    kinds = [kind for kind, given in (("payout_percentages", s.payout_percentages), ("payout_fixed", s.payout_fixed),
                                      ("payout_preset", s.payout_preset)) if given]
    if len(kinds) != 1:
        raise refuse("invalid_payouts", "give one payout table: percentages, fixed amounts or the preset",
                     given=kinds)
    if s.payout_percentages:
        parse_percentages(s.payout_percentages)
    if s.payout_fixed:
        parse_fixed_amounts(s.payout_fixed)
    if s.payout_unit < 1:
        raise refuse("invalid_payouts", f"the payout unit is at least 1, not {s.payout_unit}", payout_unit=s.payout_unit)
    if min(s.fee, s.rebuy_fee, s.add_on_fee, s.guarantee, s.bounty) < 0:
        raise refuse("invalid_setting", "fees, the guarantee and the bounty are not negative")
    if (s.rebuy_fee and not s.rebuy_price) or (s.add_on_fee and not s.add_on_price):
        raise refuse("invalid_setting", "a rebuy or add-on fee needs its price", rebuy_fee=s.rebuy_fee,
                     add_on_fee=s.add_on_fee)
    if s.bounty_kind not in ("", *BOUNTY_KINDS) or bool(s.bounty_kind) != (s.bounty > 0):
        raise refuse("invalid_bounty", f"a bounty is \"fixed\" or \"progressive\" with an amount above 0 "
                     f"(kind {s.bounty_kind!r}, amount {s.bounty})", bounty_kind=s.bounty_kind, bounty=s.bounty)
    if not 0 <= s.bounty_cash_percent <= 100:
        raise refuse("invalid_bounty", f"the eliminator's cash share is 0 to 100%, not {s.bounty_cash_percent}",
                     bounty_cash_percent=s.bounty_cash_percent)


def _check_denominations(s: Settings, structure: tuple[Period, ...]) -> None:
    chips = s.denominations
    colour_ups = [(i + 1, p.colour_up) for i, p in enumerate(structure) if p.colour_up]
    if not chips:
        if colour_ups:
            raise refuse("invalid_setting", "a colour-up needs the chip denominations", period=colour_ups[0][0])
        return
    if any(c <= 0 for c in chips) or list(chips) != sorted(set(chips)):
        raise refuse("invalid_setting", f"denominations go up from the smallest chip: {list(chips)}")
    smallest = chips[0]
    for name, amount in (("starting stack", s.starting_stack), ("rebuy chips", s.rebuy_chips),
                         ("add-on chips", s.add_on_chips)):
        if amount % smallest:
            raise refuse("invalid_setting", f"the {name} {amount} is not made of {smallest} chips",
                         amount=amount, smallest_chip=smallest)
    for period, denomination in colour_ups:
        if denomination not in chips or denomination <= smallest or denomination % smallest:
            raise refuse("invalid_setting", f"period {period} colours up to {denomination}: it must be a "
                         f"larger denomination in play, a multiple of {smallest}",
                         period=period, colour_up=denomination, smallest_chip=smallest)
        smallest = denomination
