"""Hold'em's decider against the mixed games' flop family, decision by decision: random
hands (no-limit, pot-limit, fixed-limit; 2 to 9 players; antes, the big-blind ante,
short stacks down to less than a blind) are played in domain.games.holdem and in
domain.games.mixed, with actions picked from hold'em's legal set. At every decision both
must ask the same seat and offer the same actions; every hand must end with the same
stacks.

The flop family is started two ways: with the blinds by position, as a rotation deals
hold'em (where they part by design, DIFFERENCES, pinned down below, the hand is not
compared), and with the structure's own forced bets, as hold'em posts them (straddles and
the dead small blind too): there every hand must agree. docs/flop-family.md says what
the one engine must still take over from hold'em."""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from domain.games import holdem, mixed
from domain.games.hand_events import PostAction
from domain.rules.betting import FIXED_LIMIT, NO_LIMIT, POT_LIMIT, BettingStructure, LegalActions, legal_actions
from domain.rules.cards import RANKS, SUITS
from domain.rules.violations import Violation

HANDS = 300
_DECK = [rank + suit for rank in RANKS for suit in SUITS]

# A blind bigger than the stack: hold'em counts the chips the poster lacks (`phantom`:
# the round's level stays the full blind, TDA 54-B's short blind), the flop family's
# positional blinds count only what was posted.
SHORT_BLIND = "a blind posted short"
DIFFERENCES = (SHORT_BLIND,)

Offer = tuple[int | None, bool, Any, Any]


def _offer(seat: int | None, legal: LegalActions | None) -> Offer:
    if legal is None:
        return seat, False, None, None
    sizes = legal.bet or legal.raise_
    return (seat, legal.check, legal.call.to if legal.call else None,
            (sizes.min_to, sizes.max_to) if sizes else None)


def _structure(kind: str, big_blind: int, ante: int, big_blind_ante: bool) -> BettingStructure:
    fixed = kind == FIXED_LIMIT
    return BettingStructure(
        kind=kind, small_blind=big_blind // 2, big_blind=big_blind, ante=ante,
        big_blind_ante=big_blind_ante, small_bet=big_blind if fixed else None,
        big_bet=2 * big_blind if fixed else None, raise_cap=4 if fixed else None)


def _flop_family_start(start: holdem.StartHand, by_structure: bool = False) -> mixed.StartHand:
    """The same hand in the flop family: as a rotation starts it, the blinds by position
    (seat 0 the small blind, the button last), the antes each, the big-blind ante dead on
    the big blind; or `by_structure`, no forced bet by position: the structure's."""
    b, n = start.betting, len(start.players)
    blinds = (b.small_blind, b.big_blind) + (0,) * (n - 2)
    antes = (0, b.ante) + (0,) * (n - 2) if b.big_blind_ante else (b.ante,) * n
    if by_structure:
        antes, blinds = (), ()
    game = "rotation_omaha" if start.variant == "omaha" else "rotation_holdem"
    return mixed.StartHand(game, start.players, start.stacks, start.button, b, antes, blinds,
                           dead_antes=b.big_blind_ante, odd_chip=start.odd_chip)


def _random_start(rng: random.Random, straddles_and_dead_blinds: bool) -> holdem.StartHand:
    kind = rng.choice([NO_LIMIT, POT_LIMIT, FIXED_LIMIT])
    players = rng.randint(2, 9)
    big_blind = rng.choice([2, 10, 100])
    ante = rng.choice([0, 0, max(1, big_blind // 10)])
    big_blind_ante = bool(ante) and players > 2 and rng.random() < 0.3
    stacks = tuple(rng.choice([
        rng.randint(1, 2 * big_blind),
        rng.randint(big_blind, 40 * big_blind),
        rng.randint(10 * big_blind, 200 * big_blind),
    ]) for _ in range(players))
    variant = "omaha" if kind == POT_LIMIT and rng.random() < 0.3 else "holdem"
    structure = _structure(kind, big_blind, ante, big_blind_ante)
    if straddles_and_dead_blinds and players >= 4 and kind != FIXED_LIMIT and rng.random() < 0.3:
        structure = replace(structure, straddles=(2 * big_blind,))
    if straddles_and_dead_blinds and players > 2 and rng.random() < 0.15:
        structure = replace(structure, dead_small_blind=True)
    return holdem.StartHand(tuple(f"seat{i}" for i in range(players)), stacks, players - 1,
                            structure, variant, "split_exactly")


def _short_blind(start: holdem.StartHand) -> bool:
    b, n = start.betting, len(start.players)
    posts = ((n - 1, b.small_blind), (0, b.big_blind)) if n == 2 else ((0, b.small_blind), (1, b.big_blind))
    ante = 0 if b.big_blind_ante else b.ante
    return any(start.stacks[seat] - ante < blind for seat, blind in posts)


def play_in_both(seed: int, by_structure: bool = False) -> tuple[str, str]:
    """(outcome, detail): "same" when every decision and the end agree, a DIFFERENCES
    entry when the hand is one of them, "different" with the first disagreement."""
    rng = random.Random(seed)
    start = _random_start(rng, straddles_and_dead_blinds=by_structure)
    if not by_structure and _short_blind(start):
        return SHORT_BLIND, ""
    _, ours = holdem.handle(None, start)
    _, theirs = mixed.handle(None, _flop_family_start(start, by_structure))
    deck = _DECK[:]
    rng.shuffle(deck)
    for seat in range(len(start.players)):
        cards = "".join(deck.pop() for _ in range(holdem.HOLE_CARD_COUNT[start.variant]))
        _, ours = holdem.handle(ours, holdem.DealHole(seat, cards))
        _, theirs = mixed.handle(theirs, mixed.DealCards(seat, cards))
    while not ours.over:
        awaiting = ours.awaiting
        if awaiting == "action":
            mine = _offer(ours.to_act, holdem.legal_actions(ours))
            other = _offer(theirs.to_act, legal_actions(theirs.betting))
            if mine != other:
                return "different", f"hold'em {mine}, flop family {other}"
            action, to = _choose(rng, holdem.legal_actions(ours))
            seat = ours.to_act
            assert seat is not None
            command = PostAction(seat, action, to)
            _, ours = holdem.handle(ours, command)
            _, theirs = mixed.handle(theirs, command)
        elif awaiting in ("flop", "turn", "river"):
            cards = "".join(deck.pop() for _ in range(3 if awaiting == "flop" else 1))
            if theirs.phase != "board":
                return "different", f"hold'em awaits the {awaiting}, the flop family the {theirs.phase}"
            _, ours = holdem.handle(ours, holdem.DealBoard(cards))
            _, theirs = mixed.handle(theirs, mixed.DealBoard(cards))
        else:
            _, ours = holdem.handle(ours, holdem.SettleShowdown())
            if not theirs.over:
                _, theirs = mixed.handle(theirs, mixed.SettleShowdown())
    if not theirs.over or ours.stacks != theirs.stacks:
        return "different", f"stacks: hold'em {ours.stacks}, flop family {theirs.stacks}"
    return "same", ""


def _choose(rng: random.Random, legal: LegalActions | None) -> tuple[str, Any]:
    assert legal is not None
    options: list[tuple[str, Any]] = [("fold", None)] if legal.call else []
    options.append(("check", None) if legal.check else ("call", None))
    sizes = legal.bet or legal.raise_
    if sizes:
        name = "bet" if legal.bet else "raise"
        options += [(name, sizes.min_to), (name, sizes.max_to),
                    (name, rng.randint(int(sizes.min_to), int(sizes.max_to)))]
    return rng.choice(options)


def _outcomes(by_structure: bool) -> Counter[str]:
    outcomes: Counter[str] = Counter()
    different = []
    for seed in range(HANDS):
        outcome, detail = play_in_both(seed, by_structure)
        outcomes[outcome] += 1
        if outcome == "different":
            different.append(f"seed {seed}: {detail}")
    assert not different, f"{len(different)} of {HANDS} hands differ, first: {different[:3]}"
    return outcomes


def test_random_hands_with_blinds_by_position_are_decided_alike_by_both_engines() -> None:
    assert _outcomes(by_structure=False)["same"] >= HANDS // 2


def test_random_hands_with_the_structures_forced_bets_are_decided_alike_by_both_engines() -> None:
    assert _outcomes(by_structure=True)["same"] == HANDS


def test_the_structures_forced_bets_are_for_the_board_and_draw_games() -> None:
    start = mixed.StartHand("stud", ("a", "b"), (100, 100), 1, _structure(FIXED_LIMIT, 10, 1, False), (), ())
    with pytest.raises(Violation) as refused:
        mixed.handle(None, start)
    assert refused.value.code == "illegal_action"


@pytest.mark.parametrize(("big_blind_stack", "flop_family_level"), [(5, 10), (15, 15)])
def test_a_short_big_blind_is_where_the_engines_part(big_blind_stack: int, flop_family_level: int) -> None:
    # Seat 1 posts the big blind of 20 with what it has. Hold'em keeps the round's level
    # at the full blind (TDA 54-B: the others call 20); the flop family at the most posted
    # (the small blind's 10 when the big blind had less).
    start = holdem.StartHand(("a", "b", "c"), (1000, big_blind_stack, 1000), 2,
                             _structure(NO_LIMIT, 20, 0, False))
    _, ours = holdem.handle(None, start)
    _, theirs = mixed.handle(None, _flop_family_start(start))
    for seat, cards in enumerate(("AsKs", "QdQc", "7h2c")):
        _, ours = holdem.handle(ours, holdem.DealHole(seat, cards))
        _, theirs = mixed.handle(theirs, mixed.DealCards(seat, cards))
    assert _short_blind(start)
    assert ours.betting.highest == 20
    assert theirs.betting.highest == flop_family_level
    _, by_structure = mixed.handle(None, _flop_family_start(start, by_structure=True))
    assert by_structure.betting.highest == 20
