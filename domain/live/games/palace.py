"""Palace Poker at a live table (domain.games.palace).

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
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.games import palace, palace_decider, palace_interpretations
from domain.live.games.common import (
    Dealing,
    DealSeal,
    Opening,
    PlaysForChips,
    TableMove,
    Viewing,
    choices,
    deck_deal_view,
    discard_bounds,
    openings_view,
    refuse_fields,
    summary_without_board,
    view_head,
)
from domain.rules import deal_commitment
from domain.rules.betting import FIXED_LIMIT, NO_LIMIT, BettingStructure, with_changes
from domain.rules.cards import deck_texts
from domain.rules.violations import Violation
from domain.secrecy import SEALED

PALACE_SETTINGS = ("small_bet", "big_bet", "structure", "starting_chips")


@dataclass(frozen=True)
class PalaceSettings:
    small_bet: int
    big_bet: int
    structure: str = FIXED_LIMIT
    starting_chips: int | None = None

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> PalaceSettings:
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
        if structure not in palace_interpretations.STRUCTURES:
            raise _bad_palace(f"structure must be one of {list(palace_interpretations.STRUCTURES)}, not {structure!r}")
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
        return _changed(hand, reshuffles=hand.reshuffles + (event,))
    if isinstance(event, palace.SetAsideBannersReshuffled):
        return _changed(hand, dealing_from=BANNER_RESHUFFLE)
    if isinstance(event, palace.PalaceDeckShuffled):
        return _changed(hand, dealing_from=PALACE_DECK)
    if isinstance(event, palace.DrawDeckReshuffled):
        return _changed(hand, dealing_from=hand.next_reshuffle, reshuffled=hand.reshuffled + 1)
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
    return _changed(hand, seen=hand.seen + seen) if seen else hand


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

    @staticmethod
    def betting_settings(betting: Mapping[str, Any]) -> dict[str, Any]:
        """The settings a betting description gives (domain.registry.settings_with_betting)."""
        return {name: betting[name] for name in ("structure", "small_bet", "big_bet") if name in betting}

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
        return _changed(hand, game=palace.evolve(hand.game, event))

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
                decided = palace_decider.decide(hand.game, one)  # type: ignore[union-attr]
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
        refuse_fields("Palace Poker", move, "keep", "line")
        player, action = move.player, move.action
        if action != "attack":
            refuse_fields("Palace Poker", move, "defender")
        if action not in ("buy", "discard"):
            refuse_fields("Palace Poker", move, "discard")
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
        legal = palace_decider.legal_actions(hand.game)["legal"]
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
        """The game's legal actions in the shape every game's `legal` has: an attack's
        defenders as its `options`, a discard's bounds as every discard's (`from`: the
        soldiers). The phase is the hand's `round`, not an action."""
        shown = palace_decider.legal_actions(hand.game)
        if shown["to_act"] is None:
            return None
        legal = dict(shown["legal"])
        attack, discard = legal.get("attack"), legal.get("discard")
        if attack is not None:
            legal["attack"] = {"options": choices("defender", attack["targets"]),
                               "min_to": attack["min_to"], "max_to": attack["max_to"]}
        if discard is not None:
            legal["discard"] = discard_bounds(discard["min_cards"], len(discard["from"]), **{"from": discard["from"]})
        return legal

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
        return summary_without_board(hand, names, cls._pots(hand))

    @classmethod
    def hand_view(cls, hand: PalaceTableHand, names: list[str], viewing: Viewing) -> dict[str, Any]:
        game = hand.game
        battle = game.battle
        return {
            **view_head(cls, hand, names, viewing),
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
            later.update(openings_view(reshuffle.order, secret, mine, reshuffle.commitment, reshuffle.first))
        reshuffles.append(later)
    if viewing.everything:
        whole = {"deck": "".join(cut.deck), "banner_reshuffle_order": "".join(cut.banner_reshuffle_order),
                 "palace_order": "".join(cut.palace_order), "reshuffle_order": "".join(cut.reshuffle_order),
                 "salt": seal.salt, "verified": deal_commitment.deal_root(cut.committed, secret) == seal.commitment}
    else:
        whole = openings_view(cut.committed, secret, [p for p in positions if p < len(cut.committed)], seal.commitment)
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


def _changed(hand: PalaceTableHand, **changes: Any) -> PalaceTableHand:
    """with_changes (a fast copy, untyped) for the table's hand."""
    changed: PalaceTableHand = with_changes(hand, **changes)
    return changed
