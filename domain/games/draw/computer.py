"""The computer player of five-card draw: the seeds' draw advice, and the command played for
a seat whose turn it is when the player does not act (absent, or out of time)."""
from __future__ import annotations

from collections.abc import Sequence

from domain.games.draw.commands import Discard, Muck, ShowCards
from domain.games.draw.legal import draw_limit, legal_actions
from domain.games.draw.openers import breaks_openers
from domain.games.draw.showdown import shows_at_showdown
from domain.games.draw.state import DRAW, HAND_SIZE, HandState
from domain.games.draw_settings import DrawSettings
from domain.games.hand_events import PostAction
from domain.rules.cards import JOKER, format_card, format_cards, parse_cards
from domain.rules.evaluation import evaluate_high
from domain.rules.violations import Violation


def advised_discard(hand: Sequence[str] | str, settings: DrawSettings) -> tuple[str, ...]:
    """The seeds' draw advice, for the computer player: which cards to throw away.

    Straight or better: stand pat. Three of a kind: draw 2. Two pair: draw 1. Four to a
    flush: draw 1 (ours: preferred to a lone pair, the seeds give no order). One pair: keep
    the pair, draw 3. Nothing: keep the highest card and draw as many as the limit allows
    (with "3, or 4 keeping an ace" that is 4 only when the card kept is an ace or joker;
    otherwise keep the two highest). The joker is never thrown away.
    """
    cards = parse_cards(hand)
    if len(cards) != HAND_SIZE:
        raise Violation("invalid_hand", f"a draw hand has {HAND_SIZE} cards, not {len(cards)}")
    value = evaluate_high(cards, settings.joker)
    real = sorted((c for c in cards if c != JOKER), key=lambda c: -(c >> 2))
    jokers = [c for c in cards if c == JOKER]
    if value.category in ("straight", "flush", "full_house", "four_of_a_kind", "straight_flush",
                          "royal_flush", "five_of_a_kind"):
        return ()
    by_rank: dict[int, list[int]] = {}
    for card in real:
        by_rank.setdefault(card >> 2, []).append(card)
    groups = [group for group in by_rank.values() if len(group) >= 2]
    if value.category in ("three_of_a_kind", "two_pair"):
        keep = [c for group in groups for c in group] + jokers
        return _discarding(cards, keep)
    by_suit: dict[int, list[int]] = {}
    for card in real:
        by_suit.setdefault(card & 3, []).append(card)
    flush_draw = next((s for s in by_suit.values() if len(s) + len(jokers) >= 4), None)
    if flush_draw is not None:
        return _discarding(cards, flush_draw + jokers)
    if value.category == "one_pair":
        # A joker pair is the joker with the card it matches: the highest card ("wild"),
        # an ace ("bug", counted as an ace only).
        pair = groups[0] if groups else [real[0]]
        return _discarding(cards, pair + jokers)
    keep = real[:1] + jokers
    if draw_limit(settings, keep) < HAND_SIZE - len(keep):
        keep = real[:HAND_SIZE - draw_limit(settings, real[:2] + jokers)] + jokers
    return _discarding(cards, keep)


def _discarding(cards: tuple[int, ...], keep: Sequence[int]) -> tuple[str, ...]:
    kept = set(keep)
    return tuple(format_card(c) for c in cards if c not in kept)


def auto_action(state: HandState, seat: int, timed_out: bool = False) -> PostAction | Discard | ShowCards | Muck:
    """The command played for `seat` when it is their turn and they do not act.

    `timed_out` (the turn time limit ran out): check if possible, else fold; on the draw
    keep all five cards (both seeds); at the showdown the cards speak, whoever is to show
    (`shows_at_showdown`: a house decision, as at hold'em tables). Otherwise the computer player standing in for an
    absent player: check when possible, call a bet of at most one unit with a pair or
    better, else fold; on the draw follow `advised_discard`.
    """
    if seat != state.to_act:
        raise Violation("not_your_turn", f"it is not {state.players[seat]}'s turn",
                        numbers={"seat": seat, "to_act": state.to_act})
    if state.at_showdown:
        return ShowCards(seat) if shows_at_showdown(state, seat) else Muck(seat)
    if state.phase == DRAW:
        if timed_out:
            return Discard(seat, ())
        advised = advised_discard(format_cards(state.hands[seat]), state.settings)
        return Discard(seat, advised, split_openers=breaks_openers(state, seat, advised))
    legal = legal_actions(state)
    assert legal is not None  # the seat to act, neither drawing nor at the showdown, is to bet
    if legal.check:
        return PostAction(seat, "check")
    small = legal.call is not None and legal.call.adds <= state.settings.unit
    if not timed_out and small and \
            evaluate_high(state.hands[seat], state.settings.joker).category != "high_card":
        return PostAction(seat, "call")
    return PostAction(seat, "fold")
