"""Replay speed: the 10,000 Pluribus hands through our engine and through PokerKit.

Both sides start from already-parsed hands, so neither pays for TOML or for translating
PHH notation: ours runs each hand's engine commands (`domain.history.phh.engine_commands`, built
before timing) through `holdem.handle`; PokerKit runs a pre-built list of state
operations with the automations its own `HandHistory` uses (antes, blinds, bet
collection, hand killing, chip pushing and pulling automatic; burns, deals, actions and
showdowns as explicit operations). Each side is timed in CPU time, best of three rounds
after a garbage collection, so a busy machine moves the ratio less.

`replay.cardroom_phh_hands_per_s` also times the whole PHH replay (notation resolved
against the state on the fly), for reference.
"""
from __future__ import annotations

import gc
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pokerkit import Automation, FixedLimitTexasHoldem, Mode, NoLimitTexasHoldem, PotLimitOmahaHoldem, State

from bench import size
from domain.games.holdem import handle
from domain.history.phh import BetOrRaisedTo, BoardDealt, CheckedOrCalled, Folded, HandHistory, HoleCardsDealt, ShownOrMucked, engine_commands, parse, replay

PLURIBUS = Path(__file__).resolve().parents[2] / "shared" / "phh" / "pluribus"
HANDS = size(None, smoke=10)
"""How many of the hands (in path order) to replay; None: all."""

POKERKIT_AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)

Operation = tuple[str, tuple[Any, ...]]


def load_pluribus_hands(limit: int | None = None) -> list[HandHistory]:
    paths = sorted(PLURIBUS.rglob("*.phh"))[:limit]
    return [parse(path.read_text()) for path in paths]


def pokerkit_factory(hand: HandHistory) -> Callable[[], State]:
    """A function making PokerKit's initial state for the hand (cash game, as HandHistory)."""
    common = dict(
        automations=POKERKIT_AUTOMATIONS,
        ante_trimming_status=hand.ante_trimming_status,
        raw_antes=hand.antes,
        raw_blinds_or_straddles=hand.blinds_or_straddles,
        mode=Mode.CASH_GAME,
    )
    if hand.variant == "FT":
        game = FixedLimitTexasHoldem(small_bet=hand.small_bet, big_bet=hand.big_bet, **common)
    elif hand.variant == "PO":
        game = PotLimitOmahaHoldem(min_bet=hand.min_bet, **common)
    elif hand.variant == "NT":
        game = NoLimitTexasHoldem(min_bet=hand.min_bet, **common)
    else:
        raise ValueError(f"no PokerKit game for {hand.variant}")
    stacks, count = list(hand.starting_stacks), hand.player_count
    return lambda: game(stacks, count)


def _apply(state: State, action: object) -> Operation:
    match action:
        case HoleCardsDealt(player, cards):
            return "deal_hole", ("".join(cards), player)
        case BoardDealt(cards):
            if state.can_burn_card():
                return "burn_card", ("??",)
            return "deal_board", ("".join(cards),)
        case Folded():
            return "fold", ()
        case CheckedOrCalled():
            return "check_or_call", ()
        case BetOrRaisedTo(_, amount):
            return "complete_bet_or_raise_to", (amount,)
        case ShownOrMucked(player, cards):
            shown = False if cards is None else (True if cards == () else "".join(cards))
            return "show_or_muck_hole_cards", (shown, player)
    raise ValueError(f"{action!r} has no PokerKit operation")


def pokerkit_operations(hand: HandHistory) -> list[Operation]:
    """The explicit PokerKit operations that replay the hand, found by running it once.

    Like PokerKit's HandHistory, a showdown the record leaves out is completed by showing
    (the hand must end for the stacks to settle).
    """
    state = pokerkit_factory(hand)()
    operations: list[Operation] = []
    pending = list(hand.actions)
    while pending:
        name, args = _apply(state, pending[0])
        getattr(state, name)(*args)
        operations.append((name, args))
        if name != "burn_card":
            pending.pop(0)
    while state.status:
        if state.can_show_or_muck_hole_cards():
            operations.append(("show_or_muck_hole_cards", ()))
            state.show_or_muck_hole_cards()
        elif state.can_burn_card():
            operations.append(("burn_card", ("??",)))
            state.burn_card("??")
        elif state.can_deal_board():
            # Only reachable if a record stops before the board is out; nothing to deal.
            raise ValueError("the record leaves the board unfinished")
        else:
            break
    return operations


def replay_with_pokerkit(make_state: Callable[[], State], operations: list[Operation]) -> State:
    state = make_state()
    for name, args in operations:
        getattr(state, name)(*args)
    return state


ROUNDS = size(3, smoke=1)


def best_cpu_seconds(work: Callable[[], object]) -> float:
    timings = []
    for _ in range(ROUNDS):
        gc.collect()
        started = time.process_time()
        work()
        timings.append(time.process_time() - started)
    return min(timings)


def replay_commands(hands_commands: list[tuple[Any, ...]]) -> None:
    for commands in hands_commands:
        state = None
        for command in commands:
            _, state = handle(state, command)


def run(limit: int | None = HANDS) -> dict[str, float]:
    hands = load_pluribus_hands(limit)
    ours_commands = [engine_commands(hand) for hand in hands]
    prepared = [(pokerkit_factory(hand), pokerkit_operations(hand)) for hand in hands]

    ours = best_cpu_seconds(lambda: replay_commands(ours_commands))
    ours_phh = best_cpu_seconds(lambda: [replay(hand) for hand in hands])
    theirs = best_cpu_seconds(
        lambda: [replay_with_pokerkit(make_state, operations) for make_state, operations in prepared])

    return {
        "replay.cardroom_hands_per_s": len(hands) / ours,
        "replay.cardroom_phh_hands_per_s": len(hands) / ours_phh,
        "replay.pokerkit_hands_per_s": len(hands) / theirs,
        "replay.cardroom_vs_pokerkit": theirs / ours,
    }
