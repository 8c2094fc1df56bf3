"""Openers under jacks or better (five-card-draw.md; declarations.md; Robert's Rules, draw):
who holds them, the cards that prove them, whether a draw breaks them, and what a false
opener's pot does (the rulings we chose: domain.games.draw).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from domain.games.draw.state import FIRST_ROUND, HAND_SIZE, HandState, card_numbers
from domain.games.draw_settings import ACE_RANK_INDEX, JACKS_OR_BETTER
from domain.rules import betting as bet
from domain.rules.betting import BettingState, with_changes, with_item
from domain.rules.cards import JOKER, format_cards, parse_cards
from domain.rules.evaluation import evaluate_high

_JACK_RANK_INDEX = 9
# The weakest hand that opens under "jacks or better": a pair of jacks with 4-3-2.
_JACKS_STRENGTH = evaluate_high(parse_cards("JsJh4c3d2s")).strength
# How many of HandValue.best make the category (the rest are kickers).
_CATEGORY_CARDS = {"one_pair": 2, "two_pair": 4, "three_of_a_kind": 3, "four_of_a_kind": 4}
# What a false opener's pot does (FalseOpenersFound.outcome).
CARRIED = "carried"
POT_PLAYS = "pot_plays"


def has_openers(cards: Sequence[int], joker: str | None) -> bool:
    """A pair of jacks or better (the joker counting by the table's joker rule)."""
    return evaluate_high(cards, joker).strength >= _JACKS_STRENGTH


def needs_openers(state: HandState) -> bool:
    """The next bet opens under jacks or better: it needs openers."""
    return (state.settings.opening == JACKS_OR_BETTER and state.phase == FIRST_ROUND
            and state.opener is None)


def opening_cards(cards: Sequence[int], joker: str | None) -> str:
    """The cards that make a hand's openers (the pair, two pair, trips...; all five for a
    straight or better), as text."""
    value = evaluate_high(cards, joker)
    return format_cards(value.best[:_CATEGORY_CARDS.get(value.category, HAND_SIZE)])


def breaks_openers(state: HandState, seat: int, discard: Sequence[str]) -> bool:
    """Whether throwing `discard` away breaks the opener's openers (the draw must then say so:
    the computer player declares the split)."""
    if state.settings.opening != JACKS_OR_BETTER or seat != state.opener \
            or not has_openers(state.dealt[seat], state.settings.joker):
        return False
    return not openers_kept(state.dealt[seat], state.settings.joker, card_numbers("".join(discard)))


def _opener_proofs(cards: Sequence[int], joker: str | None) -> list[set[int]]:
    """Each set of cards that proves openers on its own: the openers themselves and, in a
    straight or flush, a pair of jacks or better it also holds (only with the joker, which
    pairs any card when wild and an ace as the bug): keeping that pair is not splitting
    openers (RRP draw, jacks or better)."""
    proofs = [set(card_numbers(opening_cards(cards, joker)))]
    if JOKER in cards and evaluate_high(cards, joker).category in ("straight", "flush", "straight_flush"):
        lowest_paired = _JACK_RANK_INDEX if joker == "wild" else ACE_RANK_INDEX
        proofs += [{card, JOKER} for card in cards if card != JOKER and card >> 2 >= lowest_paired]
    return proofs


def openers_kept(cards: Sequence[int], joker: str | None, discarded: Iterable[int]) -> bool:
    """Whether the hand `cards` still proves openers once `discarded` is thrown away."""
    thrown = set(discarded)
    return any(not proof & thrown for proof in _opener_proofs(cards, joker))


def false_openers_outcome(betting: BettingState, seat: int, acted_after_open: bool) -> str:
    """What the pot does when `seat` opened falsely (the sources leave it open, we decide):
    POT_PLAYS among the others when someone else acted after the open and a live hand is
    left, else CARRIED to the next deal."""
    others_live = any(other != seat for other in betting.contenders)
    return POT_PLAYS if acted_after_open and others_live else CARRIED


def false_opener_out(betting: BettingState, seat: int, outcome: str,
                     folded_at_open: tuple[bool, ...] | None) -> BettingState:
    """The betting once `seat`'s false open is found. CARRIED: the next deal deals again
    everyone still in when the bet was made, the false opener included (their hand was
    dead for this deal only), and nobody acts until then. POT_PLAYS: the hand is dead, its
    chips stay in, and the turn passes on when it was the false opener's."""
    if outcome == CARRIED:
        return with_changes(betting, folded=with_item(folded_at_open or betting.folded, seat, False), to_act=None)
    folded = with_item(betting.folded, seat, True)
    to_act = betting.to_act
    if sum(not f for f in folded) <= 1:
        to_act = None
    elif to_act == seat:
        to_act = bet.next_to_act(with_changes(betting, folded=folded), seat)
    return with_changes(betting, folded=folded, to_act=to_act)
