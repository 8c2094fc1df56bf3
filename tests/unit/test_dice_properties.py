"""Invariants of dice poker, stated once; hypothesis finds the cards, rolls and games."""
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.games.dice import (
    EVENT_TYPES,
    INITIAL_STATE,
    BonusAwarded,
    DiceRolled,
    GameEnded,
    LineScored,
    Roll,
    Score,
    StartGame,
    TimeOut,
    TurnPassed,
    decide,
    evolve,
    replay,
    roll_commitment,
)
from domain.games.dice_scoring import (
    LINES,
    LOWER_LINES,
    UPPER_LINES,
    DiceSettings,
    Scorecard,
    best_free_line,
    legal_lines,
    line_options,
    possible_scores,
    scorecard_totals,
)
from domain.records import from_record, to_record

dice = st.tuples(*[st.integers(1, 6)] * 5)
rules = st.builds(DiceSettings, upper_bonus_rule=st.sampled_from(["more_than_63", "63_or_more"]),
                  upper_bonus=st.integers(0, 100), poker_bonus=st.integers(0, 200))


@st.composite
def scorecards(draw) -> Scorecard:
    return Scorecard(tuple(draw(st.none() | st.sampled_from(sorted(possible_scores(line))))
                           for line in LINES))


@given(scorecards(), st.integers(0, 5), rules)
def test_a_cards_grand_total_is_the_sum_of_its_lines_plus_its_bonuses(card, poker_bonuses, rules):
    totals = scorecard_totals(card, poker_bonuses, rules)
    lines = sum(score or 0 for score in card.scores)
    assert totals.grand_total == lines + totals.upper_bonus + poker_bonuses * rules.poker_bonus
    assert totals.upper == sum(card.score(line) or 0 for line in UPPER_LINES)
    assert totals.lower == sum(card.score(line) or 0 for line in LOWER_LINES)
    assert totals.upper_bonus in (0, rules.upper_bonus)


@given(scorecards(), dice)
def test_a_roll_always_has_a_legal_free_line_until_the_card_is_full(card, roll):
    legal = legal_lines(card, roll)
    assert set(legal) <= set(card.free_lines())
    assert bool(legal) == (not card.is_full)
    if legal:
        best = best_free_line(card, roll)
        options = {o.line: o for o in line_options(card, roll, 0)}
        assert best in legal
        assert all(options[best].score + options[best].bonus >= options[line].score + options[line].bonus
                   for line in legal)


# a seeded RNG rather than st.randoms(): a game makes thousands of draws, which hypothesis
# would record one by one, ten times slower
seeds = st.integers(0, 2**32 - 1)


def random_game(rng: random.Random, players: tuple[str, ...], committed: bool):
    """A whole game of random rolls, keeps, line choices and clock expiries; every command
    is checked by decide, and the state is grown one event at a time."""
    def draw():
        # one roll in eight is five of a kind, so games meet the poker bonus and the joker rule
        if rng.random() < 0.125:
            return (rng.randint(1, 6),) * 5, f"salt{rng.random()}"
        return tuple(rng.randint(1, 6) for _ in range(5)), f"salt{rng.random()}"

    pending = draw()
    start = StartGame(players, roll_commitment=roll_commitment(*pending) if committed else None)
    events = decide(INITIAL_STATE, start)
    state = replay(events)
    while not state.over:
        player = state.players[state.to_act]
        can_roll = state.rolls < state.settings.rolls_per_turn
        upcoming = draw()
        reveal = dict(salt=pending[1], next_commitment=roll_commitment(*upcoming) if committed else None)
        choice = rng.random()
        if state.dice is None and choice < 0.1:
            command = TimeOut(player, dice=pending[0], **reveal)  # the clock rolls for them
        elif state.dice is None or (can_roll and choice < 0.5):
            keep = tuple(sorted(rng.sample(range(5), rng.randint(0, 4)))) if state.dice else ()
            command = Roll(player, pending[0], keep=keep, **reveal)
        elif choice < 0.6:
            command = TimeOut(player)
        else:
            command = Score(player, rng.choice(legal_lines(state.cards[state.to_act], state.dice)))
        new = decide(state, command)
        if any(isinstance(event, DiceRolled) for event in new):
            pending = upcoming
        for event in new:
            state = evolve(state, event)
        events += new
    return state, events


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), seeds, st.booleans())
def test_a_random_game_ends_after_fifteen_turns_per_player_with_every_line_filled_once(
        player_count, seed, committed):
    players = tuple(f"p{seat}" for seat in range(player_count))
    state, events = random_game(random.Random(seed), players, committed)
    scored = [event for event in events if isinstance(event, LineScored)]
    assert Counter(event.player for event in scored) == {player: 15 for player in players}
    for player in players:
        assert sorted(e.line for e in scored if e.player == player) == sorted(LINES)
    assert all(card.is_full for card in state.cards)
    assert sum(isinstance(event, TurnPassed) for event in events) == 15 * player_count - 1
    assert isinstance(events[-1], GameEnded) and sum(isinstance(e, GameEnded) for e in events) == 1
    rolls_per_turn = Counter((e.player, e.round) for e in events if isinstance(e, DiceRolled))
    assert len(rolls_per_turn) == 15 * player_count and max(rolls_per_turn.values()) <= 3


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 4), seeds, st.booleans())
def test_replaying_the_events_or_their_stored_records_reproduces_the_state_and_totals(
        player_count, seed, committed):
    players = tuple(f"p{seat}" for seat in range(player_count))
    state, events = random_game(random.Random(seed), players, committed)
    assert replay(events) == state
    assert [from_record(EVENT_TYPES, *to_record(event)) for event in events] == events
    ended = events[-1]
    for result in ended.results:
        lines = sum(e.score for e in events if isinstance(e, LineScored) and e.player == result.player)
        bonuses = sum(e.points for e in events if isinstance(e, BonusAwarded) and e.player == result.player)
        assert result.grand_total == lines + bonuses
        assert result.grand_total == state.totals(result.player).grand_total
    top = max(result.grand_total for result in ended.results)
    assert set(ended.winners) == {r.player for r in ended.results if r.grand_total == top}
