"""Redaction: what each role may see of a table, its event log, hand histories and states.

- floor staff and admins see everything, the deck order and salt included;
- a player sees their own hole cards, nobody else's;
- spectators see no hidden card;
- everyone sees cards shown at the showdown and the board;
- the deck order and salt stay hidden (but from the floor) until the hand is over, then
  everyone sees them, so anyone can check the deal against the commitment.

Events are redacted one at a time with the metadata the application layer wrote on them
(`hand_id`, and `visible_to` for private cards), so a slice of the log needs no context
beyond which hand is still being played.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from domain import table
from domain.betting import LegalActions
from domain.cards import format_card, parse_cards, verify_deck_commitment

SEES_EVERYTHING = ("admin", "floor")
# Fields that hold the shuffle's secrets until the hand is over: record type -> fields.
SECRET_FIELDS = {"HandStarted": ("deck",), "HandOpened": ("salt",)}


@dataclass(frozen=True)
class Viewer:
    role: str
    player_id: str | None = None

    @property
    def sees_everything(self) -> bool:
        return self.role in SEES_EVERYTHING

    def sees_cards_of(self, player_id: str | None) -> bool:
        return self.sees_everything or (self.player_id is not None and self.player_id == player_id)


def live_hand(state: table.TableState | None) -> str | None:
    """The hand whose secrets are still secret: the one being played, if any."""
    if state is None or not state.hand_in_progress:
        return None
    return state.hand_id


def redact_event(event: Mapping[str, Any], viewer: Viewer, live_hand_id: str | None) -> dict[str, Any]:
    """`event`: {"version", "type", "data", "metadata", ["recorded_at"]} -> what the viewer may see."""
    metadata = event.get("metadata") or {}
    data = dict(event["data"])
    if "visible_to" in metadata and not viewer.sees_cards_of(metadata["visible_to"]):
        data["cards"] = None
    hand_id = metadata.get("hand_id")
    if hand_id is not None and hand_id == live_hand_id and not viewer.sees_everything:
        for name in SECRET_FIELDS.get(event["type"], ()):
            data[name] = None
    shown: dict[str, Any] = {"version": event["version"], "type": event["type"], "data": data}
    if hand_id is not None:
        shown["hand_id"] = hand_id
    if "recorded_at" in event:
        shown["recorded_at"] = event["recorded_at"]
    return shown


def redact_events(events: Iterable[Mapping[str, Any]], viewer: Viewer,
                  live_hand_id: str | None) -> list[dict[str, Any]]:
    return [redact_event(e, viewer, live_hand_id) for e in events]


def legal_view(legal: LegalActions | None) -> dict[str, Any] | None:
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


def legal_actions_view(state: table.TableState) -> dict[str, Any]:
    if not state.hand_in_progress:
        return {"to_act": None, "legal": None}
    legal = table.game_rules(state.game).module.legal_actions(state.hand)
    return {"to_act": state.to_act, "legal": legal_view(legal)}


def table_view(state: table.TableState, version: int, viewer: Viewer) -> dict[str, Any]:
    hand = state.hand
    in_hand = {table_seat: hand_seat for hand_seat, table_seat in enumerate(state.hand_seats)} if hand else {}
    stacks = state.live_stacks
    seats = []
    for seat, player in enumerate(state.players):
        hand_seat = in_hand.get(seat)
        seats.append({
            "seat": seat,
            "player_id": player,
            "stack": stacks[seat],
            "status": _seat_status(state, seat, hand_seat),
            "bet": hand.betting.bets[hand_seat] if hand_seat is not None and state.hand_in_progress else 0,
            "cards": _visible_hole(state, hand_seat, viewer) if hand_seat is not None else None,
            "sitting_out": state.sitting_out[seat],
        })
    return {
        "id": state.table_id,
        "version": version,
        "game": state.game,
        "settings": state.settings,
        "ranked": state.ranked,
        "action_clock_s": state.action_clock_s,
        "clock": _clock_view(state.clock),
        "button": state.button,
        "hands_played": state.hands_played,
        "finished": state.finished,
        "seats": seats,
        "hand": hand_view(state, viewer) if hand is not None else None,
        "standings": _standings(state) if state.finished else None,
    }


def _clock_view(clock: table.ClockStarted | None) -> dict[str, Any] | None:
    """The running action clock: who must act by when (ms since the epoch)."""
    if clock is None:
        return None
    return {"player_id": clock.player_id, "seat": clock.seat, "deadline_at_ms": clock.deadline_at_ms}


def _seat_status(state: table.TableState, seat: int, hand_seat: int | None) -> str:
    if hand_seat is None or not state.hand_in_progress:
        return "out" if state.stacks[seat] == 0 else "waiting"
    betting = state.hand.betting
    if betting.folded[hand_seat]:
        return "folded"
    if betting.stacks[hand_seat] == 0:
        return "all_in"
    return "active"


def _visible_hole(state: table.TableState, hand_seat: int, viewer: Viewer) -> str | None:
    hand = state.hand
    cards = hand.hole[hand_seat]
    if cards is None:
        return None
    player = state.players[state.hand_seats[hand_seat]]
    if hand.shown[hand_seat] or viewer.sees_cards_of(player):
        return _text(cards)
    return None


def hand_view(state: table.TableState, viewer: Viewer, *, secrets_revealed: bool | None = None) -> dict[str, Any]:
    """The hand as the viewer may see it. `secrets_revealed`: whether the hand is over now
    (defaults to this state's own view; a replay to an earlier version passes the truth)."""
    hand = state.hand
    names = [state.players[s] for s in state.hand_seats]
    over = hand.over
    to_act = hand.to_act
    view: dict[str, Any] = {
        "id": state.hand_id,
        "number": state.hands_played,
        "button": state.button,
        "players": names,
        "round": hand.round,
        "over": over,
        "to_act": names[to_act] if to_act is not None else None,
        "board": _text(hand.board),
        "pots": [{"amount": pot.amount, "eligible": [names[s] for s in pot.eligible]} for pot in hand.pots],
        "awards": [{"amount": a.amount, "winners": [names[s] for s in a.winners],
                    "shares": dict(zip((names[s] for s in a.winners), a.shares))} for a in hand.awards],
        "hole": {names[s]: _visible_hole(state, s, viewer) for s in range(len(names))},
        "stacks": dict(zip(names, hand.stacks)),
        "deal": deal_view(state, viewer, over if secrets_revealed is None else secrets_revealed),
    }
    return view


def deal_view(state: table.TableState, viewer: Viewer, revealed: bool) -> dict[str, Any]:
    """The provably fair deal: the commitment always; deck and salt once the hand is over
    (floor and admin at any time), with the check anyone can redo."""
    shown = revealed or viewer.sees_everything
    deck = state.hand.deck if shown else None
    salt = state.salt if shown else None
    verified = None
    if deck is not None and salt is not None and state.commitment is not None:
        verified = verify_deck_commitment(parse_cards(deck), bytes.fromhex(salt), state.commitment)
    return {
        "commitment": state.commitment,
        "scheme": "sha256(<deck cards concatenated>|<salt hex>)",
        "deck": "".join(deck) if deck is not None else None,
        "salt": salt,
        "verified": verified,
    }


def _standings(state: table.TableState) -> list[dict[str, Any]]:
    return [{"player_id": s.player_id, "place": s.place, "stack": s.stack}
            for s in table.standings(state)]


def _text(cards: Iterable[int]) -> str:
    return "".join(format_card(c) for c in cards)
