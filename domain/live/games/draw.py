"""Five-card draw at a live table (domain.games.draw).

Five-card draw commits card by card (domain.rules.deal_commitment), as hold'em does: each
deal's root covers its deck and then the order its discards would be reshuffled in, so
every card a player is given, from the stub or from a reshuffle, has one position to be
opened at, and the adapter records which positions each seat was given and which were
tabled (`held`, `tabled`): the views open exactly those, never a mucked or unseen card. A
redeal's deck and reshuffle order are derived from the hand's secret (`derived_order`,
labelled `draw-redeal-<n>-deck` and `-reshuffle`) and committed on their own root when the
redeal comes; the floor checks each is the one the secret fixed (`derived_redeals`).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from domain.games.draw import computer, engine
from domain.games.draw import legal as draw_legal
from domain.games.draw import stream as draw_stream
from domain.games.draw.commands import AskToSee, Discard, FalseOpeners, Muck, Redeal, ShowCards, StartHand
from domain.games.draw.events import CardsShown, HandStarted, HoleCardsDealt, OpenersShown, PlayerDrew, Redealt
from domain.games.draw.state import FIRST_ROUND, REDEAL, HandState
from domain.games.draw_settings import BETTING_SETTINGS, JACKS_OR_BETTER, DrawSettings
from domain.games.hand_events import PostAction
from domain.live.games.common import (
    DECK_HASH,
    NO_BETTING_ACTIONS,
    Dealing,
    DealSeal,
    Opening,
    PlaysForChips,
    TableMove,
    Viewing,
    awards_view,
    betting_status,
    cards_text,
    discard_bounds,
    openings_view,
    pots_view,
    refuse_fields,
    showdown_actions,
    showdown_view,
    summary_without_board,
    view_head,
)
from domain.rules import deal_commitment
from domain.rules.betting import BettingStructure, legal_actions, with_changes
from domain.rules.cards import deck_commitment, deck_texts, parse_cards, verify_deck_commitment
from domain.rules.legal_shapes import legal_notes, legal_shape
from domain.rules.showdown_order import DECLARED
from domain.rules.violations import Violation


@dataclass(frozen=True)
class DrawDeal:
    """One deal of a draw hand (the first, or a redeal after an unopened round): its deck,
    the order discards are reshuffled in, the commitment published before its first card,
    and `first`, the hand-wide position of its deck's first card."""
    deck: tuple[str, ...] | None
    reshuffle_order: tuple[str, ...] | None
    commitment: str | None
    first: int

    @property
    def committed(self) -> tuple[str, ...]:
        """The sequence the commitment covers: the deck, then the reshuffle order."""
        return committed_cards(self.deck or (), self.reshuffle_order)

    def position(self, card: str, reshuffled: bool) -> int | None:
        """Where `card` sits in the committed sequence: in the reshuffle order when it comes
        back from the discards, else in the deck; None when that order is not known."""
        if self.deck is None:
            return None
        if not reshuffled:
            return self.first + self.deck.index(card)
        if self.reshuffle_order is None:
            return None
        return self.first + len(self.deck) + self.reshuffle_order.index(card)


def committed_cards(deck: tuple[str, ...], reshuffle_order: tuple[str, ...] | None) -> tuple[str, ...]:
    return deck + (reshuffle_order or ())


@dataclass(frozen=True)
class DrawTableHand:
    """A five-card draw hand at a table. `start_stacks`: the chips the hand began with
    (no-betting mode plays for points, so they do not move); `deals`: every deal of the
    hand, the redeals' included; `held`: per position in the hand, the (card, deck position) of every card
    it was given; `given`: the cards handed out in the current deal (a card handed out again
    came back through a reshuffle); `tabled`: the positions of the cards shown to everyone;
    `derived_redeals`: the redeals' orders come from the hand's secret (HandStarted, domain.games.draw.events)."""
    game: HandState
    start_stacks: tuple[int, ...]
    deals: tuple[DrawDeal, ...]
    held: tuple[tuple[tuple[str, int | None], ...], ...] = ()
    given: frozenset[str] = frozenset()
    tabled: tuple[int, ...] = ()
    derived_redeals: bool = False

    @property
    def over(self) -> bool:
        return self.game.over

    @property
    def to_act(self) -> int | None:
        return self.game.to_act

    @property
    def stacks(self) -> tuple[int, ...]:
        return tuple(int(s) for s in self.game.stacks) if self.game.settings.betting else self.start_stacks

    @property
    def points(self) -> tuple[int, ...]:
        return self.game.points

    @property
    def round(self) -> str:
        return self.game.phase


class DrawGame:
    """Five-card draw (five-card-draw.md) at a live table."""
    name = "five-card-draw"
    EVENT_TYPES = draw_stream.EVENT_TYPES
    begun = PlaysForChips.begun

    @staticmethod
    def settings(raw: Mapping[str, Any]) -> DrawSettings:
        return DrawSettings.from_dict(raw)

    @staticmethod
    def betting(raw: Mapping[str, Any]) -> BettingStructure:
        return DrawSettings.from_dict(raw).betting_structure()

    @staticmethod
    def betting_settings(betting: Mapping[str, Any]) -> dict[str, Any]:
        """The settings a betting description gives (domain.registry.settings_with_betting):
        the amounts come from the ante (the unit is twice it)."""
        return {name: betting[name] for name in BETTING_SETTINGS if name in betting}

    @staticmethod
    def with_joker(raw: Mapping[str, Any]) -> bool:
        return DrawSettings.from_dict(raw).joker is not None

    @staticmethod
    def plays_for_chips(raw: Mapping[str, Any]) -> bool:
        return DrawSettings.from_dict(raw).betting

    @staticmethod
    def hands_in_match(raw: Mapping[str, Any]) -> int | None:
        return DrawSettings.from_dict(raw).hands

    makes_its_commitment = True
    """`start` commits to the deal itself, card by card, with the reshuffle order it draws
    (domain.live.table._start_next_hand publishes it); the other games' `commit` does."""

    @staticmethod
    def start(opening: Opening) -> StartHand:
        """The hand's StartHand, its reshuffle order drawn, committed to card by card: the
        table publishes its `commitment` in HandOpened. Any redeal's orders are fixed too,
        by the hand's secret (`redeal_orders`)."""
        parsed = DrawSettings.from_dict(opening.settings)
        dealing = opening.dealing
        assert dealing is not None
        reshuffle = dealing.draws.shuffled(deck_texts(parsed.joker is not None))
        commitment = deal_commitment.deal_root(committed_cards(opening.deck, reshuffle), bytes.fromhex(dealing.salt))
        return StartHand(opening.players, opening.button, parsed, opening.deck,
                              opening.stacks if parsed.betting else (), commitment, reshuffle,
                              derived_redeals=True)

    @staticmethod
    def redeal_orders(secret: bytes, number: int, with_joker: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The deck and the reshuffle order of the hand's `number`th redeal, derived from its
        secret (domain.rules.deal_commitment.derived_order), so fixed before the first
        action however often nobody opens. Not ranked by keys the first root covers, as
        Palace's reshuffles are: a player knows where their own cards sat in a deck, so a
        key opened for a card they saw in another deal would tell them where it sat in this
        one, in someone else's hand maybe."""
        cards = deck_texts(with_joker)
        def order(part: str) -> tuple[str, ...]:
            return deal_commitment.derived_order(cards, secret, f"draw-redeal-{number}-{part}")
        return order("deck"), order("reshuffle")

    @classmethod
    def evolve(cls, hand: DrawTableHand | None, event: Any) -> DrawTableHand:
        if isinstance(event, HandStarted):
            return cls._started(event, draw_stream.evolve(None, event))
        assert hand is not None
        return with_changes(cls._tracked(hand, event), game=draw_stream.evolve(hand.game, event))

    @staticmethod
    def _started(event: HandStarted, game: HandState) -> DrawTableHand:
        return DrawTableHand(game, tuple(event.stacks), (DrawDeal(event.deck, event.reshuffle_order, event.commitment, 0),),
                             ((),) * game.seat_count, derived_redeals=event.derived_redeals)

    @classmethod
    def _tracked(cls, hand: DrawTableHand, event: Any) -> DrawTableHand:
        """What the table keeps of `event` beside the game's state: the deals, the cards
        given and tabled (none of it reads the game's state)."""
        if isinstance(event, Redealt):
            last = hand.deals[-1]
            deal = DrawDeal(event.deck, event.reshuffle_order, event.commitment, last.first + len(last.committed))
            return with_changes(hand, deals=hand.deals + (deal,), given=frozenset())
        if isinstance(event, (HoleCardsDealt, PlayerDrew)):
            return cls._given_to(hand, event)
        if isinstance(event, (CardsShown, OpenersShown)):
            held = dict(hand.held[event.position])  # a card's latest position is the one it was tabled from
            tabled = tuple(held[card] for card in _pairs(event.cards) if held.get(card) is not None)
            return with_changes(hand, tabled=hand.tabled + tabled)
        return hand

    @classmethod
    def _decided(cls, hand: DrawTableHand | None, events: list[Any], game: HandState) -> DrawTableHand:
        """The table's hand after `events` the engine decided, `game` the state it left them
        in (evolved once, by the engine: only the table's own records follow each event)."""
        for event in events:
            hand = cls._started(event, game) if isinstance(event, HandStarted) \
                else cls._tracked(hand, event)  # type: ignore[arg-type]  # a hand starts with HandStarted
        assert hand is not None
        return with_changes(hand, game=game)

    @staticmethod
    def _given_to(hand: DrawTableHand, event: HoleCardsDealt | PlayerDrew) -> DrawTableHand:
        cards = _pairs((event.cards if isinstance(event, HoleCardsDealt) else event.received) or "")
        deal = hand.deals[-1]
        given = [(card, deal.position(card, card in hand.given)) for card in cards]
        held = hand.held[:event.position] + (hand.held[event.position] + tuple(given),) + hand.held[event.position + 1:]
        return with_changes(hand, held=held, given=hand.given | set(cards))

    @classmethod
    def handle(cls, hand: DrawTableHand | None, command: Any, dealing: Dealing) -> tuple[list[Any], DrawTableHand]:
        events, game = engine.handle(None if hand is None else hand.game, command)
        hand = cls._decided(hand, events, game)
        if game.phase == REDEAL:
            # Nobody opened (or all checked with "opener" rules): the same players are dealt
            # again from a fresh deck, the one the hand's secret fixed before its first
            # action, committed to before its first card.
            deck, reshuffle = cls.redeal_orders(bytes.fromhex(dealing.salt), game.redeals + 1,
                                                game.settings.joker is not None)
            redeal = Redeal(deck, cls._redeal_commitment(hand, deck, reshuffle, dealing.salt), reshuffle)
            more, game = engine.handle(game, redeal)
            hand = cls._decided(hand, more, game)
            events += more
        return events, hand

    @staticmethod
    def _redeal_commitment(hand: DrawTableHand, deck: tuple[str, ...], reshuffle: tuple[str, ...],
                           salt: str) -> str:
        """Card by card, numbered on from the last deal, when the hand's first deal was
        committed so; a hand begun before that scheme keeps one hash of each deck."""
        secret = bytes.fromhex(salt)
        first, last = hand.deals[0], hand.deals[-1]
        if first.deck is not None and first.commitment == deal_commitment.deal_root(first.committed, secret):
            return deal_commitment.deal_root(committed_cards(deck, reshuffle), secret, last.first + len(last.committed))
        return deck_commitment(parse_cards(deck), secret)

    @staticmethod
    def action(move: TableMove, hand: DrawTableHand, dealing: Dealing) -> Any:
        refuse_fields("five-card draw", move, "defender", "keep", "line")
        if move.action in _DRAW_SHOWDOWN_ACTIONS:
            if move.discard is not None:
                raise Violation("illegal_action", f"'discard' goes with the draw, not with {move.action!r}",
                                numbers={"action": move.action})
            return _DRAW_SHOWDOWN_ACTIONS[move.action](move.position)
        if move.action in ("discard", "draw", "split_openers"):
            if move.discard is None:
                raise Violation("invalid_discard", "name the cards to discard (an empty list stands pat)",
                                numbers={"action": move.action})
            return Discard(move.position, move.discard, split_openers=move.action == "split_openers")
        if move.action == "false_openers":
            return FalseOpeners(move.position)
        if move.discard is not None:
            raise Violation("illegal_action", f"'discard' goes with the draw, not with {move.action!r}",
                            numbers={"action": move.action})
        return PostAction(move.position, move.action, move.to)

    @staticmethod
    def auto_action(hand: DrawTableHand, seat: int, timed_out: bool) -> Any:
        return computer.auto_action(hand.game, seat, timed_out)

    @staticmethod
    def legal_actions(hand: DrawTableHand) -> dict[str, Any] | None:
        """The betting actions and `discard`: on the draw its bounds (`max_cards`, and
        `max_cards_keeping_no_ace` when keeping an ace or the joker allows more); at a
        declared showdown `show`, `muck` and `ask_to_see` (the last aggressor's, while a
        caller may ask to see that hand, TDA 2024 18-B)."""
        game = hand.game
        options = draw_legal.legal_draw(game)
        if options is not None:
            return {**NO_BETTING_ACTIONS, "discard": discard_bounds(
                0, options.most, max_cards_keeping_no_ace=options.most_keeping_no_ace)}
        if _at_declared_showdown(game):
            aggressor = game.aggressor
            open_right = aggressor is not None and not game.shown[aggressor] and aggressor in game.show_order
            return {**showdown_actions(game.players[aggressor] if aggressor is not None and open_right else None),
                    "discard": None}
        legal = legal_shape(draw_legal.legal_actions(game))
        return None if legal is None else {**legal, "discard": None}

    @staticmethod
    def legal_notes(hand: DrawTableHand) -> dict[str, Any]:
        game = hand.game
        if draw_legal.legal_draw(game) is not None or _at_declared_showdown(game):
            return {}
        return legal_notes(draw_legal.legal_actions(game))

    @classmethod
    def legal_view(cls, hand: DrawTableHand, to_act: str | None, sees: Callable[[Any], bool] | None) -> Any:
        """Under jacks or better, whether the player to act may open depends on their
        cards: whoever may not see them (`sees` None: staff, who see everything) is shown
        the bet as the betting allows it, with `needs_openers` among its parameters."""
        game = hand.game
        needs_openers = (game.settings.opening == JACKS_OR_BETTER and game.opener is None
                         and game.phase == FIRST_ROUND and game.betting is not None)
        if needs_openers and sees is not None and not sees(to_act):
            shape = legal_shape(legal_actions(game.wagers)) or {}
            if shape.get("bet") is not None:
                shape["bet"] = {**shape["bet"], "needs_openers": True}
            return {**shape, "discard": None}
        return cls.legal_actions(hand)

    @staticmethod
    def seat_status(hand: DrawTableHand, seat: int) -> str:
        return betting_status(hand.game.betting, seat)

    @staticmethod
    def bet(hand: DrawTableHand, seat: int) -> int:
        betting = hand.game.betting
        return int(betting.bets[seat]) if betting is not None else 0

    @staticmethod
    def hole_view(hand: DrawTableHand, seat: int, owner: str, sees: Callable[[Any], bool]) -> str | None:
        game = hand.game
        cards = game.hands[seat]
        return cards_text(cards) if cards and (game.shown[seat] or sees(owner)) else None

    @staticmethod
    def hand_summary(hand: DrawTableHand, names: list[str]) -> dict[str, Any]:
        return summary_without_board(hand, names, pots_view(hand.game.pots, names))

    @classmethod
    def hand_view(cls, hand: DrawTableHand, names: list[str], viewing: Viewing) -> dict[str, Any]:
        game = hand.game
        return {
            **view_head(cls, hand, names, viewing),
            "board": "",
            "pots": pots_view(game.pots, names),
            "awards": awards_view(game.awards, names),
            "drawn": {names[s]: n for s, n in enumerate(game.drawn) if n is not None},
            "opener": names[game.opener] if game.opener is not None else None,
            "redeals": game.redeals,
            "points": dict(zip(names, game.points)) if not game.settings.betting else None,
            **({"showdown": showdown_view(game, names, game.at_showdown or game.showdown, game.settings.showdown)}
               if game.settings.betting else {}),
        }

    @staticmethod
    def deal_view(hand: DrawTableHand, names: list[str], seal: DealSeal, revealed: bool,
                  viewing: Viewing) -> dict[str, Any]:
        if seal.scheme == deal_commitment.SCHEME:
            return _per_card_draw_deal_view(hand, names, seal, viewing)
        return _whole_deck_draw_deal_view(hand, seal)


def _per_card_draw_deal_view(hand: DrawTableHand, names: list[str], seal: DealSeal,
                             viewing: Viewing) -> dict[str, Any]:
    """A draw hand committed card by card, one root per deal (each covering its deck, then
    its reshuffle order): once the hand is over, the floor gets every deck, reshuffle order
    and the secret, each root recomputed, and each redeal's orders checked against those
    the secret fixed (`derived`, in hands since redeals came from it); the others the
    openings of the cards they were given (their own seat's) and of the cards tabled, each
    checked against its deal's root. `redeals` lists the later deals the same way."""
    salt = seal.salt
    deals = []
    secret = bytes.fromhex(salt) if salt is not None else None
    own = [position for seat, held in enumerate(hand.held) if viewing.sees(names[seat]) for _, position in held]
    seen = set(hand.tabled) | {position for position in own if position is not None}
    for number, deal in enumerate(hand.deals):
        shown: dict[str, Any] = {"commitment": deal.commitment, "deck": None, "reshuffle_order": None,
                                 "openings": None, "verified": None}
        if secret is not None and deal.deck is not None and deal.commitment is not None:
            committed = deal.committed
            if viewing.everything:
                verified = deal_commitment.deal_root(committed, secret, deal.first) == deal.commitment
                if number and hand.derived_redeals:
                    fixed = DrawGame.redeal_orders(secret, number, hand.game.settings.joker is not None)
                    shown["derived"] = (deal.deck, deal.reshuffle_order) == fixed
                    verified = verified and shown["derived"]
                shown.update(deck="".join(deal.deck), reshuffle_order="".join(deal.reshuffle_order or ()),
                             verified=verified)
            else:
                mine = sorted(p for p in seen if deal.first <= p < deal.first + len(committed))
                shown.update(openings_view(committed, secret, mine, deal.commitment, deal.first))
        deals.append(shown)
    first = deals[0]
    return {**first, "commitment": seal.commitment, "scheme": deal_commitment.SCHEME,
            "salt": salt if viewing.everything else None, "redeals": deals[1:]}


def _whole_deck_draw_deal_view(hand: DrawTableHand, seal: DealSeal) -> dict[str, Any]:
    """Every deck of the hand (a redeal brings a new one, committed to with the same salt):
    draw hands dealt before the per-card commitment, whose decks were published whole."""
    salt = seal.salt
    decks = []
    for deal in hand.deals:
        deck, commitment = deal.deck, deal.commitment
        shown = deck if salt is not None else None
        verified = None
        if shown is not None and salt is not None and commitment is not None:
            verified = verify_deck_commitment(parse_cards(shown), bytes.fromhex(salt), commitment)
        decks.append({"commitment": commitment, "deck": "".join(shown) if shown else None, "verified": verified})
    first = decks[0]
    return {"commitment": seal.commitment, "scheme": DECK_HASH,
            "deck": first["deck"], "salt": salt, "verified": first["verified"], "redeals": decks[1:]}


def _at_declared_showdown(game: HandState) -> bool:
    return game.to_show is not None and game.settings.showdown == DECLARED


# The showdown's actions (declared showdowns): the table's action -> the hand's command.
_DRAW_SHOWDOWN_ACTIONS = {"show": ShowCards, "muck": Muck, "ask_to_see": AskToSee}


def _pairs(cards: str) -> list[str]:
    return [cards[i:i + 2] for i in range(0, len(cards), 2)]
