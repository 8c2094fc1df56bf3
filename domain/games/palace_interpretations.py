"""Every reading of the Palace Poker rules that the seed leaves open, in one place.

The seed is seed 001 (Assamese, a translation of Scott Henneman's rules on pagat.com);
the working spec is shared/spec/palace-poker.md (beside the repository). Each constant or function below
quotes the seed (translated back to English) and says what we decided, so a floor
decision can be changed here without hunting through the rules engine.

Decisions built into the shape of the rules engine (domain/games/palace.py), each with
the seed's words; changing one means changing the code there:

- Set-aside banners are public. Seed: banner cards are dealt "face up", one at a time;
  a card of a suit already in the group is put aside and another dealt. The events naming
  them are public; the order they are reshuffled into is not.
- The discard turn costs nothing. Seed (garbled): "Pay and draw no card, just discard 1
  or more soldier cards." Spec: it costs nothing and discards one or more soldiers.
- A discard step follows every buy and every capture. Seed: after buying "players may
  discard any number of soldier cards ... including the card bought in the same turn";
  after a capture "they are still not allowed more than five soldiers and can discard as
  many soldiers as they want". The taker sends a Discard (possibly of no cards) that must
  leave at most five soldiers; play then passes left of the player whose turn it was.
- The draw deck is refilled when a buyer needs a card. Seed: "If the draw deck runs dry,
  the dealer shuffles the discard pile and uses it as the new draw deck. If both are
  exhausted, buying is no longer an option." The shuffle happens at the buy that finds the
  draw deck empty (cards discarded meanwhile are included); the Buy carries the order.
- The final showdown ignores no suit. Spec: "best five-card hand from all their own cards
  wins the pot; ties split it"; ignoring the opponent's banner suit belongs to battles.
"""
from __future__ import annotations

from collections.abc import Sequence

FIXED_LIMIT = "fixed-limit"
NO_LIMIT = "no-limit"
STRUCTURES = (FIXED_LIMIT, NO_LIMIT)

MIN_PLAYERS = 2
MAX_PLAYERS = 10
PALACE_CARDS = 3
SOLDIER_LIMIT = 5


def ante_for(small_bet: int) -> int:
    """Seed: "The ante is usually half the value of the small bet."

    Decided (spec): every player antes half a small bet, rounded down (S = 10 -> 5).
    A player whose stack is smaller antes what they have.
    """
    return small_bet // 2


BANNER_GROUP_SIZE = 4
"""Seed: "each player must have a different suit (if there are 2-4 players) ... players
5-8 are treated as a separate group, as are 9 and 10."

Decided: groups are counted in deal order, player 1 being the first left of the dealer;
players 1-4, 5-8 and 9-10 each hold distinct banner suits.
"""


def banner_group(deal_position: int) -> int:
    """The group (0, 1, 2) of the player dealt `deal_position`-th (0 = first left of the dealer)."""
    return deal_position // BANNER_GROUP_SIZE


def in_shuffled_order(cards: Sequence[str], permutation: Sequence[str]) -> tuple[str, ...]:
    """Seed: "If the dealer runs out of cards before all banners are dealt, they shuffle the
    set-aside banner cards and continue"; "the dealer gathers the remaining cards and
    shuffles 2 or 3 times"; "if the draw deck runs dry, the dealer shuffles the discard pile".

    Decided: the domain never draws randomness. For every shuffle the caller passes a
    random permutation of the whole 52-card deck, and the cards being shuffled take the
    order in which they appear in it (a uniform permutation restricted to a subset is a
    uniform permutation of that subset). Should the set-aside banners need reshuffling a
    second time in one deal (very rare), the same permutation orders them again.
    """
    position = {card: index for index, card in enumerate(permutation)}
    return tuple(sorted(cards, key=position.__getitem__))


def attack_minimum(attacker_soldiers: int, small_bet: int) -> int:
    """Seed: "(# of soldier cards + banner card) x small bet = minimum bet"."""
    return (attacker_soldiers + 1) * small_bet


ATTACK_ABOVE_MINIMUM = {FIXED_LIMIT: False, NO_LIMIT: True}
"""Spec: "the attacker puts in at least (attacker's soldiers + 1) x S".
Decided: fixed-limit bets are fixed, so the attacker puts in exactly the minimum; in
no-limit the attacker may put in more, up to their stack."""


def defender_call_amount(defender_soldiers: int, small_bet: int, attacker_excess: int) -> int:
    """Seed: "If a defender calls they must put: (# of soldier cards + banner card) x small bet."

    Decided (spec): each side pays by its own soldier count. In no-limit, whatever the
    attacker put in above their own minimum is a voluntary bet and the defender matches
    it on top of their own formula (otherwise betting more could never matter).
    """
    return (defender_soldiers + 1) * small_bet + attacker_excess


def fixed_limit_raise(defender_soldiers: int, small_bet: int, big_bet: int) -> int:
    """Seed: "Limit: must raise a big bet, or double the small bet (if they have no
    soldier cards)". Decided: the raise is exactly one big bet, or two small bets when the
    defender has no soldiers."""
    return big_bet if defender_soldiers > 0 else 2 * small_bet


def no_limit_minimum_raise(big_bet: int) -> int:
    """Seed: "No limit: raise greater than or equal to the big bet"."""
    return big_bet


def attacker_call_amount(raise_amount: int) -> int:
    """Seed: "If raised, the attacker either calls or folds and the defender keeps their
    raise." Decided: to call, the attacker adds the amount of the raise (the part above
    the defender's call); no re-raise exists."""
    return raise_amount


def all_in_amount(due: int, stack: int) -> int:
    """The seed does not say what a player short of chips does. Decided: any battle amount
    (bet, call, raise, call of a raise) is capped at the payer's stack: they are all in,
    stay in the hand, and nothing is returned. There are no side pots: the seed has one
    main pot ("the bets go into the main pot, so the winner of a battle may not win chips
    unless they are the last player"). Buying is optional, so a buyer must pay a full
    small bet (not capped)."""
    return min(due, stack)


def forced_battle_applies(players_at_start: int, players_left: int) -> bool:
    """Seed: "If two players remain they must fight to decide the winner."

    Decided: once the hand is down to two players who may battle (different banner
    suits), the next of them to act must bet against the other (folding, i.e. conceding,
    stays allowed). "Remain" implies others have left, so a hand that starts heads-up is
    played normally until its showdown.
    """
    return players_left == 2 and players_at_start > 2


FORCED_BATTLE_ALLOWS_FOLD = True
"""Whether the player who must battle may concede by folding instead (see above)."""


def banner_suit_count(cards: Sequence[str], banner_suit: str) -> int:
    """Seed: "If there is a tie between attacker and defender, the player with the most
    cards of their banner suit wins." Decided: count every card the player holds (banner,
    palace and soldiers) of their own banner suit, the banner itself included. The
    opponent's banner suit is never the player's own, so the ignored cards do not matter."""
    return sum(1 for card in cards if card[1] == banner_suit)


MISSING_CARD_RANK = 0
"""A player without soldiers holds four cards (banner and palace), and leaving out the
opponent's banner suit in a battle can leave fewer than five to anyone. The seed says
only "normal poker hand rankings". Decided: such a hand is ranked by the categories its
cards can make (high card, pair, two pair, three or four of a kind); straights and flushes
need five cards; a missing card ranks below a deuce (2), so K-K-7-4 loses to K-K-7-4-2."""


QUIET_ACTIONS = ("stay", "discard", "fold")
"""Seed: "If players stay, discard, then all fold, the hand ends" and "in the case of a
Stay/Discard/Fold sequence, a normal poker showdown occurs". Decided: once every player
still in has taken a stay, discard or fold turn since the last buy or battle, the hand
goes to showdown."""


def odd_chip_order(winner_seats: Sequence[int], dealer: int, seat_count: int) -> tuple[int, ...]:
    """betting-rules.md: the odd chip goes to the winning player first left of the button,
    one chip at a time in that order. The dealer holds the button."""
    return tuple(sorted(winner_seats, key=lambda seat: (seat - dealer - 1) % seat_count))
