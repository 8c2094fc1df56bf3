"""Five-card draw's decider against the mixed games' draw family, decision by decision:
random betting hands (no-limit, pot-limit, fixed-limit with and without the heads-up
cap; 2 to 6 players; antes from 1 to 25 chips; stacks from less than the ante to 200
units; every draw limit; both second-round starts; with and without jacks or better and
the joker, wild or the bug) are played in domain.games.draw and in
domain.games.mixed, the draw family dealt as five-card draw is dealt (`FIVE_CARD_DRAW`
below: a Game, five cards, one draw, ranked high, the big bet after the draw) with the
table's rules as the hand's (`DrawSettings.hand_rules`: the draw limit, the round after
the draw from the opener, jacks or better, the new deal of a first round nobody opened,
the joker).
The cards come from five-card draw's deck and draw (and its new deck on a redeal), the
actions and discards are picked from its legal set (an opener breaking the openers
declares it there; a seat that may not open sometimes opens without proof), its
showdown's shows and mucks are repeated in the draw family, and once a seat opened the
floor sometimes says a seat (mostly the opener) opened falsely. At every betting decision
both must ask the same seat and offer the same actions; a redeal must come in both, for
the same reason; every draw must be asked of the same seat, and both must refuse the same
discards (the draw limit, split openers) and the same false-openers findings, by code;
every hand must end with the same stacks, the same openers shown and split and the same
false openers found, with the same outcome. Half the hands the draw family deals itself
from five-card draw's deck and reshuffle order (`play_in_both`'s `dealt`): then every hand
held, every reshuffle and its own TDA showdown (automatic or declared) must be five-card
draw's too; a second test plays the seeds in no-betting mode (the points scored compared).
Every seed is compared: no setting of five-card draw is left apart (docs/draw-family.md:
what the draw family has taken over, and what it has not yet).
"""
from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from domain.games import dealt_games, draw_family, mixed
from domain.games.dealt_hand import cards_of, cards_text
from domain.games.draw import engine as draw_engine
from domain.games.draw import legal as draw_legal
from domain.games.draw import openers as draw_openers
from domain.games.draw.commands import AskToSee, Discard, FalseOpeners, Muck, OpenWithoutProof, Redeal, ShowCards, StartHand
from domain.games.draw.events import (
    ALL_CHECKED,
    CardsShown,
    Event,
    FalseOpenersFound,
    HoleCardsDealt,
    OpenersShown,
    OpenersSplit,
    PlayerDrew,
    PointsScored,
    RedealRequired,
    StubReshuffled,
)
from domain.games.draw.openers import CARRIED, breaks_openers
from domain.games.draw.state import HAND_SIZE, HandState
from domain.games.draw_family import Redealt
from domain.games.draw_settings import DRAW_LIMITS, LEFT_OF_DEALER, NO_BETTING, OPENER, DrawSettings
from domain.games.hand_events import CardsMucked, PostAction, PotAwarded, ShowAsked
from domain.rules import betting as bet
from domain.rules.betting import FIXED_LIMIT, NO_LIMIT, POT_LIMIT, BettingStructure
from domain.rules.cards import RANKS, SUITS, format_cards
from domain.rules.evaluation import strength
from domain.rules.showdown_order import DECLARED
from domain.rules.violations import Violation
from tests.unit.test_flop_family_differential import _choose, _offer

HANDS = 300
NO_BETTING_HANDS = 100
OPENS_WITHOUT_PROOF = 0.3  # of the decisions where the seat to act may not open
FLOOR_CHECKS = 0.1  # of the decisions once a seat opened
GREEDY_HANDS = 0.3  # of the hands dealt by the draw family: every draw throws as many as it may
_FOUND = (FalseOpenersFound, draw_family.FalseOpenersFound)
_DECK = tuple(rank + suit for rank in RANKS for suit in SUITS)

FIVE_CARD_DRAW = dealt_games.Game("five_card_draw_family", dealt_games.DRAW, HAND_SIZE, draws=1,
                                  high=lambda hole, board: strength(hole + board), late_round=1)


@pytest.fixture(autouse=True)
def _five_card_draw_in_the_draw_family(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(dealt_games.DEALT_GAMES, FIVE_CARD_DRAW.name, FIVE_CARD_DRAW)
    yield


def _random_settings(rng: random.Random, greedy: bool = False) -> DrawSettings:
    kind = rng.choice([NO_LIMIT, POT_LIMIT, FIXED_LIMIT])
    return DrawSettings(
        ante=rng.choice([1, 5, 10, 25]), structure=kind, draw_limit=5 if greedy else rng.choice(DRAW_LIMITS),
        second_round_start=rng.choice([OPENER, LEFT_OF_DEALER]),
        opening=rng.choice([None, None, None, "jacks_or_better"]),
        joker=rng.choice([None, None, None, "wild", "bug"]),
        heads_up_uncapped=kind == FIXED_LIMIT and rng.random() < 0.5)


def _random_start(rng: random.Random, greedy: bool = False) -> StartHand:
    """`greedy`: six players drawing up to five cards each (the stub runs out)."""
    settings = _random_settings(rng, greedy)
    players = 6 if greedy else rng.randint(2, 6)
    unit = settings.unit
    stacks = tuple(rng.choice([
        rng.randint(1, 2 * settings.ante),
        rng.randint(unit, 20 * unit),
        rng.randint(10 * unit, 200 * unit),
    ]) for _ in range(players))
    deck = list(_DECK) + (["Jk"] if settings.joker else [])
    rng.shuffle(deck)
    return StartHand(tuple(f"seat{i}" for i in range(players)), rng.randrange(players), settings,
                     tuple(deck), stacks, reshuffle_order=_reshuffle_order(rng, deck))


def _reshuffle_order(rng: random.Random, deck: list[str]) -> tuple[str, ...] | None:
    """Half the hands reshuffle run-out discards in an order of their own, the others in
    the order thrown."""
    return tuple(rng.sample(deck, len(deck))) if rng.random() < 0.5 else None


def _draw_family_start(start: StartHand, dealt: bool = False) -> mixed.StartHand:
    """The same hand in the draw family: each seat's ante by position, no blind, the
    table's rules as the hand's; `dealt`: from five-card draw's deck (and reshuffle order)."""
    n = len(start.players)
    chips = start.settings.betting  # no-betting mode: no chips, no ante
    return mixed.StartHand(FIVE_CARD_DRAW.name, start.players, start.stacks if chips else (0,) * n, start.button,
                           start.settings.betting_structure(), (start.settings.ante if chips else 0,) * n, (0,) * n,
                           draw_rules=start.settings.hand_rules(), deck=start.deck if dealt else None,
                           reshuffle_order=start.reshuffle_order if dealt else None, showdown=start.settings.showdown)


def play_in_both(seed: int, no_betting: bool = False) -> tuple[str, str]:
    """(outcome, detail): "same" when every decision and the end agree, else "different"
    with the first disagreement. Half the hands the draw family deals from the deck
    itself (`dealt`): then every hand it holds, every reshuffle and every show and muck of
    its own showdown (the TDA's) must be five-card draw's too. `no_betting`: the hand is
    played in five-card draw's no-betting mode (no chips, a point to every best hand)."""
    rng = random.Random(seed)
    dealt = rng.random() < 0.5
    # Only where the draw family deals: dealt by command, it refuses a folded hand's card
    # dealt again (its reshuffles, the table's, take the discards alone).
    greedy = dealt and rng.random() < GREEDY_HANDS
    start = _random_start(rng, greedy)
    if no_betting:
        start = dataclasses.replace(start, stacks=(), settings=dataclasses.replace(start.settings, mode=NO_BETTING))
    if dealt and rng.random() < 0.5:  # the players show or muck in turn themselves
        start = dataclasses.replace(start, settings=dataclasses.replace(start.settings, showdown=DECLARED))
    events, ours = draw_engine.handle(None, start)
    their_events, theirs = mixed.handle(None, _draw_family_start(start, dealt))
    if not dealt:
        their_events, theirs = _deal_as_dealt(ours, theirs)
    compared: tuple[list[Any], list[Any]] = (_compared(events, dealt), _compared(their_events, dealt))
    while not ours.over:
        if dealt and ours.awaiting != "redeal" and (apart := _hands_differ(ours, theirs)):
            return "different", apart
        if ours.awaiting == "redeal":
            if refused := _redeals_differ(events, their_events, theirs, dealt):
                return "different", refused
            events, their_events, ours, theirs = _redeal_in_both(rng, ours, theirs, dealt)
        elif ours.opener is not None and rng.random() < FLOOR_CHECKS:  # at a bet, a draw or a declared show
            found = _floor_checks_openers(rng, ours, theirs)
            if isinstance(found, str):
                return "different", found
            events, their_events, ours, theirs = found
        elif ours.awaiting == "draw":
            if theirs.phase != "draw" or theirs.next_to_draw != ours.draw_to_act:
                return "different", f"five-card draw draws {ours.draw_to_act}, the draw family " \
                    f"awaits the {theirs.phase} ({theirs.next_to_draw})"
            if refused := _refusals_differ(ours, theirs):
                return "different", refused
            events, their_events, ours, theirs = _draw_in_both(rng, ours, theirs, dealt, greedy)
        elif ours.awaiting == "showdown":
            declared = _declared_in_both(rng, ours, theirs)
            if isinstance(declared, str):
                return "different", declared
            events, their_events, ours, theirs = declared
        else:
            mine = _offer(ours.to_act, draw_legal.legal_actions(ours))
            other = _offer(theirs.to_act, draw_family.legal_actions(theirs) if theirs.phase == "action" else None)
            if mine != other:
                return "different", f"five-card draw {mine}, draw family {other}"
            command, their_command = _betting_commands(rng, ours)
            events, ours = draw_engine.handle(ours, command)
            their_events, theirs = mixed.handle(theirs, their_command)
        if not dealt:
            shown, theirs = _repeat_showdown(events, theirs)
            their_events = [*their_events, *shown]
        compared[0].extend(_compared(events, dealt))
        compared[1].extend(_compared(their_events, dealt))
    if not theirs.over and not dealt:
        shown, theirs = mixed.handle(theirs, mixed.SettleShowdown())
        compared[1].extend(_compared(shown, dealt))
    if not theirs.over or ours.stacks != theirs.stacks:
        return "different", f"stacks: five-card draw {ours.stacks}, draw family {theirs.stacks} ({theirs.phase})"
    if _apart(compared[0]) != _apart(compared[1]):
        return "different", f"events compared: five-card draw {compared[0]}, draw family {compared[1]}"
    return "same", ""


def _apart(compared: list[tuple[str, int, Any]]) -> tuple[list[tuple[str, int, Any]], list[tuple[str, int, Any]]]:
    """The reshuffles apart from the rest, each in its order: five-card draw reshuffles as
    the draw is decided, before its PlayerDrew and OpenersSplit, the draw family once the
    cards are thrown (after its CardsDiscarded and OpenersSplit), the same cards either way."""
    return ([e for e in compared if e[0] != "StubReshuffled"], [e for e in compared if e[0] == "StubReshuffled"])


def _compared(events: list[Any], dealt: bool) -> list[tuple[str, int, Any]]:
    """The events both engines must write alike (type name, seat, what): the openers shown
    and split (the cards), the false openers found (the outcome), the points scored (the
    winners, no seat: -1); in a hand the draw
    family deals itself also each reshuffle (the count, the cards), each show and muck of
    the showdown and each hand asked to see (who asked, whose)."""
    kept: list[tuple[str, int, Any]] = []
    for e in events:
        if isinstance(e, (OpenersShown, OpenersSplit, draw_family.OpenersShown, draw_family.OpenersSplit)):
            kept.append((type(e).__name__, e.position, e.cards))
        elif isinstance(e, _FOUND):
            kept.append((type(e).__name__, e.position, e.outcome))
        elif isinstance(e, (PointsScored, draw_family.PointsScored)):
            kept.append((type(e).__name__, -1, e.winners))
        elif dealt and isinstance(e, (StubReshuffled, draw_family.StubReshuffled)):
            kept.append((type(e).__name__, e.count, e.cards))
        elif dealt and isinstance(e, (CardsShown, mixed.CardsShown, CardsMucked, mixed.CardsMucked)):
            kept.append((type(e).__name__, e.position, None))
        elif isinstance(e, ShowAsked):
            kept.append((type(e).__name__, e.position, e.target))
    return kept


def _declared_in_both(rng: random.Random, ours: HandState, theirs: mixed.MixedState
                      ) -> str | tuple[list[Event], list[mixed.Event], HandState, mixed.MixedState]:
    """A declared showdown: the seat to show must be the same in both; it shows or mucks,
    or a seat asks to see the last aggressor's hand; both must refuse alike (by code) or
    both take it."""
    seat = ours.to_act
    if theirs.to_act != seat or seat is None:
        return f"five-card draw's showdown awaits seat {seat}, the draw family's {theirs.to_act} ({theirs.phase})"
    roll = rng.random()
    if roll < 0.2:
        asker = rng.randrange(len(ours.players))
        command, their_command = AskToSee(asker), mixed.AskToSee(asker)
    elif roll < 0.6:
        command, their_command = Muck(seat), mixed.Muck(seat)
    else:
        command, their_command = ShowCards(seat), mixed.ShowCards(seat)
    mine = _refusal(draw_engine.handle, ours, command)
    other = _refusal(mixed.handle, theirs, their_command)
    if mine != other:
        return f"{command}: five-card draw refuses it ({mine}), the draw family ({other})"
    if mine is not None:
        return [], [], ours, theirs
    events, ours = draw_engine.handle(ours, command)
    their_events, theirs = mixed.handle(theirs, their_command)
    return events, their_events, ours, theirs


def _hands_differ(ours: HandState, theirs: mixed.MixedState) -> str:
    """Whether a hand still in holds other cards in the two engines (a hand the draw family
    deals itself): "" when they agree."""
    for seat in ours.contenders:
        mine, other = format_cards(ours.hands[seat]), cards_text(theirs.hole[seat])
        if mine != other:
            return f"seat {seat} holds {mine} in five-card draw, {other} in the draw family"
    return ""


def _redeal_in_both(rng: random.Random, ours: HandState, theirs: mixed.MixedState, dealt: bool
                    ) -> tuple[list[Event], list[mixed.Event], HandState, mixed.MixedState]:
    """A new deck (and reshuffle order, when the hand has one) for five-card draw's new deal:
    the draw family deals it itself (`dealt`) or is dealt the hands five-card draw dealt."""
    deck = list(ours.deck)
    rng.shuffle(deck)
    order = _reshuffle_order(rng, deck) if ours.reshuffle_order is not None else None
    events, ours = draw_engine.handle(ours, Redeal(tuple(deck), None, order))
    if dealt:
        their_events, theirs = mixed.handle(theirs, draw_family.Redeal(tuple(deck), None, order))
    else:
        their_events, theirs = _deal_as_dealt(ours, theirs)
    return events, their_events, ours, theirs


def _betting_commands(rng: random.Random, ours: HandState) -> tuple[Any, Any]:
    """A legal action of the seat to act (in both engines' forms), or sometimes, when the
    seat may not open under jacks or better, the opening bet made without openers."""
    seat, legal = ours.to_act, draw_legal.legal_actions(ours)
    assert seat is not None and legal is not None
    sizes = bet.legal_actions(ours.wagers)
    if draw_openers.needs_openers(ours) and legal.bet is None and sizes is not None and sizes.bet is not None \
            and rng.random() < OPENS_WITHOUT_PROOF:
        to = rng.choice([sizes.bet.min_to, sizes.bet.max_to])
        return OpenWithoutProof(seat, to), draw_family.OpenWithoutProof(seat, to)
    action, to = _choose(rng, legal)
    return PostAction(seat, action, to), PostAction(seat, action, to)


def _floor_checks_openers(rng: random.Random, ours: HandState, theirs: mixed.MixedState
                          ) -> str | tuple[list[Event], list[mixed.Event], HandState, mixed.MixedState]:
    """The floor says a seat (mostly the opener) opened falsely: both engines must refuse it
    with the same code (not the opener, openers proven, a dead hand) or both find it, with
    the same outcome."""
    seat = ours.opener if rng.random() < 0.8 else rng.randrange(len(ours.players))
    assert seat is not None
    mine = _refusal(draw_engine.handle, ours, FalseOpeners(seat))
    other = _refusal(mixed.handle, theirs, draw_family.FalseOpeners(seat))
    if mine != other:
        return f"the floor's false openers of seat {seat}: five-card draw ({mine}), the draw family ({other})"
    if mine is not None:
        return [], [], ours, theirs
    events, ours = draw_engine.handle(ours, FalseOpeners(seat))
    their_events, theirs = mixed.handle(theirs, draw_family.FalseOpeners(seat))
    return events, their_events, ours, theirs


def _deal_as_dealt(ours: HandState, theirs: mixed.MixedState) -> tuple[list[mixed.Event], mixed.MixedState]:
    """The draw family is dealt the hands five-card draw dealt (on a redeal, the hands still
    in): its events (what follows the last card: a new deal again, uncalled chips) and state."""
    events: list[mixed.Event] = []
    for seat, hand in enumerate(ours.hands):
        if hand:
            dealt, theirs = mixed.handle(theirs, mixed.DealCards(seat, format_cards(hand)))
            events += dealt
    return events, theirs


def _redeals_differ(events: list[Event], their_events: list[mixed.Event], theirs: mixed.MixedState, dealt: bool) -> str:
    """Whether five-card draw's redeal is not the draw family's (a new deal, for the same
    reason: a hand the draw family deals itself awaits its new deck, the reason to come)."""
    mine = next(e.reason if isinstance(e, RedealRequired) else draw_family.FALSE_OPENERS
                for e in events if isinstance(e, RedealRequired) or isinstance(e, FalseOpenersFound) and e.outcome == CARRIED)
    if dealt:
        other = draw_family.redeal_reason(theirs)
        ready = theirs.phase == "redeal"
    else:
        other = next((e.reason for e in their_events if isinstance(e, Redealt)), None)
        ready = theirs.phase == "deal"
    if mine != other or not ready:
        return f"five-card draw deals again ({mine}), the draw family {other} awaits the {theirs.phase}"
    return ""


def _draw_in_both(rng: random.Random, ours: HandState, theirs: mixed.MixedState, dealt: bool, greedy: bool
                  ) -> tuple[list[Event], list[mixed.Event], HandState, mixed.MixedState]:
    """The seat to draw throws a random legal set of cards in both (`greedy`: as many as the
    limit allows, so that the stub runs out); the opener declares split openers when the
    draw breaks them; the draw family deals from its stub itself (`dealt`), or is dealt
    what five-card draw's stub gave."""
    seat = ours.draw_to_act
    assert seat is not None
    hand = list(ours.hands[seat])
    thrown = rng.sample(hand, HAND_SIZE if greedy else rng.randint(0, HAND_SIZE))
    while len(thrown) > draw_legal.draw_limit(ours.settings, [c for c in hand if c not in thrown]):
        thrown.pop()
    text = format_cards(thrown)
    discard = tuple(text[i:i + 2] for i in range(0, len(text), 2))
    split = breaks_openers(ours, seat, discard)
    events, ours = draw_engine.handle(ours, Discard(seat, discard, split))
    their_events, theirs = mixed.handle(theirs, draw_family.Discard(seat, text, split))
    received = next(e.received for e in events if isinstance(e, PlayerDrew))
    assert received is not None
    if received and not dealt:
        dealt, theirs = mixed.handle(theirs, mixed.DealCards(seat, received))
        their_events += dealt
    return events, their_events, ours, theirs


def _refusals_differ(ours: HandState, theirs: mixed.MixedState) -> str:
    """Whether the two refuse different discards of the seat to draw, none declared split
    (throwing its first k cards, every k: the draw limit, split openers undeclared): ""
    when they agree."""
    seat = ours.draw_to_act
    assert seat is not None
    text = format_cards(ours.hands[seat])
    for count in range(HAND_SIZE + 1):
        thrown = text[:2 * count]
        mine = _refusal(draw_engine.handle, ours, Discard(seat, tuple(
            thrown[i:i + 2] for i in range(0, len(thrown), 2))))
        other = _refusal(mixed.handle, theirs, draw_family.Discard(seat, thrown))
        if mine != other:
            return f"throwing {thrown or 'nothing'}: five-card draw refuses it ({mine}), the draw family ({other})"
    return ""


def _refusal(handle: Callable[[Any, Any], object], state: object, command: object) -> str | None:
    """The code of the violation the command meets, None when it is accepted."""
    try:
        handle(state, command)
    except Violation as refused:
        return refused.code
    return None


def _repeat_showdown(events: list[Event], theirs: mixed.MixedState) -> tuple[list[mixed.Event], mixed.MixedState]:
    """Five-card draw's automatic showdown, show by show and muck by muck (with the draw
    family's events)."""
    repeated: list[mixed.Event] = []
    for event in events:
        if theirs.over:
            break
        if isinstance(event, CardsShown):
            step, theirs = mixed.handle(theirs, mixed.ShowCards(event.position, event.cards))
        elif isinstance(event, CardsMucked):
            step, theirs = mixed.handle(theirs, mixed.Muck(event.position))
        else:
            continue
        repeated.extend(step)
    return repeated, theirs


def tally(play: Callable[[int], tuple[str, str]], hands: int) -> Counter[str]:
    """The outcomes of `hands` seeds played in both engines; none may be "different"."""
    outcomes: Counter[str] = Counter()
    different = []
    for seed in range(hands):
        outcome, detail = play(seed)
        outcomes[outcome] += 1
        if outcome == "different":
            different.append(f"seed {seed}: {detail}")
    assert not different, f"{len(different)} of {hands} hands differ, first: {different[:3]}"
    return outcomes


def test_random_five_card_draw_hands_are_decided_alike_by_the_draw_family() -> None:
    outcomes = tally(play_in_both, HANDS)
    assert outcomes["same"] == HANDS, outcomes


def test_random_no_betting_hands_score_alike_in_the_draw_family() -> None:
    outcomes = tally(lambda seed: play_in_both(seed, no_betting=True), NO_BETTING_HANDS)
    assert outcomes["same"] == NO_BETTING_HANDS, outcomes


def test_the_draw_familys_deck_holds_the_joker_only_by_the_hands_rule() -> None:
    start = StartHand(("a", "b"), 1, DrawSettings(), _DECK, (100, 100))
    _, theirs = mixed.handle(None, _draw_family_start(start))
    with pytest.raises(Violation) as refused:
        mixed.handle(theirs, mixed.DealCards(0, "JkAsKsQsJs"))
    assert refused.value.code == "invalid_card"


@pytest.mark.parametrize(("joker", "winner"), [("wild", 0), ("bug", 1)])
def test_the_joker_ranks_by_the_hands_rule(joker: str, winner: int) -> None:
    # Wild: the joker makes three eights, above the queens; the bug (an ace): two eights, below.
    settings = DrawSettings(joker=joker, second_round_start=LEFT_OF_DEALER)
    _, theirs = mixed.handle(None, _draw_family_start(StartHand(("a", "b"), 1, settings, _DECK + ("Jk",),
                                                                (100, 100))))
    _, theirs = mixed.handle(theirs, mixed.DealCards(0, "Jk8h8d4c2s"))
    _, theirs = mixed.handle(theirs, mixed.DealCards(1, "QsQh5d4d3h"))
    for command in (PostAction(0, "check"), PostAction(1, "check"), draw_family.Discard(0, ""), draw_family.Discard(1, ""),
                    PostAction(0, "check"), PostAction(1, "check"), mixed.ShowCards(0, "Jk8h8d4c2s"),
                    mixed.ShowCards(1, "QsQh5d4d3h")):
        _, theirs = mixed.handle(theirs, command)
    assert theirs.over and theirs.stacks[winner] == 110


def test_an_all_checked_first_round_is_dealt_again_in_both_with_the_antes_again() -> None:
    # second_round_start "opener" (the seeds' default): nobody opened, so the deal is void
    # and dealt again with the pot kept.
    start = StartHand(("a", "b", "c"), 2, DrawSettings(), _DECK, (100, 100, 100))
    _, ours = draw_engine.handle(None, start)
    _, theirs = mixed.handle(None, _draw_family_start(start))
    _, theirs = _deal_as_dealt(ours, theirs)
    for seat in (0, 1, 2):
        _, ours = draw_engine.handle(ours, PostAction(seat, "check"))
        events, theirs = mixed.handle(theirs, PostAction(seat, "check"))
    assert ours.awaiting == "redeal"
    assert events[-1] == Redealt(ALL_CHECKED, (10, 10, 10))
    assert theirs.phase == "deal" and theirs.stacks == (80, 80, 80) and theirs.hole == ((),) * 3


def test_a_bet_without_openers_is_refused_under_jacks_or_better() -> None:
    start = StartHand(("a", "b"), 1, DrawSettings(opening="jacks_or_better"), _DECK, (100, 100))
    _, theirs = mixed.handle(None, _draw_family_start(start))
    _, theirs = mixed.handle(theirs, mixed.DealCards(0, "2s3h4d5c7s"))
    _, theirs = mixed.handle(theirs, mixed.DealCards(1, "JsJh4s5s8d"))
    legal = draw_family.legal_actions(theirs)
    assert legal is not None and legal.bet is None and legal.check
    with pytest.raises(Violation) as refused:
        mixed.handle(theirs, PostAction(0, "bet", 20))
    assert refused.value.code == "no_openers"
    _, theirs = mixed.handle(theirs, PostAction(0, "check"))
    _, theirs = mixed.handle(theirs, PostAction(1, "bet", 20))
    assert theirs.opener == 1
    events, theirs = mixed.handle(theirs, PostAction(0, "fold"))
    assert draw_family.OpenersShown(1, "JsJh") in events  # proven though nobody called


def test_draw_rules_belong_to_a_draw_game() -> None:
    rules = DrawSettings().hand_rules()
    with pytest.raises(Violation) as refused:
        mixed.handle(None, mixed.StartHand("razz", ("a", "b"), (100, 100), 0, DrawSettings().betting_structure(),
                                           (5, 5), (0, 0), bring_in=5, draw_rules=rules))
    assert refused.value.code == "illegal_action"
    with pytest.raises(Violation) as invalid:
        mixed.handle(None, _draw_family_start(StartHand(("a", "b"), 0, DrawSettings(draw_limit=4), _DECK, (100, 100))))
    assert invalid.value.code == "invalid_settings"


# False openers in the draw family, as five-card draw rules them (tests/unit/test_draw_openers.py):
# button seat 0, seat 1 acts and draws first and holds no openers.
_FALSE = ("9c9d5s4c3d", "Tc8h6d4h2c", "7s7h8d9sTs")


def _falsely_opened(*actions: tuple[int, str]) -> tuple[list[mixed.Event], mixed.MixedState]:
    start = StartHand(("a", "b", "c"), 0, DrawSettings(opening="jacks_or_better"), _DECK, (1000,) * 3)
    _, theirs = mixed.handle(None, _draw_family_start(start))
    for seat, cards in enumerate(_FALSE):
        _, theirs = mixed.handle(theirs, mixed.DealCards(seat, cards))
    events, theirs = mixed.handle(theirs, draw_family.OpenWithoutProof(1, 20))
    for seat, action in actions:
        events, theirs = mixed.handle(theirs, PostAction(seat, action))
    return events, theirs


def test_false_openers_before_anyone_else_acted_carry_the_pot_to_a_new_deal_in_the_draw_family() -> None:
    _, theirs = _falsely_opened()
    events, theirs = mixed.handle(theirs, draw_family.FalseOpeners(1))
    assert events == [draw_family.FalseOpenersFound(1, CARRIED), Redealt(draw_family.FALSE_OPENERS, (10, 10, 10))]
    assert theirs.phase == "deal" and theirs.due == (True,) * 3 and theirs.opener is None
    assert sum(theirs.betting.committed) == 3 * 10 + 20 + 3 * 10  # the antes and the opening bet stay in


def test_false_openers_after_callers_the_pot_plays_among_them_in_the_draw_family() -> None:
    _, theirs = _falsely_opened((2, "call"), (0, "call"))
    events, theirs = mixed.handle(theirs, draw_family.FalseOpeners(1))
    assert events == [draw_family.FalseOpenersFound(1, "pot_plays")] and theirs.betting.folded[1]
    for command in (draw_family.Discard(2, ""), draw_family.Discard(0, ""), PostAction(2, "check"), PostAction(0, "check"),
                    mixed.ShowCards(2, _FALSE[2]), mixed.ShowCards(0, _FALSE[0])):
        events, theirs = mixed.handle(theirs, command)
    assert [(e.winners, e.amount) for e in events if isinstance(e, PotAwarded)] == [((0,), 90)]
    assert not any(isinstance(e, draw_family.OpenersShown) for e in events)


def test_a_false_opener_still_in_at_the_end_is_found_in_the_draw_family() -> None:
    _, theirs = _falsely_opened((2, "call"), (0, "call"))
    for command in (draw_family.Discard(1, ""), draw_family.Discard(2, ""), draw_family.Discard(0, ""), PostAction(1, "check"),
                    PostAction(2, "check")):
        _, theirs = mixed.handle(theirs, command)
    events, theirs = mixed.handle(theirs, PostAction(0, "check"))
    assert events[-1] == draw_family.FalseOpenersFound(1, "pot_plays") and theirs.betting.contenders == (0, 2)


def test_everyone_folding_to_a_false_opener_deals_them_all_again_in_the_draw_family() -> None:
    events, theirs = _falsely_opened((2, "fold"), (0, "fold"))
    assert events[1:] == [draw_family.FalseOpenersFound(1, CARRIED), Redealt(draw_family.FALSE_OPENERS, (10, 10, 10))]
    assert theirs.due == (True,) * 3 and theirs.stacks == (980, 960, 980)  # the opening bet stays in the pot


def test_an_opener_dealt_openers_is_proven_and_only_the_first_bet_is_made_without_proof() -> None:
    start = StartHand(("a", "b"), 1, DrawSettings(opening="jacks_or_better"), _DECK, (100, 100))
    _, theirs = mixed.handle(None, _draw_family_start(start))
    _, theirs = mixed.handle(theirs, mixed.DealCards(0, "JsJh4s5s8d"))
    _, theirs = mixed.handle(theirs, mixed.DealCards(1, "2s3h4d5c7s"))
    _, theirs = mixed.handle(theirs, PostAction(0, "bet", 20))
    for command, code in ((draw_family.FalseOpeners(0), "openers_proven"), (draw_family.FalseOpeners(1), "illegal_action"),
                          (draw_family.OpenWithoutProof(1, 60), "illegal_action")):
        with pytest.raises(Violation) as refused:
            mixed.handle(theirs, command)
        assert refused.value.code == code


def test_a_draw_hand_dealt_from_its_deck_is_dealt_as_five_card_draw_deals_it() -> None:
    # One card at a time round the table from the dealer's left, the same deck, the same hands.
    start = StartHand(("a", "b", "c"), 1, DrawSettings(), _DECK, (100, 100, 100))
    events, ours = draw_engine.handle(None, start)
    their_events, theirs = mixed.handle(None, _draw_family_start(start, dealt=True))
    assert [(e.position, e.cards) for e in events if isinstance(e, HoleCardsDealt)] \
        == [(e.position, e.cards) for e in their_events if isinstance(e, mixed.CardsDealt)]
    assert theirs.stub is not None and theirs.stub.cards == _DECK[15:] and theirs.phase == "action"
    with pytest.raises(Violation) as refused:
        mixed.handle(theirs, mixed.DealCards(0, "2s"))
    assert refused.value.code == "illegal_action"


@pytest.mark.parametrize(("game", "deck", "order", "code"), [
    (FIVE_CARD_DRAW.name, _DECK[:-1], None, "invalid_card"),  # a card short
    (FIVE_CARD_DRAW.name, tuple(c.lower() for c in _DECK), None, "invalid_card"),  # not as events write cards
    (FIVE_CARD_DRAW.name, None, _DECK, "illegal_action"),  # an order for no deck
    ("rotation_holdem", _DECK, _DECK, "illegal_action"),  # a board game has no discards
])
def test_a_draw_hands_deck_and_reshuffle_order_are_whole_decks(game: str, deck: Any, order: Any, code: str) -> None:
    start = _draw_family_start(StartHand(("a", "b"), 1, DrawSettings(), _DECK, (100, 100)), dealt=True)
    with pytest.raises(Violation) as refused:
        mixed.handle(None, dataclasses.replace(start, game=game, deck=deck, reshuffle_order=order))
    assert refused.value.code == code


def test_a_redeal_brings_its_deck_only_when_a_hand_dealt_from_its_deck_awaits_it() -> None:
    start = StartHand(("a", "b", "c"), 2, DrawSettings(), _DECK, (100, 100, 100))
    _, theirs = mixed.handle(None, _draw_family_start(start, dealt=True))
    with pytest.raises(Violation) as early:
        mixed.handle(theirs, draw_family.Redeal(_DECK))
    assert early.value.code == "illegal_action"
    for seat in (0, 1, 2):
        events, theirs = mixed.handle(theirs, PostAction(seat, "check"))
    assert theirs.phase == "redeal" and not any(isinstance(e, Redealt) for e in events)
    new_deck = _DECK[::-1]
    events, theirs = mixed.handle(theirs, draw_family.Redeal(new_deck, "root"))
    assert events[0] == Redealt(ALL_CHECKED, (10, 10, 10), new_deck, "root")
    assert theirs.phase == "action" and theirs.hole[0] == cards_of("".join(new_deck[0:15:3]))


def test_a_no_betting_hand_scores_a_point_to_every_best_hand_and_takes_no_chips() -> None:
    start = StartHand(("a", "b", "c"), 2, DrawSettings(mode=NO_BETTING), _DECK)
    theirs_start = _draw_family_start(start)
    _, theirs = mixed.handle(None, theirs_start)
    for seat, cards in enumerate(("As2d3c4h5s", "Ah2s3d4c5h", "KsKd7c4d2h")):  # two wheels tie
        _, theirs = mixed.handle(theirs, mixed.DealCards(seat, cards))
    assert theirs.phase == "draw" and theirs.next_to_draw == 0  # no betting round
    for seat in (0, 1, 2):
        _, theirs = mixed.handle(theirs, draw_family.Discard(seat, ""))
    for seat, cards in enumerate(("As2d3c4h5s", "Ah2s3d4c5h", "KsKd7c4d2h")):
        events, theirs = mixed.handle(theirs, mixed.ShowCards(seat, cards))
    assert events[-2:] == [draw_family.PointsScored((0, 1)), mixed.HandEnded((0, 0, 0), True)]
    with pytest.raises(Violation) as refused:
        mixed.handle(None, dataclasses.replace(theirs_start, stacks=(100, 100, 100)))
    assert refused.value.code == "illegal_action"


def test_a_false_opener_found_before_the_last_live_hand_drew_ends_the_hand_dealt_from_the_deck() -> None:
    # Heads-up, seat 0 opens without openers and draws first: found dead then, seat 1 is the
    # last live hand and takes the pot without drawing, as five-card draw settles it.
    first = ("2s", "As", "5h", "Ad", "7d", "Kc", "9c", "Qh", "Js", "3c")
    deck = first + tuple(card for card in _DECK if card not in first)
    start = StartHand(("a", "b"), 1, DrawSettings(opening="jacks_or_better"), deck, (100, 100))
    _, ours = draw_engine.handle(None, start)
    _, theirs = mixed.handle(None, _draw_family_start(start, dealt=True))
    for command, their_command in ((OpenWithoutProof(0, 20), draw_family.OpenWithoutProof(0, 20)),
                                   (PostAction(1, "call"), PostAction(1, "call")),
                                   (FalseOpeners(0), draw_family.FalseOpeners(0))):
        _, ours = draw_engine.handle(ours, command)
        _, theirs = mixed.handle(theirs, their_command)
    assert ours.over and theirs.over and theirs.stacks == ours.stacks == (70, 130)


@pytest.mark.parametrize("game", ["deuce_seven_triple_draw", "deuce_seven_single_draw", "badugi"])
def test_the_mixed_draw_games_play_out_from_their_deck(game: str) -> None:
    # Random fixed-limit hands of the mixed games' draw games dealt from a deck (no DrawRules),
    # half of them throwing every card on every draw, so that the stub runs out and is
    # reshuffled; every hand ends, every chip accounted for.
    reshuffles = 0
    for seed in range(40):
        rng = random.Random(seed)
        n, greedy = rng.randint(4, 6), seed % 2 == 0
        deck = list(_DECK)
        rng.shuffle(deck)
        structure = BettingStructure(kind=FIXED_LIMIT, small_blind=5, big_blind=10, small_bet=10, big_bet=20)
        stacks = tuple(rng.randint(30, 400) for _ in range(n))
        events, state = mixed.handle(None, mixed.StartHand(game, tuple(f"p{i}" for i in range(n)), stacks, 0, structure,
                                                           (0,) * n, (5, 10) + (0,) * (n - 2), deck=tuple(deck),
                                                           reshuffle_order=_reshuffle_order(rng, deck)))
        while not state.over:
            if state.phase == "draw":
                seat = state.next_to_draw
                assert seat is not None
                hole = state.hole[seat]
                thrown = rng.sample(hole, len(hole) if greedy else rng.randint(0, len(hole)))
                events, state = mixed.handle(state, draw_family.Discard(seat, cards_text(thrown)))
            else:
                assert state.to_act is not None, state.phase
                action, to = _choose(rng, bet.legal_actions(state.betting))
                events, state = mixed.handle(state, PostAction(state.to_act, action, to))
            reshuffles += sum(isinstance(e, draw_family.StubReshuffled) for e in events)
        assert sum(state.stacks) == sum(stacks)
    assert reshuffles
