"""Who shows first: POST /v1/rulings/showdown-order as a pure function (api.md).

The request is the betting ruling's description (`game`, `betting`, `seats`, `button`,
`actions`, and `cards` for stud's up cards), replayed to the showdown; the answer is the
order in which the hands are tabled, and why:

- TDA 2024 16: a player is all in and every other player's betting is over: every hand is
  tabled at once (`all_in_tabled`); nobody shows "first".
- TDA 2024 17-A: otherwise the last aggressor of the final betting round shows first
  (`last_aggressor`); with no bet on it, the player who would act first on a betting round:
  the first seat left of the button in flop and draw games (`first_to_act`; five-card draw:
  the opener, who opens the round after the draw, unless the table opens it left of the
  dealer), the high board in stud and stud hi-lo (`high_board`), the low board in razz
  (`low_board`). The others follow clockwise (domain.rules.showdown_order, which live
  tables use too).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.games import dealt_games, stud
from domain.games.dealt_hand import MixedState, up_cards
from domain.games.draw_settings import OPENER
from domain.games.hand_events import PostAction
from domain.rules import showdown_order
from domain.rules.citations import cite
from domain.rules.violations import Violation
from domain.rulings.betting import FIVE_CARD_DRAW, GAMES, replayed_draw, replayed_holdem
from domain.rulings.betting_mixed import replayed_mixed

LAST_AGGRESSOR = "last_aggressor"
FIRST_TO_ACT = "first_to_act"
HIGH_BOARD = "high_board"
LOW_BOARD = "low_board"
ALL_IN_TABLED = "all_in_tabled"
REASONS = (LAST_AGGRESSOR, FIRST_TO_ACT, HIGH_BOARD, LOW_BOARD, ALL_IN_TABLED)
ORDER_GAMES = GAMES
_FINAL_ROUND = {dealt_games.STUD: "seventh street", dealt_games.FLOP: "the river", dealt_games.DRAW: "the last round"}


@dataclass(frozen=True)
class _Showdown:
    """What the order of show depends on, read off a hand replayed to its showdown."""
    players: tuple[str, ...]
    contenders: tuple[int, ...]
    stacks: tuple[Any, ...]
    button: int
    aggressor: int | None
    final_round: str


def showdown_order_ruling(request: Mapping[str, Any]) -> dict[str, Any]:
    """Answer a showdown-order request; raises Violation when the hand has no showdown yet
    (someone is still to act) or none at all (one hand left)."""
    game = request.get("game", "holdem")
    if game not in ORDER_GAMES:
        raise Violation("validation_error",
                        f"the order of show covers {', '.join(ORDER_GAMES)}, not {game!r}")
    if game in dealt_games.GAMES:
        showdown, first_to_act = _mixed_showdown(request)
    elif game == FIVE_CARD_DRAW:
        showdown, first_to_act = _draw_showdown(request)
    else:
        showdown, first_to_act = _holdem_showdown(request), None
    dealt = dealt_games.GAMES.get(game)
    return _ruling(showdown, first_to_act, bool(dealt and dealt.razz), bool(dealt and dealt.family == dealt_games.STUD))


def _holdem_showdown(request: Mapping[str, Any]) -> _Showdown:
    # The cards never change the order in a flop game; leaving them out keeps the pots unsettled.
    state, _ = replayed_holdem({**request, "cards": None})
    b = state.betting
    _check_at_showdown(state.players, b.contenders, state.to_act, state.awaiting == "showdown")
    return _Showdown(tuple(state.players), tuple(b.contenders), tuple(b.stacks), b.button, state.aggressor,
                     "the river")


def _draw_showdown(request: Mapping[str, Any]) -> tuple[_Showdown, int | None]:
    # As in hold'em, the cards never change the order; without them the hand stops at the showdown.
    replayed = replayed_draw({**request, "cards": None})
    state = replayed.state
    if state.betting is None:
        raise Violation("validation_error", "the order of show needs a five-card draw hand with betting")
    _check_at_showdown(state.players, state.contenders, state.to_act,
                       replayed.at_showdown or state.phase == "showdown")
    showdown = _Showdown(state.players, state.contenders, state.betting.stacks, state.button, state.aggressor,
                         "the round after the draw")
    # The round after the draw opens with the opener (or the next player still in to their
    # left) unless the table opens it left of the dealer (five-card-draw.md).
    if state.settings.second_round_start != OPENER or state.opener is None:
        return showdown, None
    n = state.seat_count
    return showdown, next((state.opener + step) % n for step in range(n)
                          if (state.opener + step) % n in state.contenders)


def _mixed_showdown(request: Mapping[str, Any]) -> tuple[_Showdown, int | None]:
    aggressors: dict[int, int] = {}

    def note_aggression(state: MixedState, command: Any) -> None:
        if isinstance(command, PostAction) and command.action in ("bet", "raise"):
            aggressors[state.street] = command.position

    state, _, _ = replayed_mixed(request, note_aggression)
    b = state.betting
    _check_at_showdown(state.players, b.contenders, state.to_act, state.phase == "showdown")
    game = state.game
    first_to_act = None
    if game.family == dealt_games.STUD:
        ups: Sequence[Any] = up_cards(state)  # a seat's unknown up card: None, refused below
        first_to_act = stud.opener_seat(ups, game.razz, (b.button + 1) % b.seat_count)
        if first_to_act is None:
            unknown = [state.players[s] for s in b.contenders if ups[s] is None or None in (ups[s] or ())]
            raise Violation("validation_error", f"stud's order of show with no bet on seventh street is "
                            f"by the board: name the up cards of {', '.join(unknown)} in cards.hole",
                            numbers={"players": unknown})
    showdown = _Showdown(state.players, b.contenders, b.stacks, b.button,
                         aggressors.get(game.rounds - 1), _FINAL_ROUND[game.family])
    return showdown, first_to_act


def _check_at_showdown(players: Sequence[str], contenders: Sequence[int], to_act: int | None,
                       at_showdown: bool) -> None:
    if len(contenders) < 2:
        winner = players[contenders[0]] if contenders else None
        raise Violation("no_showdown", f"only {winner} is left in the hand: the pot is won without "
                        "showing", cite("last_live_hand"), {"player": winner})
    if not at_showdown:
        due = players[to_act] if to_act is not None else None
        raise Violation("showdown_not_reached",
                        f"the betting is not over: {due} is to act" if due else "the betting is not over",
                        numbers={"to_act": due})


def _ruling(showdown: _Showdown, first_to_act: int | None, razz: bool, stud_board: bool) -> dict[str, Any]:
    names, contenders = showdown.players, showdown.contenders
    seat_count = len(names)
    if showdown_order.all_in_face_up(contenders, showdown.stacks):
        order = showdown_order.order_of_show(contenders, seat_count, showdown.button, None)
        all_in = [names[s] for s in order if showdown.stacks[s] == 0]
        words = (f"Every hand is tabled at once, face up ({cite('all_in_face_up')}): {_listed(all_in)} "
                 f"{'is' if len(all_in) == 1 else 'are'} all in and the betting is over, so "
                 f"{_listed([names[s] for s in order])} table their cards and nobody may muck.")
        return {"all_in": True, "order": [names[s] for s in order], "first": None,
                "reason": ALL_IN_TABLED, "rule": cite("all_in_face_up"), "words": words}
    aggressor = showdown.aggressor if showdown.aggressor in contenders else None
    name_of = names.__getitem__
    if aggressor is not None:
        first, reason = aggressor, LAST_AGGRESSOR
        why = f"{name_of(first)} made the last bet or raise on {showdown.final_round}"
    elif first_to_act is not None and not stud_board:
        first, reason = first_to_act, FIRST_TO_ACT
        why = f"nobody bet on {showdown.final_round}, and {name_of(first)}, who opened, acts first"
    elif first_to_act is not None:
        first, reason = first_to_act, LOW_BOARD if razz else HIGH_BOARD
        why = (f"nobody bet on {showdown.final_round}, and {name_of(first)}'s board, the "
               f"{'lowest' if razz else 'highest'} showing, acts first")
    else:
        first = next(s for s in ((showdown.button + step) % seat_count for step in range(1, seat_count + 1))
                     if s in contenders)
        reason = FIRST_TO_ACT
        why = (f"nobody bet on {showdown.final_round}, and {name_of(first)}, the first left of the "
               "button, acts first")
    order = showdown_order.order_of_show(contenders, seat_count, showdown.button, first)
    rest = [names[s] for s in order[1:]]
    single = len(rest) == 1
    words = (f"{names[first]} shows first ({cite('show_first')}): {why}. Then, clockwise, {_listed(rest)} "
             f"show{'s' if single else ''} or muck{'s' if single else ''}.")
    return {"all_in": False, "order": [names[s] for s in order], "first": names[first],
            "reason": reason, "rule": cite("show_first"), "words": words}


def _listed(names: Sequence[str]) -> str:
    """Names as said aloud: "Ann", "Ann and Bo", "Ann, Bo and Cy"."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"
