"""A tournament played on real table streams in PostgreSQL: the process manager
(service.application.tournament_tables.advance) creates the tables, deals every hand with the level
in force, reports busted players, applies balancing and breaking between hands, and the
tournament finishes with a full finishing order, its prizes and one rating per player."""
from __future__ import annotations

import time
import uuid

import pytest

from domain.live.table_state import EMPTY_SEAT
from domain.records import from_record
from domain.tournaments import commands as tournament_commands
from domain.tournaments import events as tournament_events
from domain.tournaments import evolver as tournament_evolver
from domain.tournaments import tournament
from domain.tournaments.structure import Period
from service.adapters.store.postgres import open_pool
from service.application import commands, ratings, tournament_tables, tournaments
from service.config import Config
from tests import applications, playing
from tests.stores import store_as_the_apps

pytestmark = pytest.mark.integration

STACK = 1000
PLAYERS = 14


@pytest.fixture(scope="module")
def store(database_url):
    pool = open_pool(database_url, max_size=2)
    yield store_as_the_apps(pool, Config())
    pool.close()


def new_tournament(store, players: int, table_size: int, **settings_overrides) -> str:
    tournament_id = f"tt{uuid.uuid4().hex[:12]}"
    settings = tournament_commands.Settings(
        name="integration", structure=(Period.level(25, 50, 1), Period.level(100, 200, 1), Period.level(300, 600, 1)),
        starts_at=0, starting_stack=STACK, buy_in=100, payout_percentages=("50", "30", "20"),
        table_size=table_size, **settings_overrides,
    )
    tournaments.create_tournament(applications.of(store), tournament_id, settings, "holdem", "no-limit")
    for n in range(players):
        tournaments.send(applications.of(store), tournament_id, tournament_commands.Register(f"{tournament_id}p{n}", at=0))
    tournaments.send(applications.of(store), tournament_id, tournament_commands.StartTournament(at=int(time.time()), seed=7))
    return tournament_id


def shove(store, table_id: str) -> bool:
    return playing.shove(applications.of(store), table_id)


def play_to_the_end(store, tournament_id: str, players: int) -> list[int]:
    """Advance and shove until the tournament is over; the chip count at every step."""
    counts = []
    for _ in range(5000):
        tournament_tables.advance(applications.of(store), tournament_id, time.time())
        counts.append(tournament_tables.chips_in_play(applications.of(store), tournament_id)[0])
        state = tournaments.load_tournament(applications.of(store), tournament_id).state
        if state.status == tournament.FINISHED:
            return counts
        for number in range(1, len(state.seating.tables) + 1):
            while shove(store, tournament_tables.table_id_for(tournament_id, number)):
                pass
    raise AssertionError("the tournament did not finish")


def test_a_tournament_on_live_tables_ends_with_one_winner_every_place_and_its_prizes(store):
    tournament_id = new_tournament(store, PLAYERS, table_size=6)
    counts = play_to_the_end(store, tournament_id, PLAYERS)
    assert set(counts) == {PLAYERS * STACK}  # chips conserved at every step, moves included
    state = tournaments.load_tournament(applications.of(store), tournament_id).state
    order = state.finishing_order()
    assert len(order) == PLAYERS and [e for e in order if e.place == 1] == [order[0]]
    assert sorted({e.player_id for e in order}) == sorted(f"{tournament_id}p{n}" for n in range(PLAYERS))
    pool = PLAYERS * 100
    finished = [r for r in store.read_stream(tournaments.stream_id(tournament_id)) if r.type == "TournamentFinished"]
    assert len(finished) == 1
    prizes = finished[0].data["prizes"]
    assert sum(p["amount"] for p in prizes) == pool
    assert prizes[0] == {"player_id": order[0].player_id, "place": 1, "amount": pool // 2}
    for entry in order:
        history = ratings.player_ratings(applications.of(store), entry.player_id)["tournament"].history
        assert [h.result_id for h in history] == [tournaments.rating_result_id(tournament_id)]
    assert moves_left_only_tables_between_hands(store, tournament_id) > 0


def test_every_table_of_a_finished_tournament_finishes_once(store):
    # A broken table (everyone moved away) and the final table once the tournament is
    # over: each records TableFinished, so none lists as waiting for a hand never dealt.
    tournament_id = new_tournament(store, PLAYERS, table_size=6)
    play_to_the_end(store, tournament_id, PLAYERS)
    state = tournaments.load_tournament(applications.of(store), tournament_id).state
    assert len(state.seating.tables) == 3
    assert tournament_tables.advance(applications.of(store), tournament_id, time.time()) == 0
    winner = state.finishing_order()[0].player_id
    for number in range(1, len(state.seating.tables) + 1):
        table_id = tournament_tables.table_id_for(tournament_id, number)
        records = store.read_stream(commands.table_stream(table_id))
        finished = [r for r in records if r.type == "TableFinished"]
        assert len(finished) == 1 and records[-1] == finished[0]
        table_state = commands.load_table(applications.of(store), table_id).state
        assert table_state.finished
        if winner in table_state.players:  # the final table: the winner first, with every chip
            assert finished[0].data["standings"][0] == {"player_id": winner, "place": 1, "stack": PLAYERS * STACK}
        else:  # broken: nobody left at it
            assert set(table_state.players) == {EMPTY_SEAT}


def read_tournament_events(store, tournament_id: str) -> list[object]:
    return [from_record(tournament_events.EVENT_TYPES, r.type, r.data)
            for r in store.read_stream(tournaments.stream_id(tournament_id))]


def moves_left_only_tables_between_hands(store, tournament_id: str) -> int:
    """Replays the tournament, checking every balancing or breaking move left a table
    between hands (TDA: moves between hands only); returns how many moves there were."""
    state, moves = tournament.INITIAL, 0
    for event in read_tournament_events(store, tournament_id):
        if isinstance(event, tournament_events.PlayerMoved):
            assert event.move.from_table not in state.hands_in_progress, event
            moves += 1
        if isinstance(event, tournament_events.TableBroken):
            assert event.table not in state.hands_in_progress, event
        state = tournament_evolver.evolve(state, event)
    return moves


def test_the_tables_follow_the_tournament_seating_and_the_level_in_force(store):
    tournament_id = new_tournament(store, 10, table_size=5)
    tournament_tables.advance(applications.of(store), tournament_id, time.time())
    state = tournaments.load_tournament(applications.of(store), tournament_id).state
    assert state.hands_in_progress == {1, 2}
    for number in (1, 2):
        table_state = commands.load_table(applications.of(store), tournament_tables.table_id_for(tournament_id, number)).state
        seating_table = state.seating.table(number)
        assert table_state.players == tuple(p or EMPTY_SEAT for p in seating_table.seats)
        assert table_state.tournament_id == tournament_id
        assert table_state.button == seating_table.positions.button
        assert table_state.hand.betting.structure.big_blind == 50


def test_advancing_twice_records_nothing_more(store):
    tournament_id = new_tournament(store, 6, table_size=6)
    assert tournament_tables.advance(applications.of(store), tournament_id, time.time()) >= 3  # create, deal, start
    version = tournaments.load_tournament(applications.of(store), tournament_id).version
    table_version = commands.load_table(applications.of(store), tournament_tables.table_id_for(tournament_id, 1)).version
    assert tournament_tables.advance(applications.of(store), tournament_id, time.time()) == 0
    assert tournaments.load_tournament(applications.of(store), tournament_id).version == version
    assert commands.load_table(applications.of(store), tournament_tables.table_id_for(tournament_id, 1)).version == table_version


def finish_hand_at(store, tournament_id: str, number: int) -> None:
    while shove(store, tournament_tables.table_id_for(tournament_id, number)):
        pass


def test_a_late_entrant_is_seated_between_hands_with_the_starting_stack_and_dealt_in(store):
    tournament_id = new_tournament(store, 10, table_size=6, late_registration_until_level=2)
    tournament_tables.advance(applications.of(store), tournament_id, time.time())  # tables of 5 and 5, both dealt
    late = f"{tournament_id}late"
    tournaments.send(applications.of(store), tournament_id, tournament_commands.Register(late, at=int(time.time()), seed=3))
    state = tournaments.load_tournament(applications.of(store), tournament_id).state
    number, seat = state.seating.where[late]
    table_id = tournament_tables.table_id_for(tournament_id, number)
    tournament_tables.advance(applications.of(store), tournament_id, time.time())
    assert late not in commands.load_table(applications.of(store), table_id).state.players  # its hand is still on
    finish_hand_at(store, tournament_id, number)
    tournament_tables.advance(applications.of(store), tournament_id, time.time())

    state = tournaments.load_tournament(applications.of(store), tournament_id).state
    table_state = commands.load_table(applications.of(store), table_id).state
    if late in state.seating.where:  # unless the entrant busted in the very first hand
        assert state.seating.where[late] == (number, seat)
    assert table_state.players[seat] == late
    assert table_state.hand_in_progress
    dealt = [e for e in read_tournament_events(store, tournament_id)
             if isinstance(e, tournament_events.HandDealt) and e.table == number][-1]
    n = len(table_state.players)
    # TDA 8-A: dealt in, neither on the small blind nor between it and the button.
    assert not 0 < (seat - dealt.positions.button) % n <= (dealt.positions.small_blind - dealt.positions.button) % n
    assert tournament_tables.chips_in_play(applications.of(store), tournament_id)[0] == 11 * STACK


def test_hand_for_hand_deals_one_round_at_a_time_and_round_busts_share_places(store):
    tournament_id = new_tournament(store, 4, table_size=2)  # two heads-up tables
    tournaments.send(applications.of(store), tournament_id, tournament_commands.StartHandForHand(at=int(time.time())))
    for _ in range(20):
        tournament_tables.advance(applications.of(store), tournament_id, time.time())
        state = tournaments.load_tournament(applications.of(store), tournament_id).state
        if len(state.standings) or state.seating.open_tables < 2:
            break
        one, two = (tournament_tables.table_id_for(tournament_id, n) for n in (1, 2))
        hands = commands.load_table(applications.of(store), one).state.hands_played
        finish_hand_at(store, tournament_id, 1)
        tournament_tables.advance(applications.of(store), tournament_id, time.time())
        # Table 1 has played this round's hand; it waits for table 2 before the next.
        assert not commands.load_table(applications.of(store), one).state.hand_in_progress
        assert commands.load_table(applications.of(store), one).state.hands_played == hands
        assert commands.load_table(applications.of(store), two).state.hand_in_progress
        finish_hand_at(store, tournament_id, 2)
    busts = [e for e in read_tournament_events(store, tournament_id) if isinstance(e, tournament_events.PlayersEliminated)]
    assert busts, "nobody busted in twenty rounds of all-in"
    first = busts[0].eliminations
    # Both heads-up hands of the round ended all-in: one player out at each table, and
    # the two share third place (TDA RP-8); a chopped pot at one table leaves one in 4th.
    assert [e.place for e in first] == ([3, 3] if len(first) == 2 else [4])
    moves_left_only_tables_between_hands(store, tournament_id)


def test_a_pko_on_live_tables_pays_every_bounty_to_the_winners_of_the_pot_that_busted_the_player(store):
    tournament_id = new_tournament(store, 8, table_size=4, bounty_kind="progressive", bounty=30)
    play_to_the_end(store, tournament_id, 8)
    state = tournaments.load_tournament(applications.of(store), tournament_id).state
    busted = {award.busted for award in state.bounties_won}
    # Every player out was busted by someone the table named; the winner collected their own.
    assert busted == {e.player_id for e in state.finishing_order()}
    assert sum(award.cash for award in state.bounties_won) == 8 * 30 and not any(state.bounty_heads.values())
    for elimination in state.standings:
        assert elimination.busted_by is not None and elimination.busted_by != elimination.player_id
