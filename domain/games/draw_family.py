"""The draw family's own rules in a hand of domain.games.mixed (2-7 triple and single
draw, badugi, and five-card draw's table settings a hand may carry: DrawRules): what a
discard may throw, the cards kept after it, who opens the rounds after the draw, the
openers a first bet needs and the new deal of a first round nobody opened (its event,
Redealt, is the family's).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from domain.games.dealt_hand import Hole, MixedState, cards_of
from domain.games.draw.events import ALL_CHECKED, NO_OPENERS
from domain.games.draw.openers import has_openers, openers_kept, opening_cards
from domain.games.draw_settings import JACKS_OR_BETTER, LEFT_OF_DEALER, OPENER, most_exchanged
from domain.rules import betting as bet
from domain.rules.betting import Amount, LegalActions, with_changes
from domain.rules.cards import Card, format_card
from domain.rules.citations import cite
from domain.rules.violations import Violation
from domain.secrecy import OWNER_ONLY, PUBLIC


def check_discard(state: MixedState, seat: int, text: str, split: bool = False) -> tuple[Card | None, ...]:
    """The cards `seat` throws: held (or unknown), each once, within the hand's draw limit;
    the opener's draw that breaks the openers says so (`split`), and only the opener's."""
    thrown = cards_of(text, state.game.short_deck, state.holds_joker)
    hole, name = state.hole[seat], state.players[seat]
    if len(thrown) > len(hole) or len(set(c for c in thrown if c is not None)) \
            != sum(c is not None for c in thrown):
        raise Violation("invalid_discard", f"{name} holds {len(hole)} cards and cannot throw {text}")
    for card in thrown:
        if card is not None and card not in hole and None not in hole:
            raise Violation("invalid_discard", f"{name} does not hold {format_card(card)}")
    rules = state.draw_rules
    if rules is not None and len(thrown) > (limit := most_exchanged(rules.draw_limit, after_discard(hole, thrown))):
        raise Violation("draw_limit_exceeded", f"{name} cannot exchange {len(thrown)} cards: the limit is "
                        f"{limit}", cite("five_card_draw"), {"count": len(thrown), "limit": limit})
    _check_split(state, seat, thrown, split)
    return thrown


def _check_split(state: MixedState, seat: int, thrown: tuple[Card | None, ...], split: bool) -> None:
    """RRP draw: an opener who throws away part of the openers must declare it (their
    discards are kept aside to prove them), and nobody else can declare it."""
    rules, name = state.draw_rules, state.players[seat]
    opener = rules is not None and rules.opening == JACKS_OR_BETTER and seat == state.opener
    if split and not opener:
        why = "did not open: only the opener splits openers" if rules is not None and rules.opening \
            else "has no openers to split: this hand plays without an opening requirement (jacks or better)"
        raise Violation("illegal_action", f"{name} {why}", cite("split_openers"), {"seat": seat})
    hole = state.hole[seat]
    if not opener or split or None in hole or None in thrown or rules is None:
        return
    dealt = tuple(card for card in hole if card is not None)
    if has_openers(dealt, rules.joker) and not openers_kept(dealt, rules.joker, (c for c in thrown if c is not None)):
        raise Violation("split_openers_undeclared", f"discarding these cards breaks {name}'s openers "
                        f"{state.openers}: the opener must declare splitting openers and keep the discards "
                        "aside", cite("split_openers"), {"seat": seat})


def after_discard(hole: Hole, thrown: tuple[Card | None, ...]) -> Hole:
    """The cards kept. Unknown cards thrown from a hand of known cards leave every kept
    card unknown: nobody can say which were kept."""
    kept = list(hole)
    unplaced = 0
    for card in thrown:
        if card in kept:
            kept.remove(card)
        elif None in kept:
            kept.remove(None)
        else:
            unplaced += 1
    return (None,) * (len(kept) - unplaced) if unplaced else tuple(kept)


def bet_made(state: MixedState, seat: int) -> MixedState:
    """After `seat` bets in a hand with DrawRules: the first round's first bet opens it,
    and under jacks or better the cards it opened on are kept to prove it at the end."""
    if state.street or state.opener is not None:
        return state
    rules = state.draw_rules
    known = tuple(card for card in state.hole[seat] if card is not None)
    if rules is None or rules.opening != JACKS_OR_BETTER or len(known) != len(state.hole[seat]):
        return with_changes(state, opener=seat)
    return with_changes(state, opener=seat, openers=opening_cards(known, rules.joker))


@dataclass(frozen=True)
class OpenersShown:
    """At the end of a hand opened under jacks or better the opener proves the opening
    (the cards it opened on), as five-card draw's event of the name: even when the opener
    folded, split the openers or won without a showdown."""
    position: int
    cards: str = field(metadata=PUBLIC)


@dataclass(frozen=True)
class OpenersSplit:
    """The opener declared that the draw breaks the openers: `cards`, the discards, are kept
    aside face down to prove them (as five-card draw's event of the name)."""
    position: int
    cards: str = field(metadata=OWNER_ONLY)


def openers_shown(state: MixedState) -> list[OpenersShown]:
    """The opener's proof, for the settlement (none when nobody opened under jacks or better)."""
    if state.opener is None or state.openers is None:
        return []
    return [OpenersShown(state.opener, state.openers)]


def opener_after_draw(state: MixedState) -> int | None:
    """The seat a round after the draw starts from: the first round's opener under
    `second_round_start` OPENER (domain.rules.betting.start_round passes on to the next
    seat still in with chips); None, left of the button, otherwise or when nobody opened."""
    rules = state.draw_rules
    return state.opener if rules is not None and rules.second_round_start == OPENER else None


def needs_openers(state: MixedState) -> bool:
    """The next bet opens a hand played under jacks or better: it needs openers."""
    rules = state.draw_rules
    return rules is not None and rules.opening == JACKS_OR_BETTER and not state.street and state.opener is None


def _may_open(state: MixedState, seat: int) -> bool:
    """Openers in `seat`'s hand (a hand with a card not known may hold them)."""
    hole, rules = state.hole[seat], state.draw_rules
    return None in hole or has_openers(tuple(c for c in hole if c is not None), rules.joker if rules else None)


def check_opening(state: MixedState, seat: int) -> None:
    """A bet by `seat` that opens under jacks or better needs a pair of jacks or better."""
    if needs_openers(state) and not _may_open(state, seat):
        raise Violation("no_openers", f"{state.players[seat]} cannot open: the first bet needs a pair of "
                        "jacks or better (opening requirement 'jacks or better'); check or fold",
                        cite("five_card_draw"), {"seat": seat})


def legal_actions(state: MixedState) -> LegalActions | None:
    """The betting's legal actions, no bet for a player who may not open."""
    legal = bet.legal_actions(state.betting)
    seat = state.betting.to_act
    if legal is not None and legal.bet is not None and seat is not None and needs_openers(state) \
            and not _may_open(state, seat):
        return with_changes(legal, bet=None)
    return legal


@dataclass(frozen=True)
class Redealt:
    """Nobody opened the first round (`reason` as five-card draw's RedealRequired gives it:
    ALL_CHECKED, NO_OPENERS): the deal is void and dealt again to the hands still in, which
    post `antes` again; the pot stays and a folded hand stays dead (pass and out)."""
    reason: str
    antes: tuple[Amount, ...]


def redeal_reason(state: MixedState) -> str | None:
    """Why a first round closed without an opener is dealt again; None: on to the draw
    (a hand without DrawRules, an opened round, fewer than two players with chips, or
    left of the dealer with openers somewhere)."""
    rules, b = state.draw_rules, state.betting
    if rules is None or state.street or state.opener is not None or not b.can_still_bet:
        return None
    if rules.opening == JACKS_OR_BETTER and not any(_may_open(state, seat) for seat in b.contenders):
        return NO_OPENERS
    return None if rules.second_round_start == LEFT_OF_DEALER else ALL_CHECKED


def redeal(state: MixedState, reason: str) -> Redealt:
    b = state.betting
    return Redealt(reason, tuple(0 if b.folded[seat] else min(ante, b.stacks[seat])
                                 for seat, ante in enumerate(state.antes)))


def redealt(state: MixedState, event: Redealt) -> MixedState:
    """A new deal of the first round: the antes in the pot, the hands still in due."""
    b = state.betting
    posted = with_changes(b, stacks=tuple(s - a for s, a in zip(b.stacks, event.antes)),
                          committed=tuple(c + a for c, a in zip(b.committed, event.antes)))
    opened = bet.start_round(posted, late=False)
    n = len(state.players)
    return with_changes(state, phase="deal", betting=with_changes(opened, to_act=None),
                        first_to_act=opened.to_act, hole=((),) * n, up=((),) * n,
                        due=tuple(not folded for folded in b.folded), aggressor=None)
