"""Dice poker at a live table (domain.games.dice): one game, then the table is finished.

Dice rolls are committed before they are rolled: `RollPrepared` records the values and
salt behind the pending `RollCommitted` (views hide them while the game is played; the
roll itself reveals them in `DiceRolled`).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.games import dice
from domain.games.dice_scoring import DICE_PER_ROLL, LINES, RULE, DiceSettings, best_free_line, legal_lines, line_options
from domain.live.games.common import (
    Dealing,
    DealSeal,
    Draws,
    Opening,
    PlaysForChips,
    TableMove,
    Viewing,
    choices,
    commit_whole_deck,
    refuse_fields,
    summary_without_board,
    view_head,
)
from domain.rules.betting import BettingStructure, with_changes
from domain.rules.violations import Violation
from domain.secrecy import SEALED


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
        assert hand is not None
        if isinstance(event, RollPrepared):
            return _changed(hand, prepared=event)
        return _changed(hand, game=dice.evolve(hand.game, event))

    @classmethod
    def handle(cls, hand: DiceTableHand | None, command: Any, dealing: Dealing) -> tuple[list[Any], DiceTableHand]:
        if isinstance(command, tuple):  # the start: the stacks, then the game and its first commitment
            opened, start = command
            prepared = _prepare_roll(dealing.draws)
            start = with_changes(start, roll_commitment=dice.roll_commitment(prepared.values, prepared.salt))
            events = [opened, *dice.decide(dice.INITIAL_STATE, start), prepared]
        elif isinstance(command, PlayForAbsent):
            assert hand is not None
            events = []
            if hand.game.dice is None:
                rolled, hand = cls.handle(hand, _roll(hand, command.player, (), dealing), dealing)
                events += rolled
            assert hand.game.dice is not None  # rolled for them when they had not
            line = best_free_line(hand.game.cards[hand.game.to_act], hand.game.dice, hand.game.settings)
            scored, hand = cls.handle(hand, dice.Score(command.player, line), dealing)
            return events + scored, hand
        elif isinstance(command, dice.Roll):
            assert hand is not None
            prepared = _prepare_roll(dealing.draws)
            command = with_changes(command, next_commitment=dice.roll_commitment(prepared.values, prepared.salt))
            events = [*dice.decide(hand.game, command), prepared]
        else:
            assert hand is not None
            events = dice.decide(hand.game, command)
        for event in events:
            hand = cls.evolve(hand, event)
        return events, hand  # type: ignore[return-value]

    @staticmethod
    def action(move: TableMove, hand: DiceTableHand, dealing: Dealing) -> Any:
        refuse_fields("dice poker", move, "to", "discard", "defender")
        if move.action == "roll":
            refuse_fields("dice poker", move, "line")
            return _roll(hand, move.player, move.keep or (), dealing)
        if move.action == "score":
            refuse_fields("dice poker", move, "keep")
            if move.line is None:
                raise Violation("unknown_line", "'score' names the line to write ('line')")
            return dice.Score(move.player, move.line)
        raise Violation("illegal_action", f"dice poker actions are roll (with keep) and score (with line), "
                        f"not {move.action!r}", RULE, {"action": move.action})

    @staticmethod
    def auto_action(hand: DiceTableHand, seat: int, timed_out: bool) -> Any:
        return PlayForAbsent(hand.game.players[seat])

    @staticmethod
    def legal_actions(hand: DiceTableHand) -> dict[str, Any] | None:
        """`roll` (the rolls left; `keep`: whether dice may be kept, once rolled) and
        `score`: its `options`, the lines the roll may be written on (the joker rule
        included), each with the points it would score there."""
        game = hand.game
        if hand.to_act is None:
            return None
        rolls_left = game.settings.rolls_per_turn - game.rolls
        card = game.cards[game.to_act]
        score = None
        if game.dice is not None:
            allowed = set(legal_lines(card, game.dice))
            points = {option.line: option.score for option in
                      line_options(card, game.dice, game.poker_bonus_counts[game.to_act], game.settings)
                      if option.line in allowed}
            score = {"options": choices("line", points, points=points)}
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
        return summary_without_board(hand, names, [])

    @classmethod
    def hand_view(cls, hand: DiceTableHand, names: list[str], viewing: Viewing) -> dict[str, Any]:
        game = hand.game
        return {
            **view_head(cls, hand, names, viewing),
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


def _changed(hand: DiceTableHand, **changes: Any) -> DiceTableHand:
    """with_changes (a fast copy, untyped) for the table's hand."""
    changed: DiceTableHand = with_changes(hand, **changes)
    return changed
