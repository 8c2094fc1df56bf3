"""Hold'em and Omaha at a live table: the table bets with its own structure and deals
card by card (domain.games.holdem)."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from domain.games import holdem
from domain.games.hand_events import PostAction
from domain.live import autoplay
from domain.live.games.common import (
    Dealing,
    DealSeal,
    Opening,
    PlaysForChips,
    TableMove,
    Viewing,
    awards_view,
    betting_status,
    cards_text,
    commit_card_by_card,
    deck_deal_view,
    hole_by_name,
    openings_view,
    pots_view,
    showdown_actions,
    showdown_view,
    to_act_name,
)
from domain.rules import deal_commitment
from domain.rules.cards import format_card
from domain.rules.legal_shapes import legal_notes, legal_shape
from domain.rules.violations import Violation

# The showdown's actions (declared showdowns): the table's Act -> the hand's command.
_SHOWDOWN_ACTIONS = {"show": holdem.ShowCards, "muck": holdem.Muck, "ask_to_see": holdem.AskToSee}
SHOWDOWN_SETTING = "showdown"


def holdem_showdown(settings: Mapping[str, Any]) -> str:
    """A hold'em or Omaha table's `settings.showdown`: "automatic" (the default: the computer
    shows and mucks in the order of show) or "declared" (each player shows, mucks or asks
    to see in turn). Raises Violation("invalid_table") for anything else."""
    showdown = settings.get(SHOWDOWN_SETTING, holdem.AUTOMATIC)
    if showdown not in holdem.SHOWDOWNS:
        raise Violation("invalid_table", f"settings.showdown must be one of {', '.join(holdem.SHOWDOWNS)}, "
                        f"not {showdown!r}", numbers={"showdown": showdown})
    return str(showdown)


HOLDEM_SETTINGS = (SHOWDOWN_SETTING, "starting_chips")


class HoldemGame(PlaysForChips):
    """Hold'em or Omaha at a live table. The table bets with its own structure (the game
    has no settings of its own but the showdown) and deals it card by card
    (domain.rules.deal_commitment), so each card can be opened on its own."""
    EVENT_TYPES = holdem.EVENT_TYPES
    commit = staticmethod(commit_card_by_card)

    def __init__(self, variant: str) -> None:
        self.name = variant

    @staticmethod
    def settings(raw: Mapping[str, Any]) -> str:
        """The game's one setting: the showdown (refused if unknown). Beside it only the
        table's `starting_chips` (a seat's stack when none is given); another game's
        setting (a draw's `opening`, say) is refused at creation rather than silently not
        played."""
        unknown = sorted(set(raw) - set(HOLDEM_SETTINGS))
        if unknown:
            raise Violation("invalid_table", f"hold'em and Omaha take the settings {', '.join(HOLDEM_SETTINGS)}; "
                            f"not {', '.join(unknown)}", numbers={"unknown_settings": unknown})
        return holdem_showdown(raw)

    @staticmethod
    def handle(hand: holdem.HandState | None, command: Any, dealing: Dealing | None) -> tuple[list[Any], Any]:
        return holdem.handle(hand, command)  # the deck is dealt whole: nothing more to draw

    def start(self, opening: Opening) -> holdem.StartHand:
        return holdem.StartHand(opening.players, opening.stacks, opening.button, opening.betting, self.name,
                                deck=opening.deck, commitment=opening.commitment,
                                showdown=holdem_showdown(opening.settings))

    @staticmethod
    def action(move: TableMove, hand: holdem.HandState, dealing: Dealing | None) -> Any:
        if (move.defender, move.keep, move.line) != (None, None, None):
            raise Violation("illegal_action", "hold'em and Omaha take no defender, keep or line",
                            numbers={"action": move.action})
        if move.discard is not None:
            raise Violation("illegal_action", "hold'em and Omaha have no draw: nothing to discard",
                            numbers={"action": move.action})
        showdown = _SHOWDOWN_ACTIONS.get(move.action)
        if showdown is not None:
            return showdown(move.position)
        return PostAction(move.position, move.action, move.to)

    auto_action = staticmethod(autoplay.holdem_auto_action)
    dead_hand = staticmethod(autoplay.holdem_dead_hand)

    @staticmethod
    def legal_answer(hand: holdem.HandState, to_act: str | None,
                     sees: Callable[[Any], bool] | None) -> tuple[Any, dict[str, Any]]:
        """`legal_view` and `legal_notes` together, from one computation of the legal actions
        (every table answer shows both)."""
        if hand.to_show is not None:
            return _showdown_legal(hand), {}
        legal = holdem.legal_actions(hand)
        return legal_shape(legal), legal_notes(legal)

    @classmethod
    def legal_view(cls, hand: holdem.HandState, to_act: str | None, sees: Callable[[Any], bool] | None) -> Any:
        return cls.legal_answer(hand, to_act, sees)[0]

    @classmethod
    def legal_notes(cls, hand: holdem.HandState) -> dict[str, Any]:
        return cls.legal_answer(hand, None, None)[1]

    @staticmethod
    def seat_status(hand: holdem.HandState, seat: int) -> str:
        return betting_status(hand.betting, seat)

    @staticmethod
    def bet(hand: holdem.HandState, seat: int) -> int:
        return int(hand.betting.bets[seat]) if hand.betting is not None else 0

    @staticmethod
    def hole_view(hand: holdem.HandState, seat: int, owner: str, sees: Callable[[Any], bool]) -> str | None:
        cards = hand.hole[seat]
        if cards is None:
            return None
        return cards_text(cards) if hand.shown[seat] or sees(owner) else None

    @staticmethod
    def hand_summary(hand: holdem.HandState, names: list[str]) -> dict[str, Any]:
        return {"round": hand.round, "over": hand.over, "board": cards_text(hand.board),
                "pots": pots_view(hand.pots, names), "stacks": dict(zip(names, hand.stacks))}

    @classmethod
    def hand_view(cls, hand: holdem.HandState, names: list[str], viewing: Viewing) -> dict[str, Any]:
        return {
            "round": hand.round,
            "over": hand.over,
            "to_act": to_act_name(hand, names),
            "board": cards_text(hand.board),
            "pots": pots_view(hand.pots, names),
            "awards": awards_view(hand.awards, names),
            "hole": hole_by_name(cls, hand, names, viewing),
            "stacks": dict(zip(names, hand.stacks)),
            "showdown": showdown_view(hand, names, hand.live and (hand.awaiting == "showdown" or hand.showdown),
                                       hand.showdown_mode),
        }

    @staticmethod
    def deal_view(hand: holdem.HandState, names: list[str], seal: DealSeal, revealed: bool,
                  viewing: Viewing) -> dict[str, Any]:
        deck = hand.deck if revealed else None
        if seal.scheme != deal_commitment.SCHEME:  # dealt before hands were committed card by card
            return deck_deal_view(deck, seal)
        return _per_card_deal_view(hand, names, deck or None, seal, viewing)


def _showdown_legal(hand: holdem.HandState) -> dict[str, Any]:
    """At a declared showdown the player to show may show or muck (TDA 2024 17); a caller
    may ask to see the last aggressor's hand (TDA 2024 18-B), whose player is named while
    that right is open."""
    aggressor = hand.aggressor
    open_right = aggressor is not None and not hand.shown[aggressor] and aggressor in hand.show_order
    return showdown_actions(hand.players[aggressor] if open_right and aggressor is not None else None)


def _per_card_deal_view(hand: holdem.HandState, names: list[str], deck: tuple[str, ...] | None,
                        seal: DealSeal, viewing: Viewing) -> dict[str, Any]:
    """A hand committed card by card: the root always; once the hand is over, the floor
    gets the deck and the secret (and the root recomputed), the others the openings of the
    cards they may see (the board, hands shown, their own), each checked against the root."""
    view: dict[str, Any] = {"commitment": seal.commitment, "scheme": deal_commitment.SCHEME,
                            "deck": None, "salt": None, "openings": None, "verified": None}
    if deck is None or seal.salt is None or seal.commitment is None:
        return view
    secret = bytes.fromhex(seal.salt)
    if viewing.everything:
        return {**view, "deck": "".join(deck), "salt": seal.salt,
                "verified": deal_commitment.deal_root(deck, secret) == seal.commitment}
    position = {card: index for index, card in enumerate(deck)}
    seen = [format_card(card) for card in hand.board]
    for hand_seat, cards in enumerate(hand.hole):
        if cards is not None and (hand.shown[hand_seat] or viewing.sees(names[hand_seat])):
            seen.extend(format_card(card) for card in cards)
    return {**view, **openings_view(deck, secret, sorted(position[card] for card in seen), seal.commitment)}
