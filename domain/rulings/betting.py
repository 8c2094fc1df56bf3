"""Stateless adjudication: POST /v1/rulings/betting as a pure function (api.md).

The situation is replayed through the hold'em/Omaha decider: seats clockwise from left of
the button (the button last), actions in order with rounds closing by themselves. Board
cards come from `cards.board` when given; otherwise betting moves on over cards nobody
named (they are never reported and never settle a showdown).

Five-card draw (`"game": "five-card-draw"`) replays through the draw decider instead: an
ante game whose unit (`betting.min_bet`, the smallest bet) is twice the ante, with `draw`
actions (`discard`: a list of cards, or a count). `cards.hole` gives hands as dealt and
`cards.received` the cards drawn; unknown cards are stood in for (domain.history.phh_draw's
recorded_deck), so they never settle a showdown: the ruling then stops at it.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from domain.games import holdem
from domain.games.dealt_games import GAMES as MIXED_GAMES
from domain.games.draw import engine as draw_engine
from domain.games.draw import legal as draw_legal
from domain.games.draw import state as draw_state
from domain.games.draw import stream as draw_stream
from domain.games.draw.commands import Discard, FalseOpeners, OpenWithoutProof, Redeal, StartHand
from domain.games.draw.events import CardsShown, FalseOpenersFound, HandEnded, OpenersShown
from domain.games.draw.state import DRAW, FIRST_ROUND, HAND_SIZE, REDEAL, SECOND_ROUND
from domain.games.draw_settings import ACE_RANK_INDEX, DrawSettings
from domain.games.hand_events import ActionTaken, CardsMucked, PostAction, PotAwarded, UncalledReturned
from domain.games.holdem import HandState
from domain.history.phh import UNKNOWN_CARD
from domain.history.phh_draw import recorded_deck
from domain.rules.betting import Amount, BettingStructure
from domain.rules.cards import JOKER, format_card, parse_cards
from domain.rules.citations import cite
from domain.rules.legal_shapes import legal_as_ruled
from domain.rules.violations import Violation
from domain.rulings.betting_mixed import mixed_betting_ruling
from domain.rulings.common import allowed, money, refused, seat_named, seated

FIVE_CARD_DRAW = "five-card-draw"
# The mixed games (stud, razz, hi-lo, lowball draws, badugi, short deck): domain.rulings.betting_mixed.
GAMES = ("holdem", "omaha", FIVE_CARD_DRAW, *MIXED_GAMES)
# Five-card draw settings a ruling may name beside the betting description (api.md).
DRAW_RULING_SETTINGS = ("draw_limit", "opening", "second_round_start", "joker")
# A draw request's action as read, before anything is replayed: (seat, action, discard, to).
# The action's name is whatever the request said: the draw decider refuses an unknown one.
DrawShape = tuple[int, Any, Any, Any]


def betting_ruling(request: Mapping[str, Any]) -> dict[str, Any]:
    """Answer a betting ruling request; raises Violation for a malformed request, and for an
    illegal action sequence a Violation whose numbers["index"] is the first illegal action."""
    game = request.get("game", "holdem")
    if game not in GAMES:
        raise Violation("validation_error", f"betting rulings cover {', '.join(GAMES)}, not {game!r}")
    if game == FIVE_CARD_DRAW:
        return draw_betting_ruling(request)
    if game in MIXED_GAMES:
        return mixed_betting_ruling(request)
    state, seat_of = replayed_holdem(request)
    answer = _answer(state)
    proposed = request.get("proposed")
    if proposed is not None:
        answer["verdict"] = _verdict(state, seat_of, proposed)
    return answer


def replayed_holdem(request: Mapping[str, Any]) -> tuple[HandState, dict[str, int]]:
    """A hold'em or Omaha hand replayed from a ruling request (its `actions` in order; a
    showdown settled when every card is known), and each player's seat."""
    game = request.get("game", "holdem")
    structure = BettingStructure.from_dict(request.get("betting") or {})
    players, stacks, seat_of = seated(request)
    cards = request.get("cards") or {}
    hole = cards.get("hole") or {}
    board = parse_cards(cards.get("board") or "")
    if len(board) > 5:
        raise Violation("invalid_card", f"a board has at most 5 cards, not {len(board)}")
    _, state = holdem.handle(None, holdem.StartHand(players, stacks, len(players) - 1, structure, game))
    for name, text in hole.items():
        state = _run(state, holdem.DealHole(seat_named(seat_of, name), text))
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
    return state, seat_of


def _post_action(seat_of: Mapping[str, int], action: Mapping[str, Any]) -> PostAction:
    # The action's name is passed on as the request gave it: the decider refuses anything
    # but a betting action's name (illegal_action, quoting it), so no check is repeated here.
    return PostAction(seat_named(seat_of, action.get("player")), cast(str, action.get("action")), action.get("to"))


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


def _answer(state: HandState) -> dict[str, Any]:
    names = state.players
    to_act = state.to_act
    answer: dict[str, Any] = {
        # With the betting over and cards missing, stand-ins run the board out to settle
        # the pots: the hand waits at the showdown, not on a river nobody dealt.
        "round": "showdown" if state.awaiting == "showdown" else state.round,
        "to_act": names[to_act] if to_act is not None else None,
        "hand_over": state.over,
        "legal": legal_as_ruled(holdem.legal_actions(state)),
    }
    answer.update(money(names, state.over, state.awards, state.returned, state.pots, state.stacks))
    return answer


def _verdict(state: HandState, seat_of: Mapping[str, int], proposed: Mapping[str, Any]) -> dict[str, Any]:
    command = _post_action(seat_of, proposed)
    try:
        holdem.decide(state, command)
    except Violation as violation:
        return refused(violation)
    return allowed(state.betting, command.position, command.action, command.to)


# ---------------------------------------------------------------- five-card draw

_DRAW_ROUNDS = {FIRST_ROUND: "first_round", REDEAL: "first_round",
                DRAW: "draw", SECOND_ROUND: "second_round"}
_SETTLEMENT_EVENTS = (OpenersShown, CardsShown, CardsMucked, PotAwarded, HandEnded)


def draw_betting_ruling(request: Mapping[str, Any]) -> dict[str, Any]:
    """The betting ruling for five-card draw (same answer shape as hold'em, plus `draw`:
    who draws and how many cards they may exchange, and `drawn`: the public draw counts).
    An unopened first round is dealt again by itself (`redeals` counts it)."""
    replayed = replayed_draw(request)
    state, log = replayed.state, replayed.log
    answer = _draw_answer(state, log, replayed.last_round, replayed.at_showdown)
    found = next((e for e in log if isinstance(e, FalseOpenersFound)), None)
    if found is not None:
        answer["false_openers"] = _false_openers_answer(state, log, found)
    proposed = request.get("proposed")
    if proposed is not None:
        answer["verdict"] = _draw_verdict(state, log, replayed.seat_of, proposed, replayed.at_showdown)
    return answer


@dataclass(frozen=True)
class ReplayedDraw:
    """A five-card draw ruling request replayed: the state and its events, each player's
    seat, the last betting round reached, and whether it stopped before a showdown that
    unknown cards would have settled."""
    state: draw_state.HandState
    log: list[Any]
    seat_of: dict[str, int]
    last_round: str
    at_showdown: bool


def replayed_draw(request: Mapping[str, Any]) -> ReplayedDraw:
    """A five-card draw hand replayed from a ruling request (its `actions` in order)."""
    players, stacks, seat_of = seated(request)
    settings = _draw_settings(request)
    actions = list(request.get("actions") or [])
    commands = [_draw_command_shape(seat_of, action) for action in actions]
    cards = request.get("cards") or {}
    hole = {seat_named(seat_of, name): _card_texts(text) for name, text in (cards.get("hole") or {}).items()}
    received = {seat_named(seat_of, name): _card_texts(text)
                for name, text in (cards.get("received") or {}).items()}
    for seat, hand in hole.items():
        if len(hand) != HAND_SIZE:
            raise Violation("invalid_card", f"{players[seat]} is dealt {HAND_SIZE} cards, "
                            f"not {len(hand)}", numbers={"player": players[seat]})
    receipts = [_receipt(players, seat, discard, received.get(seat))
                for seat, kind, discard, _ in commands if kind in _DRAWS]
    proposed = request.get("proposed")
    draws = [*commands, *([_draw_command_shape(seat_of, proposed)] if proposed is not None else [])]
    deck = recorded_deck(settings, [hole.get(seat) or _unknown_hand(draws, seat)
                                    for seat in range(len(players))], receipts)
    log, state = draw_engine.handle(None, StartHand(players, len(players) - 1, settings, deck.deck,
                                                  stacks, reshuffle_order=deck.reshuffle_order))
    fillers = set(deck.fillers)
    last_round = _DRAW_ROUNDS[state.phase]
    stopped_at_showdown = False
    for index, shape in enumerate(commands):
        try:
            if stopped_at_showdown:
                raise Violation("hand_over", "the hand has reached the showdown")
            events, after = _replayed(state, shape)
        except Violation as violation:
            raise Violation(violation.code, f"action {index}: {violation.detail}", violation.rule,
                            {**violation.numbers, "index": index}) from None
        if after.phase == REDEAL:
            redeal = recorded_deck(settings, [[UNKNOWN_CARD] * HAND_SIZE] * len(after.contenders),
                                   receipts)
            fillers |= redeal.fillers
            more, after = draw_engine.handle(after, Redeal(redeal.deck, reshuffle_order=redeal.reshuffle_order))
            events += more
        if after.over and after.showdown and _needs_unknown_cards(after, fillers):
            # Cards nobody named never settle a showdown: stop just before it.
            settled = next(k for k, e in enumerate(events) if isinstance(e, _SETTLEMENT_EVENTS))
            events = events[:settled]
            after = draw_stream.replay([*log, *events])
            stopped_at_showdown = True
        log += events
        state = after
        if not state.over:
            last_round = _DRAW_ROUNDS[state.phase]
    return ReplayedDraw(state, log, seat_of, last_round, stopped_at_showdown)


_DRAWS = ("draw", "split_openers")


def _unknown_hand(draws: list[DrawShape], seat: int) -> list[str]:
    """A hand nobody named, holding the cards its draw names as thrown away: the discards
    came from it, so a draw that names them is never refused for want of them."""
    named = next((discard for drawer, kind, discard, _ in draws
                  if drawer == seat and kind in _DRAWS and isinstance(discard, list)), [])
    if len(named) > HAND_SIZE:
        named = []  # the draw itself is refused for its size
    return [*named, *[UNKNOWN_CARD] * (HAND_SIZE - len(named))]


def _replayed(state: draw_state.HandState, shape: DrawShape) -> tuple[list[Any], draw_state.HandState]:
    """One action as it happened at the table. An opening bet by a player whose cards hold
    no openers is a false open as made (nobody checks openers at the bet in a live game):
    it stands until the floor finds it (`false_openers`) or the end of the hand does."""
    try:
        return draw_engine.handle(state, _draw_command(state, shape))
    except Violation as violation:
        seat, kind, _, to = shape
        if violation.code != "no_openers" or kind != "bet":
            raise
        return draw_engine.handle(state, OpenWithoutProof(seat, to))


def _false_openers_answer(state: draw_state.HandState, log: list[Any], found: Any) -> dict[str, Any]:
    name = state.players[found.position]
    opened = _opening_bet(log, found.position)
    if found.outcome == "carried":
        detail = (f"{name} opened for {opened:,} without openers: a dead hand; nobody else had acted "
                  "after the open (or no live hand is left), so the antes and the opening bet stay in "
                  "the pot for the next deal")
    else:
        detail = (f"{name} opened for {opened:,} without openers: a dead hand, their chips stay in "
                  "the pot, which plays among the others")
    return {"player": name, "outcome": found.outcome, "rule": cite("false_openers"), "detail": detail}


def _draw_settings(request: Mapping[str, Any]) -> DrawSettings:
    """The table's settings from the betting description (the unit is twice the ante) and
    the optional `settings` object (draw_limit, opening, second_round_start, joker)."""
    betting = dict(request.get("betting") or {})
    if any(betting.get(name) for name in ("small_blind", "big_blind", "straddles", "big_blind_ante")):
        raise Violation("validation_error", "five-card draw is an ante game: send no blinds; "
                        "betting.min_bet is the unit (twice the ante)")
    structure = betting.get("structure", "no-limit")
    unit_fields = {"min_bet": 1, "small_bet": 1, "big_bet": 2}
    units = {name: betting[name] // per for name, per in unit_fields.items()
             if isinstance(betting.get(name), int) and betting[name] % per == 0 and betting[name]}
    ante = betting.get("ante") or (next(iter(units.values())) // 2 if units else DrawSettings().ante)
    if not isinstance(ante, int) or isinstance(ante, bool) or ante < 1:
        raise Violation("validation_error", "the unit (min_bet) must be twice a whole ante of at least 1")
    for name, per in unit_fields.items():
        stated = betting.get(name)
        if stated is not None and stated != per * 2 * ante:
            raise Violation("validation_error",
                            f"betting.{name} is {stated}, but five-card draw bets a unit of twice the "
                            f"ante ({ante}): {name} must be {per * 2 * ante}",
                            numbers={name: stated, "ante": ante})
    return DrawSettings.from_dict({"structure": structure, "ante": ante, **_extra_settings(request),
                                   **_caps(betting)})


def _caps(betting: Mapping[str, Any]) -> dict[str, Any]:
    return {name: betting[name] for name in ("raise_cap", "heads_up_uncapped") if name in betting}


def _extra_settings(request: Mapping[str, Any]) -> dict[str, Any]:
    extra = request.get("settings") or {}
    if not isinstance(extra, Mapping):
        raise Violation("validation_error", "settings must be an object")
    unknown = sorted(set(extra) - set(DRAW_RULING_SETTINGS))
    if unknown:
        raise Violation("validation_error", f"a draw ruling takes the settings {list(DRAW_RULING_SETTINGS)}, "
                        f"not {unknown}")
    return dict(extra)


def _card_texts(text: Any) -> list[str]:
    if not isinstance(text, str):
        raise Violation("validation_error", f"cards are text like 'AsKd', not {text!r}")
    return [format_card(c) for c in parse_cards(text)]


def _draw_command_shape(seat_of: Mapping[str, int], action: Any) -> DrawShape:
    """(seat, action, discard, to), checked for shape before anything is replayed."""
    if not isinstance(action, Mapping):
        raise Violation("validation_error", f"an action is an object, not {action!r}")
    seat = seat_named(seat_of, action.get("player"))
    kind = action.get("action")
    if kind not in _DRAWS:
        return seat, kind, None, action.get("to")
    discard = action.get("discard")
    if isinstance(discard, bool) or not isinstance(discard, (int, list, str)):
        raise Violation("validation_error", "a draw names its `discard`: a list of cards or a count")
    if isinstance(discard, int) and not 0 <= discard <= HAND_SIZE:
        raise Violation("validation_error", f"a draw discards 0 to {HAND_SIZE} cards, not {discard}")
    if not isinstance(discard, int):
        discard = _card_texts("".join(discard) if isinstance(discard, list)
                              and all(isinstance(c, str) for c in discard) else discard)
    return seat, kind, discard, None


def _receipt(players: tuple[str, ...], seat: int, discard: int | list[str],
             received: list[str] | None) -> list[str]:
    count = discard if isinstance(discard, int) else len(discard)
    if received is None:
        return [UNKNOWN_CARD] * count
    if len(received) != count:
        raise Violation("invalid_card", f"{players[seat]} discards {count} and so receives {count} "
                        f"cards, not {len(received)}", numbers={"player": players[seat]})
    return received


def _draw_command(state: draw_state.HandState, shape: DrawShape) -> Any:
    seat, kind, discard, to = shape
    if kind == "false_openers":
        return FalseOpeners(seat)
    if kind not in _DRAWS:
        return PostAction(seat, kind, to)
    split = kind == "split_openers"
    if not isinstance(discard, int):
        return Discard(seat, tuple(discard), split_openers=split)
    # A count: throw the lowest cards, keeping aces and the joker (what a 4-card draw needs).
    held = state.hands[seat] if 0 <= seat < state.seat_count else ()
    lowest_first = sorted(held, key=lambda c: (c == JOKER or c >> 2 == ACE_RANK_INDEX, c))
    return Discard(seat, tuple(format_card(c) for c in lowest_first[:discard]), split_openers=split)


def _needs_unknown_cards(state: draw_state.HandState, fillers: set[str]) -> bool:
    return any(format_card(card) in fillers for seat in state.contenders for card in state.hands[seat])


def _draw_answer(state: draw_state.HandState, log: list[Any], last_round: str,
                 at_showdown: bool) -> dict[str, Any]:
    names = state.players
    to_act = None if at_showdown else state.to_act
    shown_round = ("showdown" if state.showdown else last_round) if state.over else "showdown" if at_showdown else _DRAW_ROUNDS[state.phase]
    answer: dict[str, Any] = {
        "round": shown_round,
        "to_act": names[to_act] if to_act is not None else None,
        "hand_over": state.over,
        "legal": None if at_showdown else legal_as_ruled(draw_legal.legal_actions(state)),
    }
    options = draw_legal.legal_draw(state)
    if options is not None:
        answer["draw"] = {"player": names[options.position], "most": options.most,
                          "most_keeping_no_ace": options.most_keeping_no_ace}
    answer["drawn"] = {names[seat]: count for seat, count in enumerate(state.drawn) if count is not None}
    answer["redeals"] = state.redeals
    returned = tuple((e.position, e.amount) for e in log if isinstance(e, UncalledReturned))
    answer.update(money(names, state.over, state.awards, returned, state.pots, state.stacks))
    return answer


def _draw_verdict(state: draw_state.HandState, log: list[Any], seat_of: Mapping[str, int],
                  proposed: Mapping[str, Any], at_showdown: bool) -> dict[str, Any]:
    try:
        if at_showdown:
            raise Violation("hand_over", "the hand has reached the showdown")
        shape = _draw_command_shape(seat_of, proposed)
        events = draw_engine.decide(state, _draw_command(state, shape))
    except Violation as violation:
        if violation.code == "validation_error":
            raise
        return refused(violation)
    seat, kind, discard, to = shape
    if kind in ("draw", "split_openers", "false_openers"):
        # Not betting: the verdict reads out the draw or the openers ruling itself.
        return _draw_phase_verdict(state, log, events, seat, kind, discard)
    return allowed(state.betting, seat, kind, to)


def _draw_phase_verdict(state: draw_state.HandState, log: list[Any], events: list[Any], seat: int, kind: str,
                        discard: int | list[str]) -> dict[str, Any]:
    name = state.players[seat]
    if kind == "false_openers":
        found = next(e for e in events if isinstance(e, FalseOpenersFound))
        ruled = _false_openers_answer(state, [*log, *events], found)
        return {"legal": True, "detail": ruled["detail"], "rule": ruled["rule"],
                "numbers": {"opened": _opening_bet(log, seat), "outcome": found.outcome}}
    count = discard if isinstance(discard, int) else len(discard)
    if kind == "split_openers":
        return {"legal": True, "rule": cite("split_openers"), "numbers": {"discard": count},
                "detail": f"{name} splits openers, drawing {count}: the discards are kept aside, "
                          "face down, to prove the openers"}
    options = draw_legal.legal_draw(state)
    assert options is not None  # draw_engine.decide accepted a draw, so a player is to draw
    limit = (f"at most {options.most} keeping an ace or the joker, else {options.most_keeping_no_ace}"
             if options.most != options.most_keeping_no_ace else f"at most {options.most}")
    return {"legal": True, "rule": cite("five_card_draw"), "detail": f"{name} draws {count}: {limit}",
            "numbers": {"discard": count, "most": options.most,
                        "most_keeping_no_ace": options.most_keeping_no_ace}}


def _opening_bet(log: list[Any], position: int) -> Amount:
    return next(e.to for e in log if isinstance(e, ActionTaken) and e.position == position and e.action == "bet")
