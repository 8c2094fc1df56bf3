"""The draw family's own rules in a hand of domain.games.mixed (2-7 triple and single
draw, badugi, and five-card draw's table settings a hand may carry: DrawRules): what a
discard may throw, the cards kept after it, who opens the rounds after the draw, the
openers a first bet needs and the new deal of a first round nobody opened (its event,
Redealt, is the family's), false openers (five-card draw's OpenWithoutProof, FalseOpeners
and FalseOpenersFound: the pot carried to a new deal or played for), a draw hand dealt
from its deck (the stub each draw takes from and its reshuffles: domain.games.draw_stub),
and no-betting mode (a point to every best hand). The family's commands and events of
the draw are here; domain.games.mixed decides and evolves with them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from domain.games.dealt_games import DRAW, Game
from domain.games.dealt_hand import Hole, MixedState, cards_of, cards_text
from domain.games.draw.events import ALL_CHECKED, NO_OPENERS
from domain.games.draw.openers import CARRIED, false_opener_out, false_openers_outcome, has_openers, openers_kept, opening_cards
from domain.games.draw_settings import JACKS_OR_BETTER, LEFT_OF_DEALER, OPENER, DrawRules, most_exchanged
from domain.games.draw_stub import DrawStub, check_full_deck, dealt_round, in_reshuffle_order, texts
from domain.games.hand_events import ActionTaken
from domain.rules import betting as bet
from domain.rules.betting import Amount, LegalActions, with_changes, with_item
from domain.rules.cards import Card, format_card
from domain.rules.citations import cite
from domain.rules.pots import seats_from_left_of_button
from domain.rules.violations import Violation
from domain.secrecy import OWNER_ONLY, PUBLIC, SEALED

FALSE_OPENERS = "false_openers"
"""Redealt's reason when a false opener's pot is carried to a new deal (the family's own:
five-card draw deals again after its FalseOpenersFound without a RedealRequired)."""


@dataclass(frozen=True)
class Discard:
    """Draw games: the cards thrown ("" stands pat; `??` unknown ones). `split_openers`:
    under jacks or better the opener says the draw breaks the openers (DrawRules)."""
    position: int
    cards: str
    split_openers: bool = False


@dataclass(frozen=True)
class CardsDiscarded:
    position: int
    cards: str = field(metadata=OWNER_ONLY)


def discard(state: MixedState, command: Discard) -> list[CardsDiscarded | OpenersSplit]:
    """The seat to draw throws its cards (and the opener who breaks the openers says so)."""
    seat = command.position
    _check_seat(state, seat)
    thrown = cards_text(check_discard(state, seat, command.cards, command.split_openers))
    return [CardsDiscarded(seat, thrown), OpenersSplit(seat, thrown)] if command.split_openers \
        else [CardsDiscarded(seat, thrown)]


def _check_seat(state: MixedState, seat: object) -> None:
    if type(seat) is not int or not 0 <= seat < len(state.players):
        raise Violation("illegal_action", f"no seat {seat!r} at this table", numbers={"seat": seat})


def check_discard(state: MixedState, seat: int, text: str, split: bool = False) -> tuple[Card | None, ...]:
    """The cards `seat` throws, in its turn to draw: held (or unknown), each once, within the
    hand's draw limit; the opener's draw that breaks the openers says so (`split`), and only
    the opener's."""
    if state.phase != "draw":
        raise Violation("illegal_action", f"nobody draws now: the hand awaits the {state.phase}")
    expected = state.next_to_draw
    if expected is None:
        raise Violation("illegal_action", "every player still in has drawn: their cards are due",
                        numbers={"seat": seat})
    if seat != expected:
        raise Violation("not_your_turn", f"{state.players[expected]} draws first",
                        numbers={"seat": seat, "to_draw": expected})
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


def discarded(state: MixedState, seat: int, text: str) -> MixedState:
    """`seat` has thrown the cards of `text` (CardsDiscarded): as many are owed to it (and,
    dealt from the stub, the discards join the muck once they are dealt)."""
    thrown = cards_of(text, joker=True)
    hole = after_discard(state.hole[seat], thrown)
    if state.stub is not None:
        state = with_changes(state, stub=with_changes(state.stub, pending=texts(text)))
    return with_changes(state, hole=with_item(state.hole, seat, hole), up=with_item(state.up, seat, (False,) * len(hole)),
                        drawn=with_item(state.drawn, seat, True), owed=with_item(state.owed, seat, len(thrown)))


def check_replacements(state: MixedState, seat: int, count: int) -> None:
    """`count` cards dealt to `seat` on the draw are as many as it threw, still owed."""
    name = state.players[seat]
    if not state.drawn[seat] or not state.owed[seat]:
        raise Violation("illegal_action", f"{name} is owed no cards on this draw")
    if count != state.owed[seat]:
        raise Violation("invalid_card", f"{name} discarded {state.owed[seat]} and is dealt as many, not {count}")


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


def action_taken(state: MixedState, event: ActionTaken) -> MixedState:
    """After an action in a hand with DrawRules: the first round's first bet opens it (under
    jacks or better the cards it opened on are kept to prove it at the end, or, dealt none,
    the open is false), and an action by anyone else since is noted (false openers)."""
    seat = event.position
    if event.action == "fold" and state.stub is not None:
        state = _mucked(state, seat)
    if state.draw_rules is None:
        return state
    if state.opener is not None:
        return state if state.acted_after_open or seat == state.opener else with_changes(state, acted_after_open=True)
    if event.action != "bet" or state.street:
        return state
    rules = state.draw_rules
    known = tuple(card for card in state.hole[seat] if card is not None)
    opened = with_changes(state, opener=seat, folded_at_open=state.betting.folded)
    if rules is None or rules.opening != JACKS_OR_BETTER or len(known) != len(state.hole[seat]):
        return opened
    if not has_openers(known, rules.joker):
        return with_changes(opened, false_open=True)
    return with_changes(opened, openers=opening_cards(known, rules.joker))


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
    deck: tuple[str, ...] | None = field(default=None, metadata=SEALED)
    """A hand dealt from its deck: the new deal's (Redeal), and its `commitment` and
    `reshuffle_order`; None: the table deals the hands still in (DealCards)."""
    commitment: str | None = None
    reshuffle_order: tuple[str, ...] | None = field(default=None, metadata=SEALED)


def redeal_reason(state: MixedState) -> str | None:
    """Why a first round closed without an opener is dealt again, or a false opener's pot
    carried to a new deal (FALSE_OPENERS); None: on to the draw (a hand without DrawRules,
    an opened round, fewer than two players with chips, or left of the dealer with openers
    somewhere)."""
    rules, b = state.draw_rules, state.betting
    if rules is None:
        return None
    if state.phase == "redeal" and state.opener is not None:  # only a carried pot keeps its opener
        return FALSE_OPENERS
    if state.street or state.opener is not None or not b.can_still_bet:
        return None
    if rules.opening == JACKS_OR_BETTER and not any(_may_open(state, seat) for seat in b.contenders):
        return NO_OPENERS
    return None if rules.second_round_start == LEFT_OF_DEALER else ALL_CHECKED


def redeal(state: MixedState, reason: str, deck: Redeal | None = None) -> Redealt:
    b = state.betting
    antes = tuple(0 if b.folded[seat] else min(ante, b.stacks[seat]) for seat, ante in enumerate(state.antes))
    if deck is None:
        return Redealt(reason, antes)
    return Redealt(reason, antes, deck.deck, deck.commitment, deck.reshuffle_order)


def redealt(state: MixedState, event: Redealt) -> MixedState:
    """A new deal of the first round: the antes in the pot, the hands still in due."""
    b = state.betting
    posted = with_changes(b, stacks=tuple(s - a for s, a in zip(b.stacks, event.antes)),
                          committed=tuple(c + a for c, a in zip(b.committed, event.antes)))
    opened = bet.start_round(posted, late=False)
    n = len(state.players)
    if event.deck is not None:
        state = with_changes(state, deck=event.deck, commitment=event.commitment, deck_position=0,
                             stub=DrawStub(event.deck, event.reshuffle_order))
    return with_changes(state, phase="deal", street=0, betting=with_changes(opened, to_act=None),
                        first_to_act=opened.to_act, hole=((),) * n, up=((),) * n,
                        due=tuple(not folded for folded in b.folded), drawn=(False,) * n, owed=(0,) * n,
                        aggressor=None, opener=None, openers=None, false_open=False, acted_after_open=False,
                        folded_at_open=None)


# ------------------------------------------------------------------ false openers


@dataclass(frozen=True)
class OpenWithoutProof:
    """The opening bet under jacks or better as it was made at a table where nobody checked
    the openers at the bet (five-card draw's command of the name): the proof comes later
    (FalseOpeners, or the end of the hand)."""
    position: int
    to: Amount


@dataclass(frozen=True)
class FalseOpeners:
    """The floor finds that the opener did not hold openers."""
    position: int


@dataclass(frozen=True)
class FalseOpenersFound:
    """The opener had no openers (five-card draw's event of the name): the hand is dead and
    its chips stay in the pot; `outcome` CARRIED (nobody else acted after the open, or no
    live hand is left): the pot goes to a new deal (Redealt, FALSE_OPENERS), else POT_PLAYS
    among the others (domain.games.draw.openers)."""
    position: int
    outcome: str


def open_without_proof(state: MixedState, command: OpenWithoutProof) -> list[ActionTaken]:
    """The opening bet, checked as a bet but for the openers (found false later, or proven)."""
    if state.phase != "action" or not needs_openers(state):
        raise Violation("illegal_action", "only the opening bet under jacks or better is made without proof",
                        cite("false_openers"))
    seat, b = command.position, state.betting
    to = bet.check_action(b, seat, "bet", command.to)
    return [ActionTaken(seat, "bet", to, to - b.bets[seat])]


def false_openers(state: MixedState, command: FalseOpeners) -> list[FalseOpenersFound]:
    """The floor's finding, checked as five-card draw checks it: the opener of this deal
    under jacks or better, not proven (dealt openers), the hand still live."""
    seat, rules = command.position, state.draw_rules
    _check_seat(state, seat)
    name = state.players[seat]
    if rules is None or rules.opening != JACKS_OR_BETTER or seat != state.opener:
        raise Violation("illegal_action", f"{name} did not open this deal under jacks or better",
                        cite("false_openers"), {"seat": seat})
    if state.openers is not None:
        raise Violation("openers_proven", f"{name} was dealt openers: {state.openers}", cite("false_openers"),
                        {"seat": seat})
    if state.betting.folded[seat]:
        raise Violation("illegal_action", f"{name}'s hand is already dead", cite("false_openers"), {"seat": seat})
    return [FalseOpenersFound(seat, false_openers_outcome(state.betting, seat, state.acted_after_open))]


def unproven_opener(state: MixedState) -> FalseOpenersFound | None:
    """At the end of a hand (its last round over, or everyone else folded) a false opener
    still in cannot prove the openers: the open is found false (as five-card draw finds it,
    before any uncalled chips go back)."""
    seat, b = state.opener, state.betting
    if seat is None or not state.false_open or b.folded[seat] or b.to_act is not None:
        return None
    if state.phase == "showdown" or state.phase == "action" and (
            b.hand_decided or state.street + 1 >= state.game.rounds):
        return FalseOpenersFound(seat, false_openers_outcome(b, seat, state.acted_after_open))
    return None


def false_openers_found(state: MixedState, event: FalseOpenersFound) -> MixedState:
    """The false opener's hand dead (POT_PLAYS), or the hand waiting for the new deal of a
    carried pot (its Redealt follows)."""
    betting = false_opener_out(state.betting, event.position, event.outcome, state.folded_at_open)
    if event.outcome == CARRIED:
        return with_changes(state, betting=betting, phase="redeal")
    return with_changes(_mucked(state, event.position), betting=betting)


# ------------------------------------------------------------------ a deck in the hand


@dataclass(frozen=True)
class Redeal:
    """A draw hand dealt from its deck whose first round is dealt again (phase "redeal"):
    the new deal's deck, commitment and reshuffle order (five-card draw's command of the
    name; a hand without a deck is dealt again by the table)."""
    deck: tuple[str, ...]
    commitment: str | None = None
    reshuffle_order: tuple[str, ...] | None = None


@dataclass(frozen=True)
class StubReshuffled:
    """The stub ran out: `count` discards and folded hands became the new stub (`cards`,
    sealed), as five-card draw's event of the name."""
    count: int
    cards: tuple[str, ...] | None = field(metadata=SEALED)


def check_decks(game: Game, players: int, deck: Any, reshuffle_order: Any, rules: DrawRules | None) -> None:
    """A draw hand's deck and reshuffle order: each a whole deck (with the joker under its
    rule), written as the events write cards, long enough for a draw after every hand."""
    if game.family != DRAW:
        raise Violation("illegal_action", f"{game.name} reshuffles no discards: a reshuffle order is a draw game's")
    if deck is None and reshuffle_order is not None:
        raise Violation("illegal_action", "a reshuffle order comes with the deck it follows")
    joker = rules is not None and rules.joker is not None
    for order, name in ((deck, "deck"), (reshuffle_order, "reshuffle_order")):
        if order is not None and check_full_deck(order, name, joker) != tuple(order):
            raise Violation("invalid_card", f"{name} writes its cards as the events do ('As', 'Td')")
    if deck is not None and len(deck) < (players + 2) * game.hand_size:
        raise Violation("invalid_card", "the deck is too short for this hand")


def redeal_from_deck(state: MixedState, command: Redeal) -> list[Redealt]:
    """The new deal of a hand dealt from its deck, with the deck it brings, once it is due."""
    reason = redeal_reason(state) if state.phase == "redeal" and state.stub is not None else None
    if reason is None:
        raise Violation("illegal_action", f"no redeal is due: the hand awaits the {state.phase}")
    check_decks(state.game, len(state.players), command.deck, command.reshuffle_order, state.draw_rules)
    return [redeal(state, reason, command)]


def from_stub(state: MixedState) -> tuple[list[StubReshuffled], list[tuple[int, str]]]:
    """What a draw hand dealt from its deck deals next: five cards (the game's) each, one at
    a time round the table from the dealer's left, to the seats due; a draw's replacements
    from the top of the stub, the stub topped up first when it runs short (the discards
    and folded hands, in the reshuffle order); nothing while a player is to draw or a new
    deal awaits its deck."""
    stub, b, n = state.stub, state.betting, len(state.players)
    assert stub is not None
    if state.phase == "deal":
        seats = seats_from_left_of_button([seat for seat in range(n) if state.due[seat]], b.button, n)
        return [], dealt_round(stub.cards, seats, state.game.hand_size)
    seat = next((seat for seat in b.contenders if state.drawn[seat] and state.owed[seat]), None)
    if state.phase != "draw" or seat is None:
        return [], []
    count = state.owed[seat]
    if len(stub.cards) >= count:
        return [], [(seat, "".join(stub.cards[:count]))]
    pile = in_reshuffle_order(stub.muck, stub.reshuffle_order)
    return [StubReshuffled(len(pile), pile)], [(seat, "".join((stub.cards + pile)[:count]))]


def off_the_stub(state: MixedState, count: int) -> MixedState:
    """`count` cards dealt from the top of the stub; on the draw, the seat's discards then
    join the muck."""
    stub = state.stub
    assert stub is not None
    if state.phase == "draw":
        return with_changes(state, stub=with_changes(stub, cards=stub.cards[count:], muck=stub.muck + stub.pending,
                                                     pending=()))
    return with_changes(state, stub=with_changes(stub, cards=stub.cards[count:]))


def stub_reshuffled(state: MixedState, event: StubReshuffled) -> MixedState:
    stub = state.stub
    assert stub is not None and event.cards is not None
    return with_changes(state, stub=with_changes(stub, cards=stub.cards + event.cards, muck=()))


def openers_split(state: MixedState, event: OpenersSplit) -> MixedState:
    """The discards kept aside to prove the openers never go back into the stub."""
    stub = state.stub
    if stub is None:
        return state
    aside = set(texts(event.cards))
    return with_changes(state, stub=with_changes(stub, pending=tuple(c for c in stub.pending if c not in aside)))


def _mucked(state: MixedState, seat: int) -> MixedState:
    """A dead hand (folded, or a false opener's) into the muck a reshuffle takes."""
    stub = state.stub
    if stub is None:
        return state
    return with_changes(state, stub=with_changes(stub, muck=stub.muck + tuple(format_card(c) for c in state.hole[seat]
                                                                                if c is not None)))


# ------------------------------------------------------------------ no-betting mode


@dataclass(frozen=True)
class PointsScored:
    """A hand without chips (DrawRules.betting False): every seat with the best hand scores
    a point (five-card draw's event of the name; its HandEnded's `points` follow from it)."""
    winners: tuple[int, ...]


def without_chips(rules: DrawRules | None, stacks: tuple[Amount, ...], antes: tuple[Amount, ...],
                  blinds: tuple[Amount, ...]) -> bool:
    """A hand played for points (no-betting mode), its stacks, antes and blinds all zero."""
    if rules is None or rules.betting:
        return False
    if any(stacks) or any(antes) or any(blinds):
        raise Violation("illegal_action", "no-betting mode plays without chips: stacks, antes and blinds are 0")
    return True


def best_hands(strengths: dict[int, int]) -> tuple[int, ...]:
    """The seats that score a point: every best hand shown (of `strengths`, the hands that count)."""
    best = max(strengths.values(), default=None)
    return tuple(seat for seat in sorted(strengths) if strengths[seat] == best)
