"""The floor's hand replayer (pages.md): a hand's events as steps a person walks through.

Each step is one event of the hand and the table as it was just after it: stacks, bets,
pots, the board, and the cards this viewer may see (service.application.views decides, as
it does for the API, so a page never shows more than the same key reads there). A step
that is a betting decision also says who acted, what was legal just before (the call, the
bet or raise range, or why raising was closed), the verdict and the rule applied, cited
from domain.rules.citations with its edition. A live hand ends with the deal check (the
commitment, verified once the hand is closed) and the chain check of its own range of the
table's stream (from the stored hash before it, so it costs the hand, not the table);
a PHH record (pasted, or stored by POST /v1/hand-histories?store=true) replays through
domain.history.phh into the same steps.

A record of any variant the API replays, pasted or stored, steps through its game's
decider (the one domain.registry names for its variant); a live table's hand of any
game steps through its events, with the ruling at each betting decision.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from domain import registry, secrecy
from domain.games import holdem, mixed
from domain.games.dealt_hand import MixedState
from domain.games.draw import legal as draw_legal
from domain.games.draw import state as draw_state
from domain.games.draw import stream as draw_stream
from domain.games.hand_events import ActionTaken
from domain.games.mixed_legal import mixed_legal
from domain.history import phh, phh_games
from domain.live import table, table_events, table_records, table_state
from domain.live.games.common import betting_status
from domain.live.mixed import PRIVATE_EVENTS as PARTLY_PUBLIC_EVENTS
from domain.live.mixed import MixedTableHand, event_view, hole_view, table_legal
from domain.records import from_record
from domain.rules import betting as bet
from domain.rules.betting import BettingState, chips
from domain.rules.cards import format_card
from domain.rules.citations import cite
from domain.rules.legal_shapes import legal_notes, legal_shape
from domain.rules.violations import Violation
from domain.rulings.betting import FIVE_CARD_DRAW as DRAW_GAME
from domain.rulings.common import allowed
from service.adapters.store.base import EventStore, RecordedEvent, Reveal, Verification
from service.application import commands, views
from service.application.handling import Streams, evolved
from service.application.sealing import HAND_CLOSED, REVEAL_CLOSED_HANDS

IMPORTED_HAND_PREFIX = "hand-"

NamesOf = Callable[[Iterable[str]], Mapping[str, str | None]]
"""Player ids -> the names people know them by (service.application.listings.names)."""


class HandNotFound(LookupError):
    """No hand with this id (or not one the replayer steps through)."""


@dataclass(frozen=True)
class _Seat:
    """One player of the hand as a step shows them."""
    player: str
    stack: Any
    bet: Any
    status: str
    cards: str | None


# ---------------------------------------------------------------- a live table's hand


def table_hand(store: EventStore, hand_id: str, viewer: views.Viewer,
               names_of: NamesOf = lambda ids: {}) -> dict[str, Any]:
    """Every step of a live table's hand as `viewer` may see it, the deal check and the
    chain check. Raises HandNotFound."""
    if hand_id.startswith(IMPORTED_HAND_PREFIX):
        return imported_hand(store, hand_id, viewer)
    located = table_state.table_id_of_hand(hand_id)
    if located is None:
        raise HandNotFound(hand_id)
    table_id, number = located
    stream = commands.table_stream(table_id)
    # What the viewer reads of each event, with sealed fields only if the hand is closed
    # (the store decides that in the same read, as for GET /v1/hands/{id}): the hand's own
    # range of the stream, and the table from the snapshot before it, so the steps cost
    # the hand, not the table's age.
    shown_records = store.read_hand(stream, hand_id, opened_by=table_events.HandOpened.__name__,
                                    reveal=REVEAL_CLOSED_HANDS)
    if not shown_records:
        raise HandNotFound(hand_id)
    closed = any(r.type == HAND_CLOSED for r in shown_records)
    shown = {e["version"]: e for e in views.redact_records(shown_records, viewer)}
    first, last = shown_records[0].version, shown_records[-1].version
    # The table before the hand, from its snapshot (a replay: nothing cached).
    # A record this code cannot evolve makes the hand an UnreadableStream, as the table.
    state = Streams(store, commands.TABLES, cached=0).replay(stream, first - 1).state
    step = commands.record_step(state)
    folded: list[tuple[table_state.TableState | None, table_state.TableState, RecordedEvent]] = []
    for record in store.read_stream(stream, after_version=first - 1, up_to_version=last,
                                    reveal=Reveal.ALL):
        before, state = state, evolved(state, record, step)
        assert state is not None  # a table's first record creates it
        if record.version in shown:
            folded.append((before, state, record))
    assert state is not None
    players = [state.players[s] for s in state.hand_seats]
    known = names_of(set(state.players))
    names = {player: known.get(player) or player for player in state.players}
    steps = [_live_step(index, before, after, record, shown[record.version], viewer, names)
             for index, (before, after, record) in enumerate(folded)]
    deal = views.hand_view(state, viewer, secrets_revealed=closed)["deal"] if _dealt(state) else None
    return {
        "id": hand_id, "source": "table", "table_id": table_id, "table_name": state.name, "number": number,
        "started_at": shown_records[0].recorded_at.timestamp(),
        "game": state.game, "over": closed, "players": players,
        "names": {player: names[player] for player in players},
        "steps": steps, "deal": deal, "deal_check": _deal_check(deal, closed),
        "chain": _hand_chain(store, stream, hand_id),
    }


def _live_step(index: int, before: table_state.TableState | None, after: table_state.TableState,
               record: RecordedEvent, shown: Mapping[str, Any], viewer: views.Viewer,
               names: Mapping[str, str]) -> dict[str, Any]:
    hand_players = [after.players[s] for s in after.hand_seats]  # HandOpened sets them first
    step: dict[str, Any] = {
        "index": index, "version": record.version, "type": record.type,
        "automatic": bool(record.metadata.get("automatic")),
        # In the game's form, as an imported hand's events are: hand events count positions.
        "caption": _caption(record.type, table_records.in_hand(record.type, shown["data"]),
                            _seat_name(hand_players, names), _seat_name(after.players, names), after.game),
        "table": _live_table(after, viewer),
        "decision": None,
    }
    rule = _event_rule(record.type, shown["data"], before)
    if rule is not None:
        step["rule"] = rule
    if record.type == "ActionTaken" and before is not None and _dealt(before):
        data = shown["data"]
        legal = views.legal_actions_view(before, viewer)["legal"]
        step["decision"] = decision(_betting_of(before.hand), legal, data["position"],
                                    hand_players[data["position"]], data["action"], data["to"], data["adds"])
    return step


def _seat_name(players: Sequence[str], names: Mapping[str, str]) -> Callable[[int], str]:
    """Seat -> the name of its player, for captions."""
    return lambda seat: isolated(names.get(players[seat], players[seat])) if 0 <= seat < len(players) else f"seat {seat + 1}"


def _forced_bets_posted(betting: Any) -> str:
    """", the blinds and antes posted", naming only those the hand's structure has (a
    stored event holds it as a mapping, a PHH replay as a BettingStructure); games whose
    antes are an event of their own (five-card draw) start with none."""
    if not betting:
        return ""
    amount = betting.get if isinstance(betting, Mapping) else lambda name: getattr(betting, name, None)
    posted = [name for name, field in (("the blinds", "big_blind"), ("antes", "ante")) if amount(field)]
    return f", {' and '.join(posted)} posted" if posted else ""


def isolated(name: str) -> str:
    """A name people typed, set off as its own run of text (Unicode's first-strong isolate):
    a right-to-left name, or one holding a direction override, cannot reorder the words
    of the caption around it."""
    return f"\u2068{name}\u2069"


def _betting_of(hand: Any) -> BettingState | None:
    """The hand's betting state, whichever game holds it (hold'em on the hand, draw and the
    mixed games on their game)."""
    betting = getattr(hand, "betting", None)
    if not isinstance(betting, BettingState):
        betting = getattr(getattr(hand, "game", None), "betting", None)
    return betting if isinstance(betting, BettingState) else None


def _dealt(state: table_state.TableState) -> bool:
    """Whether the hand has a game state with its players yet: between HandOpened and the
    game's first events there is none (a mixed game's hand holds only its deck until
    HandStarted; a game that makes its own deal has no seats until it)."""
    hand = state.hand
    return (hand is not None and getattr(hand, "game", True) is not None
            and len(hand.stacks) == len(state.hand_seats))


def _live_table(state: table_state.TableState, viewer: views.Viewer) -> dict[str, Any]:
    if not _dealt(state):
        return {"round": None, "board": "", "pots": [], "pot_total": 0, "to_act": None,
                "button": state.button, "seats": [
                    _seat_view(_Seat(state.players[s], state.stacks[s], 0, "waiting", None), s)
                    for s in state.hand_seats]}
    summary = views.hand_summary(state)
    seats = {seat["seat"]: seat for seat in views.table_view(state, 0, viewer)["seats"]}
    pots, uncalled = uncalled_apart(summary.get("pots") or [])
    return {
        "round": summary.get("round"), "board": summary.get("board") or "",
        "pots": pots, "uncalled": uncalled,
        "pot_total": sum(p["amount"] for p in pots),
        "to_act": state.to_act, "button": state.button,
        "seats": [_seat_view(_Seat(seats[s]["player_id"], seats[s]["stack"], seats[s]["bet"],
                                   seats[s]["status"], seats[s]["cards"]), s) for s in state.hand_seats],
    }


def uncalled_apart(pots: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The pots as the felt shows them, and the uncalled chips apart: a side pot only one
    player is eligible for is the part of that player's bet nobody can match, which goes
    back to them (an UncalledReturned follows), never a pot anyone plays for. Eligibility
    only narrows from pot to pot, so only the last can be such a pot."""
    if len(pots) > 1 and len(pots[-1]["eligible"]) == 1:
        return pots[:-1], {"amount": pots[-1]["amount"], "player": pots[-1]["eligible"][0]}
    return pots, None


def _seat_view(seat: _Seat, number: int) -> dict[str, Any]:
    return {"seat": number, "player": seat.player, "stack": _plain(seat.stack), "bet": _plain(seat.bet),
            "status": seat.status, "cards": seat.cards}


def _deal_check(deal: Mapping[str, Any] | None, closed: bool) -> dict[str, Any]:
    """The deal check in words: the commitment, and whether the revealed deal matches it."""
    if deal is None:
        return {"ok": None, "detail": "no deal was recorded for this hand"}
    commitment = deal.get("commitment")
    verified = deal.get("verified")
    if not closed:
        return {"ok": None, "detail": f"committed to {commitment}: the deal is checked once the hand is over"}
    if verified is None:
        return {"ok": None, "detail": f"committed to {commitment}: nothing revealed to check"}
    what = f"the {len(deal['openings'])} cards this viewer saw, each opened against the root" if deal.get("openings") is not None else "the deck and the salt"
    return {"ok": bool(verified),
            "detail": f"{what} {'match' if verified else 'do NOT match'} the commitment {commitment}"}


def _stream_chain(store: EventStore, stream: str) -> dict[str, Any]:
    """The chain check of a whole stream (a hand imported from PHH is a stream of its own)."""
    verification = store.verify_stream(stream)
    return _chain_view(stream, verification, f"the {verification.events:,} events of {stream}")


def _hand_chain(store: EventStore, stream: str, hand_id: str) -> dict[str, Any]:
    """The chain check of a table hand's own range of the stream, at the cost of the hand:
    its events chained from the stored hash of the event before them, each MAC checked, the
    range ending where the next hand opens or at the table's head. The whole stream's check
    is `cardroom verify` (GET /v1/streams/{id}/verify)."""
    checked = store.verify_hand(stream, hand_id, opened_by=table_events.HandOpened.__name__)
    if checked is None:
        raise HandNotFound(hand_id)
    origin = (f"chained from event {checked.chained_from:,}'s hash" if checked.chained_from
              else "chained from the stream's start")
    end = (f"ending where the next hand opens (event {checked.next_opening:,})"
           if checked.next_opening is not None else "ending at the table's head")
    what = f"events {checked.first_version:,}-{checked.last_version:,} of the table, {origin}, {end}"
    return _chain_view(stream, checked.verification, what,
                       first_version=checked.first_version, last_version=checked.last_version,
                       chained_from=checked.chained_from, next_opening=checked.next_opening)


def _chain_view(stream: str, verification: Verification, what: str, **checked: Any) -> dict[str, Any]:
    """A chain check in words: `what` names the events checked."""
    if verification.ok:
        detail = f"the hash chain holds over {what}"
    else:
        detail = (f"the hash chain breaks at version {verification.first_bad_version:,}: "
                  f"{verification.reason} (checked {what})")
    return {"stream": stream, "ok": verification.ok, "events": verification.events,
            "first_bad_version": verification.first_bad_version, "detail": detail, **checked}


# ---------------------------------------------------------------- decisions


def pot_limit_words(state: table_state.TableState) -> str | None:
    """At a pot-limit table, the largest bet or raise of the player to act as the floor
    works it out ("pot 700 + call 200 = 900: raise to at most 1,100", TDA 2024 54)."""
    if not state.hand_in_progress or not _dealt(state):
        return None
    betting = _betting_of(state.hand)
    if betting is None or betting.structure.kind != bet.POT_LIMIT or betting.to_act is None:
        return None
    words, _ = bet.pot_limit_arithmetic(betting, betting.to_act)
    return f"{words} ({cite('pot_limit_maximum')})"


def decision(betting: BettingState | None, legal: Mapping[str, Any] | None, seat: int, player: str,
             action: str, to: Any, adds: Any) -> dict[str, Any]:
    """Who acted, what was legal just before, the verdict on what they did and the rule
    applied. `betting`: the betting state before the action; `legal`: its legal actions as
    the API shows them to this viewer."""
    verdict = _verdict(betting, seat, action, to)
    shown: dict[str, Any] = {
        "player": player, "action": action, "to": _plain(to), "adds": _plain(adds),
        "all_in": betting is not None and betting.stacks[seat] == adds and adds != 0,
        "legal": _plain(dict(legal)) if legal is not None else None,
        "verdict": _plain(verdict),
    }
    if legal is not None and betting is not None and betting.to_act == seat:
        shown.update(legal_notes(bet.legal_actions(betting)))  # beside `legal`, as the tables show it
    closed = _raise_closed(betting, seat)
    if closed is not None:
        shown["raise_closed"] = closed
    return shown


def _verdict(betting: BettingState | None, seat: int, action: str, to: Any) -> dict[str, Any]:
    """The ruling a floor person reads out: legal, with the rule and the numbers that make
    it so (domain.rulings.common.allowed); a bet or raise all in for less than a full one
    names the rule of the incomplete raise (TDA 2024 47)."""
    verdict = allowed(betting, seat, action, to)
    if action not in ("bet", "raise") or betting is None or betting.to_act != seat:
        return verdict
    full = _full_to(betting, action)
    if to >= full:
        return verdict
    return {**verdict, **_incomplete(betting, action, to, full)}


def _full_to(betting: BettingState, action: str) -> Any:
    """The smallest full bet or raise, before a short stack caps the range at its all-in."""
    unit = betting.structure.unit(betting.late)
    if action == "bet":
        return unit
    if betting.structure.kind == bet.FIXED_LIMIT:
        return betting.full_level + unit
    return betting.highest + betting.full_increment


def _incomplete(betting: BettingState, action: str, to: Any, full: Any) -> dict[str, Any]:
    """An all-in bet or raise short of a full one: whether it reopens the betting."""
    numbers = {"to": to, "full_to": full, "highest": betting.highest}
    if betting.structure.kind == bet.FIXED_LIMIT:
        unit = betting.structure.unit(betting.late)
        increase = to - betting.full_level
        counts = increase * 2 >= unit
        reads = ("counts as a full raise (the 50% rule): the next raise is one unit on top of it"
                 if counts else "is less than half a unit: it does not reopen the betting to "
                                "players who have already acted")
        return {"detail": f"all in to {chips(to)}, short of the full {action} to {chips(full)}: "
                          f"{chips(increase)} of a {chips(unit)} unit {reads}",
                "rule": cite("raise_not_reopened_fixed_limit"),
                "numbers": {**numbers, "increase": increase, "unit": unit}}
    return {"detail": f"all in to {chips(to)}, less than a full {action} to {chips(full)}: an "
                      f"incomplete {action}, which does not reopen the betting to players who "
                      f"have already acted",
            "rule": cite("raise_not_reopened"), "numbers": numbers}


def _raise_closed(betting: BettingState | None, seat: int) -> dict[str, Any] | None:
    """Why this player could not raise, when raising was closed to them: as the refusal of
    a raise all in would have said it (code, words, rule) where a rule closes it, else the
    plain reason (the stack covers only a call, nobody left could call a raise)."""
    if betting is None or betting.to_act != seat or betting.highest == 0:
        return None
    legal = bet.legal_actions(betting)
    reason = None if legal is None else legal.raise_closed_reason
    all_in = betting.bets[seat] + betting.stacks[seat]
    if reason == bet.STACK_TOO_SHORT:
        return {"code": reason, "detail": f"the stack covers only a call to {chips(all_in)}: no raise is possible",
                "numbers": _plain({"all_in": all_in, "highest": betting.highest})}
    if reason == bet.OPPONENTS_ALL_IN:
        return {"code": reason, "detail": "every other player is all in: nobody could call a raise",
                "numbers": {}}
    if reason is None:
        return None
    try:
        bet.check_action(betting, seat, "raise", all_in)
    except Violation as refusal:
        return {"code": refusal.code, "detail": refusal.detail,
                **({"rule": refusal.rule} if refusal.rule else {}), "numbers": _plain(dict(refusal.numbers))}
    return None


def _event_rule(type_name: str, data: Mapping[str, Any], before: Any) -> dict[str, str] | None:
    """The rule an event other than a betting action applies, where one does: the showdown
    (all in: every hand face up; else the order of show), an odd chip, a ruling on chips
    pushed and words said."""
    if type_name == "ChipsRuled":
        ruling = data.get("ruling") or {}
        return {"rule": ruling.get("rule", ""), "detail": ruling.get("detail", "")}
    if type_name in ("CardsShown", "CardsMucked"):
        betting = _betting_of(getattr(before, "hand", before))
        if betting is not None and any(betting.stacks[s] == 0 for s in betting.contenders):
            return {"rule": cite("all_in_face_up"),
                    "detail": "all in with the betting over: every hand is tabled"}
        return {"rule": cite("order_of_show"), "detail": "hands are shown in the order of show"}
    if type_name == "ShowAsked":
        return {"rule": cite("no_right_to_see"), "detail": "a caller may ask to see the last aggressor's hand"}
    if type_name == "PotAwarded":
        shares = list(data.get("shares") or ())
        if len(set(shares)) > 1:
            return {"rule": cite("odd_chip"),
                    "detail": "the odd chip goes to the first winner left of the button"}
    return None


# ---------------------------------------------------------------- PHH records


@dataclass(frozen=True)
class _RecordedGame:
    """How a recorded hand of one game steps: its decider's evolve, the table a step shows,
    the legal actions before a decision (the `legal` shape) and the game's name from the
    hand's first event (an event's fields as a viewer may see them: `_event_data`)."""
    evolve: Callable[[Any, Any], Any]
    table: Callable[[Any, list[str], views.Viewer], dict[str, Any]]
    legal: Callable[[Any], dict[str, Any] | None]
    name: Callable[[Any], str]
    event_types: dict[str, type]


def phh_record(record: phh.HandHistory, viewer: views.Viewer, *, title: str = "") -> dict[str, Any]:
    """Every step of a PHH record of any variant the API replays (domain.registry names its
    game), replayed through our rules. Raises Violation (a variant
    not replayed, the first illegal action)."""
    result = phh_games.replay(record)
    names = list(phh.player_names(record))
    # A hold'em record with a single or button blind replays as a rotation's hold'em
    # (domain.history.phh.positional_blinds): its events are the mixed games'.
    game = _MIXED if phh.positional_blinds(record) else _recorded_game(record.variant)
    replayed = _phh_steps(game, list(result.events), names, viewer)
    replayed.update(
        id=None, source="phh", title=title, variant=record.variant,
        metadata=[[key, str(value)] for key, value in record.metadata],
        outcome={"finishing_stacks": [_plain(s) for s in result.finishing_stacks],
                 "recorded_finishing_stacks": None if record.finishing_stacks is None
                 else [_plain(s) for s in record.finishing_stacks],
                 "matches_record": None if record.finishing_stacks is None
                 else tuple(result.finishing_stacks) == tuple(record.finishing_stacks),
                 "odd_chip_rule": result.odd_chip_rule},
        deal=None, deal_check={"ok": None, "detail": "a recorded hand carries no deal commitment"},
        chain=None)
    return replayed


def imported_hand(store: EventStore, hand_id: str, viewer: views.Viewer) -> dict[str, Any]:
    """A hand stored from PHH (its own stream, `hand-<uuid>`), of any game, stepped
    through, with its stream's chain check."""
    records = store.read_stream(hand_id)
    if not records or records[0].metadata.get("imported_from") != "phh":
        raise HandNotFound(hand_id)
    game = _stored_game(records[0].metadata.get("game", "holdem"))
    events = [from_record(game.event_types, r.type, r.data) for r in records]
    names = list(events[0].players)
    replayed = _phh_steps(game, events, names, viewer, versions=[r.version for r in records])
    replayed.update(id=hand_id, source="imported", title=hand_id, started_at=records[0].recorded_at.timestamp(),
                    variant=records[0].metadata.get("phh_variant"),
                    metadata=[["phh", records[0].metadata.get("phh_metadata", "")]],
                    deal=None, deal_check={"ok": None, "detail": "a recorded hand carries no deal commitment"},
                    chain=_stream_chain(store, hand_id))
    return replayed


def _phh_steps(game: _RecordedGame, events: Sequence[Any], names: list[str], viewer: views.Viewer,
               versions: Sequence[int] | None = None) -> dict[str, Any]:
    state: Any = None
    steps: list[dict[str, Any]] = []
    player = _seat_name(names, {})
    for index, event in enumerate(events):
        before = state
        state = game.evolve(state, event)
        type_name = type(event).__name__
        data = _event_data(event, names, viewer)
        step: dict[str, Any] = {
            "index": index, "version": versions[index] if versions else index + 1, "type": type_name,
            "automatic": False,
            "caption": _caption(type_name, data, player, player),
            "table": game.table(state, names, viewer), "decision": None,
        }
        rule = _event_rule(type_name, data, before)
        if rule is not None:
            step["rule"] = rule
        if isinstance(event, ActionTaken) and before is not None:
            step["decision"] = decision(_betting_of(before), game.legal(before), event.position,
                                        names[event.position], event.action, event.to, event.adds)
        steps.append(step)
    return {"game": game.name(events[0]) if events else None, "over": bool(state and state.over),
            "players": names, "names": {name: name for name in names}, "steps": steps}


def _fields(event: Any) -> dict[str, Any]:
    return {key: getattr(event, key) for key in event.__dataclass_fields__}


def _event_data(event: Any, names: list[str], viewer: views.Viewer) -> dict[str, Any]:
    """The event's fields for a caption, its owner-only fields (domain.secrecy) blanked
    where the viewer may not see its player's cards (a recorded hand's players are its
    names); another player's cards show those dealt face up, a discard how many cards."""
    data = _fields(event)
    declared = secrecy.secrets_of(type(event))
    if declared.owner != secrecy.OWNER_BY_POSITION or viewer.sees_cards_of(names[data["position"]]):
        return data
    type_name = type(event).__name__
    if type_name in PARTLY_PUBLIC_EVENTS:
        return event_view(type_name, data)
    return {**data, **dict.fromkeys(declared.owner_only)}


def _holdem_table(state: holdem.HandState, names: list[str], viewer: views.Viewer) -> dict[str, Any]:
    cards = [state.hole[seat] if state.hole[seat] is not None and (state.shown[seat] or viewer.sees_cards_of(name))
             else None for seat, name in enumerate(names)]
    return _recorded_table(state, names, [_text(c) if c else None for c in cards], state.round,
                           "".join(format_card(c) for c in state.board))


def _mixed_table(state: MixedState, names: list[str], viewer: views.Viewer) -> dict[str, Any]:
    hand = MixedTableHand((), state)
    board = "".join("??" if c is None else format_card(c) for c in state.board)
    return _recorded_table(state, names, [hole_view(hand, seat, name, viewer.sees_cards_of)
                                          for seat, name in enumerate(names)], hand.round, board)


def _draw_table(state: draw_state.HandState, names: list[str], viewer: views.Viewer) -> dict[str, Any]:
    cards = [_text(state.hands[seat]) if state.hands[seat]
             and (state.shown[seat] or viewer.sees_cards_of(name)) else None
             for seat, name in enumerate(names)]
    return _recorded_table(state, names, cards, state.phase, "")


def _recorded_table(state: Any, names: list[str], cards: list[str | None], round_name: str,
                    board: str) -> dict[str, Any]:
    """The table a recorded hand's step shows: `cards` per seat as the viewer may see them."""
    b = _betting_of(state)
    assert b is not None
    seats = [_seat_view(_Seat(name, b.stacks[seat], 0 if state.over else b.bets[seat],
                              betting_status(b, seat), cards[seat]), seat)
             for seat, name in enumerate(names)]
    pots, uncalled = uncalled_apart([{"amount": _plain(p.amount), "eligible": [names[s] for s in p.eligible]}
                                     for p in state.pots])
    to_act = state.to_act
    return {"round": round_name, "board": board, "pots": pots, "uncalled": uncalled,
            "pot_total": _plain(sum((p["amount"] for p in pots), 0)),
            "to_act": names[to_act] if to_act is not None else None, "button": b.button, "seats": seats}


def _text(cards: Iterable[int]) -> str:
    return "".join(format_card(c) for c in cards)


_HOLDEM = _RecordedGame(holdem.evolve, _holdem_table, lambda state: legal_shape(holdem.legal_actions(state)),
                        lambda started: started.variant, holdem.EVENT_TYPES)
_MIXED = _RecordedGame(mixed.evolve, _mixed_table, lambda state: table_legal(mixed_legal(state)),
                       lambda started: started.game, mixed.EVENT_TYPES)
_DRAW = _RecordedGame(draw_stream.evolve, _draw_table, lambda state: legal_shape(draw_legal.legal_actions(state)),
                      lambda started: DRAW_GAME, draw_stream.EVENT_TYPES)


_BY_DECIDER = {holdem: _HOLDEM, mixed: _MIXED, draw_stream: _DRAW}


def _recorded_game(variant: str) -> _RecordedGame:
    return _stored_game(registry.game_of_variant(variant))


def _stored_game(game: str) -> _RecordedGame:
    """The game of a hand stored from PHH (its first event's metadata names it), stepped
    through its decider (domain.registry)."""
    return _BY_DECIDER[registry.decider(game)]


# ---------------------------------------------------------------- words


_ROUND_NAMES = {"flop": "The flop", "turn": "The turn", "river": "The river"}


def _caption(type_name: str, data: Mapping[str, Any], player: Callable[[int], str],
             by_table_seat: Callable[[int], str], game: str | None = None) -> str:
    """The event as a person says it: `player` names a position, `by_table_seat` a table
    seat (table events count seats at the table); the game's own words first (domain.registry)."""
    own = None if game is None else registry.caption(game, type_name, data, player)
    if own is not None:
        return own
    if type_name == "ActionTaken":
        return _action_words(player(data["position"]), data["action"], data["to"], data["adds"])
    if type_name == "HoleCardsDealt":
        return f"{player(data['position'])} is dealt {data['cards'] or 'cards face down'}"
    if type_name == "CardsDealt":  # the mixed games: `??` for a down card the viewer may not see
        return f"{player(data['position'])} is dealt {data['cards']}"
    if type_name == "CardsDiscarded":
        return f"{player(data['position'])} discards {data['cards']}" if data["cards"] else \
            f"{player(data['position'])} stands pat"
    if type_name == "PlayerDrew":
        received = f": {data['received']}" if data.get("received") else ""
        return f"{player(data['position'])} draws {data['count']}{received}" if data["count"] else \
            f"{player(data['position'])} stands pat"
    if type_name == "BoardDealt":
        street = data.get("street")  # the mixed games' board names no street
        return f"{_ROUND_NAMES.get(street, street)}: {data['cards']}" if street else f"The board: {data['cards']}"
    if type_name == "CardsShown":
        return f"{player(data['position'])} shows {data['cards']}"
    if type_name == "CardsMucked":
        return f"{player(data['position'])} mucks"
    if type_name == "ShowAsked":
        return f"{player(data['position'])} asks to see {player(data['target'])}'s hand"
    if type_name == "UncalledReturned":
        return f"{chips(data['amount'])} uncalled returned to {player(data['position'])}"
    if type_name == "PotAwarded":
        winners = list(data.get("winners") or ())
        shares = list(data.get("shares") or ())
        split = ", ".join(f"{player(w)} {chips(s)}" for w, s in zip(winners, shares))
        return f"Pot of {chips(data['amount'])} awarded: {split}"
    if type_name == "HandStarted":
        return f"The hand starts: {len(data.get('players') or ())} players{_forced_bets_posted(data.get('betting'))}"
    if type_name == "HandEnded":
        return "The hand ends" + (" at a showdown" if data.get("showdown") else "")
    if type_name == "HandOpened":
        return f"Hand {data['number']} opens; the button is at seat {data['button'] + 1}"  # seats from 1, as people say them
    if type_name == "HandClosed":
        busted = list(data.get("busted") or ())
        out = f": {len(busted)} player{'s' if len(busted) > 1 else ''} out" if busted else ""
        return f"The hand is closed and its stacks recorded{out}"
    if type_name == "ClockStarted":
        return f"{by_table_seat(data['seat'])}'s action clock starts"
    if type_name == "ClockExpired":
        return f"{by_table_seat(data['seat'])}'s action clock runs out"
    if type_name == "AutomaticAction" and data["reason"] == table.DEAD_HAND:
        return f"{by_table_seat(data['seat'])} is away: the hand is dead ({cite(table.DEAD_HAND)})"
    if type_name == "AutomaticAction":
        return f"The computer acts for {by_table_seat(data['seat'])} ({data['reason']})"
    if type_name == "ChipsRuled":
        pushed = ", ".join(chips(c) for c in data.get("chips") or ()) or "no chips"
        said = f" and said {data['said']!r}" if data.get("said") else ""
        return f"{by_table_seat(data['seat'])} pushed {pushed}{said}"
    words = "".join(" " + c.lower() if c.isupper() else c for c in type_name).strip()
    return words[:1].upper() + words[1:]


def _action_words(who: str, action: str, to: Any, adds: Any) -> str:
    if action == "fold":
        return f"{who} folds"
    if action == "check":
        return f"{who} checks"
    if action == "call":
        return f"{who} calls {chips(adds)}"
    if action == "bet":
        return f"{who} bets {chips(to)}"
    if action == "raise":
        return f"{who} raises to {chips(to)}"
    if action == "bring_in":
        return f"{who} brings it in for {chips(to)}"
    if action == "complete":
        return f"{who} completes to {chips(to)}"
    return f"{who}: {action} {chips(to) if to else ''}".rstrip()


def _plain(value: Any) -> Any:
    """JSON-ready amounts: a PHH replay may split an odd chip into halves (Fractions)."""
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else float(value)
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value
