"""Dice poker, the game: given these events, when this command, then these events (or a violation)."""
import hashlib

import pytest

from domain.games.dice import (
    INITIAL_STATE,
    BonusAwarded,
    ClockExpired,
    DiceGameState,
    DiceRolled,
    GameEnded,
    GameStarted,
    LineScored,
    PlayerResult,
    Roll,
    RollCommitted,
    Score,
    StartGame,
    TimeOut,
    TurnPassed,
    decide,
    replay,
    roll_commitment,
)
from domain.games.dice_scoring import LINES, DiceSettings
from domain.rules.violations import Violation

ANN_BOB = GameStarted(("ann", "bob"), DiceSettings())


def given(*events) -> DiceGameState:
    return replay(events)


def violation_of(state: DiceGameState, command) -> Violation:
    with pytest.raises(Violation) as refused:
        decide(state, command)
    return refused.value


def play(state: DiceGameState, *commands) -> tuple[DiceGameState, list]:
    """Decide and apply each command in turn; returns the state and every event."""
    events = []
    for command in commands:
        new = decide(state, command)
        events += new
        state = replay(new, state)
    return state, events


# Starting ----------------------------------------------------------------------------------

def test_a_game_starts_with_the_players_in_seat_order_and_the_first_seat_to_roll():
    assert decide(INITIAL_STATE, StartGame(("ann", "bob"))) == [ANN_BOB]
    state = given(ANN_BOB)
    assert state.players[state.to_act] == "ann" and state.round == 1
    assert all(card.free_lines() == LINES for card in state.cards)


@pytest.mark.parametrize("players", [(), ("a", "b", "c", "d", "e", "f", "g"), ("ann", "ann")])
def test_a_game_takes_one_to_six_different_players(players):
    assert violation_of(INITIAL_STATE, StartGame(players)).code == "invalid_players"


def test_the_table_can_seat_fewer_than_six():
    settings = DiceSettings(max_players=2)
    assert violation_of(INITIAL_STATE, StartGame(("a", "b", "c"), settings)).code == "invalid_players"


def test_a_game_cannot_start_twice():
    assert violation_of(given(ANN_BOB), StartGame(("ann",))).code == "game_already_started"


def test_nothing_happens_before_the_game_starts():
    assert violation_of(INITIAL_STATE, Roll("ann", (1, 2, 3, 4, 5))).code == "game_not_started"


# Rolling -----------------------------------------------------------------------------------

def test_the_first_roll_throws_all_five_dice():
    assert decide(given(ANN_BOB), Roll("ann", (3, 1, 4, 1, 5))) == [
        DiceRolled("ann", 1, 1, (), (3, 1, 4, 1, 5), (3, 1, 4, 1, 5), "")]


def test_a_re_roll_keeps_the_chosen_dice_and_throws_the_rest():
    state = given(ANN_BOB, DiceRolled("ann", 1, 1, (), (3, 1, 4, 1, 5), (3, 1, 4, 1, 5), ""))
    events = decide(state, Roll("ann", (6, 6, 6, 2, 2), keep=(4, 0)))
    assert events == [DiceRolled("ann", 1, 2, (0, 4), (6, 6, 6, 2, 2), (3, 6, 6, 2, 5), "")]


def test_only_the_player_whose_turn_it_is_may_roll():
    refused = violation_of(given(ANN_BOB), Roll("bob", (1, 2, 3, 4, 5)))
    assert refused.code == "not_your_turn" and refused.numbers["to_act"] == "ann"


def test_a_turn_has_at_most_three_rolls():
    rolls = [DiceRolled("ann", 1, n, (), (1, 2, 3, 4, 6), (1, 2, 3, 4, 6), "") for n in (1, 2, 3)]
    refused = violation_of(given(ANN_BOB, *rolls), Roll("ann", (1, 1, 1, 1, 1)))
    assert refused.code == "no_rolls_left"


def test_the_rolls_per_turn_setting_changes_the_limit():
    state = given(GameStarted(("ann",), DiceSettings(rolls_per_turn=1)),
                  DiceRolled("ann", 1, 1, (), (1, 2, 3, 4, 6), (1, 2, 3, 4, 6), ""))
    assert violation_of(state, Roll("ann", (1, 1, 1, 1, 1))).code == "no_rolls_left"


@pytest.mark.parametrize("keep", [(5,), (0, 0), (-1,), (0, 1, 2, 3, 4)])
def test_a_re_roll_names_1_to_4_kept_dice_by_position_each_once(keep):
    state = given(ANN_BOB, DiceRolled("ann", 1, 1, (), (1, 2, 3, 4, 6), (1, 2, 3, 4, 6), ""))
    assert violation_of(state, Roll("ann", (1, 1, 1, 1, 1), keep=keep)).code == "invalid_keep"


def test_nothing_can_be_kept_on_the_first_roll():
    assert violation_of(given(ANN_BOB), Roll("ann", (1, 1, 1, 1, 1), keep=(0,))).code == "invalid_keep"


def test_dice_must_show_1_to_6():
    assert violation_of(given(ANN_BOB), Roll("ann", (1, 2, 3, 4, 7))).code == "invalid_dice"


# Scoring -----------------------------------------------------------------------------------

ANN_ROLLED_A_PAIR = DiceRolled("ann", 1, 1, (), (5, 5, 3, 2, 1), (5, 5, 3, 2, 1), "")


def test_scoring_writes_the_line_and_passes_the_turn_to_the_next_seat():
    assert decide(given(ANN_BOB, ANN_ROLLED_A_PAIR), Score("ann", "pair")) == [
        LineScored("ann", "pair", 16, (5, 5, 3, 2, 1), False), TurnPassed("bob", 1)]


def test_after_the_last_seat_the_next_round_starts_at_the_first_seat():
    state = given(ANN_BOB, ANN_ROLLED_A_PAIR, LineScored("ann", "pair", 16, (5, 5, 3, 2, 1), False),
                  TurnPassed("bob", 1), DiceRolled("bob", 1, 1, (), (1, 2, 3, 4, 5), (1, 2, 3, 4, 5), ""))
    assert decide(state, Score("bob", "large_straight"))[-1] == TurnPassed("ann", 2)


def test_a_roll_that_fits_no_free_line_is_written_as_0_on_a_line_of_choice():
    state = given(ANN_BOB, DiceRolled("ann", 1, 1, (), (1, 2, 3, 4, 6), (1, 2, 3, 4, 6), ""))
    assert decide(state, Score("ann", "poker"))[0] == LineScored("ann", "poker", 0, (1, 2, 3, 4, 6), False)


def test_a_player_must_roll_before_scoring():
    assert violation_of(given(ANN_BOB), Score("ann", "chance")).code == "must_roll_first"


def test_a_line_is_filled_once():
    state = given(ANN_BOB, LineScored("ann", "chance", 20, (4, 4, 4, 4, 4), False),
                  DiceRolled("ann", 1, 1, (), (6, 6, 6, 6, 5), (6, 6, 6, 6, 5), ""))
    refused = violation_of(state, Score("ann", "chance"))
    assert refused.code == "line_filled" and refused.numbers == {"line": "chance", "score": 20}


def test_an_unknown_line_is_refused():
    assert violation_of(given(ANN_BOB, ANN_ROLLED_A_PAIR), Score("ann", "yahtzee")).code == "unknown_line"


def test_only_the_player_whose_turn_it_is_may_score():
    assert violation_of(given(ANN_BOB, ANN_ROLLED_A_PAIR), Score("bob", "pair")).code == "not_your_turn"


ANN_HAS_POKER = LineScored("ann", "poker", 50, (2, 2, 2, 2, 2), False)
ANN_ROLLS_FIVE_FOURS = DiceRolled("ann", 2, 1, (), (4, 4, 4, 4, 4), (4, 4, 4, 4, 4), "")


def test_five_of_a_kind_again_earns_the_poker_bonus_and_is_forced_to_its_upper_line():
    state = given(ANN_BOB, ANN_HAS_POKER, ANN_ROLLS_FIVE_FOURS)
    assert decide(state, Score("ann", "fours"))[:2] == [
        LineScored("ann", "fours", 20, (4, 4, 4, 4, 4), True), BonusAwarded("ann", "poker", 100)]
    refused = violation_of(state, Score("ann", "chance"))
    assert refused.code == "joker_line_required" and refused.numbers["legal"] == ["fours"]


def test_a_joker_on_a_lower_line_meets_its_need_and_scores_it_normally():
    state = given(ANN_BOB, ANN_HAS_POKER, LineScored("ann", "fours", 8, (4, 4, 1, 2, 3), False),
                  ANN_ROLLS_FIVE_FOURS)
    assert decide(state, Score("ann", "large_straight"))[0] == LineScored(
        "ann", "large_straight", 40, (4, 4, 4, 4, 4), True)


def test_the_poker_bonus_is_paid_each_time_and_counts_in_the_totals():
    state = given(ANN_BOB, ANN_HAS_POKER, BonusAwarded("ann", "poker", 100),
                  BonusAwarded("ann", "poker", 100))
    assert state.totals("ann").poker_bonuses == 200


def test_poker_holding_0_gives_a_later_five_of_a_kind_no_bonus():
    state = given(ANN_BOB, LineScored("ann", "poker", 0, (1, 2, 3, 4, 6), False), ANN_ROLLS_FIVE_FOURS)
    events = decide(state, Score("ann", "chance"))
    assert events[0] == LineScored("ann", "chance", 20, (4, 4, 4, 4, 4), False)
    assert not any(isinstance(e, BonusAwarded) for e in events)


def test_the_line_that_takes_the_upper_section_past_63_awards_the_upper_bonus():
    upper = [LineScored("ann", line, score, (1, 1, 1, 1, 1), False) for line, score in
             (("aces", 3), ("twos", 6), ("threes", 9), ("fours", 12), ("fives", 20))]
    state = given(ANN_BOB, *upper, DiceRolled("ann", 1, 1, (), (6, 6, 6, 1, 2), (6, 6, 6, 1, 2), ""))
    assert decide(state, Score("ann", "sixes"))[1] == BonusAwarded("ann", "upper", 35)


# The action clock -----------------------------------------------------------------------------

def test_on_time_out_the_dice_stand_and_the_best_free_line_is_written():
    state = given(ANN_BOB, DiceRolled("ann", 1, 1, (), (2, 3, 4, 5, 6), (2, 3, 4, 5, 6), ""))
    assert decide(state, TimeOut("ann")) == [
        ClockExpired("ann", 1), LineScored("ann", "large_straight", 40, (2, 3, 4, 5, 6), False),
        TurnPassed("bob", 1)]


def test_a_time_out_before_any_roll_rolls_the_dice_the_caller_drew_then_scores():
    assert decide(given(ANN_BOB), TimeOut("ann", dice=(6, 6, 6, 2, 2))) == [
        ClockExpired("ann", 1), DiceRolled("ann", 1, 1, (), (6, 6, 6, 2, 2), (6, 6, 6, 2, 2), ""),
        LineScored("ann", "full_house", 25, (6, 6, 6, 2, 2), False), TurnPassed("bob", 1)]


def test_a_time_out_before_any_roll_needs_the_callers_dice():
    assert violation_of(given(ANN_BOB), TimeOut("ann")).code == "dice_required"


def test_a_time_out_for_a_player_not_on_turn_is_refused_as_stale():
    assert violation_of(given(ANN_BOB), TimeOut("bob", dice=(1, 1, 1, 1, 1))).code == "not_your_turn"


# Committed rolls --------------------------------------------------------------------------

FIRST_ROLL, FIRST_SALT = (3, 3, 3, 5, 5), "salt-one"
NEXT_ROLL, NEXT_SALT = (6, 1, 6, 6, 2), "salt-two"


def test_a_game_can_commit_to_its_first_roll_before_anyone_acts():
    commitment = roll_commitment(FIRST_ROLL, FIRST_SALT)
    assert decide(INITIAL_STATE, StartGame(("ann", "bob"), roll_commitment=commitment)) == [
        ANN_BOB, RollCommitted(commitment)]


def test_a_committed_roll_reveals_the_drawn_values_and_commits_the_next():
    state = given(ANN_BOB, RollCommitted(roll_commitment(FIRST_ROLL, FIRST_SALT)))
    next_commitment = roll_commitment(NEXT_ROLL, NEXT_SALT)
    assert decide(state, Roll("ann", FIRST_ROLL, salt=FIRST_SALT, next_commitment=next_commitment)) == [
        DiceRolled("ann", 1, 1, (), FIRST_ROLL, FIRST_ROLL, FIRST_SALT), RollCommitted(next_commitment)]


def test_dice_that_do_not_match_the_commitment_are_refused():
    state = given(ANN_BOB, RollCommitted(roll_commitment(FIRST_ROLL, FIRST_SALT)))
    refused = violation_of(state, Roll("ann", (6, 6, 6, 6, 6), salt=FIRST_SALT,
                                       next_commitment=roll_commitment(NEXT_ROLL, NEXT_SALT)))
    assert refused.code == "roll_commitment_mismatch"


def test_once_rolls_are_committed_every_roll_commits_the_next():
    state = given(ANN_BOB, RollCommitted(roll_commitment(FIRST_ROLL, FIRST_SALT)))
    assert violation_of(state, Roll("ann", FIRST_ROLL, salt=FIRST_SALT)).code == "roll_commitment_required"


def test_a_commitment_is_a_sha256_digest():
    refused = violation_of(INITIAL_STATE, StartGame(("ann",), roll_commitment="xyz"))
    assert refused.code == "invalid_commitment"


def test_the_commitment_is_sha256_of_salt_colon_values():
    assert roll_commitment((3, 1, 4, 5, 5), "s3cr3t") == hashlib.sha256(b"s3cr3t:31455").hexdigest()


# The end ---------------------------------------------------------------------------------

def whole_game(players: tuple[str, ...], dice_for) -> tuple[DiceGameState, list]:
    """Every player rolls `dice_for(player, line)` and writes it on the lines in card order."""
    state, events = play(INITIAL_STATE, StartGame(players))
    for line in LINES:
        for player in players:
            state, more = play(state, Roll(player, dice_for(player, line)), Score(player, line))
            events += more
    return state, events


def test_the_game_ends_when_every_line_is_filled_and_the_highest_total_wins():
    state, events = whole_game(("ann", "bob"), lambda player, line: (6, 6, 6, 6, 6) if player == "ann"
                               else (1, 1, 1, 1, 1))
    ended = events[-1]
    assert isinstance(ended, GameEnded) and state.over
    assert ended.winners == ("ann",)
    assert [(r.player, r.place, r.result) for r in ended.results] == [("ann", 1, "win"), ("bob", 2, "loss")]
    # ann writes five sixes on every line in card order: sixes 30; pair, three and four of a
    # kind 30 each; two pair, full house and both straights 0 (no joker while Poker is free);
    # poker 50; then chance is a joker (sixes filled, chance the only free lower line): 30 + 100
    assert ended.results[0] == PlayerResult("ann", 30, 0, 3 * 30 + 50 + 30, 100, 300, 1, "win")


def test_equal_totals_are_a_draw():
    _, events = whole_game(("ann", "bob", "cy"), lambda player, line: (2, 3, 4, 5, 6) if player != "cy"
                           else (1, 2, 3, 4, 6))
    ended = events[-1]
    assert ended.winners == ("ann", "bob")
    assert [(r.place, r.result) for r in ended.results] == [(1, "draw"), (1, "draw"), (3, "loss")]


def test_nothing_can_be_done_after_the_game_ends():
    state, _ = whole_game(("ann",), lambda player, line: (1, 2, 3, 4, 6))
    assert violation_of(state, Roll("ann", (1, 2, 3, 4, 5))).code == "game_over"


def test_a_solo_game_passes_the_turn_to_the_same_player_for_the_next_round():
    state, events = play(given(GameStarted(("ann",), DiceSettings())),
                         Roll("ann", (1, 2, 3, 4, 6)), Score("ann", "chance"))
    assert events[-1] == TurnPassed("ann", 2) and state.round == 2
