"""The public screens' arithmetic (service.application.screens) on an in-memory log: the
time to the next break, the average stack, what a screen shows before the start, on a
break and paused, and the payouts filled in with the names of who finished there."""
from __future__ import annotations

from domain.tournaments import commands as tournament_commands
from domain.tournaments.structure import Period
from service.adapters.store.memory import InMemoryEventStore
from service.application import screens, tournaments
from service.http.pages.frame import chips, clock_time
from tests import applications

START = 1_800_000_000
STRUCTURE = (Period.level(100, 200, 20), Period.level(200, 400, 20, ante=50), Period.pause(10),
             Period.level(300, 600, 20))
NAMES = {"ann": "Ann", "bo": "Bo", "cy": "Cy"}


def running(*commands, **settings_given) -> tuple[InMemoryEventStore, str]:
    store = InMemoryEventStore()
    settings = tournament_commands.Settings(**{"name": "Unit", "structure": STRUCTURE, "starts_at": START,
                                               "starting_stack": 1000, "buy_in": 10, "payout_percentages": ("50", "30", "20"),
                                               "tables": tournament_commands.TABLES_PHYSICAL, **settings_given})
    tournaments.create_tournament(applications.of(store), "t", settings, "holdem", "no-limit")
    for player in NAMES:
        tournaments.send(applications.of(store), "t", tournament_commands.Register(player, at=START - 60))
    for command in commands:
        tournaments.send(applications.of(store), "t", command)
    return store, "t"


def test_before_the_start_the_clock_counts_to_the_start():
    store, tid = running()
    shown = screens.clock_screen(tournaments.load_tournament(applications.of(store), tid), NAMES, START - 90)
    assert (shown["status"], shown["starts_in_s"], shown["level"], shown["players_left"]) == \
        ("registering", 90, None, 3)
    assert shown["average_stack"] is None and shown["next"] is None


def test_the_next_break_is_the_rest_of_this_level_and_the_levels_before_it():
    store, tid = running(tournament_commands.StartTournament(at=START, seed=1))
    shown = screens.clock_screen(tournaments.load_tournament(applications.of(store), tid), NAMES, START + 5 * 60)
    assert (shown["level"], shown["remaining_s"], shown["to_break_s"]) == (1, 15 * 60, 35 * 60)
    assert shown["blinds"] == {"small_blind": 100, "big_blind": 200, "ante": 0, "big_blind_ante": False}
    assert shown["next"]["level"] == 2 and shown["next"]["ante"] == 50
    assert (shown["average_stack"], shown["prize_pool"], shown["entries"]) == (1000, 30, 3)


def test_on_the_break_the_blinds_in_force_show_and_no_break_follows():
    store, tid = running(tournament_commands.StartTournament(at=START, seed=1))
    shown = screens.clock_screen(tournaments.load_tournament(applications.of(store), tid), NAMES, START + 45 * 60)
    assert shown["on_break"] and shown["remaining_s"] == 5 * 60
    assert shown["to_break_s"] is None and shown["next"]["level"] == 3
    assert shown["blinds"]["big_blind"] == 400


def test_a_break_shows_the_chips_its_colour_up_races_off():
    raced_at_the_break = (*STRUCTURE[:2], Period.pause(10, colour_up=100), *STRUCTURE[3:])
    raced_as_level_3_begins = (*STRUCTURE[:3], Period.level(300, 600, 20, colour_up=100))
    for structure in (raced_at_the_break, raced_as_level_3_begins):
        store, tid = running(tournament_commands.StartTournament(at=START, seed=1), structure=structure,
                             denominations=(25, 100, 500))
        loaded = tournaments.load_tournament(applications.of(store), tid)
        assert screens.clock_screen(loaded, NAMES, START + 45 * 60)["colour_up"] == {"to": 100, "raced_off": [25]}
        assert screens.clock_screen(loaded, NAMES, START + 5 * 60)["colour_up"] is None, "a level shows none"


def test_late_registration_counts_down_through_the_break_after_its_last_level_then_closes():
    store, tid = running(tournament_commands.StartTournament(at=START, seed=1), late_registration_until_level=2,
                         re_entries_allowed=1, rebuy_price=10, rebuy_chips=1000, rebuys_allowed=1, rebuy_until_level=2)
    loaded = tournaments.load_tournament(applications.of(store), tid)
    open_ = screens.clock_screen(loaded, NAMES, START + 5 * 60)
    assert (open_["late_registration"], open_["late_registration_s"]) == ("open", 50 * 60 - 5 * 60)
    assert (open_["re_entries"], open_["rebuys"], open_["add_ons"], open_["chips_in_play"]) == (0, 0, None, 3000)
    closed = screens.clock_screen(loaded, NAMES, START + 56 * 60)
    assert (closed["late_registration"], closed["late_registration_s"]) == ("closed", None)
    assert closed["level"] == 3


def test_the_clock_names_the_winner_at_the_end():
    store, tid = running(tournament_commands.StartTournament(at=START, seed=1))
    for out, at in (("cy", 60), ("bo", 120)):
        tournaments.send(applications.of(store), tid, tournament_commands.Eliminate((tournament_commands.Bust(out, 0),), at=START + at))
    shown = screens.clock_screen(tournaments.load_tournament(applications.of(store), tid), NAMES, START + 180)
    assert (shown["status"], shown["winner"]) == ("finished", "Ann")
    assert shown["payouts"] == [{"place": 1, "amount": 15}, {"place": 2, "amount": 9}, {"place": 3, "amount": 6}]


def test_a_paused_clock_shows_the_time_it_kept():
    store, tid = running(tournament_commands.StartTournament(at=START, seed=1), tournament_commands.PauseClock(at=START + 60))
    shown = screens.clock_screen(tournaments.load_tournament(applications.of(store), tid), NAMES, START + 3600)
    assert shown["paused"] and shown["remaining_s"] == 19 * 60 and shown["to_break_s"] == 39 * 60


def test_the_payouts_name_who_finished_in_a_paid_place():
    store, tid = running(tournament_commands.StartTournament(at=START, seed=1))
    counts = tuple(tournament_commands.ChipCount(p, c) for p, c in (("ann", 2000), ("bo", 1000), ("cy", 0)))
    tournaments.send(applications.of(store), tid, tournament_commands.Eliminate((tournament_commands.Bust("cy", 0),), at=START + 60, counts=counts))
    shown = screens.payouts_screen(tournaments.load_tournament(applications.of(store), tid), NAMES)
    assert shown["places"] == [{"place": 1, "amount": 15, "names": []}, {"place": 2, "amount": 9, "names": []},
                               {"place": 3, "amount": 6, "names": ["Cy"]}]
    seating = screens.seating_screen(tournaments.load_tournament(applications.of(store), tid), NAMES, START + 60)
    assert sorted(seat["name"] for seat in seating["tables"][0]["seats"]) == ["Ann", "Bo"]


def test_times_and_chips_read_as_a_clock_and_a_count():
    assert [clock_time(s) for s in (0, 65, 20 * 60, 3600 + 5, None, -3)] == \
        ["0:00", "1:05", "20:00", "1:00:05", "0:00", "0:00"]
    assert (chips(1234567), chips(0), chips(None)) == ("1,234,567", "0", "")
