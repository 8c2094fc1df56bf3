"""Seven-card stud, stud hi-lo, razz, Omaha hi-lo and 2-7 triple draw as live-table games:
domain.games.mixed decides the hand, this adapter is its dealer and says what each viewer
may see of it.

The mixed decider has no deck: it stops where cards are due. The adapter deals them from
the table's shuffled deck, top card first, in the same append as the action that made
them due: each street's cards seat by seat from the dealer's left (stud: two down and one
up on third street, one up on fourth to sixth, one down on seventh), the board (Omaha),
a draw's replacements right after the discard (2-7). No burn cards: the hand's record
(PHH) has none, and the deck's commitment covers the order either way.

- Stud, when the deck cannot give every player still in a seventh card: one common card,
  face up in the middle, which every player uses (Robert's Rules of Poker,
  seven-card stud). Eight players at most, so the first six streets always suffice.
- 2-7 triple draw, when the stub cannot give a player their replacements: the cards
  discarded so far, except the ones this player just threw, are shuffled and put under
  the stub (Robert's Rules of Poker, draw poker). Six players at most. The order is the
  one the hand's secret fixes (domain.rules.deal_commitment.derived_order, labelled
  `mixed-reshuffle-<n>`), so nothing is drawn mid-hand; `DiscardsReshuffled` records it
  sealed, with its own root, published before a card of it is dealt.
- At the showdown every hand still in is shown (the table tables them all), and the
  decider settles the pots, high-low ones as domain.rules.split_pots does.

What each viewer sees (`hole_view`, `event_view`): a player their own cards; everyone the up
cards of stud, the board, the number of cards each player threw, and every hand shown at
the showdown; floor and admin everything. The deck stays sealed until the hand is closed.

The deal is committed card by card (domain.rules.deal_commitment), as hold'em's is: the
hand's root covers the deck, each reshuffle's root its order, numbered on from the deck
(positions len(deck), len(deck)+1, ...). The hand records at which committed position each
seat was given each card (`held`) and which were dealt face up (`public`: stud's up cards,
the board), so once the hand is over everyone gets the openings of those and of the hands
shown down, each player those of their own cards, and the floor the deck, every reshuffle
order and the secret: nobody else learns a folded or mucked card, or a discard. Hands
committed whole (before this) keep their old view: the deck and salt to everyone.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.games import dealt_games, draw_family, mixed
from domain.games.dealt_hand import UNKNOWN, MixedState
from domain.games.hand_events import ActionTaken, PostAction
from domain.games.mixed_legal import mixed_legal
from domain.history.phh_mixed import phh_from_events
from domain.live import autoplay
from domain.live.games.common import (
    NO_BETTING_ACTIONS,
    Dealing,
    DealSeal,
    Opening,
    PlaysForChips,
    TableMove,
    Viewing,
    commit_card_by_card,
    deck_deal_view,
    discard_bounds,
    openings_view,
    refuse_fields,
)
from domain.rules import deal_commitment
from domain.rules.betting import FIXED_LIMIT, BettingStructure, legal_actions, with_changes
from domain.rules.cards import format_card, format_cards, parse_cards
from domain.rules.legal_shapes import legal_notes
from domain.rules.violations import Violation
from domain.secrecy import SEALED

MAX_SEATS = {dealt_games.STUD: dealt_games.MAX_STUD_PLAYERS, dealt_games.FLOP: 10, dealt_games.DRAW: 6}
MIXED_SETTINGS = ("small_bet", "big_bet", "ante", "bring_in", "small_blind", "big_blind",
                  "starting_chips")
RAISE_CAP = 4  # a bet and three raises a round, as domain.history.phh replays the WSOP records
STUD_STREET_CARDS = tuple(len(up) for up in dealt_games.STUD_DEAL)
HIDDEN = UNKNOWN
Sees = Callable[[str], bool]
"""Whether the viewer may see the cards of the named player."""


# ----------------------------------------------------------------------- settings


@dataclass(frozen=True)
class MixedSettings:
    """Fixed limit, as the mixed games are played: `small_bet` and `big_bet` (default
    twice the small), an `ante` each; stud has a `bring_in` (default a quarter of the
    small bet), the others blinds (default half the small bet and the small bet)."""
    small_bet: int
    big_bet: int
    ante: int
    bring_in: int
    small_blind: int
    big_blind: int
    starting_chips: int | None

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any], families: tuple[str, ...]) -> MixedSettings:
        """`families`: the families of the games the table plays (a rotation plays several)."""
        unknown = sorted(set(raw) - set(MIXED_SETTINGS))
        if unknown:
            raise _bad(f"unknown setting(s) {unknown}; known: {list(MIXED_SETTINGS)}")
        small = _amount(raw, "small_bet", None, minimum=1)
        big = _amount(raw, "big_bet", 2 * small, minimum=small)
        ante = _amount(raw, "ante", 0)
        stud_only = families == (dealt_games.STUD,)
        if stud_only and ("small_blind" in raw or "big_blind" in raw):
            raise _bad("stud games have antes and a bring-in, no blinds")
        if dealt_games.STUD not in families and "bring_in" in raw:
            raise _bad("only stud games have a bring-in; the others post blinds")
        bring_in = _amount(raw, "bring_in", max(1, small // 4), minimum=1)
        if bring_in >= small:
            raise _bad(f"the bring-in ({bring_in}) must be below the small bet ({small})")
        small_blind = _amount(raw, "small_blind", max(1, small // 2), minimum=1)
        big_blind = _amount(raw, "big_blind", small, minimum=small_blind)
        chips = raw.get("starting_chips")
        if chips is not None:
            chips = _amount(raw, "starting_chips", None, minimum=1)
        return cls(small, big, ante, bring_in, small_blind, big_blind, chips)

    def structure(self, kind: str = FIXED_LIMIT) -> BettingStructure:
        """Fixed limit; no-limit and pot-limit (8-game's big-bet games) open at the big
        blind, with no cap."""
        if kind != FIXED_LIMIT:
            return BettingStructure(kind=kind, small_blind=self.small_blind, big_blind=self.big_blind,
                                    min_bet=self.big_blind, raise_cap=None)
        return BettingStructure(kind=FIXED_LIMIT, small_bet=self.small_bet, big_bet=self.big_bet,
                                ante=self.ante, raise_cap=RAISE_CAP)


def _amount(raw: Mapping[str, Any], name: str, default: int | None, minimum: int = 0) -> int:
    value = raw.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise _bad(f"{name} must be a whole number of chips, at least {minimum}, not {value!r}")
    return value


def _bad(detail: str) -> Violation:
    return Violation("invalid_settings", detail)


# ------------------------------------------------------------------------ events


@dataclass(frozen=True)
class MixedDeckCut:
    """The deck the hand is dealt from (the decider's events record only what was dealt):
    kept so the deal can be checked against its commitment. Sealed until the hand closes."""
    deck: tuple[str, ...] = field(metadata=SEALED)


@dataclass(frozen=True)
class DiscardsReshuffled:
    """The stub ran short on a draw: these discards, in this shuffled order, go under it.
    `commitment`: the order's root (positions numbered on from the deck and the reshuffles
    before it), public; None in hands whose reshuffles were drawn, not derived."""
    order: tuple[str, ...] = field(metadata=SEALED)
    commitment: str | None = None


EVENT_TYPES: dict[str, type] = {**mixed.EVENT_TYPES, "MixedDeckCut": MixedDeckCut,
                                "DiscardsReshuffled": DiscardsReshuffled}


# ------------------------------------------------------------------------ the hand


@dataclass(frozen=True)
class MixedTableHand:
    """`game`: the decider's state (None until HandStarted); `stub`: the cards still to
    deal, top first; `discards`: thrown this hand and not yet reshuffled; `first_to_act`
    and `aggressor`: who acted first and who bet or raised last on the current street
    (they say who shows first)."""
    deck: tuple[str, ...]
    game: MixedState | None = None
    stub: tuple[str, ...] = ()
    discards: tuple[str, ...] = ()
    first_to_act: int | None = None
    aggressor: int | None = None
    position: Any = None
    """A rotation table's hand: where it stands in the rotation (domain.live.rotation)."""
    reshuffles: tuple[DiscardsReshuffled, ...] = ()
    held: tuple[tuple[tuple[str, int], ...], ...] = ()
    """Per position in the hand: (card, committed position) of every card it was given."""
    public: tuple[int, ...] = ()
    """The committed positions of the cards dealt face up (stud's up cards, the board)."""

    @property
    def committed_count(self) -> int:
        """How many positions the deck and the reshuffles so far commit to."""
        return len(self.deck) + sum(len(r.order) for r in self.reshuffles)

    @property
    def next_position(self) -> int:
        """The committed position of the stub's top card (the stub is always the committed
        sequence's tail)."""
        return self.committed_count - len(self.stub)

    @property
    def over(self) -> bool:
        return self.game is not None and self.game.over

    @property
    def to_act(self) -> int | None:
        """The player to bet, or to draw (the table's turn covers both)."""
        game = self.game
        if game is None or game.over:
            return None
        if game.phase == "draw":
            return game.next_to_draw
        return game.to_act

    @property
    def stacks(self) -> tuple[int, ...]:
        return tuple(int(s) for s in self.game.stacks)  # type: ignore[union-attr]

    @property
    def points(self) -> tuple[int, ...]:
        return ()

    @property
    def round(self) -> str:
        game = self.game
        if game is None:
            return "deal"
        if game.over:
            return "over"
        if game.phase == "showdown":
            return "showdown"
        return _STREET_NAMES[game.game.family][game.street]


_STREET_NAMES = {
    dealt_games.STUD: ("third_street", "fourth_street", "fifth_street", "sixth_street", "seventh_street"),
    dealt_games.FLOP: ("preflop", "flop", "turn", "river"),
    dealt_games.DRAW: ("first_round", "second_round", "third_round", "fourth_round"),
}


def evolve_hand(hand: MixedTableHand | None, event: Any) -> MixedTableHand:
    if isinstance(event, MixedDeckCut):
        return MixedTableHand(event.deck, stub=event.deck, position=None if hand is None else hand.position)
    assert hand is not None
    if isinstance(event, DiscardsReshuffled):
        reshuffled = set(event.order)
        return with_changes(hand, stub=hand.stub + event.order, reshuffles=hand.reshuffles + (event,),
                            discards=tuple(c for c in hand.discards if c not in reshuffled))
    game = mixed.evolve(hand.game, event)
    if isinstance(event, (mixed.CardsDealt, mixed.BoardDealt)):
        cards = _texts(event.cards)
        first = hand.next_position
        positions = range(first, first + len(cards))
        if isinstance(event, mixed.BoardDealt):
            return with_changes(hand, game=game, stub=hand.stub[len(cards):], public=hand.public + tuple(positions))
        up = event.up + (False,) * (len(cards) - len(event.up))
        held = hand.held + ((),) * (event.position + 1 - len(hand.held))
        held = held[:event.position] + (held[event.position] + tuple(zip(cards, positions)),) + \
            held[event.position + 1:]
        return with_changes(hand, game=game, stub=hand.stub[len(cards):], held=held,
                            public=hand.public + tuple(p for p, is_up in zip(positions, up) if is_up))
    if isinstance(event, draw_family.CardsDiscarded):
        return with_changes(hand, game=game, discards=hand.discards + _texts(event.cards))
    if hand.game is not None and game.street != hand.game.street:  # a new street
        return with_changes(hand, game=game, first_to_act=None, aggressor=None)
    if isinstance(event, ActionTaken):
        first = event.position if hand.first_to_act is None else hand.first_to_act
        aggressor = event.position if event.action in ("bet", "raise") else hand.aggressor
        return with_changes(hand, game=game, first_to_act=first, aggressor=aggressor)
    return with_changes(hand, game=game)


def _texts(cards: str) -> tuple[str, ...]:
    return tuple(cards[i:i + 2] for i in range(0, len(cards), 2))


# ----------------------------------------------------------------------- the dealer


def _dealing_order(game: MixedState) -> list[int]:
    """Seats from the dealer's left, the button last."""
    n = len(game.players)
    return [(game.betting.button + step) % n for step in range(1, n + 1)]


def _dealer_step(hand: MixedTableHand, dealing: Dealing) -> Any:
    """What the dealer does next (a decider command, or DiscardsReshuffled), or None when
    the hand waits for a player or is over."""
    game = hand.game
    assert game is not None
    if game.over:
        return None
    family = game.game.family
    if game.phase == "deal":
        due = [s for s in _dealing_order(game) if game.due[s] and not game.betting.folded[s]]
        count = STUD_STREET_CARDS[game.street] if family == dealt_games.STUD else game.game.hand_size
        if family == dealt_games.STUD and len(hand.stub) < count * len(due):
            return mixed.DealBoard(hand.stub[0])  # the common card
        return mixed.DealCards(due[0], "".join(hand.stub[:count]))
    if game.phase == "board":
        return mixed.DealBoard("".join(hand.stub[:dealt_games.FLOP_BOARD[game.street]]))
    if game.phase == "draw":
        owed = next((s for s in range(len(game.owed)) if game.owed[s]), None)
        if owed is None:
            return None
        count = game.owed[owed]
        if len(hand.stub) < count:
            # This player's own discards (the last thrown) are not dealt back to them.
            return reshuffle(hand, hand.discards[:len(hand.discards) - count], bytes.fromhex(dealing.salt))
        return mixed.DealCards(owed, "".join(hand.stub[:count]))
    if game.phase == "showdown":
        seat = next(s for s in _showdown_order(hand) if not game.shown[s] and not game.mucked[s])
        return mixed.ShowCards(seat, format_cards(c for c in game.hole[seat]))  # type: ignore[misc]
    return None


def reshuffle_label(number: int) -> str:
    return f"mixed-reshuffle-{number}"


def reshuffle(hand: MixedTableHand, cards: tuple[str, ...], secret: bytes) -> DiscardsReshuffled:
    """The hand's next reshuffle of `cards`: in the order the secret fixed before the first
    action (domain.rules.deal_commitment.derived_order: nobody without the secret can
    recompute it, and it depends only on which cards are reshuffled), committed card by
    card on its own root, numbered on from the positions committed so far."""
    order = deal_commitment.derived_order(cards, secret, reshuffle_label(len(hand.reshuffles) + 1))
    return DiscardsReshuffled(order, deal_commitment.deal_root(order, secret, hand.committed_count))


def _showdown_order(hand: MixedTableHand) -> list[int]:
    """The last street's last bettor shows first, or without a bet its first to act (the
    dealer's left when nobody could act); then the others clockwise."""
    game = hand.game
    assert game is not None
    first = hand.aggressor if hand.aggressor is not None else hand.first_to_act
    n = len(game.players)
    start = (game.betting.button + 1) % n if first is None else first
    contenders = set(game.betting.contenders)
    return [seat for seat in ((start + k) % n for k in range(n)) if seat in contenders]


def handle_hand(hand: MixedTableHand | None, command: Any, dealing: Dealing) -> tuple[list[Any], MixedTableHand]:
    """The command (a tuple: the deck cut and the start), then everything the dealer deals
    before a player is to act again."""
    events: list[Any] = []
    for one in command if isinstance(command, tuple) else (command,):
        decided: list[Any] = [one] if isinstance(one, MixedDeckCut) else \
            mixed.decide(None if hand is None else hand.game, one)
        for event in decided:
            hand = evolve_hand(hand, event)
        events += decided
    assert hand is not None
    while (step := _dealer_step(hand, dealing)) is not None:
        decided = [step] if isinstance(step, DiscardsReshuffled) else mixed.decide(hand.game, step)
        for event in decided:
            hand = evolve_hand(hand, event)
        events += decided
    return events, hand


# ------------------------------------------------------------------------ the views


def hole_view(hand: MixedTableHand, seat: int, owner: str, sees: Sees) -> str | None:
    """Seat's cards as the viewer may see them: all of them (their own, or shown), the up
    cards with `??` for the down ones, or None before any is dealt."""
    game = hand.game
    if game is None or not game.hole[seat]:
        return None
    cards = game.hole[seat]
    shown = game.shown[seat] or sees(owner)
    # An imported record may leave a card unknown (None): `??` for everyone.
    return "".join(HIDDEN if c is None or not (shown or up) else format_card(c)
                   for c, up in zip(cards, game.up[seat] + (False,) * (len(cards) - len(game.up[seat]))))


def event_view(type_name: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """A private event (another player's cards) as others see it: the up cards, and how
    many cards were dealt or thrown."""
    if type_name == "CardsDealt":
        cards = _texts(data["cards"] or "")
        shown = "".join(card if up else HIDDEN for card, up in zip(cards, data["up"]))
        return {**data, "cards": shown}
    if type_name == "CardsDiscarded":
        return {**data, "cards": HIDDEN * (len(data["cards"] or "") // 2)}
    return dict(data)


PRIVATE_EVENTS = ("CardsDealt", "CardsDiscarded")


def seat_status(hand: MixedTableHand, seat: int) -> str:
    b = hand.game.betting  # type: ignore[union-attr]
    if b.folded[seat]:
        return "folded"
    return "all_in" if b.stacks[seat] == 0 else "active"


def summary(hand: MixedTableHand, names: list[str]) -> dict[str, Any]:
    """The public state: the round, the board (stud: the common card), pots and awards."""
    game = hand.game
    assert game is not None
    return {
        "game": game.game.name,
        "round": hand.round,
        "board": format_cards(c for c in game.board if c is not None),
        "pots": [{"amount": int(p.amount), "eligible": [names[s] for s in p.eligible]} for p in game.pots],
        "awards": [{"amount": int(a.amount), "winners": [names[s] for s in a.winners],
                    "shares": {names[s]: int(share) for s, share in zip(a.winners, a.shares)}}
                   for a in game.awards],
        "bets": {names[s]: int(bet) for s, bet in enumerate(game.betting.bets)},
        "to_draw": names[game.next_to_draw] if game.phase == "draw" and game.next_to_draw is not None
        else None,
    }


# ----------------------------------------------------------------------- the adapter


class MixedTableGame(PlaysForChips):
    """One mixed game at a live table (the domain.live.games adapter shape), its deal
    committed card by card."""
    EVENT_TYPES = EVENT_TYPES
    commit = staticmethod(commit_card_by_card)

    def __init__(self, name: str) -> None:
        self.name = name
        self.game = dealt_games.GAMES[name]
        self.max_seats = MAX_SEATS[self.game.family]

    def settings(self, raw: Mapping[str, Any]) -> MixedSettings:
        return MixedSettings.from_dict(raw, (self.game.family,))

    @staticmethod
    def begun(hand: MixedTableHand) -> bool:
        return hand.game is not None  # from HandStarted, after the deck's cut (and the rotation's game)

    def betting(self, raw: Mapping[str, Any]) -> BettingStructure:
        return self.settings(raw).structure()

    def start(self, opening: Opening) -> tuple[Any, ...]:
        return MixedDeckCut(opening.deck), start_command(self.game, opening.players, opening.stacks, opening.button,
                                                         self.settings(opening.settings))

    @staticmethod
    def evolve(hand: MixedTableHand | None, event: Any) -> MixedTableHand:
        return evolve_hand(hand, event)

    @staticmethod
    def handle(hand: MixedTableHand | None, command: Any, dealing: Dealing) -> tuple[list[Any], MixedTableHand]:
        return handle_hand(hand, command, dealing)

    @staticmethod
    def action(move: TableMove, hand: MixedTableHand, dealing: Dealing) -> Any:
        return table_action(move, hand)

    @staticmethod
    def auto_action(hand: MixedTableHand, seat: int, timed_out: bool) -> Any:
        return computer_action(hand, seat, timed_out)

    @staticmethod
    def legal_actions(hand: MixedTableHand) -> dict[str, Any] | None:
        return legal(hand)

    @staticmethod
    def phh_record(events: list[Any]) -> Any:
        """The hand's PHH record from its game events (the adapter's own events left out)."""
        return phh_from_events(e for e in events if type(e) in mixed.EVENT_TYPES.values())

    hole_view = staticmethod(hole_view)
    event_view = staticmethod(event_view)
    seat_status = staticmethod(seat_status)
    summary = staticmethod(summary)
    PRIVATE_EVENTS = PRIVATE_EVENTS

    @staticmethod
    def legal_view(hand: MixedTableHand, to_act: str | None, sees: Sees | None) -> dict[str, Any] | None:
        return legal(hand)

    @staticmethod
    def legal_notes(hand: MixedTableHand) -> dict[str, Any]:
        return notes(hand)

    @staticmethod
    def bet(hand: MixedTableHand, seat: int) -> int:
        return int(hand.game.betting.bets[seat])  # type: ignore[union-attr]

    @staticmethod
    def hand_summary(hand: MixedTableHand, names: list[str]) -> dict[str, Any]:
        return {"over": hand.over, **summary(hand, names), "stacks": dict(zip(names, hand.stacks))}

    @staticmethod
    def hand_view(hand: MixedTableHand, names: list[str], viewing: Viewing) -> dict[str, Any]:
        return {"over": hand.over, "to_act": names[hand.to_act] if hand.to_act is not None else None,
                **summary(hand, names),
                "hole": {names[s]: hole_view(hand, s, names[s], viewing.sees) for s in range(len(names))},
                "stacks": dict(zip(names, hand.stacks))}

    @staticmethod
    def deal_view(hand: MixedTableHand, names: list[str], seal: DealSeal, revealed: bool,
                  viewing: Viewing) -> dict[str, Any]:
        if seal.scheme != deal_commitment.SCHEME:  # dealt before mixed hands were committed card by card
            return deck_deal_view(hand.deck if revealed else None, seal)
        return per_card_deal_view(hand, names, seal if revealed else DealSeal(seal.commitment, seal.scheme, None),
                                  viewing)


def per_card_deal_view(hand: MixedTableHand, names: list[str], seal: DealSeal, viewing: Viewing) -> dict[str, Any]:
    """The root always (and each reshuffle's); once the hand is over (`seal.salt` given),
    the floor gets the deck, every reshuffle order and the secret, each root recomputed and
    each reshuffle order checked against the one the secret fixed; the others the openings
    of the cards they may see (the up cards and the board, the hands shown down, their
    own), each checked against its root."""
    view: dict[str, Any] = {"commitment": seal.commitment, "scheme": deal_commitment.SCHEME,
                            "deck": None, "salt": None, "openings": None, "verified": None,
                            "reshuffles": [{"commitment": r.commitment, "order": None, "openings": None,
                                            "verified": None} for r in hand.reshuffles]}
    if seal.salt is None or seal.commitment is None or not hand.deck:
        return view
    secret = bytes.fromhex(seal.salt)
    segments = [(hand.deck, seal.commitment, 0)]
    first = len(hand.deck)
    for shuffled in hand.reshuffles:
        segments.append((shuffled.order, shuffled.commitment or "", first))
        first += len(shuffled.order)
    if viewing.everything:
        checked = []
        for number, (order, root, start) in enumerate(segments):
            verified = deal_commitment.deal_root(order, secret, start) == root
            if number:
                derived = deal_commitment.derived_order(order, secret, reshuffle_label(number)) == order
                verified = verified and derived
            checked.append({"commitment": root or None, "order": "".join(order), "openings": None,
                            "verified": verified})
        return {**view, "deck": "".join(hand.deck), "salt": seal.salt, "verified": checked[0]["verified"],
                "reshuffles": checked[1:]}
    seen = set(hand.public)
    game = hand.game
    for seat, held in enumerate(hand.held):
        if viewing.sees(names[seat]):
            seen.update(position for _, position in held)
        elif game is not None and game.shown[seat]:
            # A hand shown down: the cards it holds now, at the position each was last given from.
            latest = dict(held)
            seen.update(latest[format_card(c)] for c in game.hole[seat] if c is not None and format_card(c) in latest)
    opened = []
    for order, root, start in segments:
        mine = sorted(p for p in seen if start <= p < start + len(order))
        opened.append(openings_view(order, secret, mine, root, start) if root else {"openings": None, "verified": None})
    return {**view, **opened[0],
            "reshuffles": [{"commitment": r.commitment, "order": None, **o} for r, o in zip(hand.reshuffles, opened[1:])]}


def start_command(game: dealt_games.Game, players: tuple[str, ...], stacks: tuple[int, ...], button: int,
                  settings: MixedSettings, kind: str = FIXED_LIMIT, antes_too: bool = True) -> mixed.StartHand:
    """The decider's StartHand: antes from everyone (`antes_too`), the bring-in (stud) or
    the two blinds on the seats after the button (heads-up: the button posts the small
    one)."""
    n = len(players)
    antes = tuple(min(settings.ante if antes_too else 0, stack) for stack in stacks)
    blinds = [0] * n
    if game.family != dealt_games.STUD:
        # The decider reads heads-up blinds reversed, so these same two seats put the
        # small blind on the button and the big one on the other seat then.
        blinds[(button + 1) % n] = settings.small_blind
        blinds[(button + 2) % n] = settings.big_blind
    return mixed.StartHand(game.name, players, stacks, button, settings.structure(kind), antes,
                           tuple(blinds), settings.bring_in if game.family == dealt_games.STUD else 0)


def table_action(move: TableMove, hand: MixedTableHand) -> Any:
    if hand.game is None:
        raise Violation("illegal_action", "the hand has not started", numbers={"action": move.action})
    game = hand.game.game
    refuse_fields(game.name, move, "defender", "keep", "line")
    if move.action in ("discard", "draw"):
        if game.family != dealt_games.DRAW:
            raise Violation("illegal_action", f"{game.name} has no draw",
                            numbers={"action": move.action})
        if move.discard is None:
            raise Violation("invalid_discard", "name the cards to discard (an empty list stands pat)",
                            numbers={"action": move.action})
        return draw_family.Discard(move.position, format_cards(parse_cards(move.discard)) if move.discard else "")
    refuse_fields(game.name, move, "discard")
    return PostAction(move.position, move.action, move.to)


def computer_action(hand: MixedTableHand, seat: int, timed_out: bool) -> Any:
    """Stand pat on a draw; post the bring-in when it is due; otherwise the betting policy
    of domain.live.autoplay (check, else fold; an absent player calls a small bet with a pair)."""
    game = hand.game
    assert game is not None and hand.to_act == seat, "the computer acts only on its own turn"
    if game.phase == "draw":
        return draw_family.Discard(seat, "")
    if game.bring_in_due:
        return PostAction(seat, "bring_in")
    legal_now = legal_actions(game.betting)
    assert legal_now is not None
    ranks = [c >> 2 for c in game.hole[seat] if c is not None]
    pair = len(set(ranks)) < len(ranks)
    choice = autoplay.betting_choice(legal_now, int(game.betting.structure.unit(late=False)), pair,
                                     timed_out=timed_out)
    return PostAction(seat, choice)


def legal(hand: MixedTableHand) -> dict[str, Any] | None:
    """The betting `legal` shape (with the bring-in, `bring_in`: its amount as `to`, and the
    open-pair big bet), plus `discard` in the draw games (on a draw, at most the hand's size), in the shape
    every game's `legal` has: actions only (`legal_notes` says why raising is closed)."""
    game = hand.game
    if game is None or hand.to_act is None:
        return None
    if game.phase == "draw":
        return {**NO_BETTING_ACTIONS, "discard": discard_bounds(0, game.game.hand_size)}
    shape = table_legal(mixed_legal(game))
    if shape is None or not game.game.draws:
        return shape  # a stud or flop game has no discard
    return {**shape, "discard": None}


# What the ruling says among the actions and a table says beside them (legal_notes).
_BESIDE_LEGAL = ("raise_closed_reason", "raise_reopened")


def table_legal(ruled: dict[str, Any] | None) -> dict[str, Any] | None:
    """The betting ruling's `legal` (domain.games.mixed_legal) as a table shows it: actions
    only, the bring-in's amount as its `to`."""
    if ruled is None:
        return None
    shape = {action: allowed for action, allowed in ruled.items() if action not in _BESIDE_LEGAL}
    if shape.get("bring_in") is not None:
        shape["bring_in"] = {"to": shape["bring_in"]}
    return shape


def notes(hand: MixedTableHand) -> dict[str, Any]:
    """Why raising is closed (or reopened) to the player to act, beside `legal` (none on a draw)."""
    game = hand.game
    if game is None or hand.to_act is None or game.phase == "draw" or game.over:
        return {}
    return legal_notes(legal_actions(game.betting))

