"""Money (running-events.md): fees, a guarantee and its overlay, payouts as rooms set them,
bounties with split pots, deals, and the cashier's reconciliation. Worked examples."""
from __future__ import annotations

from dataclasses import replace
from functools import reduce

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from domain.tournaments.bounties import BountyAward
from domain.tournaments.cashier import reconcile
from domain.tournaments.commands import (
    AddOn,
    Bust,
    ChipCount,
    CreateTournament,
    DealShare,
    Eliminate,
    RecordDeal,
    Register,
    ReportChipCounts,
    StartTournament,
    Undo,
)
from domain.tournaments.decider import decide
from domain.tournaments.events import TournamentFinished
from domain.tournaments.evolver import evolve, replay
from domain.tournaments.payouts import chip_chop, fixed_payout_amounts, icm_chop, payout_amounts, preset_percentages
from domain.tournaments.tournament import INITIAL, Tournament
from tests.unit.test_tournament_decider import SETTINGS, T0, run, violation

PKO = replace(SETTINGS, buy_in=100, fee=20, bounty_kind="progressive", bounty=100)


def started(players: int, settings=SETTINGS) -> Tournament:
    commands = [CreateTournament("t-1", settings)] + [Register(f"p{i}", T0 - 60) for i in range(players)]
    return run(INITIAL, *commands, StartTournament(T0, seed=11))[0]


def test_a_guarantee_above_the_buy_ins_is_met_by_an_overlay_and_fees_stay_out_of_the_pool() -> None:
    # 20 entries at 100 + 20 fee, 3,000 guaranteed: 2,000 in the pool, the house adds 1,000.
    state = started(20, replace(SETTINGS, fee=20, guarantee=3000))
    assert (state.contributions, state.fees, state.prize_pool, state.overlay) == (2000, 400, 3000, 1000)
    assert state.payout_table() == (1500, 900, 600)
    books = reconcile(state)
    assert (books.collected, books.paid, books.left) == (2400, 0, 3000)


def test_a_guarantee_below_the_buy_ins_costs_the_house_nothing() -> None:
    state = started(40, replace(SETTINGS, fee=20, guarantee=3000))
    assert (state.prize_pool, state.overlay) == (4000, 0)


def test_rebuy_and_add_on_fees_are_the_houses() -> None:
    settings = replace(SETTINGS, add_on_price=50, add_on_fee=5, add_on_chips=5000, add_ons_allowed=1,
                       add_on_until_level=2)
    state, _ = run(started(9, settings), AddOn("p1", T0 + 10), AddOn("p2", T0 + 11))
    assert (state.contributions, state.fees) == (9 * 100 + 2 * 50, 2 * 5)


def test_fixed_amounts_pay_as_set_and_the_remainder_goes_to_first_place() -> None:
    # 1,000 / 600 / 400 fixed; 43 entries at 50 make 2,150: first place takes the 150 over.
    assert fixed_payout_amounts(2150, [1000, 600, 400]) == (1150, 600, 400)
    state = started(43, replace(SETTINGS, buy_in=50, payout_percentages=(), payout_fixed=(1000, 600, 400)))
    assert state.payout_table() == (1150, 600, 400)
    # A field too small for them: the fixed amounts guarantee their sum.
    short = started(9, replace(SETTINGS, buy_in=50, payout_percentages=(), payout_fixed=(1000, 600, 400)))
    assert (short.prize_pool, short.overlay, short.payout_table()) == (2000, 1550, (1000, 600, 400))


def test_percentages_are_rounded_down_to_the_unit_and_the_remainder_goes_to_first_place() -> None:
    # 2,150 at 50/30/20 in units of 25: 1,075 / 645 -> 625 / 430 -> 425; 25 left to first place.
    assert payout_amounts(2150, ["50", "30", "20"], unit=25) == (1100, 625, 425)


def test_the_preset_pays_15_percent_of_the_field_by_one_over_the_place() -> None:
    assert preset_percentages(6) == (100,)
    # 20 entries: 3 paid, in proportion 1 : 1/2 : 1/3, i.e. 6/11, 3/11, 2/11.
    assert [float(p) for p in preset_percentages(20)] == pytest.approx([600 / 11, 300 / 11, 200 / 11])
    assert len(preset_percentages(100)) == 15 and sum(preset_percentages(100)) == 100
    state = started(20, replace(SETTINGS, payout_percentages=(), payout_preset=True))
    assert state.payout_table() == (1092, 545, 363)


@pytest.mark.parametrize("change, code", [
    ({"payout_fixed": (500, 300)}, "invalid_payouts"),  # percentages too: one table only
    ({"payout_percentages": (), "payout_fixed": (300, 500)}, "invalid_payouts"),
    ({"payout_unit": 0}, "invalid_payouts"),
    ({"fee": -1}, "invalid_setting"),
    ({"rebuy_fee": 5}, "invalid_setting"),
    ({"bounty_kind": "progressive"}, "invalid_bounty"),
    ({"bounty_kind": "mystery", "bounty": 10}, "invalid_bounty"),
    ({"bounty_kind": "fixed", "bounty": 10, "bounty_cash_percent": 101}, "invalid_bounty"),
])
def test_money_settings_that_cannot_be_are_refused(change: dict, code: str) -> None:
    assert violation(INITIAL, CreateTournament("t", replace(SETTINGS, **change))).code == code


def _left_of_button(state: Tournament, table: int, players: list[str]) -> list[str]:
    """Walk the seats from the button clockwise: the order TDA 20 hands odd chips out."""
    seats = state.seating.table(table).seats
    button = state.seating.table(table).positions.button
    walk = [seats[(button + step) % len(seats)] for step in range(1, len(seats) + 1)]
    return [p for p in walk if p in players]


def test_a_pko_bust_in_a_split_pot_shares_the_bounty_odd_units_left_of_the_button() -> None:
    # Progressive 150: the eliminators share 75 in cash and 75 onto their heads; with two
    # winners 38 + 37 each, the odd unit to the winner first left of the button.
    state = started(9, replace(PKO, bounty=150))
    busted, a, b = [p for p in state.seating.table(1).seats if p][:3]
    state, events = run(state, Eliminate((Bust(busted, 0, busted_by=a, also_busted_by=(b,)),), T0 + 60))
    first, second = _left_of_button(state, 1, [a, b])
    assert type(events[1]).__name__ == "BountiesWon"
    assert state.bounties_won == (BountyAward(first, busted, 38, 38), BountyAward(second, busted, 37, 37))
    assert (state.bounty_heads[first], state.bounty_heads[second], state.bounty_heads[busted]) == (188, 187, 0)
    books = reconcile(state)
    assert (books.collected, books.fees, books.bounties_paid) == (9 * (100 + 20 + 150), 9 * 20, 75)
    assert books.left == state.remaining_pool + sum(state.bounty_heads.values())


def test_a_fixed_bounty_goes_whole_to_the_eliminator_and_the_winner_collects_their_own() -> None:
    state = started(3, replace(SETTINGS, bounty_kind="fixed", bounty=50))
    p = [x for x in state.seating.table(1).seats if x]
    state, _ = run(state, Eliminate((Bust(p[0], 0, busted_by=p[1]),), T0 + 60),
                   Eliminate((Bust(p[2], 0, busted_by=p[1]),), T0 + 70))
    assert state.status == "finished"
    assert [(a.winner, a.busted, a.cash) for a in state.bounties_won] == [(p[1], p[0], 50), (p[1], p[2], 50),
                                                                          (p[1], p[1], 50)]
    assert reconcile(state).left == 0


def test_an_undone_bust_reverses_its_bounty() -> None:
    state = started(9, PKO)
    busted, winner = [p for p in state.seating.table(1).seats if p][:2]
    state, _ = run(state, Eliminate((Bust(busted, 0, busted_by=winner),), T0 + 60))
    assert state.bounty_heads[winner] == 150
    state, events = run(state, Undo(T0 + 70))
    assert [type(e).__name__ for e in events] == ["EliminationUndone", "BountiesReversed"]
    assert state.bounties_won == () and state.bounty_heads[winner] == 100 and state.bounty_heads[busted] == 100


def test_at_physical_tables_a_bounty_bust_names_its_eliminator() -> None:
    state = started(9, PKO)
    assert violation(state, Eliminate((Bust("p1", 0),), T0 + 60)).code == "busted_by_required"
    assert violation(state, Eliminate((Bust("p1", 0, busted_by="p1"),), T0 + 60)).code == "invalid_busted_by"


def _three_left() -> tuple[Tournament, list[str]]:
    """Ten entries at 100 paying 50/30/20 of 1,000 (no late registration: the pool is
    settled); seven out; stacks 50,000 / 30,000 / 20,000."""
    state = started(10, replace(SETTINGS, late_registration_until_level=0))
    players = [p for t in state.seating.tables if t for p in t.seats if p]
    for n, out in enumerate(players[3:]):
        state, _ = run(state, Eliminate((Bust(out, 0),), T0 + 60 + n))
    a, b, c = players[:3]
    state, _ = run(state, ReportChipCounts((ChipCount(a, 50_000), ChipCount(b, 30_000), ChipCount(c, 20_000)),
                                           T0 + 100))
    return state, [a, b, c]


def test_icm_and_chip_chop_figures_with_three_left() -> None:
    state, _ = _three_left()
    assert state.open_prizes() == (500, 300, 200) and state.remaining_pool == 1000
    # ICM (Malmuth-Harville): 383.93 / 327.50 / 288.57; chip chop: 200 each + 400 by chips.
    assert icm_chop([50_000, 30_000, 20_000], state.open_prizes()) == (384, 327, 289)
    assert chip_chop([50_000, 30_000, 20_000], state.open_prizes()) == (400, 320, 280)
    # Never more than first prize: what a big stack's share would pay beyond it goes to the others.
    assert chip_chop([9000, 500, 500], [500, 300, 200]) == (500, 250, 250)


def test_an_icm_deal_with_something_left_to_play_for_is_paid_when_it_ends() -> None:
    state, (a, b, c) = _three_left()
    shares = (DealShare(a, 364), DealShare(b, 307), DealShare(c, 269))  # ICM less 20 each
    refused = violation(state, RecordDeal(shares[:2], 60, T0 + 200))
    assert refused.code == "deal_players"
    refused = violation(state, RecordDeal(shares, 59, T0 + 200))
    assert refused.code == "deal_does_not_add_up" and refused.numbers == {"agreed": 999, "remaining_pool": 1000}
    state, _ = run(state, RecordDeal(shares, 60, T0 + 200))
    assert violation(state, RecordDeal(shares, 60, T0 + 201)).code == "deal_exists"
    state, _ = run(state, Eliminate((Bust(b, 0),), T0 + 300), Eliminate((Bust(a, 0),), T0 + 310))
    prizes = {p.player_id: (p.place, p.amount) for p in state.prizes()}
    # c won: their share plus the 60 played for; a and b their shares whatever their places.
    assert (prizes[c], prizes[a], prizes[b]) == ((1, 329), (2, 364), (3, 307))
    assert sum(amount for _, amount in prizes.values()) == state.prize_pool and reconcile(state).left == 0


def test_a_deal_may_agree_the_places_for_league_points_each_once_or_none() -> None:
    state, (a, b, c) = _three_left()
    twice = (DealShare(a, 400, 1), DealShare(b, 320, 1), DealShare(c, 280, 3))
    refused = violation(state, RecordDeal(twice, 0, T0 + 200))
    assert refused.code == "deal_places" and refused.numbers == {"places": [1, 1, 3], "players_left": 3}
    partly = (DealShare(a, 400, 1), DealShare(b, 320), DealShare(c, 280))
    assert violation(state, RecordDeal(partly, 0, T0 + 200)).code == "deal_places"
    agreed = (DealShare(a, 400, 1), DealShare(b, 320, 2), DealShare(c, 280, 3))
    state, _ = run(state, RecordDeal(agreed, 0, T0 + 200))
    assert state.deal is not None and [s.place for s in state.deal.shares] == [1, 2, 3]


@hypothesis_settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 600), min_size=3, max_size=3), st.integers(0, 300))
def test_a_deal_is_recorded_only_when_it_adds_up_and_then_the_prizes_pay_the_pool(amounts, left) -> None:
    state, players = _three_left()
    deal = RecordDeal(tuple(DealShare(p, n) for p, n in zip(players, amounts)), left, T0 + 200)
    if sum(amounts) + left != state.remaining_pool:
        assert violation(state, deal).code == "deal_does_not_add_up"
        return
    state, _ = run(state, deal, Eliminate((Bust(players[0], 0),), T0 + 300),
                   Eliminate((Bust(players[1], 0),), T0 + 310))
    assert sum(p.amount for p in state.prizes()) == state.prize_pool


@given(st.lists(st.integers(1, 10**6), min_size=2, max_size=8), st.integers(0, 10**6), st.data())
def test_a_chip_chop_pays_exactly_what_is_left_and_never_more_than_first_prize(stacks, pool, data) -> None:
    weights = sorted(data.draw(st.lists(st.integers(1, 100), min_size=len(stacks), max_size=len(stacks))),
                     reverse=True)
    prizes = fixed_payout_amounts(pool + sum(weights), weights)
    chop = chip_chop(stacks, prizes)
    assert sum(chop) == sum(prizes) and max(chop) <= prizes[0]


@hypothesis_settings(max_examples=30, deadline=None)
@given(st.integers(3, 12), st.sampled_from(["fixed", "progressive"]), st.integers(1, 301), st.data())
def test_the_cashier_always_holds_the_prizes_to_pay_and_the_bounties_on_heads(players, kind, bounty, data) -> None:
    state = started(players, replace(SETTINGS, fee=15, guarantee=1500, bounty_kind=kind, bounty=bounty))
    at = T0 + 60
    while state.status == "running":
        left = sorted(state.seating.where)
        out = data.draw(st.sampled_from(left))
        by = data.draw(st.sampled_from([p for p in left if p != out]))
        state, _ = run(state, Eliminate((Bust(out, 0, busted_by=by),), at))
        if data.draw(st.booleans()) and state.undoable and not state.undo_blocked_by:
            state, _ = run(state, Undo(at + 1))
        at += 10
        books = reconcile(state)
        assert books.left == state.remaining_pool + sum(state.bounty_heads.values()) >= 0
    assert reconcile(state).left == 0



def test_a_finished_tournament_keeps_the_prizes_its_finish_recorded() -> None:
    # A log finished under the older remainder rule (odd chips one each to the best places)
    # replays to what was paid, whatever today's rule would make of the pool.
    log: list[object] = []
    state = INITIAL
    p = [f"p{i}" for i in range(3)]
    for command in (CreateTournament("t-1", replace(SETTINGS, buy_in=101)), *(Register(x, T0 - 60) for x in p),
                    StartTournament(T0, seed=11), Eliminate((Bust("p0", 0),), T0 + 60),
                    Eliminate((Bust("p1", 0),), T0 + 70)):
        events = decide(state, command)
        state = reduce(evolve, events, state)
        log += events
    finished = log[-1]
    assert isinstance(finished, TournamentFinished)
    assert [prize.amount for prize in finished.prizes] == [153, 90, 60]  # today's rule: 3 over to first
    older = replace(finished, prizes=(replace(finished.prizes[0], amount=152), replace(finished.prizes[1], amount=91),
                                      finished.prizes[2]))
    assert [prize.amount for prize in replay([*log[:-1], older]).prizes()] == [152, 91, 60]


def test_no_deal_while_the_pool_can_still_grow() -> None:
    # SETTINGS has late registration until level 2: at level 1 a deal is refused.
    state = started(3)
    players = sorted(state.seating.where)
    deal = RecordDeal(tuple(DealShare(p, 100) for p in players), 0, T0 + 60)
    assert violation(state, deal).code == "entries_open"
