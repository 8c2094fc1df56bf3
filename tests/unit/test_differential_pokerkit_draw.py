"""Differential test of five-card draw against PokerKit: PokerKit has no five-card draw high
among its games, so one is built from its parts (a `State` with five hole cards, one draw,
standard high hands, antes and no blind), and random hands are played in both, decision by
decision: five-card draw's decider picks the actions and the discards, PokerKit is dealt
the same cards (seat by seat from the dealer's left, as PokerKit numbers its players from
the button's left), and at every betting decision both must ask the same player and offer
the same check, call and bet or raise range; every hand must end with the same stacks.

The game PokerKit can play is five-card draw without its own settings (no joker, no
opening requirement, the second round from the dealer's left: docs/draw-family.md); the
fixed-limit raise cap of a bet and four raises is PokerKit's count of five.
"""
from __future__ import annotations

import random
import warnings
from typing import Any

from pokerkit import Automation, BettingStructure, Deck, Mode, Opening, StandardHighHand, State, Street

from domain.games.draw import engine as draw_engine
from domain.games.draw import legal as draw_legal
from domain.games.draw.commands import Discard, StartHand
from domain.games.draw.events import PlayerDrew
from domain.games.draw.state import HAND_SIZE, HandState
from domain.games.draw_settings import DRAW_LIMITS, LEFT_OF_DEALER, DrawSettings
from domain.games.hand_events import PostAction
from domain.rules.betting import FIXED_LIMIT, NO_LIMIT, POT_LIMIT, LegalActions
from domain.rules.cards import RANKS, SUITS, format_cards
from tests.unit.test_draw_family_differential import tally

HANDS = 200

# Where PokerKit's betting is not the TDA's, as the mixed games' PokerKit test names them
# (test_differential_pokerkit_mixed.DEPARTURES); a hand that meets one is counted, not compared.
SHORT_ALL_IN_REOPENS = "PokerKit lets a player who already acted re-raise a short all-in"
HALF_BET_RULE = "PokerKit raises over a fixed-limit all-in of less than half a bet (not completing it)"
NOBODY_CAN_CALL_A_RAISE = "PokerKit offers no raise when no opponent could put in more than the bet faced"
SHORT_ALL_IN_COUNTS_TO_THE_CAP = "PokerKit counts a short all-in as a raise toward the fixed-limit cap"
DEPARTURES = (SHORT_ALL_IN_REOPENS, HALF_BET_RULE, NOBODY_CAN_CALL_A_RAISE, SHORT_ALL_IN_COUNTS_TO_THE_CAP)
_DECK = tuple(rank + suit for rank in RANKS for suit in SUITS)
_STRUCTURES = {NO_LIMIT: BettingStructure.NO_LIMIT, POT_LIMIT: BettingStructure.POT_LIMIT,
               FIXED_LIMIT: BettingStructure.FIXED_LIMIT}
_AUTOMATIONS = (
    Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING, Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING,
)


def _random_start(rng: random.Random) -> StartHand:
    kind = rng.choice([NO_LIMIT, POT_LIMIT, FIXED_LIMIT])
    settings = DrawSettings(ante=rng.choice([1, 5, 10, 25]), structure=kind, draw_limit=rng.choice(DRAW_LIMITS),
                            second_round_start=LEFT_OF_DEALER)
    players = rng.randint(2, 6)
    unit = settings.unit
    stacks = tuple(rng.choice([rng.randint(1, 2 * settings.ante), rng.randint(unit, 20 * unit),
                               rng.randint(10 * unit, 200 * unit)]) for _ in range(players))
    deck = list(_DECK)
    rng.shuffle(deck)
    return StartHand(tuple(f"seat{i}" for i in range(players)), rng.randrange(players), settings, tuple(deck),
                     stacks)


def _seats_by_pokerkit_index(start: StartHand) -> tuple[int, ...]:
    """PokerKit's player i is our seat i places left of the button (the button last)."""
    n = len(start.players)
    return tuple((start.button + 1 + i) % n for i in range(n))


def _pokerkit_state(start: StartHand) -> State:
    settings = start.settings
    fixed = settings.structure == FIXED_LIMIT
    cap = settings.raise_cap if fixed else None
    streets = (Street(False, (False,) * HAND_SIZE, 0, False, Opening.POSITION, settings.unit, cap),
               Street(False, (), 0, True, Opening.POSITION, 2 * settings.unit if fixed else settings.unit, cap))
    seats = _seats_by_pokerkit_index(start)
    return State(_AUTOMATIONS, Deck.STANDARD, (StandardHighHand,), streets, _STRUCTURES[settings.structure],
                 True, settings.ante, 0, 0, tuple(int(start.stacks[seat]) for seat in seats), len(seats),
                 mode=Mode.CASH_GAME)


def _deal(theirs: State, seats: tuple[int, ...], cards: dict[int, list[str]]) -> None:
    """Deal PokerKit each player's next card while it waits for one."""
    while theirs.can_deal_hole():
        dealee = theirs.hole_dealee_index
        assert dealee is not None
        theirs.deal_hole(cards[seats[dealee]].pop(0))


def _our_offer(ours: HandState) -> tuple[Any, ...]:
    legal = draw_legal.legal_actions(ours)
    assert legal is not None and ours.to_act is not None
    sizes = legal.bet or legal.raise_
    return (ours.to_act, legal.check, legal.call.adds if legal.call else 0,
            (sizes.min_to, sizes.max_to) if sizes else None)


def _pokerkit_offer(theirs: State, seats: tuple[int, ...]) -> tuple[Any, ...]:
    actor = theirs.actor_index
    sizes = None
    if theirs.can_complete_bet_or_raise_to():
        sizes = (theirs.min_completion_betting_or_raising_to_amount,
                 theirs.max_completion_betting_or_raising_to_amount)
    owed = theirs.checking_or_calling_amount
    return (None if actor is None else seats[actor], owed == 0, owed, sizes)


def play_in_both(seed: int) -> tuple[str, str]:
    rng = random.Random(seed)
    start = _random_start(rng)
    seats = _seats_by_pokerkit_index(start)
    _, ours = draw_engine.handle(None, start)
    theirs = _pokerkit_state(start)
    _deal(theirs, seats, {seat: [hand[i:i + 2] for i in range(0, 10, 2)]
                          for seat, hand in enumerate(map(format_cards, ours.hands))})
    received: dict[int, list[str]] = {}
    while not ours.over:
        if ours.awaiting == "draw":
            seat = ours.draw_to_act
            assert seat is not None
            if theirs.stand_patter_or_discarder_index is None or seats[theirs.stand_patter_or_discarder_index] != seat:
                return "different", f"five-card draw draws {seat}, PokerKit {theirs.stand_patter_or_discarder_index}"
            thrown = _discards(rng, ours, seat)
            events, ours = draw_engine.handle(ours, Discard(seat, thrown))
            theirs.stand_pat_or_discard("".join(thrown))
            drew = next(e for e in events if isinstance(e, PlayerDrew))
            assert drew.received is not None
            received[seat] = [drew.received[i:i + 2] for i in range(0, len(drew.received), 2)]
            if ours.awaiting != "draw":
                _deal(theirs, seats, received)
            continue
        mine, other = _our_offer(ours), _pokerkit_offer(theirs, seats)
        if mine != other:
            return _departure(ours, mine, other) or "different", f"five-card draw {mine}, PokerKit {other} ({ours.phase})"
        action, to = _choose(rng, draw_legal.legal_actions(ours))
        assert ours.to_act is not None
        _, ours = draw_engine.handle(ours, PostAction(ours.to_act, action, to))
        if action in ("bet", "raise"):
            theirs.complete_bet_or_raise_to(to)
        else:
            (theirs.fold if action == "fold" else theirs.check_or_call)()
    stacks = tuple(theirs.stacks[seats.index(seat)] for seat in range(len(seats)))
    if theirs.status or stacks != ours.stacks:
        return "different", f"stacks: five-card draw {ours.stacks}, PokerKit {stacks}"
    return "same", ""


def _departure(ours: HandState, mine: tuple[Any, ...], other: tuple[Any, ...]) -> str | None:
    """The departure that explains a different raise offer (same seat, check and call)."""
    if mine[:3] != other[:3]:
        return None
    b = ours.wagers
    legal = draw_legal.legal_actions(ours)
    assert legal is not None and b.to_act is not None
    unit = b.structure.unit(b.late)
    if mine[3] is None:
        return SHORT_ALL_IN_REOPENS if legal.raise_closed_reason == "not_reopened" else None
    if other[3] is None:
        opponents = [seat for seat in b.contenders if seat != b.to_act]
        if max(b.bets[seat] + b.stacks[seat] for seat in opponents) <= b.highest:
            return NOBODY_CAN_CALL_A_RAISE
        return SHORT_ALL_IN_COUNTS_TO_THE_CAP if b.structure.kind == FIXED_LIMIT else None
    completed = b.full_level + unit  # a short all-in bet or raise completed (TDA), not raised over
    short = b.highest - b.full_level
    if b.structure.kind == FIXED_LIMIT and 0 < 2 * short < unit and mine[3] == (completed, completed):
        return HALF_BET_RULE
    return None


def _discards(rng: random.Random, ours: HandState, seat: int) -> tuple[str, ...]:
    hand = list(ours.hands[seat])
    thrown = rng.sample(hand, rng.randint(0, HAND_SIZE))
    while len(thrown) > draw_legal.draw_limit(ours.settings, [c for c in hand if c not in thrown]):
        thrown.pop()
    text = format_cards(thrown)
    return tuple(text[i:i + 2] for i in range(0, len(text), 2))


def _choose(rng: random.Random, legal: LegalActions | None) -> tuple[str, Any]:
    """A random legal action; no fold when checking is free (PokerKit refuses it)."""
    assert legal is not None
    options: list[tuple[str, Any]] = [("fold", None), ("call", None)] if legal.call else [("check", None)]
    sizes = legal.bet or legal.raise_
    if sizes:
        name = "bet" if legal.bet else "raise"
        options += [(name, sizes.min_to), (name, sizes.max_to), (name, rng.randint(int(sizes.min_to), int(sizes.max_to)))]
    return rng.choice(options)


def test_random_five_card_draw_hands_are_decided_as_pokerkit_decides_them() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PokerKit warns when dealt a reshuffled discard
        outcomes = tally(play_in_both, HANDS)
    assert outcomes["same"] >= HANDS * 9 // 10, outcomes
