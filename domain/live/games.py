"""Five-card draw, Palace Poker and dice poker as live-table games: each wraps its game's
decider so that domain.live.table can seat it like hold'em (a hand state with `over`, `to_act`
and `stacks`; `handle(hand, command, dealing)`; `legal_actions(hand)`).

Randomness the game needs after the deal (a draw redeal's deck, the reshuffle orders,
Palace Poker's palace order, every dice roll) is drawn through `Draws`, which the service
implements with `secrets` and tests with a seeded generator. Whatever is drawn lands in an
event, so replay never draws. Each draw redeal commits to its deck with the hand's secret
salt, so the one salt revealed at the end verifies every deck of the hand.

Five-card draw commits card by card (domain.rules.deal_commitment), as hold'em does: each
deal's root covers its deck and then the order its discards would be reshuffled in, so
every card a player is given, from the stub or from a reshuffle, has one position to be
opened at, and the adapter records which positions each seat was given and which were
tabled (`held`, `tabled`): the views open exactly those, never a mucked or unseen card.

Dice rolls are committed before they are rolled: `RollPrepared` records the values and
salt behind the pending `RollCommitted` (views hide them while the game is played; the
roll itself reveals them in `DiceRolled`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Protocol

from domain.rules import deal_commitment
from domain.rules.betting import FIXED_LIMIT, NO_LIMIT, BettingStructure, with_changes
from domain.rules.cards import deck_commitment, deck_texts, parse_cards
from domain.games import dice, draw, palace
from domain.games.dice_scoring import DICE_PER_ROLL, DiceSettings, best_free_line, legal_lines, line_options
from domain.games.draw_settings import DrawSettings
from domain.rules.showdown_order import DECLARED
from domain.rules.violations import Violation


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
class TableMove:
    """A table action as the games read it (domain.live.table.Act without the table's concerns)."""
    player: str
    seat: int
    action: str
    to: int | None = None
    discard: tuple[str, ...] | None = None
    defender: str | None = None
    keep: tuple[int, ...] | None = None
    line: str | None = None


class PlaysForChips:
    """The hooks of a game played for chips, hand after hand, with a 52-card pack."""

    @staticmethod
    def with_joker(raw: Mapping[str, Any]) -> bool:
        return False

    @staticmethod
    def plays_for_chips(raw: Mapping[str, Any]) -> bool:
        return True

    @staticmethod
    def hands_in_match(raw: Mapping[str, Any]) -> int | None:
        return None


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
    hand, the redeals' included; `held`: per hand seat, the (card, position) of every card
    it was given; `given`: the cards handed out in the current deal (a card handed out again
    came back through a reshuffle); `tabled`: the positions of the cards shown to everyone."""
    game: draw.HandState
    start_stacks: tuple[int, ...]
    deals: tuple[DrawDeal, ...]
    held: tuple[tuple[tuple[str, int | None], ...], ...] = ()
    given: frozenset[str] = frozenset()
    tabled: tuple[int, ...] = ()

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

    commits_card_by_card = True
    """The table lets `start` make the commitment (domain.live.table._start_next_hand)."""

    @staticmethod
    def start(players: tuple[str, ...], stacks: tuple[int, ...], button: int,
                        settings: Mapping[str, Any], deck: tuple[str, ...], dealing: Dealing) -> draw.StartHand:
        """The hand's StartHand, its reshuffle order drawn, committed to card by card: the
        table publishes its `commitment` in HandOpened."""
        parsed = DrawSettings.from_dict(settings)
        reshuffle = dealing.draws.shuffled(deck_texts(parsed.joker is not None))
        commitment = deal_commitment.deal_root(committed_cards(deck, reshuffle), bytes.fromhex(dealing.salt))
        return draw.StartHand(players, button, parsed, deck, stacks if parsed.betting else (),
                              commitment, reshuffle)

    @classmethod
    def evolve(cls, hand: DrawTableHand | None, event: Any) -> DrawTableHand:
        if isinstance(event, draw.HandStarted):
            game = draw.evolve(None, event)  # type: ignore[arg-type]
            return DrawTableHand(game, tuple(event.stacks),
                                 (DrawDeal(event.deck, event.reshuffle_order, event.commitment, 0),),
                                 ((),) * game.seat_count)
        assert hand is not None
        game = draw.evolve(hand.game, event)
        if isinstance(event, draw.Redealt):
            last = hand.deals[-1]
            deal = DrawDeal(event.deck, event.reshuffle_order, event.commitment, last.first + len(last.committed))
            return with_changes(hand, game=game, deals=hand.deals + (deal,), given=frozenset())
        if isinstance(event, (draw.HoleCardsDealt, draw.PlayerDrew)):
            return with_changes(cls._given_to(hand, event), game=game)
        if isinstance(event, (draw.CardsShown, draw.OpenersShown)):
            held = dict(hand.held[event.seat])  # a card's latest position is the one it was tabled from
            tabled = tuple(held[card] for card in _pairs(event.cards) if held.get(card) is not None)
            return with_changes(hand, game=game, tabled=hand.tabled + tabled)  # type: ignore[operator]
        return with_changes(hand, game=game)

    @staticmethod
    def _given_to(hand: DrawTableHand, event: draw.HoleCardsDealt | draw.PlayerDrew) -> DrawTableHand:
        cards = _pairs((event.cards if isinstance(event, draw.HoleCardsDealt) else event.received) or "")
        deal = hand.deals[-1]
        given = [(card, deal.position(card, card in hand.given)) for card in cards]
        held = hand.held[:event.seat] + (hand.held[event.seat] + tuple(given),) + hand.held[event.seat + 1:]
        return with_changes(hand, held=held, given=hand.given | set(cards))

    @classmethod
    def handle(cls, hand: DrawTableHand | None, command: Any, dealing: Dealing) -> tuple[list[Any], DrawTableHand]:
        events, game = draw.handle(None if hand is None else hand.game, command)
        for event in events:
            hand = cls.evolve(hand, event)
        assert hand is not None
        if game.phase == draw.REDEAL:
            # Nobody opened (or all checked with "opener" rules): the same players are dealt
            # again from a fresh deck, committed to before its first card.
            with_joker = game.settings.joker is not None
            deck = dealing.draws.shuffled(deck_texts(with_joker))
            reshuffle = dealing.draws.shuffled(deck_texts(with_joker))
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
            return _DRAW_SHOWDOWN_ACTIONS[move.action](move.seat)
        if move.action in ("discard", "draw", "split_openers"):
            if move.discard is None:
                raise Violation("invalid_discard", "name the cards to discard (an empty list stands pat)",
                                numbers={"action": move.action})
            return draw.Discard(move.seat, move.discard, split_openers=move.action == "split_openers")
        if move.action == "false_openers":
            return draw.FalseOpeners(move.seat)
        if move.discard is not None:
            raise Violation("illegal_action", f"'discard' goes with the draw, not with {move.action!r}",
                            numbers={"action": move.action})
        return draw.PostAction(move.seat, move.action, move.to)

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


@dataclass(frozen=True)
class PalaceDeckCut:
    """The deck the banners are dealt from (Palace Poker's own events record only what
    was dealt from it): kept so the deal can be checked against its commitment."""
    deck: tuple[str, ...]


@dataclass(frozen=True)
class PalaceTableHand:
    game: palace.PalaceHand
    deck: tuple[str, ...] = ()

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


class PalaceGame(PlaysForChips):
    """Palace Poker (palace-poker.md) at a live table."""
    name = "palace"
    EVENT_TYPES = {**palace.EVENT_TYPES, "PalaceDeckCut": PalaceDeckCut}

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
    def start(players: tuple[str, ...], stacks: tuple[int, ...], button: int, settings: Mapping[str, Any],
              deck: tuple[str, ...], commitment: str, dealing: Dealing) -> palace.StartHand:
        parsed = PalaceSettings.from_dict(settings)
        full = deck_texts()
        return (PalaceDeckCut(deck),
                palace.StartHand(players, stacks, button, parsed.small_bet, parsed.big_bet,
                                 parsed.structure, deck, dealing.draws.shuffled(full),
                                 dealing.draws.shuffled(full)))

    @staticmethod
    def evolve(hand: PalaceTableHand | None, event: Any) -> PalaceTableHand:
        if isinstance(event, PalaceDeckCut):
            return PalaceTableHand(palace.INITIAL, event.deck)
        assert hand is not None
        return with_changes(hand, game=palace.evolve(hand.game, event))

    @classmethod
    def handle(cls, hand: PalaceTableHand | None, command: Any, dealing: Dealing) -> tuple[list[Any], PalaceTableHand]:
        commands = command if isinstance(command, tuple) else (command,)
        events: list[Any] = []
        for one in commands:
            if isinstance(one, PalaceDeckCut):
                decided: list[Any] = [one]
            else:
                decided = palace.decide(hand.game, one)  # type: ignore[union-attr]
            for event in decided:
                hand = cls.evolve(hand, event)
            events += decided
        return events, hand  # type: ignore[return-value]

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
            needs_reshuffle = not hand.game.draw_deck
            buy = palace.Buy(player, dealing.draws.shuffled(deck_texts()) if needs_reshuffle else ())
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


# --------------------------------------------------------------------------- dice poker


@dataclass(frozen=True)
class RollPrepared:
    """The values and salt behind the pending roll commitment (secret until rolled)."""
    values: tuple[int, ...]
    salt: str


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
    name = "dice"
    EVENT_TYPES = {**dice.EVENT_TYPES, "RollPrepared": RollPrepared, "DiceGameOpened": DiceGameOpened}

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
    def start(players: tuple[str, ...], stacks: tuple[int, ...], button: int, settings: Mapping[str, Any],
              deck: tuple[str, ...], commitment: str, dealing: Dealing) -> Any:
        return (DiceGameOpened(stacks), dice.StartGame(players, DiceSettings.from_dict(settings)))

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
