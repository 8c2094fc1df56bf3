"""Stateless adjudication: POST /v1/rulings/betting as a pure function (api.md).

The situation is replayed through the hold'em/Omaha decider: seats clockwise from left of
the button (the button last), actions in order with rounds closing by themselves. Board
cards come from `cards.board` when given; otherwise betting moves on over cards nobody
named (they are never reported and never settle a showdown).
"""
from __future__ import annotations

from typing import Any, Mapping

from domain.betting import Amount, BettingStructure, LegalActions
from domain.cards import format_card, parse_cards
from domain.games import holdem
from domain.games.holdem import HandState
from domain.violations import Violation

GAMES = ("holdem", "omaha")


def betting_ruling(request: Mapping[str, Any]) -> dict[str, Any]:
    """Answer a betting ruling request; raises Violation for a malformed request, and for an
    illegal action sequence a Violation whose numbers["index"] is the first illegal action."""
    game = request.get("game", "holdem")
    if game not in GAMES:
        raise Violation("validation_error", f"betting rulings cover {', '.join(GAMES)}, not {game!r}")
    structure = BettingStructure.from_dict(request.get("betting") or {})
    players, stacks = _seats(request)
    seat_of = {name: seat for seat, name in enumerate(players)}
    button = request.get("button")
    if button is not None and button != players[-1]:
        raise Violation("validation_error",
                        f"the button must be the last seat ({players[-1]}), not {button!r}")
    cards = request.get("cards") or {}
    hole = cards.get("hole") or {}
    board = parse_cards(cards.get("board") or "")
    if len(board) > 5:
        raise Violation("invalid_card", f"a board has at most 5 cards, not {len(board)}")
    _, state = holdem.handle(None, holdem.StartHand(players, stacks, len(players) - 1, structure, game))
    for name, text in hole.items():
        state = _run(state, holdem.DealHole(_seat(seat_of, name), text))
    filler = _filler(state, board)
    for index, action in enumerate(request.get("actions") or []):
        state = _deal_due(state, board, filler)
        try:
            state = _run(state, _post_action(seat_of, action))
        except Violation as violation:
            raise Violation(violation.code, f"action {index}: {violation.detail}", violation.rule,
                            {**violation.numbers, "index": index}) from None
    state = _deal_due(state, board, filler)
    if state.awaiting == "showdown" and len(board) == 5 and all(
            state.hole[s] is not None for s in state.betting.contenders):
        state = _run(state, holdem.SettleShowdown())
    answer = _answer(state)
    proposed = request.get("proposed")
    if proposed is not None:
        answer["verdict"] = _verdict(state, seat_of, proposed)
    return answer


def _seats(request: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[Amount, ...]]:
    seats = request.get("seats")
    if not isinstance(seats, list) or len(seats) < 2:
        raise Violation("validation_error", "seats must list at least two players")
    players, stacks = [], []
    for seat in seats:
        name, stack = seat.get("player"), seat.get("stack")
        if not isinstance(name, str) or isinstance(stack, bool) or not isinstance(stack, int) or stack <= 0:
            raise Violation("validation_error", f"each seat needs a player name and a stack above 0: {seat!r}")
        players.append(name)
        stacks.append(stack)
    if len(set(players)) != len(players):
        raise Violation("validation_error", "player names must be distinct")
    return tuple(players), tuple(stacks)


def _seat(seat_of: Mapping[str, int], name: Any) -> int:
    if name not in seat_of:
        raise Violation("validation_error", f"{name!r} is not seated", numbers={"player": name})
    return seat_of[name]


def _post_action(seat_of: Mapping[str, int], action: Mapping[str, Any]) -> holdem.PostAction:
    return holdem.PostAction(_seat(seat_of, action.get("player")), action.get("action"), action.get("to"))


def _run(state: HandState, command: Any) -> HandState:
    return holdem.handle(state, command)[1]


def _filler(state: HandState, board: tuple[int, ...]) -> tuple[int, ...]:
    """Stand-in board cards for betting past streets the request gives no cards for."""
    used = set(board)
    for cards in state.hole:
        used.update(cards or ())
    return tuple(c for c in range(52) if c not in used)[:5]


def _deal_due(state: HandState, board: tuple[int, ...], filler: tuple[int, ...]) -> HandState:
    while state.awaiting in ("flop", "turn", "river"):
        dealt = len(state.board)
        due = 3 if dealt == 0 else 1
        known = board[dealt:dealt + due] if len(board) >= dealt + due else filler[dealt:dealt + due]
        state = _run(state, holdem.DealBoard("".join(format_card(c) for c in known)))
    return state


def _legal(legal: LegalActions | None) -> dict[str, Any] | None:
    if legal is None:
        return None
    shape: dict[str, Any] = {
        "fold": legal.fold, "check": legal.check,
        "call": {"to": legal.call.to, "adds": legal.call.adds} if legal.call else None,
        "bet": {"min_to": legal.bet.min_to, "max_to": legal.bet.max_to} if legal.bet else None,
        "raise": {"min_to": legal.raise_.min_to, "max_to": legal.raise_.max_to} if legal.raise_ else None,
    }
    if legal.raise_closed_reason is not None:
        shape["raise_closed_reason"] = legal.raise_closed_reason
    return shape


def _answer(state: HandState) -> dict[str, Any]:
    names = state.players
    to_act = state.to_act
    answer: dict[str, Any] = {
        "round": state.round,
        "to_act": names[to_act] if to_act is not None else None,
        "hand_over": state.over,
        "legal": _legal(holdem.legal_actions(state)),
    }
    if state.over:
        answer["pots"] = [{"amount": a.amount, "eligible": [names[s] for s in a.eligible],
                           "winners": [names[s] for s in a.winners],
                           "shares": {names[s]: share for s, share in zip(a.winners, a.shares)}}
                          for a in state.awards]
        returned: dict[str, Amount] = {}
        for seat, amount in state.returned:
            returned[names[seat]] = returned.get(names[seat], 0) + amount
        answer["returned"] = returned
    else:
        answer["pots"] = [{"amount": p.amount, "eligible": [names[s] for s in p.eligible]}
                          for p in state.pots]
    answer["stacks"] = {name: stack for name, stack in zip(names, state.stacks)}
    return answer


def _verdict(state: HandState, seat_of: Mapping[str, int], proposed: Mapping[str, Any]) -> dict[str, Any]:
    try:
        holdem.decide(state, _post_action(seat_of, proposed))
    except Violation as violation:
        return {"legal": False, "code": violation.code, "detail": violation.detail}
    return {"legal": True}
