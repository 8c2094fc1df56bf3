"""Property (issue 15 item 4): whatever is played, no card a viewer did not see (a mucked or
folded hand, a burnt or undealt card, another player's hole cards) appears in any view a
player or spectator is given: the table, the hand, its events, its deal (openings) and its
PHH export. What they may see is the board, the hands shown, and their own cards.

Hands run through the application layer on the memory store, so the events carry the
metadata the views redact by; the reads are the ones the endpoints make."""
from __future__ import annotations

import json
import re
import uuid
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.games import holdem
from domain.history import phh_games
from domain.live import table, table_commands, table_events, table_records
from domain.rules.betting import BettingStructure
from domain.rules.cards import format_card
from service.adapters.store.memory import InMemoryEventStore
from service.application import commands, views
from service.application.sealing import REVEAL_CLOSED_HANDS
from tests import applications

NL = BettingStructure("no-limit", small_blind=50, big_blind=100)
PLAYERS = ("Ann", "Bob", "Cat")
_CARDS = re.compile(r"^(?:[2-9TJQKA][shdc])+$")
_HEX = re.compile(r"^[0-9a-f]{64}$")


def cards_in(value: Any) -> set[str]:
    """Every card named in a JSON-like value: strings of whole cards ("AhKd"), not digests."""
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    if isinstance(value, str) and not _HEX.match(value) and _CARDS.match(value):
        return {value[i:i + 2] for i in range(0, len(value), 2)}
    return set()


def play(choices: list[int], showdown: str) -> tuple[InMemoryEventStore, str]:
    """A hand where the player to act plays `move(hand, choices[k])` (then checks and calls)."""
    store = InMemoryEventStore()
    table_id = str(uuid.uuid4())
    seats = tuple(table_commands.TableSeat(p, 1000) for p in PLAYERS)
    commands.create_table(applications.of(store), table_commands.CreateTable(table_id, "holdem", {"showdown": showdown}, NL, seats))
    commands.start_next_hand(applications.of(store), table_id, None)
    for choice in choices + [0] * 40:
        state = commands.load_table(applications.of(store), table_id).state
        if not state.hand_in_progress:
            break
        asker = caller_who_may_ask(state.hand) if choice == 3 else None
        if asker is not None:  # TDA 2024 18-B: a caller asks to see the river bettor's hand
            commands.execute(applications.of(store), table_id, None, table_commands.Act(state.hand.players[asker], "ask_to_see"))
            continue
        commands.execute(applications.of(store), table_id, None, table_commands.Act(state.to_act, *move(state.hand, choice)))
    assert not commands.load_table(applications.of(store), table_id).state.hand_in_progress
    return store, table_id


def caller_who_may_ask(hand: holdem.HandState) -> int | None:
    """At a declared showdown after a river bet the aggressor has not shown: a caller still
    holding a live hand."""
    aggressor = hand.aggressor
    if hand.to_show is None or aggressor is None or hand.shown[aggressor]:
        return None
    return next((s for s in hand.show_order if s != aggressor and not hand.mucked[s]), None)


def move(hand: holdem.HandState, choice: int) -> tuple[str, int | None]:
    """0-5 check or call, 6 the smallest bet or raise, 7 fold, 8 all in; at a declared
    showdown, even show and odd muck."""
    if hand.to_show is not None:
        return ("show", None) if choice % 2 == 0 else ("muck", None)
    legal = holdem.legal_actions(hand)
    aggressive = legal.bet or legal.raise_
    kind = "bet" if legal.bet else "raise"
    if choice == 6 and aggressive is not None:
        return kind, aggressive.min_to
    if choice == 7 and legal.fold and not legal.check:
        return "fold", None
    if choice == 8 and aggressive is not None:
        return kind, aggressive.max_to
    return ("check", None) if legal.check else ("call", None)


def seen_by(store: InMemoryEventStore, table_id: str, viewer: views.Viewer) -> set[str]:
    """Every card in what the endpoints would answer this viewer about the hand."""
    loaded = commands.load_table(applications.of(store), table_id)
    state = loaded.state
    records = [r for r in store.read_stream(commands.table_stream(table_id), reveal=REVEAL_CLOSED_HANDS)
               if r.metadata.get("hand_id") == state.hand_id]
    answers: list[Any] = [views.table_view(state, loaded.version, viewer),
                          views.hand_view(state, viewer, secrets_revealed=True),
                          views.redact_records(records, viewer)]
    types = table.event_types("holdem")
    game_events = []
    for record in records:
        if record.type in table_events.TABLE_EVENT_TYPES:
            continue
        if "visible_to" in record.metadata and not viewer.sees_cards_of(record.metadata["visible_to"]):
            continue
        shown = views.redact_event({"version": record.version, "type": record.type, "data": record.full_data(),
                                    "metadata": record.metadata, "revealed": record.revealed}, viewer)
        game_events.append(table_records.event_of(types, record.type, shown["data"]))
    exported = phh_games.phh_from_events(game_events)
    answers.append([list(action.cards) for action in exported.actions
                    if getattr(action, "cards", None) and "??" not in action.cards])
    return cards_in(json.loads(json.dumps(answers, default=str)))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(choices=st.lists(st.integers(0, 8), max_size=30),
       showdown=st.sampled_from(holdem.SHOWDOWNS))
def test_no_card_a_viewer_did_not_see_appears_in_any_view_but_the_floors(choices, showdown):
    store, table_id = play(choices, showdown)
    hand = commands.load_table(applications.of(store), table_id).state.hand
    public = {format_card(c) for c in hand.board}
    for seat, cards in enumerate(hand.hole):
        if hand.shown[seat]:
            public |= {format_card(c) for c in cards}
    for name in (None, *PLAYERS):
        viewer = views.Viewer("spectator") if name is None else views.Viewer("player", name)
        own = set() if name is None else {format_card(c) for c in hand.hole[PLAYERS.index(name)]}
        leaked = seen_by(store, table_id, viewer) - public - own
        assert not leaked, f"{name or 'a spectator'} sees {sorted(leaked)}"
    floor = seen_by(store, table_id, views.Viewer("floor"))
    assert {format_card(c) for cards in hand.hole for c in cards} <= floor, "the floor sees every hand"
