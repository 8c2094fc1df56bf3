"""POST /v1/rulings/betting for the mixed games (domain.games.mixed): stud, stud hi-lo,
razz, Omaha hi-lo, short deck, 2-7 triple and single draw, badugi.

The request is the hold'em ruling's (api.md), with:
- `betting.bring_in` (stud games; `ante` is everyone's ante there), blinds for the others;
- `cards.hole`: each player's cards in dealing order (stud: third street's two down cards
  and up card first, then one card a street), `cards.received`: the cards each player drew,
  in order (draw games), `cards.board` (Omaha hi-lo, short deck);
- actions `bring_in` (stud) and `draw` with `discard` (a list or string of cards, or a
  count) for the draw games.
Cards the request does not name are dealt unknown: they never settle a showdown (the
ruling then stops at it), and a stud street whose up cards are not all known is opened by
whoever the request says acts first.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from domain.games import dealt_games, draw_family, mixed
from domain.games.dealt_hand import UNKNOWN, MixedState
from domain.games.hand_events import PostAction
from domain.games.mixed_legal import mixed_legal, open_pair_big_bet_allowed
from domain.rules.betting import Amount, BettingStructure
from domain.rules.cards import format_card, parse_cards
from domain.rules.citations import cite
from domain.rules.violations import Violation
from domain.rulings.common import allowed, money, refused, seat_named, seated

GAMES = tuple(dealt_games.GAMES)
_STREET_NAMES = {
    dealt_games.STUD: ("third_street", "fourth_street", "fifth_street", "sixth_street", "seventh_street"),
    dealt_games.FLOP: ("preflop", "flop", "turn", "river"),
    dealt_games.DRAW: ("before_the_first_draw", "after_the_first_draw", "after_the_second_draw",
                 "after_the_third_draw"),
}
_STUD_STREET_CARDS = (3, 1, 1, 1, 1)


def mixed_betting_ruling(request: Mapping[str, Any]) -> dict[str, Any]:
    state, seat_of, dealer = replayed_mixed(request)
    if state.phase == "showdown" and _all_known(state):
        state = mixed.handle(state, mixed.SettleShowdown())[1]
    answer = _answer(state)
    proposed = request.get("proposed")
    if proposed is not None:
        try:
            command = _command(state, seat_of, proposed, dealer)
            _apply(state, command)
        except Violation as violation:
            answer["verdict"] = refused(violation)
        else:
            answer["verdict"] = _allowed(state, command)
    return answer


ActionWatcher = Callable[[MixedState, Any], None]
"""Told of each action of a replayed request: the state it was taken in and the command."""


def replayed_mixed(request: Mapping[str, Any], watch: ActionWatcher | None = None,
                   ) -> tuple[MixedState, dict[str, int], _Dealer]:
    """A mixed-game hand replayed from a ruling request up to its last action (the cards
    due dealt, the showdown not settled), each player's seat and the dealer of its cards."""
    game = dealt_games.GAMES[request["game"]]
    players, stacks, seat_of = seated(request)
    start = _start(request, game, players, stacks)
    cards = request.get("cards") or {}
    hole = {seat_named(seat_of, name): _texts(text) for name, text in (cards.get("hole") or {}).items()}
    received = {seat_named(seat_of, name): _texts(text)
                for name, text in (cards.get("received") or {}).items()}
    board = _texts(cards.get("board") or "")
    _, state = mixed.handle(None, start)
    dealer = _Dealer(hole, received, board)
    for index, action in enumerate(request.get("actions") or []):
        try:
            state = dealer.deal_due(state)
            command = _command(state, seat_of, action, dealer)
            if watch is not None:
                watch(state, command)
            state = _apply(state, command)[1]
        except Violation as violation:
            raise Violation(violation.code, f"action {index}: {violation.detail}", violation.rule,
                            {**violation.numbers, "index": index}) from None
    return dealer.deal_due(state), seat_of, dealer


def _allowed(state: MixedState, command: Any) -> dict[str, Any]:
    """A legal proposal read out; the big bet of an open pair on fourth street is stud's own
    rule (Robert's Rules, seven-card stud 4), beside the fixed bet of betting.py."""
    if not isinstance(command, PostAction):
        return allowed(None, command.position, "draw", None)
    big = state.betting.structure.unit(late=True)
    if command.action == "bet" and command.to == big and open_pair_big_bet_allowed(state) \
            and big != state.betting.structure.unit(late=False):
        return {"legal": True, "detail": f"an open pair on fourth street may bet the big bet of {big}",
                "rule": cite("open_pair_big_bet"), "numbers": {"to": command.to, "open_pair_to": big}}
    return allowed(state.betting, command.position, command.action, command.to)


def _texts(text: Any) -> list[str]:
    if not isinstance(text, str):
        raise Violation("validation_error", f"cards are text like 'AsKd', not {text!r}")
    return [format_card(c) for c in parse_cards(text)]


def _start(request: Mapping[str, Any], game: dealt_games.Game, players: tuple[str, ...],
           stacks: tuple[Amount, ...]) -> mixed.StartHand:
    description = dict(request.get("betting") or {})
    bring_in = description.pop("bring_in", 0) or 0
    structure = BettingStructure.from_dict(description)
    n = len(players)
    stud = game.family == dealt_games.STUD
    if stud and (structure.small_blind or structure.big_blind):
        raise Violation("validation_error", "stud games have antes and a bring-in, no blinds")
    if not stud and bring_in:
        raise Violation("validation_error", "only stud games have a bring-in")
    if not stud and not structure.big_blind:
        raise Violation("validation_error", f"{game.name} needs blinds (small_blind, big_blind)")
    if stud and bring_in >= structure.unit(late=False):
        raise Violation("validation_error", f"the bring-in ({bring_in}) is below the small bet")
    blinds = (0,) * n if stud else (structure.small_blind, structure.big_blind) + (0,) * (n - 2)
    antes = (0, structure.ante) + (0,) * (n - 2) if structure.big_blind_ante else (structure.ante,) * n
    return mixed.StartHand(game.name, players, stacks, n - 1, structure, antes, blinds,
                           bring_in=bring_in, dead_antes=structure.big_blind_ante)


class _Dealer:
    """Deals what the hand waits for from the request's cards, unknown cards beyond them."""

    def __init__(self, hole: dict[int, list[str]], received: dict[int, list[str]],
                 board: list[str]) -> None:
        self.hole, self.received, self.board = hole, received, board

    def deal_due(self, state: MixedState) -> MixedState:
        while not state.over and state.phase in ("deal", "board"):
            if state.phase == "board":
                dealt = len(state.board)
                due = dealt_games.FLOP_BOARD[state.street]
                cards = self.board[dealt:dealt + due]
                cards += [UNKNOWN] * (due - len(cards))
                state = mixed.handle(state, mixed.DealBoard("".join(cards)))[1]
                continue
            seat = next(s for s in range(len(state.due))
                        if state.due[s] and not state.betting.folded[s])
            game = state.game
            held = len(state.hole[seat])
            due = _STUD_STREET_CARDS[state.street] if game.family == dealt_games.STUD else game.hand_size
            cards = self.hole.get(seat, [])[held:held + due]
            cards += [UNKNOWN] * (due - len(cards))
            state = mixed.handle(state, mixed.DealCards(seat, "".join(cards)))[1]
        return state

    def replacements(self, seat: int, count: int) -> str:
        cards = self.received.get(seat, [])[:count]
        self.received[seat] = self.received.get(seat, [])[count:]
        return "".join(cards + [UNKNOWN] * (count - len(cards)))


def _command(state: MixedState, seat_of: Mapping[str, int], action: Any,
             dealer: _Dealer) -> Any:
    if not isinstance(action, Mapping):
        raise Violation("validation_error", f"an action is an object, not {action!r}")
    seat = seat_named(seat_of, action.get("player"))
    kind = action.get("action")
    if not isinstance(kind, str):
        raise Violation("illegal_action", f"unknown action {kind!r}", numbers={"action": kind})
    if kind != "draw":
        return PostAction(seat, kind, action.get("to"))
    if state.game.family != dealt_games.DRAW:
        raise Violation("illegal_action", f"{state.game.name} has no draw")
    discard = action.get("discard", 0)
    if isinstance(discard, int) and not isinstance(discard, bool):
        thrown = UNKNOWN * discard
    elif isinstance(discard, list):
        thrown = "".join(_texts("".join(discard)))
    else:
        thrown = "".join(_texts(discard))
    return _Draw(seat, thrown, dealer)


class _Draw:
    """A draw in a ruling: the discard, then the replacements dealt at once."""

    def __init__(self, position: int, thrown: str, dealer: _Dealer) -> None:
        self.position, self.thrown, self.dealer = position, thrown, dealer


def _apply(state: MixedState, command: Any) -> tuple[list[Any], MixedState]:
    if not isinstance(command, _Draw):
        return mixed.handle(state, command)
    events, state = mixed.handle(state, draw_family.Discard(command.position, command.thrown))
    count = len(command.thrown) // 2
    if count:  # the replacements come right after the discard
        cards = command.dealer.replacements(command.position, count)
        more, state = mixed.handle(state, mixed.DealCards(command.position, cards))
        events += more
    return events, state


def _all_known(state: MixedState) -> bool:
    return None not in state.board and all(
        None not in state.hole[seat] for seat in state.betting.contenders)


def _answer(state: MixedState) -> dict[str, Any]:
    names = state.players
    to_act = state.to_act
    names_of_rounds = _STREET_NAMES[state.game.family]
    legal = mixed_legal(state)
    answer: dict[str, Any] = {
        "round": "showdown" if state.phase == "showdown" or state.showdown
        else names_of_rounds[min(state.street, len(names_of_rounds) - 1)],
        "to_act": names[to_act] if to_act is not None else None,
        "hand_over": state.over,
        "legal": legal,
    }
    if state.phase == "draw" and not state.over and state.next_to_draw is not None:
        answer["to_draw"] = names[state.next_to_draw]
    answer.update(money(names, state.over, state.awards, (), state.pots, state.stacks))
    return answer
