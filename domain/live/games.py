"""Hold'em and Omaha, five-card draw, Palace Poker and dice poker as live-table games: each
adapter wraps its game's decider so that domain.live.table can seat it (a hand state with
`over`, `to_act` and `stacks`; how a hand starts, how a table action becomes the game's
command, what the computer plays), and says what each viewer may see of its hand: the
view, the public summary, the seats' status and bets, the legal actions, the deal's
check (service.application.views asks the adapter, never the game's type). The mixed
games' adapters (domain.live.mixed, domain.live.rotation) have the same shape.

A viewer is `Viewing`: whose cards they may see (`sees`: the owner, or the players allowed)
and whether they see everything (floor and admin).

Randomness a game needs besides the shuffled pack (a draw hand's reshuffle order, Palace
Poker's palace and reshuffle orders, every dice roll) is drawn through `Draws`, which the
service implements with `secrets` and tests with a seeded generator. Whatever is drawn lands
in an event, so replay never draws. The card games draw every order at the deal, before the
first action; an order a hand may need any number of times (a draw redeal's deck, a Palace
draw deck's later reshuffles) comes from the hand's secret salt (domain.rules.deal_commitment:
`derived_order`, `ranked_order`), which the deal's root binds, so nothing is drawn mid-hand.

Five-card draw commits card by card (domain.rules.deal_commitment), as hold'em does: each
deal's root covers its deck and then the order its discards would be reshuffled in, so
every card a player is given, from the stub or from a reshuffle, has one position to be
opened at, and the adapter records which positions each seat was given and which were
tabled (`held`, `tabled`): the views open exactly those, never a mucked or unseen card. A
redeal's deck and reshuffle order are derived from the hand's secret (`derived_order`,
labelled `draw-redeal-<n>-deck` and `-reshuffle`) and committed on their own root when the
redeal comes; the floor checks each is the one the secret fixed (`derived_redeals`).

Palace Poker commits card by card too: before the first card it draws every order the
hand may deal from (the banner deck, the set-aside banners' reshuffle, the palace deck,
the draw deck's first reshuffle) and puts them under one root with a key per card, from
which every later reshuffle's order is ranked (`ranked_order`, labelled
`palace-reshuffle-<n>`): a soldier bought from one is opened at its card's key, against the
same root. (Hands opened before that committed each later order on its own root when the
one before it was used: PalaceReshuffleCommitted, still read.) The adapter records who
saw each card (`seen`): banners and soldiers everyone, a palace its owner, both sides of a
battle, everyone at the final showdown; a palace folded or lost unseen, and the face-down
discard pile, are opened to nobody but the floor.

Dice rolls are committed before they are rolled: `RollPrepared` records the values and
salt behind the pending `RollCommitted` (views hide them while the game is played; the
roll itself reveals them in `DiceRolled`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Protocol

from domain.live import autoplay
from domain.rules import deal_commitment
from domain.rules.betting import FIXED_LIMIT, NO_LIMIT, BettingStructure, LegalActions, legal_actions, with_changes
from domain.rules.cards import deck_commitment, deck_texts, format_card, parse_cards, verify_deck_commitment
from domain.games import dice, draw, holdem, palace
from domain.games.dice_scoring import DICE_PER_ROLL, LINES, DiceSettings, best_free_line, legal_lines, line_options
from domain.games.draw_settings import JACKS_OR_BETTER, DrawSettings
from domain.rules.showdown_order import DECLARED
from domain.rules.violations import Violation
from domain.secrecy import SEALED


class Draws(Protocol):
    """Fresh randomness, drawn by the caller's generator."""

    def shuffled(self, cards: tuple[str, ...]) -> tuple[str, ...]:
        """`cards` in a uniformly random order."""

    def salt(self) -> str:
        """32 random bytes as lowercase hex."""

    def die(self) -> int:
        """A die's face, 1..6."""


@dataclass(frozen=True)
class Dealing:
    """What a game may need besides the command: the generator and the hand's salt."""
    draws: Draws
    salt: str


@dataclass(frozen=True)
class Opening:
    """What a game deals a hand from: the players dealt in and their stacks, the hand's
    button, the table's settings and betting (hold'em and Omaha bet with the table's, the
    others read theirs from the settings), the shuffled pack and its commitment, the fresh
    randomness, and the table's last hand (a rotation follows it)."""
    players: tuple[str, ...]
    stacks: tuple[int, ...]
    button: int
    settings: Mapping[str, Any]
    betting: BettingStructure
    deck: tuple[str, ...]
    commitment: str | None
    """None when the game makes it itself (`commits_card_by_card`: five-card draw)."""
    dealing: Dealing | None
    previous: Any = None


@dataclass(frozen=True)
class TableMove:
    """A table action as the games read it (domain.live.table.Act without the table's
    concerns): `position`, the player's in the hand."""
    player: str
    position: int
    action: str
    to: int | None = None
    discard: tuple[str, ...] | None = None
    defender: str | None = None
    keep: tuple[int, ...] | None = None
    line: str | None = None


DECK_HASH = "sha256(<deck cards concatenated>|<salt hex>)"


def commit_whole_deck(cards: list[int], salt: str) -> tuple[str, str]:
    """(scheme, commitment) of a deck committed whole: one hash, checkable once it is shown."""
    return DECK_HASH, deck_commitment(cards, bytes.fromhex(salt))


def commit_card_by_card(cards: list[int], salt: str) -> tuple[str, str]:
    """(scheme, commitment) of a deck committed card by card (a Merkle root): each card can
    be opened on its own, so a hand shows only the cards its viewer saw."""
    return deal_commitment.SCHEME, deal_commitment.deal_root(tuple(format_card(card) for card in cards),
                                                             bytes.fromhex(salt))


class PlaysForChips:
    """The hooks of a game played for chips, hand after hand, with a 52-card pack."""

    commit = staticmethod(commit_whole_deck)

    @staticmethod
    def begun(hand: Any) -> bool:
        """Whether the hand's game has started, so there is a hand to show: the events that
        open a hand (its deck's cut, its rotation's game) may come first."""
        return True

    @staticmethod
    def with_joker(raw: Mapping[str, Any]) -> bool:
        return False

    @staticmethod
    def plays_for_chips(raw: Mapping[str, Any]) -> bool:
        return True

    @staticmethod
    def hands_in_match(raw: Mapping[str, Any]) -> int | None:
        return None


@dataclass(frozen=True)
class Viewing:
    """Who looks at a hand: `sees(owner)` says whether they may see the cards of `owner`
    (a player id, or the players allowed to see them); `everything`: the floor and admin."""
    sees: Callable[[Any], bool]
    everything: bool


@dataclass(frozen=True)
class DealSeal:
    """The table's commitment to the hand's deal, and the salt once it may be shown."""
    commitment: str | None
    scheme: str | None
    salt: str | None


def legal_shape(legal: LegalActions | None) -> dict[str, Any] | None:
    """The `legal` shape of the betting ruling (api.md)."""
    if legal is None:
        return None
    shape: dict[str, Any] = {
        "fold": legal.fold,
        "check": legal.check,
        "call": {"to": legal.call.to, "adds": legal.call.adds} if legal.call else None,
        "bet": {"min_to": legal.bet.min_to, "max_to": legal.bet.max_to} if legal.bet else None,
        "raise": {"min_to": legal.raise_.min_to, "max_to": legal.raise_.max_to} if legal.raise_ else None,
    }
    if legal.raise_closed_reason is not None and legal.bet is None:
        shape["raise_closed_reason"] = legal.raise_closed_reason
    return shape


def betting_status(betting: Any, seat: int) -> str:
    """A seat's status in a betting round (no round yet: active)."""
    if betting is None:
        return "active"
    if betting.folded[seat]:
        return "folded"
    if betting.stacks[seat] == 0:
        return "all_in"
    return "active"


def pots_view(pots: Iterable[Any], names: list[str]) -> list[dict[str, Any]]:
    return [{"amount": pot.amount, "eligible": [names[s] for s in pot.eligible]} for pot in pots]


def awards_view(awards: Iterable[Any], names: list[str]) -> list[dict[str, Any]]:
    return [{"amount": a.amount, "winners": [names[s] for s in a.winners],
             "shares": dict(zip((names[s] for s in a.winners), a.shares))} for a in awards]


def deck_deal_view(deck: tuple[str, ...] | None, seal: DealSeal) -> dict[str, Any]:
    """A deck committed whole: shown to everyone once the hand is over, so anyone can
    check the deal."""
    deck = deck or None
    verified = None
    if deck is not None and seal.salt is not None and seal.commitment is not None:
        verified = verify_deck_commitment(parse_cards(deck), bytes.fromhex(seal.salt), seal.commitment)
    return {
        "commitment": seal.commitment,
        "scheme": DECK_HASH,
        "deck": "".join(deck) if deck is not None else None,
        "salt": seal.salt,
        "verified": verified,
    }


def _text(cards: Iterable[int]) -> str:
    return "".join(format_card(c) for c in cards)


def _hole_by_name(adapter: Any, hand: Any, names: list[str], viewing: Viewing) -> dict[str, str | None]:
    return {names[s]: adapter.hole_view(hand, s, names[s], viewing.sees) for s in range(len(names))}


def _to_act(hand: Any, names: list[str]) -> str | None:
    return names[hand.to_act] if hand.to_act is not None else None


def _summary(hand: Any, names: list[str], pots: list[dict[str, Any]]) -> dict[str, Any]:
    """The public summary of a game without a board (draw, Palace Poker, dice)."""
    return {"round": hand.round, "over": hand.over, "board": "", "pots": pots, "stacks": dict(zip(names, hand.stacks))}


def _view_head(adapter: Any, hand: Any, names: list[str], viewing: Viewing) -> dict[str, Any]:
    """What every game's hand view begins with (draw, Palace Poker, dice): the game's own
    part follows."""
    return {"round": hand.round, "over": hand.over, "to_act": _to_act(hand, names),
            "hole": _hole_by_name(adapter, hand, names, viewing), "stacks": dict(zip(names, hand.stacks))}


# ------------------------------------------------------------------- hold'em and Omaha

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
        return holdem.PostAction(move.position, move.action, move.to)

    auto_action = staticmethod(autoplay.holdem_auto_action)

    @staticmethod
    def legal_view(hand: holdem.HandState, to_act: str | None, sees: Callable[[Any], bool] | None) -> Any:
        if hand.to_show is not None:
            return _showdown_legal(hand)
        return legal_shape(holdem.legal_actions(hand))

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
        return _text(cards) if hand.shown[seat] or sees(owner) else None

    @staticmethod
    def hand_summary(hand: holdem.HandState, names: list[str]) -> dict[str, Any]:
        return {"round": hand.round, "over": hand.over, "board": _text(hand.board),
                "pots": pots_view(hand.pots, names), "stacks": dict(zip(names, hand.stacks))}

    @classmethod
    def hand_view(cls, hand: holdem.HandState, names: list[str], viewing: Viewing) -> dict[str, Any]:
        return {
            "round": hand.round,
            "over": hand.over,
            "to_act": _to_act(hand, names),
            "board": _text(hand.board),
            "pots": pots_view(hand.pots, names),
            "awards": awards_view(hand.awards, names),
            "hole": _hole_by_name(cls, hand, names, viewing),
            "stacks": dict(zip(names, hand.stacks)),
            "showdown": _showdown_view(hand, names, hand.live and (hand.awaiting == "showdown" or hand.showdown),
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
    may ask to see the last aggressor's hand (TDA 2024 18-B), named here when that right
    is open."""
    aggressor = hand.aggressor
    open_right = aggressor is not None and not hand.shown[aggressor] and aggressor in hand.show_order
    return {"fold": False, "check": False, "call": None, "bet": None, "raise": None,
            "show": True, "muck": True,
            "ask_to_see": hand.players[aggressor] if open_right and aggressor is not None else None}


def _showdown_view(hand: Any, names: list[str], at_showdown: bool, mode: str) -> dict[str, Any]:
    """Who has shown and who mucked (public facts), and at a live showdown the order of show
    and who is next (TDA 2024 17). `hand`: a hold'em or draw hand state."""
    to_show = hand.to_show
    return {"mode": mode,
            "order": [names[s] for s in hand.show_order] if at_showdown else None,
            "to_show": names[to_show] if to_show is not None else None,
            "shown": [names[s] for s, shown in enumerate(hand.shown) if shown],
            "mucked": [names[s] for s, mucked in enumerate(hand.mucked) if mucked]}


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
    return {**view, **_opened(deck, secret, sorted(position[card] for card in seen), seal.commitment)}


def _opened(committed: tuple[str, ...], secret: bytes, positions: list[int], root: str,
            first: int = 0) -> dict[str, Any]:
    """The openings of `positions` in a committed sequence starting at `first`, and whether
    each leads to `root` (the check the viewer can redo)."""
    opened = deal_commitment.openings(committed, secret, positions, first)
    return {"openings": [{"position": o.position, "card": o.card, "salt": o.salt,
                          "path": [list(step) for step in o.path]} for o in opened],
            "verified": all(deal_commitment.verify_opening(o, root) for o in opened)}


def _not_for(game: str, move: TableMove, *fields: str) -> None:
    for name in fields:
        if getattr(move, name) is not None:
            raise Violation("illegal_action", f"{game} has no {name!r} for {move.action!r}",
                            numbers={"action": move.action})


# ---------------------------------------------------------------------- five-card draw


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
    `derived_redeals`: the redeals' orders come from the hand's secret (draw.HandStarted)."""
    game: draw.HandState
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
    EVENT_TYPES = draw.EVENT_TYPES
    begun = PlaysForChips.begun

    @staticmethod
    def settings(raw: Mapping[str, Any]) -> DrawSettings:
        return DrawSettings.from_dict(raw)

    @staticmethod
    def betting(raw: Mapping[str, Any]) -> BettingStructure:
        return DrawSettings.from_dict(raw).betting_structure()

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
    def start(opening: Opening) -> draw.StartHand:
        """The hand's StartHand, its reshuffle order drawn, committed to card by card: the
        table publishes its `commitment` in HandOpened. Any redeal's orders are fixed too,
        by the hand's secret (`redeal_orders`)."""
        parsed = DrawSettings.from_dict(opening.settings)
        dealing = opening.dealing
        assert dealing is not None
        reshuffle = dealing.draws.shuffled(deck_texts(parsed.joker is not None))
        commitment = deal_commitment.deal_root(committed_cards(opening.deck, reshuffle), bytes.fromhex(dealing.salt))
        return draw.StartHand(opening.players, opening.button, parsed, opening.deck,
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
        return tuple(deal_commitment.derived_order(cards, secret, f"draw-redeal-{number}-{part}")
                     for part in ("deck", "reshuffle"))  # type: ignore[return-value]

    @classmethod
    def evolve(cls, hand: DrawTableHand | None, event: Any) -> DrawTableHand:
        if isinstance(event, draw.HandStarted):
            game = draw.evolve(None, event)  # type: ignore[arg-type]
            return DrawTableHand(game, tuple(event.stacks),
                                 (DrawDeal(event.deck, event.reshuffle_order, event.commitment, 0),),
                                 ((),) * game.seat_count, derived_redeals=event.derived_redeals)
        assert hand is not None
        game = draw.evolve(hand.game, event)
        if isinstance(event, draw.Redealt):
            last = hand.deals[-1]
            deal = DrawDeal(event.deck, event.reshuffle_order, event.commitment, last.first + len(last.committed))
            return with_changes(hand, game=game, deals=hand.deals + (deal,), given=frozenset())
        if isinstance(event, (draw.HoleCardsDealt, draw.PlayerDrew)):
            return with_changes(cls._given_to(hand, event), game=game)
        if isinstance(event, (draw.CardsShown, draw.OpenersShown)):
            held = dict(hand.held[event.position])  # a card's latest position is the one it was tabled from
            tabled = tuple(held[card] for card in _pairs(event.cards) if held.get(card) is not None)
            return with_changes(hand, game=game, tabled=hand.tabled + tabled)  # type: ignore[operator]
        return with_changes(hand, game=game)

    @staticmethod
    def _given_to(hand: DrawTableHand, event: draw.HoleCardsDealt | draw.PlayerDrew) -> DrawTableHand:
        cards = _pairs((event.cards if isinstance(event, draw.HoleCardsDealt) else event.received) or "")
        deal = hand.deals[-1]
        given = [(card, deal.position(card, card in hand.given)) for card in cards]
        held = hand.held[:event.position] + (hand.held[event.position] + tuple(given),) + hand.held[event.position + 1:]
        return with_changes(hand, held=held, given=hand.given | set(cards))

    @classmethod
    def handle(cls, hand: DrawTableHand | None, command: Any, dealing: Dealing) -> tuple[list[Any], DrawTableHand]:
        events, game = draw.handle(None if hand is None else hand.game, command)
        for event in events:
            hand = cls.evolve(hand, event)
        assert hand is not None
        if game.phase == draw.REDEAL:
            # Nobody opened (or all checked with "opener" rules): the same players are dealt
            # again from a fresh deck, the one the hand's secret fixed before its first
            # action, committed to before its first card.
            deck, reshuffle = cls.redeal_orders(bytes.fromhex(dealing.salt), game.redeals + 1,
                                                game.settings.joker is not None)
            redeal = draw.Redeal(deck, cls._redeal_commitment(hand, deck, reshuffle, dealing.salt), reshuffle)
            more, game = draw.handle(game, redeal)
            for event in more:
                hand = cls.evolve(hand, event)
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
        _not_for("five-card draw", move, "defender", "keep", "line")
        if move.action in _DRAW_SHOWDOWN_ACTIONS:
            if move.discard is not None:
                raise Violation("illegal_action", f"'discard' goes with the draw, not with {move.action!r}",
                                numbers={"action": move.action})
            return _DRAW_SHOWDOWN_ACTIONS[move.action](move.position)
        if move.action in ("discard", "draw", "split_openers"):
            if move.discard is None:
                raise Violation("invalid_discard", "name the cards to discard (an empty list stands pat)",
                                numbers={"action": move.action})
            return draw.Discard(move.position, move.discard, split_openers=move.action == "split_openers")
        if move.action == "false_openers":
            return draw.FalseOpeners(move.position)
        if move.discard is not None:
            raise Violation("illegal_action", f"'discard' goes with the draw, not with {move.action!r}",
                            numbers={"action": move.action})
        return draw.PostAction(move.position, move.action, move.to)

    @staticmethod
    def auto_action(hand: DrawTableHand, seat: int, timed_out: bool) -> Any:
        return draw.auto_action(hand.game, seat, timed_out)

    @staticmethod
    def legal_actions(hand: DrawTableHand) -> dict[str, Any] | None:
        """The betting `legal` shape, plus `discard` ({"most", "most_keeping_no_ace"}) on
        the draw; at a declared showdown `show`, `muck` and `ask_to_see` (the last
        aggressor's name while a caller may ask to see that hand, TDA 2024 18-B)."""
        options = draw.legal_draw(hand.game)
        if options is not None:
            return {"fold": False, "check": False, "call": None, "bet": None, "raise": None,
                    "discard": {"most": options.most, "most_keeping_no_ace": options.most_keeping_no_ace}}
        game = hand.game
        if game.to_show is not None and game.settings.showdown == DECLARED:
            aggressor = game.aggressor
            open_right = aggressor is not None and not game.shown[aggressor] and aggressor in game.show_order
            return {"fold": False, "check": False, "call": None, "bet": None, "raise": None,
                    "show": True, "muck": True, "discard": None,
                    "ask_to_see": game.players[aggressor] if open_right else None}  # type: ignore[index]
        legal = draw.legal_actions(game)
        return None if legal is None else {"betting": legal, "discard": None}

    @classmethod
    def legal_view(cls, hand: DrawTableHand, to_act: str | None, sees: Callable[[Any], bool] | None) -> Any:
        """Under jacks or better, whether the player to act may open depends on their
        cards: whoever may not see them (`sees` None: staff, who see everything) is shown
        the bet as the betting allows it, marked `bet_needs_openers`."""
        game = hand.game
        needs_openers = (game.settings.opening == JACKS_OR_BETTER and game.opener is None
                         and game.phase == draw.FIRST_ROUND and game.betting is not None)
        if needs_openers and sees is not None and not sees(to_act):
            shape = legal_shape(legal_actions(game.betting)) or {}  # type: ignore[arg-type]
            if shape.get("bet") is not None:
                shape["bet_needs_openers"] = True
            return {**shape, "discard": None}
        legal = cls.legal_actions(hand)
        if legal is not None and "betting" in legal:
            legal = {**(legal_shape(legal["betting"]) or {}), "discard": None}
        return legal

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
        return _text(cards) if cards and (game.shown[seat] or sees(owner)) else None

    @staticmethod
    def hand_summary(hand: DrawTableHand, names: list[str]) -> dict[str, Any]:
        return _summary(hand, names, pots_view(hand.game.pots, names))

    @classmethod
    def hand_view(cls, hand: DrawTableHand, names: list[str], viewing: Viewing) -> dict[str, Any]:
        game = hand.game
        return {
            **_view_head(cls, hand, names, viewing),
            "board": "",
            "pots": pots_view(game.pots, names),
            "awards": awards_view(game.awards, names),
            "drawn": {names[s]: n for s, n in enumerate(game.drawn) if n is not None},
            "opener": names[game.opener] if game.opener is not None else None,
            "redeals": game.redeals,
            "points": dict(zip(names, game.points)) if not game.settings.betting else None,
            **({"showdown": _showdown_view(game, names, game.at_showdown or game.showdown, game.settings.showdown)}
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
                shown.update(_opened(committed, secret, mine, deal.commitment, deal.first))
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


# The showdown's actions (declared showdowns): the table's action -> the hand's command.
_DRAW_SHOWDOWN_ACTIONS = {"show": draw.ShowCards, "muck": draw.Muck, "ask_to_see": draw.AskToSee}


def _pairs(cards: str) -> list[str]:
    return [cards[i:i + 2] for i in range(0, len(cards), 2)]


# ------------------------------------------------------------------------ Palace Poker

PALACE_SETTINGS = ("small_bet", "big_bet", "structure", "starting_chips")


@dataclass(frozen=True)
class PalaceSettings:
    small_bet: int
    big_bet: int
    structure: str = FIXED_LIMIT
    starting_chips: int | None = None

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "PalaceSettings":
        unknown = sorted(set(raw) - set(PALACE_SETTINGS))
        if unknown:
            raise _bad_palace(f"unknown Palace Poker setting(s) {unknown}; known: {list(PALACE_SETTINGS)}")
        for name in ("small_bet", "big_bet"):
            value = raw.get(name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise _bad_palace(f"{name} must be a whole number of chips above 0, not {value!r}")
        if raw["big_bet"] < raw["small_bet"]:
            raise _bad_palace(f"the big bet ({raw['big_bet']}) must be at least the small bet ({raw['small_bet']})")
        structure = raw.get("structure", FIXED_LIMIT)
        if structure not in palace.STRUCTURES:
            raise _bad_palace(f"structure must be one of {list(palace.STRUCTURES)}, not {structure!r}")
        chips = raw.get("starting_chips")
        if chips is not None and (isinstance(chips, bool) or not isinstance(chips, int) or chips < 1):
            raise _bad_palace(f"starting_chips must be a whole number above 0, not {chips!r}")
        return cls(raw["small_bet"], raw["big_bet"], structure, chips)


def _bad_palace(detail: str) -> Violation:
    return Violation("invalid_settings", detail)


# Where each order sits in a card-by-card commitment: the banner deck, then the
# permutations that order the set-aside banners, the palace deck and the draw deck's
# first reshuffle, then a key per card of the canonical deck (the later reshuffles are
# ranked by them), 52 positions each. Hands opened before the keys numbered each later
# reshuffle's order on from the first's instead (PalaceReshuffleCommitted).
_PALACE_SEGMENT = 52
BANNER_DECK, BANNER_RESHUFFLE, PALACE_DECK, FIRST_RESHUFFLE, RESHUFFLE_KEYS = (
    i * _PALACE_SEGMENT for i in range(5))


def palace_reshuffle_label(number: int) -> str:
    """The label of the draw deck's `number`th reshuffle (the second and later) in
    domain.rules.deal_commitment.ranked_order."""
    return f"palace-reshuffle-{number}"


def ranked_reshuffle_order(secret: bytes, number: int) -> tuple[str, ...]:
    """The permutation the draw deck's `number`th reshuffle (2, 3, ...) takes the discards in,
    ranked by the keys a hand's root covers: fixed by the secret before the first action,
    however often the hand reshuffles."""
    return deal_commitment.ranked_order(deck_texts(), secret, RESHUFFLE_KEYS, palace_reshuffle_label(number))


@dataclass(frozen=True)
class PalaceDeckCut:
    """Every order a Palace hand deals from, which Palace Poker's own events record only as
    far as they were dealt: kept so the deal can be checked against its commitment. A hand
    committed whole has only the banner deck; one committed card by card also has the
    permutations drawn before the deal (palace.StartHand, palace.Buy), so every card a
    player can be given has a committed position; with `reshuffle_keys` (every hand since
    they came) its root also covers a key per card, the canonical deck's cards at
    RESHUFFLE_KEYS onwards, from which every later reshuffle's order is ranked."""
    deck: tuple[str, ...] = field(metadata=SEALED)
    banner_reshuffle_order: tuple[str, ...] = field(default=(), metadata=SEALED)
    palace_order: tuple[str, ...] = field(default=(), metadata=SEALED)
    reshuffle_order: tuple[str, ...] = field(default=(), metadata=SEALED)
    reshuffle_keys: bool = False

    @property
    def committed(self) -> tuple[str, ...]:
        """The sequence the card-by-card root covers (empty for a hand committed whole)."""
        if not self.palace_order:
            return ()
        keys = deck_texts() if self.reshuffle_keys else ()
        return self.deck + self.banner_reshuffle_order + self.palace_order + self.reshuffle_order + keys


@dataclass(frozen=True)
class PalaceDeal:
    """What a Palace hand starts with: the cut (the orders, recorded sealed), the game's
    StartHand, and the card-by-card root over the cut that HandOpened publishes."""
    cut: PalaceDeckCut
    start: palace.StartHand
    commitment: str


@dataclass(frozen=True)
class PalaceReshuffleCommitted:
    """Hands opened before the reshuffle keys (PalaceDeckCut.reshuffle_keys False): the
    order the draw deck's next reshuffle takes, committed to the moment the previous
    reshuffle used the last committed order, on its own root over positions `first`,
    first+1, ..., so the soldiers bought from it are opened like the deal's cards. Read
    from stored hands; a hand opened since never records one (its later orders are ranked
    by the keys its first root covers), and one still being played when the keys came
    takes the order its secret derives."""
    order: tuple[str, ...] = field(metadata=SEALED)
    commitment: str
    first: int


Audience = tuple[str, ...] | None
"""Who saw a card: the players named, or everyone (None)."""


@dataclass(frozen=True)
class PalaceTableHand:
    """A Palace hand at a table. `seen`: (committed position, audience) of every card
    dealt or shown, for the openings of a hand committed card by card (empty otherwise);
    `dealing_from`: where the order the next card comes from starts (BANNER_DECK,
    BANNER_RESHUFFLE, PALACE_DECK, FIRST_RESHUFFLE, RESHUFFLE_KEYS for a ranked reshuffle,
    or an older hand's later reshuffle's `first`); `reshuffled`: how many times the draw
    deck was reshuffled; `ranked`: (reshuffle number, card) of each soldier bought from a
    ranked reshuffle, in the order bought; `reshuffles`: an older hand's later reshuffles'
    orders, each committed on its own."""
    game: palace.PalaceHand
    cut: PalaceDeckCut = PalaceDeckCut(())
    seen: tuple[tuple[int, Audience], ...] = ()
    dealing_from: int = BANNER_DECK
    reshuffles: tuple[PalaceReshuffleCommitted, ...] = ()
    reshuffled: int = 0
    ranked: tuple[tuple[int, str], ...] = ()

    @property
    def over(self) -> bool:
        return self.game.phase == palace.OVER

    @property
    def to_act(self) -> int | None:
        return None if self.over else self.game.to_act

    @property
    def stacks(self) -> tuple[int, ...]:
        return tuple(seat.stack for seat in self.game.seats)

    @property
    def points(self) -> tuple[int, ...]:
        return ()

    @property
    def round(self) -> str:
        return self.game.phase

    @property
    def next_reshuffle(self) -> int:
        """Where the order of the draw deck's next reshuffle starts (for a ranked reshuffle,
        the keys)."""
        if self.dealing_from < FIRST_RESHUFFLE:
            return FIRST_RESHUFFLE
        return RESHUFFLE_KEYS if self.cut.reshuffle_keys else self.dealing_from + _PALACE_SEGMENT

    @property
    def dealing_ranked(self) -> bool:
        """Whether the draw deck holds a ranked reshuffle (its cards open at their keys)."""
        return self.cut.reshuffle_keys and self.dealing_from == RESHUFFLE_KEYS

    def order_at(self, segment: int) -> tuple[str, ...]:
        """The committed sequence starting at `segment` (empty if none is committed there):
        an order, or the keys' cards in the canonical order."""
        if segment <= FIRST_RESHUFFLE or (segment == RESHUFFLE_KEYS and self.cut.reshuffle_keys):
            return self.cut.committed[segment:segment + _PALACE_SEGMENT]
        return next((r.order for r in self.reshuffles if r.first == segment), ())

    def next_reshuffle_order(self, secret: bytes) -> tuple[str, ...]:
        """The permutation the draw deck's next reshuffle takes the discards in: the first
        committed before the deal, each later one ranked by the keys (an older hand's: the
        one committed on its own root), all fixed by the secret before the first action.
        A hand committed whole, or an older one whose next order is not yet committed,
        takes the one its secret derives."""
        number = self.reshuffled + 1
        if number > 1 and self.cut.reshuffle_keys:
            return ranked_reshuffle_order(secret, number)
        return self.order_at(self.next_reshuffle) or deal_commitment.derived_order(
            deck_texts(), secret, palace_reshuffle_label(number))

    def position(self, segment: int, card: str) -> int:
        """The committed position of `card` in the order starting at `segment`."""
        return segment + self.order_at(segment).index(card)


def _palace_seen(hand: PalaceTableHand, event: Any) -> PalaceTableHand:
    """`hand` with the cards `event` deals or shows recorded, with who saw them
    (palace-poker.md "Hidden information": banners and soldiers face up to everyone,
    palace cards to their owner, to both sides of a battle's showdown, and to everyone at
    the final showdown; the discard pile face down)."""
    seen: tuple[tuple[int, Audience], ...] = ()
    if isinstance(event, PalaceReshuffleCommitted):
        return with_changes(hand, reshuffles=hand.reshuffles + (event,))
    if isinstance(event, palace.SetAsideBannersReshuffled):
        return with_changes(hand, dealing_from=BANNER_RESHUFFLE)
    if isinstance(event, palace.PalaceDeckShuffled):
        return with_changes(hand, dealing_from=PALACE_DECK)
    if isinstance(event, palace.DrawDeckReshuffled):
        return with_changes(hand, dealing_from=hand.next_reshuffle, reshuffled=hand.reshuffled + 1)
    if isinstance(event, palace.SoldierBought) and hand.dealing_ranked:
        hand = with_changes(hand, ranked=hand.ranked + ((hand.reshuffled, event.card),))
    if isinstance(event, (palace.BannerDealt, palace.BannerSetAside, palace.SoldierBought)):
        seen = ((hand.position(hand.dealing_from, event.card), None),)
    elif isinstance(event, palace.PalaceCardsDealt):
        seen = tuple((hand.position(PALACE_DECK, card), (event.player,)) for card in event.cards)
    elif isinstance(event, palace.BattleCardsShown):
        both = (event.attacker, event.defender)
        seen = tuple((hand.position(PALACE_DECK, card), both)
                     for card in event.attacker_palace + event.defender_palace)
    elif isinstance(event, palace.PalaceCardsShown):
        seen = tuple((hand.position(PALACE_DECK, card), None) for card in event.cards)
    return with_changes(hand, seen=hand.seen + seen) if seen else hand


class PalaceGame(PlaysForChips):
    """Palace Poker (palace-poker.md) at a live table."""
    name = "palace"
    EVENT_TYPES = {**palace.EVENT_TYPES, "PalaceDeckCut": PalaceDeckCut,
                   "PalaceReshuffleCommitted": PalaceReshuffleCommitted}

    @staticmethod
    def begun(hand: PalaceTableHand) -> bool:
        return bool(hand.game.seats)  # seated by HandStarted, after the deck's cut

    @staticmethod
    def settings(raw: Mapping[str, Any]) -> PalaceSettings:
        return PalaceSettings.from_dict(raw)

    @staticmethod
    def betting(raw: Mapping[str, Any]) -> BettingStructure:
        parsed = PalaceSettings.from_dict(raw)
        kind = FIXED_LIMIT if parsed.structure == FIXED_LIMIT else NO_LIMIT
        return BettingStructure(kind=kind, min_bet=parsed.small_bet, small_bet=parsed.small_bet,
                                big_bet=parsed.big_bet)

    makes_its_commitment = True
    """`start` draws the orders the hand deals from and commits to them card by card
    (domain.live.table._start_next_hand publishes the root)."""

    @staticmethod
    def start(opening: Opening) -> PalaceDeal:
        """Every order the hand may deal from is fixed now, before the first card: the root
        covers the banner deck, the set-aside banners' reshuffle, the palace deck and the
        draw deck's first reshuffle, drawn now, and the keys that rank every later
        reshuffle (however many the buys bring), from the hand's secret."""
        parsed = PalaceSettings.from_dict(opening.settings)
        full = deck_texts()
        assert opening.dealing is not None
        draws = opening.dealing.draws
        cut = PalaceDeckCut(opening.deck, draws.shuffled(full), draws.shuffled(full), draws.shuffled(full),
                            reshuffle_keys=True)
        commitment = deal_commitment.deal_root(cut.committed, bytes.fromhex(opening.dealing.salt))
        return PalaceDeal(cut, palace.StartHand(opening.players, opening.stacks, opening.button, parsed.small_bet,
                                                parsed.big_bet, parsed.structure, cut.deck, cut.palace_order,
                                                cut.banner_reshuffle_order), commitment)

    @staticmethod
    def evolve(hand: PalaceTableHand | None, event: Any) -> PalaceTableHand:
        if isinstance(event, PalaceDeckCut):
            return PalaceTableHand(palace.INITIAL, event)
        assert hand is not None
        if hand.cut.committed:
            hand = _palace_seen(hand, event)
        if isinstance(event, PalaceReshuffleCommitted):
            return hand
        return with_changes(hand, game=palace.evolve(hand.game, event))

    @classmethod
    def handle(cls, hand: PalaceTableHand | None, command: Any, dealing: Dealing) -> tuple[list[Any], PalaceTableHand]:
        if isinstance(command, PalaceDeal):
            command = (command.cut, command.start)
        commands = command if isinstance(command, tuple) else (command,)
        events: list[Any] = []
        for one in commands:
            if isinstance(one, PalaceDeckCut):
                decided: list[Any] = [one]
            else:
                decided = palace.decide(hand.game, one)  # type: ignore[union-attr]
            for event in decided:
                hand = cls.evolve(hand, event)
            older = hand.cut.committed and not hand.cut.reshuffle_keys  # type: ignore[union-attr]
            if older and any(isinstance(e, palace.DrawDeckReshuffled) for e in decided):
                decided.append(cls._commit_next_reshuffle(hand, dealing))  # type: ignore[arg-type]
                hand = cls.evolve(hand, decided[-1])
            events += decided
        return events, hand  # type: ignore[return-value]

    @staticmethod
    def _commit_next_reshuffle(hand: PalaceTableHand, dealing: Dealing) -> PalaceReshuffleCommitted:
        """A hand opened before the reshuffle keys, still being played: the reshuffle just
        used its last committed order, so the next one (the one its secret derives) is
        committed now, as such hands did, before any card it will order is thrown."""
        secret = bytes.fromhex(dealing.salt)
        first = hand.next_reshuffle
        order = deal_commitment.derived_order(deck_texts(), secret, palace_reshuffle_label(hand.reshuffled + 1))
        return PalaceReshuffleCommitted(order, deal_commitment.deal_root(order, secret, first), first)

    @staticmethod
    def action(move: TableMove, hand: PalaceTableHand, dealing: Dealing) -> Any:
        """One palace command, or a tuple of them (`buy` with `discard`: the buy and the
        discard after it)."""
        _not_for("Palace Poker", move, "keep", "line")
        player, action = move.player, move.action
        if action != "attack":
            _not_for("Palace Poker", move, "defender")
        if action not in ("buy", "discard"):
            _not_for("Palace Poker", move, "discard")
        if action == "buy":
            order: tuple[str, ...] = ()
            if not hand.game.draw_deck:  # the discard pile is reshuffled, in an order fixed before the deal
                order = hand.next_reshuffle_order(bytes.fromhex(dealing.salt))
            buy = palace.Buy(player, order)
            return buy if move.discard is None else (buy, palace.Discard(player, move.discard))
        if action == "discard":
            return palace.Discard(player, move.discard or ())
        if action == "attack":
            if move.defender is None:
                raise Violation("illegal_action", "an attack names its defender ('defender': a player id)",
                                numbers={"action": action})
            return palace.Attack(player, move.defender, move.to)
        if action == "raise":
            return palace.Raise(player, move.to)
        simple = {"call": palace.Call, "stay": palace.Stay, "fold": palace.Fold}
        if action not in simple:
            raise Violation("illegal_action", f"Palace Poker actions are buy, discard, attack, call, raise, "
                            f"stay and fold, not {action!r}", numbers={"action": action})
        if move.to is not None:
            raise Violation("illegal_action", f"{action!r} takes no amount", numbers={"action": action})
        return simple[action](player)

    @staticmethod
    def auto_action(hand: PalaceTableHand, seat: int, timed_out: bool) -> Any:
        """Stay on a turn, fold facing a battle, throw the oldest soldiers when over the limit."""
        player = hand.game.seats[seat].player
        legal = palace.legal_actions(hand.game)["legal"]
        if legal.get("stay"):
            return palace.Stay(player)
        if "discard" in legal and "stay" not in legal:
            needed = legal["discard"]["min_cards"]
            return palace.Discard(player, tuple(legal["discard"]["from"][:needed]))
        if legal.get("fold"):
            return palace.Fold(player)
        attack = legal["attack"]
        return palace.Attack(player, attack["targets"][0], attack["min_to"])

    @staticmethod
    def legal_actions(hand: PalaceTableHand) -> dict[str, Any] | None:
        shown = palace.legal_actions(hand.game)
        return dict(shown["legal"], phase=shown["phase"]) if shown["to_act"] is not None else None

    @classmethod
    def legal_view(cls, hand: PalaceTableHand, to_act: str | None, sees: Callable[[Any], bool] | None) -> Any:
        return cls.legal_actions(hand)

    @staticmethod
    def seat_status(hand: PalaceTableHand, seat: int) -> str:
        return "active" if hand.game.seats[seat].in_hand else "folded"

    @staticmethod
    def bet(hand: PalaceTableHand, seat: int) -> int:
        return 0  # a battle's stakes are in the pot, not before the seats

    @staticmethod
    def hole_view(hand: PalaceTableHand, seat: int, owner: str, sees: Callable[[Any], bool]) -> str | None:
        palace_cards = hand.game.seats[seat].palace
        return "".join(palace_cards) if palace_cards and sees(owner) else None

    @staticmethod
    def _pots(hand: PalaceTableHand) -> list[dict[str, Any]]:
        return [{"amount": hand.game.pot, "eligible": [s.player for s in hand.game.seats if s.in_hand]}]

    @classmethod
    def hand_summary(cls, hand: PalaceTableHand, names: list[str]) -> dict[str, Any]:
        return _summary(hand, names, cls._pots(hand))

    @classmethod
    def hand_view(cls, hand: PalaceTableHand, names: list[str], viewing: Viewing) -> dict[str, Any]:
        game = hand.game
        battle = game.battle
        return {
            **_view_head(cls, hand, names, viewing),
            "pot": game.pot,
            "pots": cls._pots(hand),
            "seats": [{"player_id": seat.player, "in_hand": seat.in_hand, "stack": seat.stack,
                       "banner": seat.banner, "soldiers": list(seat.soldiers),
                       "palace": list(seat.palace) if viewing.sees(seat.player) else
                       [palace.UNKNOWN_CARD] * len(seat.palace)} for seat in game.seats],
            "battle": None if battle is None else {"attacker": names[battle.attacker],
                                                   "defender": names[battle.defender]},
            "draw_deck": len(game.draw_deck),
            # Face down: its size is public, its cards (folded palaces, discarded soldiers)
            # the floor's only.
            "discard_pile": list(game.discard_pile) if viewing.everything else
            [palace.UNKNOWN_CARD] * len(game.discard_pile),
        }

    @staticmethod
    def deal_view(hand: PalaceTableHand, names: list[str], seal: DealSeal, revealed: bool,
                  viewing: Viewing) -> dict[str, Any]:
        if seal.scheme != deal_commitment.SCHEME:  # dealt before Palace hands were committed card by card
            return deck_deal_view(hand.cut.deck if revealed else None, seal)
        return _per_card_palace_deal_view(hand, seal, viewing)


def _per_card_palace_deal_view(hand: PalaceTableHand, seal: DealSeal, viewing: Viewing) -> dict[str, Any]:
    """A Palace hand committed card by card: the root always; once the hand is over, the
    floor gets every order and the secret (and the root recomputed), the others the
    openings of the cards they saw (banners and soldiers, their own palace, the palaces
    shown to them), each checked against the root; never a palace that stayed face down
    for them, nor the discard pile. `reshuffles` lists the later reshuffles: each ranked
    one with the soldiers bought from it in turn and their ranks, which must rise (their
    keys are among the openings; the floor also gets the whole order), or, in a hand
    opened before the keys, each one's order (the floor's) or openings against its own root."""
    cut = hand.cut
    view: dict[str, Any] = {"commitment": seal.commitment, "scheme": deal_commitment.SCHEME, "deck": None,
                            "banner_reshuffle_order": None, "palace_order": None, "reshuffle_order": None,
                            "salt": None, "openings": None, "verified": None, "reshuffles": []}
    if seal.salt is None or seal.commitment is None or not cut.committed:
        return view
    secret = bytes.fromhex(seal.salt)
    positions = sorted({position for position, audience in hand.seen if audience is None or viewing.sees(audience)})
    reshuffles = _ranked_reshuffles_view(hand, secret, viewing.everything)
    for reshuffle in hand.reshuffles:
        later: dict[str, Any] = {"commitment": reshuffle.commitment, "first": reshuffle.first, "order": None}
        if viewing.everything:
            later.update(order="".join(reshuffle.order), verified=deal_commitment.deal_root(
                reshuffle.order, secret, reshuffle.first) == reshuffle.commitment)
        else:
            mine = [p for p in positions if reshuffle.first <= p < reshuffle.first + len(reshuffle.order)]
            later.update(_opened(reshuffle.order, secret, mine, reshuffle.commitment, reshuffle.first))
        reshuffles.append(later)
    if viewing.everything:
        whole = {"deck": "".join(cut.deck), "banner_reshuffle_order": "".join(cut.banner_reshuffle_order),
                 "palace_order": "".join(cut.palace_order), "reshuffle_order": "".join(cut.reshuffle_order),
                 "salt": seal.salt, "verified": deal_commitment.deal_root(cut.committed, secret) == seal.commitment}
    else:
        whole = _opened(cut.committed, secret, [p for p in positions if p < len(cut.committed)], seal.commitment)
    if cut.reshuffle_keys:  # the root covers the canonical deck's cards from here on, one key each
        whole["reshuffle_keys_at"] = RESHUFFLE_KEYS
    # `verified`: the whole hand's check, the later reshuffles' included.
    return {**view, **whole, "reshuffles": reshuffles,
            "verified": whole["verified"] and all(r["verified"] for r in reshuffles)}


def _ranked_reshuffles_view(hand: PalaceTableHand, secret: bytes, floor: bool) -> list[dict[str, Any]]:
    """Each ranked reshuffle's soldiers, bought in turn from the top of the draw deck it
    made: public cards, opened at their keys, whose ranks (domain.rules.deal_commitment.
    order_rank over the key's salt) must rise. The floor also gets the whole order."""
    shown = []
    for number in sorted({number for number, _ in hand.ranked}):
        label = palace_reshuffle_label(number)
        dealt = [card for n, card in hand.ranked if n == number]
        ranks = [deal_commitment.order_rank(label, card, deal_commitment.position_salt(
            secret, hand.position(RESHUFFLE_KEYS, card))) for card in dealt]
        shown.append({"reshuffle": number, "label": label, "dealt": "".join(dealt), "ranks": ranks,
                      "order": "".join(ranked_reshuffle_order(secret, number)) if floor else None,
                      "verified": all(a < b for a, b in zip(ranks, ranks[1:]))})
    return shown


# --------------------------------------------------------------------------- dice poker


@dataclass(frozen=True)
class RollPrepared:
    """The values and salt behind the pending roll commitment (secret until rolled)."""
    values: tuple[int, ...] = field(metadata=SEALED)
    salt: str = field(metadata=SEALED)


@dataclass(frozen=True)
class PlayForAbsent:
    """The computer's dice turn: roll if the player has not, then the best free line."""
    player: str


@dataclass(frozen=True)
class DiceTableHand:
    """A game of dice poker at a table: the whole game is the table's one hand."""
    game: dice.DiceGameState
    start_stacks: tuple[int, ...]
    prepared: RollPrepared | None = None

    @property
    def over(self) -> bool:
        return self.game.over

    @property
    def to_act(self) -> int | None:
        return None if self.over or not self.game.started else self.game.to_act

    @property
    def stacks(self) -> tuple[int, ...]:
        return self.start_stacks

    @property
    def points(self) -> tuple[int, ...]:
        if not self.game.results:
            return tuple(self.game.totals(p).grand_total for p in self.game.players)
        return tuple(result.grand_total for result in self.game.results)

    @property
    def round(self) -> str:
        return "over" if self.over else f"round {self.game.round}"


@dataclass(frozen=True)
class DiceGameOpened:
    """The table's stacks when the game began (dice plays for points, not chips)."""
    stacks: tuple[int, ...]


class DiceGame:
    """Dice poker (dice-poker.md) at a live table: one game, then the table is finished."""
    commit = staticmethod(commit_whole_deck)
    name = "dice"
    EVENT_TYPES = {**dice.EVENT_TYPES, "RollPrepared": RollPrepared, "DiceGameOpened": DiceGameOpened}
    begun = PlaysForChips.begun

    @staticmethod
    def settings(raw: Mapping[str, Any]) -> DiceSettings:
        return DiceSettings.from_dict(raw)

    @staticmethod
    def betting(raw: Mapping[str, Any]) -> BettingStructure:
        DiceSettings.from_dict(raw)
        return BettingStructure()

    @staticmethod
    def with_joker(raw: Mapping[str, Any]) -> bool:
        return False

    @staticmethod
    def plays_for_chips(raw: Mapping[str, Any]) -> bool:
        return False

    @staticmethod
    def hands_in_match(raw: Mapping[str, Any]) -> int | None:
        return 1

    @staticmethod
    def start(opening: Opening) -> Any:
        return (DiceGameOpened(opening.stacks), dice.StartGame(opening.players, DiceSettings.from_dict(opening.settings)))

    @staticmethod
    def evolve(hand: DiceTableHand | None, event: Any) -> DiceTableHand:
        if isinstance(event, DiceGameOpened):
            return DiceTableHand(dice.INITIAL_STATE, event.stacks)
        if isinstance(event, RollPrepared):
            return with_changes(hand, prepared=event)
        assert hand is not None
        return with_changes(hand, game=dice.evolve(hand.game, event))

    @classmethod
    def handle(cls, hand: DiceTableHand | None, command: Any, dealing: Dealing) -> tuple[list[Any], DiceTableHand]:
        if isinstance(command, tuple):  # the start: the stacks, then the game and its first commitment
            opened, start = command
            prepared = _prepare_roll(dealing.draws)
            start = with_changes(start, roll_commitment=dice.roll_commitment(prepared.values, prepared.salt))
            events = [opened, *dice.decide(dice.INITIAL_STATE, start), prepared]
        elif isinstance(command, PlayForAbsent):
            events = []
            if hand.game.dice is None:
                rolled, hand = cls.handle(hand, _roll(hand, command.player, (), dealing), dealing)
                events += rolled
            line = best_free_line(hand.game.cards[hand.game.to_act], hand.game.dice, hand.game.settings)
            scored, hand = cls.handle(hand, dice.Score(command.player, line), dealing)
            return events + scored, hand
        elif isinstance(command, dice.Roll):
            prepared = _prepare_roll(dealing.draws)
            command = with_changes(command, next_commitment=dice.roll_commitment(prepared.values, prepared.salt))
            events = [*dice.decide(hand.game, command), prepared]
        else:
            events = dice.decide(hand.game, command)
        for event in events:
            hand = cls.evolve(hand, event)
        return events, hand  # type: ignore[return-value]

    @staticmethod
    def action(move: TableMove, hand: DiceTableHand, dealing: Dealing) -> Any:
        _not_for("dice poker", move, "to", "discard", "defender")
        if move.action == "roll":
            _not_for("dice poker", move, "line")
            return _roll(hand, move.player, move.keep or (), dealing)
        if move.action == "score":
            _not_for("dice poker", move, "keep")
            if move.line is None:
                raise Violation("unknown_line", "'score' names the line to write ('line')")
            return dice.Score(move.player, move.line)
        raise Violation("illegal_action", f"dice poker actions are roll (with keep) and score (with line), "
                        f"not {move.action!r}", dice.RULE, {"action": move.action})

    @staticmethod
    def auto_action(hand: DiceTableHand, seat: int, timed_out: bool) -> Any:
        return PlayForAbsent(hand.game.players[seat])

    @staticmethod
    def legal_actions(hand: DiceTableHand) -> dict[str, Any] | None:
        game = hand.game
        if hand.to_act is None:
            return None
        rolls_left = game.settings.rolls_per_turn - game.rolls
        card = game.cards[game.to_act]
        score = None
        if game.dice is not None:
            allowed = set(legal_lines(card, game.dice))
            score = {"dice": list(game.dice), "lines": {
                option.line: option.score for option in
                line_options(card, game.dice, game.poker_bonus_counts[game.to_act], game.settings)
                if option.line in allowed}}
        return {"roll": {"rolls_left": rolls_left, "keep": game.dice is not None} if rolls_left > 0 else None,
                "score": score}

    @classmethod
    def legal_view(cls, hand: DiceTableHand, to_act: str | None, sees: Callable[[Any], bool] | None) -> Any:
        return cls.legal_actions(hand)

    @staticmethod
    def seat_status(hand: DiceTableHand, seat: int) -> str:
        return "active"

    @staticmethod
    def bet(hand: DiceTableHand, seat: int) -> int:
        return 0

    @staticmethod
    def hole_view(hand: DiceTableHand, seat: int, owner: str, sees: Callable[[Any], bool]) -> str | None:
        return None  # dice hide nothing but the next roll (RollPrepared, sealed)

    @staticmethod
    def hand_summary(hand: DiceTableHand, names: list[str]) -> dict[str, Any]:
        return _summary(hand, names, [])

    @classmethod
    def hand_view(cls, hand: DiceTableHand, names: list[str], viewing: Viewing) -> dict[str, Any]:
        game = hand.game
        return {
            **_view_head(cls, hand, names, viewing),
            "dice": list(game.dice) if game.dice is not None else None,
            "rolls": game.rolls,
            "scorecards": {p: {line: card.score(line) for line in LINES if not card.is_free(line)}
                           for p, card in zip(game.players, game.cards)},
            "totals": dict(zip(names, hand.points)),
            "results": [{"player_id": r.player, "grand_total": r.grand_total, "place": r.place,
                         "outcome": r.result} for r in game.results],
        }

    @staticmethod
    def deal_view(hand: DiceTableHand, names: list[str], seal: DealSeal, revealed: bool,
                  viewing: Viewing) -> dict[str, Any]:
        return {"commitment": seal.commitment, "scheme": "sha256(<salt>:<five dice>) per roll",
                "roll_commitment": hand.game.commitment, "salt": seal.salt, "deck": None, "verified": None}


def _prepare_roll(draws: Draws) -> RollPrepared:
    return RollPrepared(tuple(draws.die() for _ in range(DICE_PER_ROLL)), draws.salt())


def _roll(hand: DiceTableHand, player: str, keep: tuple[int, ...], dealing: Dealing) -> dice.Roll:
    """The roll with the values committed before it (the next commitment is added when
    it is decided)."""
    prepared = hand.prepared
    if prepared is None:
        raise Violation("game_not_started", "no roll is committed yet")
    return dice.Roll(player, prepared.values, tuple(keep), prepared.salt, None)


TABLE_GAMES = {game.name: game for game in (DrawGame, PalaceGame, DiceGame)}
HOLDEM_GAMES = {variant: HoldemGame(variant) for variant in holdem.VARIANTS}
