"""Five-card draw, Palace Poker and dice poker played as live tables (domain.live.table with
domain.live.games): seeded randomness, scripted players choosing among the legal actions."""
from __future__ import annotations

import random

import pytest

from domain.games.draw import openers as draw_openers
from domain.live import table, table_commands, table_state
from domain.live.games.dice import DiceTableHand
from domain.live.games.draw import DrawTableHand
from domain.live.games.palace import PalaceTableHand
from domain.rules.betting import BettingStructure
from domain.rules.cards import format_card, new_deck
from domain.rules.violations import Violation


class SeededDraws:
    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def shuffled(self, cards: tuple[str, ...]) -> tuple[str, ...]:
        order = list(cards)
        self._random.shuffle(order)
        return tuple(order)

    def salt(self) -> str:
        return self._random.randbytes(32).hex()

    def die(self) -> int:
        return self._random.randint(1, 6)


def _deal(draws: SeededDraws, with_joker: bool = False) -> table_commands.StartNextHand:
    deck = draws.shuffled(tuple(format_card(c) for c in new_deck(with_joker)))
    return table_commands.StartNextHand(deck, draws.salt())


def _create(game: str, settings: dict, stacks: tuple[int, ...] = (1000, 1000, 1000)) -> table_state.TableState:
    seats = tuple(table_commands.TableSeat(f"p{i}", s) for i, s in enumerate(stacks))
    events, state = table.handle(None, table_commands.CreateTable("t", game, settings, BettingStructure(), seats, ranked=True))
    return state


def _play(state: table_state.TableState, rng: random.Random, draws: SeededDraws) -> tuple[list, table_state.TableState]:
    """One scripted action among the legal ones for whoever is to act."""
    from service.application.views import legal_actions_view
    shown = legal_actions_view(state)
    player, legal = shown["to_act"], shown["legal"]
    hand = state.hand
    if isinstance(hand, DrawTableHand):
        if legal.get("discard"):
            seat = state.position_of(player)
            cards = [format_card(c) for c in hand.game.hands[seat]]
            count = rng.randint(0, legal["discard"]["max_cards_keeping_no_ace"])
            thrown = tuple(rng.sample(cards, count))
            # An opener who throws part of the openers away says so (splitting openers).
            action = "split_openers" if draw_openers.breaks_openers(hand.game, seat, thrown) else "discard"
            act = table_commands.Act(player, action, discard=thrown)
        else:
            choices = [a for a in ("check", "call", "fold") if legal.get(a)]
            if legal.get("bet") and rng.random() < 0.3:
                act = table_commands.Act(player, "bet", legal["bet"]["min_to"])
            elif legal.get("raise") and rng.random() < 0.2:
                act = table_commands.Act(player, "raise", legal["raise"]["min_to"])
            else:
                act = table_commands.Act(player, rng.choice(choices))
    elif isinstance(hand, PalaceTableHand):
        act = _palace_move(player, shown["round"], legal, rng)
    else:
        if legal["roll"] and (legal["score"] is None or rng.random() < 0.5):
            keep = tuple(sorted(rng.sample(range(5), rng.randint(0, 4)))) if legal["roll"]["keep"] else None
            act = table_commands.Act(player, "roll", keep=keep)
        else:
            act = table_commands.Act(player, "score", line=rng.choice(legal["score"]["options"])["line"])
    return table.handle(state, act, 0, draws)


def _palace_move(player: str, phase: str, legal: dict, rng: random.Random) -> table_commands.Act:
    if phase == "discarding":
        cards = legal["discard"]["from"]
        return table_commands.Act(player, "discard", discard=tuple(cards[:legal["discard"]["min_cards"]]))
    if phase == "defending":
        return table_commands.Act(player, rng.choice(["call", "fold"]))
    if phase == "answering_raise":
        return table_commands.Act(player, "call")
    options = [name for name in ("buy", "attack", "stay") if legal.get(name)]
    choice = rng.choice(options) if options else "fold"
    if choice == "attack":
        attack = legal["attack"]
        return table_commands.Act(player, "attack", attack["min_to"], **rng.choice(attack["options"]))
    if choice == "buy":
        return table_commands.Act(player, "buy")
    return table_commands.Act(player, choice)


def _play_table(game: str, settings: dict, stacks: tuple[int, ...], seed: int,
                max_steps: int = 5000) -> table_state.TableState:
    draws, rng = SeededDraws(seed), random.Random(seed)
    state = _create(game, settings, stacks)
    total = sum(stacks)
    for _ in range(max_steps):
        if state.finished:
            return state
        if not state.hand_in_progress:
            state = table.handle(state, _deal(draws, table_state.game_rules(game).uses_joker(settings)), 0, draws)[1]
            continue
        state = _play(state, rng, draws)[1]
        assert sum(state.live_stacks) + sum(_in_pots(state)) == total
    raise AssertionError("the table did not finish")


def _in_pots(state: table_state.TableState) -> list[int]:
    hand = state.hand
    if isinstance(hand, DrawTableHand) and hand.game.betting is not None and state.hand_in_progress:
        return [int(c) for c in hand.game.betting.committed]
    if isinstance(hand, PalaceTableHand) and state.hand_in_progress:
        return [hand.game.pot]
    return []


@pytest.mark.parametrize("seed", range(5))
def test_a_five_card_draw_match_ends_after_its_hands_with_chips_conserved(seed):
    state = _play_table("five-card-draw", {"hands": 4, "ante": 5, "opening": "jacks_or_better"},
                        (500, 500, 500), seed)
    assert state.finished and sum(state.stacks) == 1500
    assert state.hands_played <= 4
    assert {r.outcome for r in state.results} <= {"win", "draw", "loss"}


def test_five_card_draw_without_betting_scores_points_and_keeps_stacks():
    state = _play_table("five-card-draw", {"mode": "no-betting", "hands": 3}, (0, 0), 3)
    assert state.finished and state.hands_played == 3
    assert sum(state.points) >= 3
    assert state.results[0].place == 1


@pytest.mark.parametrize("seed", range(3))
def test_a_palace_table_plays_until_one_player_has_every_chip(seed):
    state = _play_table("palace", {"small_bet": 10, "big_bet": 20}, (200, 200, 200), seed, 20000)
    assert state.finished and sum(state.stacks) == 600
    assert [r.outcome for r in state.results].count("win") == 1


def test_a_dice_table_is_one_game_of_fifteen_rounds_with_results():
    state = _play_table("dice", {}, (0, 0), 11)
    assert state.finished and state.hands_played == 1
    assert isinstance(state.hand, DiceTableHand) and state.hand.game.over
    assert sorted(state.points, reverse=True) == [r.grand_total for r in
                                                  sorted(state.hand.game.results, key=lambda r: r.place)]


def test_each_dice_roll_reveals_the_values_committed_before_it():
    from domain.games import dice
    draws = SeededDraws(5)
    state = _create("dice", {}, (0, 0))
    events, state = table.handle(state, _deal(draws), 0, draws)
    committed = next(e for e in events if isinstance(e, dice.RollCommitted)).commitment
    events, state = table.handle(state, table_commands.Act("p0", "roll"), 0, draws)
    rolled = next(e for e in events if isinstance(e, dice.DiceRolled))
    assert dice.roll_commitment(rolled.drawn, rolled.salt) == committed


def test_draw_settings_are_refused_with_their_code():
    with pytest.raises(Violation) as refused:
        _create("five-card-draw", {"draw_limit": 7})
    assert refused.value.code == "invalid_settings"
    with pytest.raises(Violation) as refused:
        _create("palace", {"small_bet": 10})
    assert refused.value.code == "invalid_settings"


def test_the_draw_clock_stands_pat_on_the_draw():
    draws = SeededDraws(1)
    state = _create("five-card-draw", {"ante": 5}, (500, 500))
    state = table.handle(state, _deal(draws), 0, draws)[1]
    while state.hand.game.phase != "draw":
        state = table.handle(state, table_commands.Act(state.to_act, "check"), 0, draws)[1]
    seat = state.seat_to_act
    played, _ = table._play_for(state, seat, table.CLOCK_EXPIRED, draws, [])
    drew = [e for e in played if type(e).__name__ == "PlayerDrew"]
    assert drew and drew[0].count == 0


def test_the_dice_clock_rolls_then_writes_the_best_free_line():
    draws = SeededDraws(2)
    state = _create("dice", {}, (0, 0))
    state = table.handle(state, _deal(draws), 0, draws)[1]
    played, state = table._play_for(state, 0, table.CLOCK_EXPIRED, draws, [])
    names = [type(e).__name__ for e in played]
    assert "DiceRolled" in names and "LineScored" in names and state.to_act == "p1"


@pytest.mark.parametrize("game, settings, stacks", [
    ("five-card-draw", {"hands": 3, "ante": 5}, (300, 300)),
    ("palace", {"small_bet": 10, "big_bet": 20}, (100, 100)),
])
def test_replaying_the_log_of_a_table_gives_the_live_state(game, settings, stacks):
    draws, rng = SeededDraws(9), random.Random(9)
    seats = tuple(table_commands.TableSeat(f"p{i}", s) for i, s in enumerate(stacks))
    log, state = table.handle(None, table_commands.CreateTable("t", game, settings, BettingStructure(), seats))
    for _ in range(3000):
        if state.finished:
            break
        if not state.hand_in_progress:
            events, state = table.handle(state, _deal(draws), 0, draws)
        else:
            events, state = _play(state, rng, draws)
        log.extend(events)
    assert state.finished
    assert table_state.replay(log) == state


@pytest.mark.parametrize("game", ["holdem", "omaha"])
def test_a_setting_holdem_does_not_play_is_refused_at_creation(game):
    # A draw's openers asked of a hold'em table used to be kept and never played.
    seats = (table_commands.TableSeat("ann", 1000), table_commands.TableSeat("bob", 1000))
    with pytest.raises(Violation) as refused:
        table.decide(None, table_commands.CreateTable("t", game, {"opening": "jacks", "showdown": "declared"},
                                                      BettingStructure(small_blind=5, big_blind=10), seats))
    assert refused.value.code == "invalid_table" and refused.value.numbers == {"unknown_settings": ["opening"]}
    kept = {"showdown": "declared", "starting_chips": 1000}
    created = table.decide(None, table_commands.CreateTable("t", game, kept, BettingStructure(small_blind=5, big_blind=10), seats))
    assert created[0].settings == kept
