"""Palace Poker's battles: a hand's worth whatever its number of cards, the judgement of a
battle (each side's best hand without the opponent's banner suit), and the floor's
stateless battle ruling from the cards alone.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from domain.games.palace import ATTACKER_WON, DEFENDER_WON, DOUBLE_KNOCKOUT, RULE, SPLIT, BattleHand, canonical_cards
from domain.games.palace_interpretations import (
    MISSING_CARD_RANK,
    PALACE_CARDS,
    SOLDIER_LIMIT,
    ante_for,
    attack_minimum,
    banner_suit_count,
    defender_call_amount,
)
from domain.rules.betting import chips
from domain.rules.cards import card_rank, format_card, parse_cards
from domain.rules.evaluation import CATEGORIES, evaluate_high
from domain.rules.evaluation_tables import FOUR_OF_A_KIND, HIGH_CARD, ONE_PAIR, THREE_OF_A_KIND, TWO_PAIR, pack
from domain.rules.violations import Violation

# ---------------------------------------------------------------- hands and battles

@dataclass(frozen=True)
class HandStrength:
    """A hand's worth, whatever the number of cards: `strength` in the layout of
    domain.rules.evaluation (so hands of fewer than five cards compare with full hands)."""

    strength: int
    category: str
    best: tuple[str, ...]


_SHORT_CATEGORY = {  # rank-count shape -> category, for hands of fewer than five cards
    (4,): FOUR_OF_A_KIND, (3, 1): THREE_OF_A_KIND, (3,): THREE_OF_A_KIND,
    (2, 2): TWO_PAIR, (2, 1, 1): ONE_PAIR, (2, 1): ONE_PAIR, (2,): ONE_PAIR,
}


def hand_value(cards: Sequence[str]) -> HandStrength:
    """The best five-card hand from `cards` (1..9 cards). Fewer than five cards are ranked
    by the categories they can make, a missing card ranking below a deuce
    (palace_interpretations.MISSING_CARD_RANK)."""
    parsed = parse_cards(cards)
    if len(parsed) >= 5:
        value = evaluate_high(parsed)
        return HandStrength(value.strength, value.category,
                            tuple(format_card(card) for card in value.best))
    counts = Counter(card_rank(card) for card in parsed)
    ordered = sorted(parsed, key=lambda card: (counts[card_rank(card)], card_rank(card), card),
                     reverse=True)
    shape = tuple(sorted(counts.values(), reverse=True))
    category = _SHORT_CATEGORY.get(shape, HIGH_CARD)
    ranks = [card_rank(card) for card in ordered] + [MISSING_CARD_RANK] * (5 - len(ordered))
    return HandStrength(pack(category, ranks), CATEGORIES[category],
                        tuple(format_card(card) for card in ordered))


@dataclass(frozen=True)
class Holding:
    """A player's cards: banner (face up), palace (face down) and soldiers (face up)."""

    banner: str
    palace: tuple[str, ...]
    soldiers: tuple[str, ...] = ()

    @property
    def cards(self) -> tuple[str, ...]:
        return (self.banner,) + self.palace + self.soldiers

    @property
    def suit(self) -> str:
        return self.banner[1]


@dataclass(frozen=True)
class BattleJudgement:
    attacker: BattleHand
    defender: BattleHand
    winner: str | None  # "attacker", "defender", or None when still tied after the tie-break
    reason: str  # better_hand | more_banner_suit_cards | tie


def _battle_hand(own: Holding, opponent: Holding) -> tuple[BattleHand, int]:
    counted = tuple(card for card in own.cards if card[1] != opponent.suit)
    ignored = tuple(card for card in own.cards if card[1] == opponent.suit)
    value = hand_value(counted)
    hand = BattleHand(value.category, value.best, counted, ignored, opponent.suit,
                      banner_suit_count(own.cards, own.suit))
    return hand, value.strength


def judge_battle(attacker: Holding, defender: Holding) -> BattleJudgement:
    """Each side makes the best hand of all their own cards, not counting any card of the
    opponent's banner suit; the better hand wins, a tie goes to the side holding more cards
    of its own banner suit, and a tie after that leaves `winner` None."""
    attacker_hand, attacker_strength = _battle_hand(attacker, defender)
    defender_hand, defender_strength = _battle_hand(defender, attacker)
    if attacker_strength != defender_strength:
        winner = "attacker" if attacker_strength > defender_strength else "defender"
        return BattleJudgement(attacker_hand, defender_hand, winner, "better_hand")
    a_count, d_count = attacker_hand.banner_suit_cards, defender_hand.banner_suit_cards
    if a_count != d_count:
        winner = "attacker" if a_count > d_count else "defender"
        return BattleJudgement(attacker_hand, defender_hand, winner, "more_banner_suit_cards")
    return BattleJudgement(attacker_hand, defender_hand, None, "tie")


# ---------------------------------------------------------------- stateless battle ruling

def battle_stakes(attacker: Holding, defender: Holding, names: dict[str, str],
                  small_bet: int) -> dict[str, Any]:
    """A battle's money as the floor reads it out (seed 001; palace-poker.md "Table and
    stakes" and "Bet (battle)")."""
    minimum = attack_minimum(len(attacker.soldiers), small_bet)
    call = defender_call_amount(len(defender.soldiers), small_bet, 0)
    ante = ante_for(small_bet)
    return {
        "small_bet": small_bet, "minimum_bet": minimum, "defender_call": call, "ante": ante,
        "rule": RULE,
        "detail": f"{names['attacker']} bets at least ({_soldiers(attacker)} + banner) x {chips(small_bet)} = "
                  f"{chips(minimum)}; {names['defender']} calls ({_soldiers(defender)} + banner) x {chips(small_bet)} = "
                  f"{chips(call)}; the ante is half the small bet: {chips(ante)}",
    }


def _soldiers(holding: Holding) -> str:
    count = len(holding.soldiers)
    return f"{count} soldier{'' if count == 1 else 's'}"


def palace_battle_ruling(request: dict[str, Any]) -> dict[str, Any]:
    """Judge one battle from the cards alone.

    Request: {"attacker": {"name": "Ann", "banner": "Ah", "palace": "KdKc2s",
    "soldiers": ["7h", "7d"]}, "defender": {...}, "last_two": false}; cards as a string or
    a list, soldiers optional (0..5), "name" optional. Answer: the winner and loser (or
    none), the outcome (attacker_won, defender_won, double_knockout, split), the reason
    (better_hand, more_banner_suit_cards, tie), whether the tie-break was applied, the
    cards the winner captures, and per side the hand used and the suit ignored. With
    `small_bet` (S), `stakes` adds the battle's money: the attacker's minimum bet,
    (soldiers + banner) x S, the defender's call by the same formula, and the ante (half a
    small bet, rounded down).
    """
    if not isinstance(request, dict):
        raise Violation("validation_error", "the request must be an object with attacker and defender")
    sides = {role: _holding_from_request(request, role) for role in ("attacker", "defender")}
    names = {role: str(request[role].get("name") or role) for role in sides}
    every = sides["attacker"].cards + sides["defender"].cards
    repeated = sorted({card for card in every if every.count(card) > 1})
    if repeated:
        raise Violation("duplicate_card", f"{' '.join(repeated)} appear(s) in both hands: a deck "
                        "holds each card once", numbers={"cards": repeated})
    if names["attacker"] == names["defender"]:
        raise Violation("validation_error", "attacker and defender need different names")
    attacker, defender = sides["attacker"], sides["defender"]
    if attacker.suit == defender.suit:
        raise Violation("same_banner_suit", f"{names['attacker']} ({attacker.banner}) may not "
                        f"attack {names['defender']} ({defender.banner}): their banners have the "
                        "same suit", RULE)
    last_two = request.get("last_two", False)
    if not isinstance(last_two, bool):
        raise Violation("validation_error", "last_two must be true or false")
    small_bet = request.get("small_bet")
    if small_bet is not None and (isinstance(small_bet, bool) or not isinstance(small_bet, int)
                                  or small_bet < 1):
        raise Violation("validation_error", f"small_bet must be a whole number of chips of at least 1, "
                        f"not {small_bet!r}")

    judgement = judge_battle(attacker, defender)
    answer: dict[str, Any] = {
        **({"stakes": battle_stakes(attacker, defender, names, small_bet)} if small_bet else {}),
        "reason": judgement.reason,
        "tie_break_applied": judgement.reason != "better_hand",
        "hands": {
            role: {
                "player": names[role],
                "category": hand.category,
                "best": "".join(hand.best),
                "counted": "".join(hand.counted),
                "ignored": "".join(hand.ignored),
                "ignored_suit": hand.ignored_suit,
                "banner_suit_cards": hand.banner_suit_cards,
            }
            for role, hand in (("attacker", judgement.attacker), ("defender", judgement.defender))
        },
    }
    if judgement.winner is None:
        outcome = SPLIT if last_two else DOUBLE_KNOCKOUT
        answer.update(outcome=outcome, winner=None, loser=None, captured="",
                      out=[] if last_two else [names["attacker"], names["defender"]])
        return answer
    loser = "defender" if judgement.winner == "attacker" else "attacker"
    answer.update(
        outcome=ATTACKER_WON if judgement.winner == "attacker" else DEFENDER_WON,
        winner=names[judgement.winner],
        loser=names[loser],
        out=[names[loser]],
        captured="".join((sides[loser].banner,) + sides[loser].soldiers),
    )
    return answer


def _holding_from_request(request: dict[str, Any], role: str) -> Holding:
    side = request.get(role)
    if not isinstance(side, dict):
        raise Violation("validation_error", f"{role} must be an object with banner, palace "
                        "and soldiers", numbers={"field": role})
    banner = canonical_cards(side.get("banner") or "")
    palace = canonical_cards(side.get("palace") or "")
    soldiers = canonical_cards(side.get("soldiers") or "")
    if len(banner) != 1:
        raise Violation("validation_error", f"{role}.banner must be one card, not {len(banner)}",
                        numbers={"field": f"{role}.banner"})
    if len(palace) != PALACE_CARDS:
        raise Violation("validation_error", f"{role}.palace must be {PALACE_CARDS} cards, not "
                        f"{len(palace)}", numbers={"field": f"{role}.palace"})
    if len(soldiers) > SOLDIER_LIMIT:
        raise Violation("validation_error", f"{role} holds {len(soldiers)} soldiers: nobody may "
                        f"keep more than {SOLDIER_LIMIT}", numbers={"field": f"{role}.soldiers"})
    if "Jk" in banner + palace + soldiers:
        raise Violation("invalid_card", "Palace Poker is played without a joker")
    return Holding(banner[0], palace, soldiers)
