"""Redaction: what each role may see of a table, its event log, hand histories and states.

- floor staff and admins see every player's cards;
- a player sees their own hole cards and whatever else the game's events declare theirs
  (domain.secrecy: OWNER_ONLY, its owner named by `position`, or by `visible_to` when an
  event shows cards to several players), nobody else's;
- spectators see no hidden card;
- everyone sees cards shown at the showdown and the board;
- the deck orders, reshuffle orders, the shuffle's salt and the values behind a pending
  roll commitment stay hidden from EVERY role, floor and admin included (api.md: never
  visible before the hand ends), until the hand is over;
- then a hand committed card by card (domain.rules.deal_commitment: every card game's)
  shows its deck and secret to the floor and admin only (metadata `floor_only`); everyone
  gets the openings of the board (and of cards dealt face up) and of the hands shown, each player those of their own cards, so nobody learns a
  mucked card or one nobody saw. Hands committed whole (stored before their game was
  committed card by card) show their deck to everyone once over, so anyone can check it.

What a viewer sees of a hand (its cards, summary, seats, bets, legal actions and deal
check) is said by the game's adapter (domain.live.games, domain.live.mixed); this module
says who the viewer is and puts the table around it. Events are redacted one at a time
with the metadata the application layer wrote on them (`hand_id`, and `visible_to` for
private cards) and the fields each event declares owner-only (domain.secrecy), so a slice of the log needs no context beyond which hand is still being
played.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from domain.live import table, table_events, table_standings, table_state
from domain.live.games.common import DealSeal, Viewing
from domain.live.mixed import PRIVATE_EVENTS as PARTLY_PUBLIC_EVENTS
from domain.live.mixed import event_view
from domain.secrecy import secrets_named
from service.adapters.store.base import RecordedEvent, format_recorded_at
from service.application.sealing import hidden

SEES_EVERYTHING = ("admin", "floor")


@dataclass(frozen=True)
class Viewer:
    role: str
    player_id: str | None = None

    @property
    def sees_everything(self) -> bool:
        return self.role in SEES_EVERYTHING

    def sees_cards_of(self, player_id: str | list[str] | tuple[str, ...] | None) -> bool:
        """`player_id`: the owner of the cards, or the players allowed to see them."""
        if self.sees_everything:
            return True
        if isinstance(player_id, (list, tuple)):
            return self.player_id is not None and self.player_id in player_id
        return self.player_id is not None and self.player_id == player_id


def redact_event(event: Mapping[str, Any], viewer: Viewer) -> dict[str, Any]:
    """`event`: {"version", "type", "data", "metadata", ["recorded_at"], ["revealed"]} ->
    what the viewer may see. The sealed fields show only where the event says `revealed`
    (the store read them because the hand is closed, service.application.sealing); otherwise they read
    as null."""
    metadata = event.get("metadata") or {}
    data = dict(event["data"]) if event.get("revealed") else hidden(event["type"], event["data"])
    if "visible_to" in metadata and not viewer.sees_cards_of(metadata["visible_to"]):
        if event["type"] in PARTLY_PUBLIC_EVENTS:  # a mixed game's up cards, how many were drawn
            data = event_view(event["type"], data)
        else:
            for name in secrets_named(event["type"]).owner_only:
                data[name] = None
    if not viewer.sees_everything:
        for name in metadata.get("floor_only", ()):
            data[name] = None
    shown: dict[str, Any] = {"version": event["version"], "type": event["type"], "data": data}
    hand_id = metadata.get("hand_id")
    if hand_id is not None:
        shown["hand_id"] = hand_id
    if "recorded_at" in event:
        shown["recorded_at"] = event["recorded_at"]
    return shown


def redact_events(events: Iterable[Mapping[str, Any]], viewer: Viewer) -> list[dict[str, Any]]:
    return [redact_event(e, viewer) for e in events]


def redact_records(records: Iterable[RecordedEvent], viewer: Viewer) -> list[dict[str, Any]]:
    """Stored events as the viewer may see them; their sealed fields show only if the read
    revealed them."""
    return [redact_event({"version": r.version, "type": r.type,
                          "data": r.full_data() if r.revealed else r.data,
                          "metadata": r.metadata, "revealed": r.revealed,
                          "recorded_at": format_recorded_at(r.recorded_at)}, viewer)
            for r in records]


def tournament_records(records: Iterable[RecordedEvent]) -> list[dict[str, Any]]:
    """A tournament's events as anyone may see them: they hold no hidden cards; who wrote
    them (the metadata) is left out."""
    return [{"version": r.version, "type": r.type, "data": r.data,
             "recorded_at": format_recorded_at(r.recorded_at)} for r in records]


def legal_actions_view(state: table_state.TableState, viewer: Viewer | None = None) -> dict[str, Any]:
    """Who is to act and what they may do. Derived from public information (stacks, bets,
    the round) for anyone who may not see the acting player's cards (`viewer` None: staff);
    the game's adapter says what that leaves of its legal actions."""
    if not state.hand_in_progress:
        return {"to_act": None, "round": None, "legal": None}
    sees = None if viewer is None else viewer.sees_cards_of
    adapter = _adapter(state)
    # `legal` holds actions only, in every game; what else a game says of them (why raising
    # is closed) and the round (or a turn game's phase) stand beside it. A game whose
    # adapter gives both at once (`legal_answer`) computes its legal actions once for both.
    to_act = state.to_act
    both = getattr(adapter, "legal_answer", None)
    if both is not None:
        legal, notes = both(state.hand, to_act, sees)
    else:
        legal = adapter.legal_view(state.hand, to_act, sees)
        notes = adapter.legal_notes(state.hand) if hasattr(adapter, "legal_notes") else {}
    return {"to_act": to_act, "round": state.hand.round, "legal": legal, **notes}


def next_view(state: table_state.TableState, viewer: Viewer) -> dict[str, Any]:
    """What a client needs after a write to act next without another read: who is to act,
    what they may do, and the hand's public summary. Public information only: no hole card,
    no deck, whoever asks."""
    shown = legal_actions_view(state, viewer)
    shown["hand"] = hand_summary(state) if state.hand is not None else None
    return shown


def _adapter(state: table_state.TableState) -> Any:
    """The game's adapter (domain.live.games): it says what each viewer sees of its hand."""
    return table_state.game_rules(state.game).adapter


def hand_begun(state: table_state.TableState) -> bool:
    """Whether the state holds a hand whose game has started (a hand to show): between a
    hand's HandOpened and its game's start there is none yet."""
    return state.hand is not None and bool(_adapter(state).begun(state.hand))


def _names(state: table_state.TableState) -> list[str]:
    return [state.players[s] for s in state.hand_seats]


def hand_summary(state: table_state.TableState) -> dict[str, Any]:
    """The current (or last) hand's public state: round, board, pots, stacks, over."""
    return {"id": state.hand_id, "number": state.hands_played,
            **_adapter(state).hand_summary(state.hand, _names(state))}


def table_view(state: table_state.TableState, version: int, viewer: Viewer) -> dict[str, Any]:
    hand = state.hand
    in_hand = {table_seat: position for position, table_seat in enumerate(state.hand_seats)} if hand else {}
    stacks = state.live_stacks
    seats = []
    for seat, player in enumerate(state.players):
        position = in_hand.get(seat)
        seats.append({
            "seat": seat,
            "player_id": player,
            "stack": stacks[seat],
            "status": _seat_status(state, seat, position),
            "bet": _bet(state, position),
            "cards": _visible_hole(state, position, viewer) if position is not None else None,
            "sitting_out": state.sitting_out[seat],
        })
    return {
        "id": state.table_id,
        "version": version,
        "name": state.name,
        "game": state.game,
        "settings": state.settings,
        "betting": betting_view(state),
        "ranked": state.ranked,
        "action_clock_s": state.action_clock_s,
        "auto_deal": state.auto_deal,
        "clock": _clock_view(state.clock),
        "button": state.button,
        "hands_played": state.hands_played,
        "finished": state.finished,
        "cash": {"min_buy_in": state.min_buy_in, "max_buy_in": state.max_buy_in} if state.cash else None,
        "closing": state.closing,
        "seats": seats,
        "hand": hand_view(state, viewer) if hand is not None else None,
        "standings": _standings(state) if state.finished else None,
        "points": dict(zip(state.players, state.points)) if state.points and any(state.points) else None,
        "results": [{"player_id": r.player_id, "place": r.place, "outcome": r.outcome}
                    for r in state.results] if state.finished else None,
        "rotation": _rotation(state),
    }


def betting_view(state: table_state.TableState) -> dict[str, Any] | None:
    """The betting description (api.md) the table's hands are played with, at the same path
    in every game: the current hand's (a tournament's level sets it), else the table's;
    None for a game played for points."""
    if not table_state.game_rules(state.game).plays_for_chips(state.settings):
        return None
    hand = state.hand
    live = getattr(hand, "betting", None) or getattr(getattr(hand, "game", None), "betting", None)
    structure = getattr(live, "structure", None) or state.betting
    return dict(structure.description())


def _rotation(state: table_state.TableState) -> dict[str, Any] | None:
    """A rotation table's current (or last) game and the next one; None at other tables."""
    adapter = _adapter(state)
    if not hasattr(adapter, "rotation_view"):
        return None
    return adapter.rotation_view(state.hand, len(table.seats_dealt_in(state)))


def _bet(state: table_state.TableState, position: int | None) -> int:
    if position is None or not state.hand_in_progress:
        return 0
    return _adapter(state).bet(state.hand, position)


def _clock_view(clock: table_events.ClockStarted | None) -> dict[str, Any] | None:
    """The running action clock: who must act by when (ms since the epoch)."""
    if clock is None:
        return None
    return {"player_id": clock.player_id, "seat": clock.seat, "deadline_at_ms": clock.deadline_at_ms}


def _seat_status(state: table_state.TableState, seat: int, position: int | None) -> str:
    if position is None or not state.hand_in_progress:
        return "out" if state.stacks[seat] == 0 and state.hand_seats else "waiting"
    return _adapter(state).seat_status(state.hand, position)


def _visible_hole(state: table_state.TableState, position: int, viewer: Viewer) -> str | None:
    player = state.players[state.hand_seats[position]]
    return _adapter(state).hole_view(state.hand, position, player, viewer.sees_cards_of)


def _viewing(viewer: Viewer) -> Viewing:
    return Viewing(viewer.sees_cards_of, viewer.sees_everything)


def hand_view(state: table_state.TableState, viewer: Viewer, *, secrets_revealed: bool | None = None) -> dict[str, Any]:
    """The hand as the viewer may see it. `secrets_revealed`: whether the hand is over now
    (defaults to this state's own view; a replay to an earlier version passes the truth)."""
    names = _names(state)
    revealed = state.hand.over if secrets_revealed is None else secrets_revealed
    return {"id": state.hand_id, "number": state.hands_played, "button": state.button, "players": names,
            **_adapter(state).hand_view(state.hand, names, _viewing(viewer)),
            "deal": deal_view(state, viewer, revealed)}


def deal_view(state: table_state.TableState, viewer: Viewer, revealed: bool) -> dict[str, Any]:
    """The provably fair deal: the commitment always; deck and salt once the hand is over
    (floor and admin at any time), with the check anyone can redo."""
    # Nobody, floor and admin included, sees the deck or the salt while the hand is live.
    seal = DealSeal(state.commitment, state.deal_scheme, state.salt if revealed else None)
    return _adapter(state).deal_view(state.hand, _names(state), seal, revealed, _viewing(viewer))


def _standings(state: table_state.TableState) -> list[dict[str, Any]]:
    return [{"player_id": s.player_id, "place": s.place, "stack": s.stack}
            for s in table_standings.standings(state)]
