"""Property (issue 15 item 4, five-card draw): whatever is played, no card a viewer did not
see (a mucked or folded hand, a discard, another player's draw, a reshuffled stub, an
undealt card) appears in any view a player or spectator is given: the table, the hand,
its events, its deal (openings) and its PHH export. What they may see is the hands tabled,
the openers shown, and every card they were dealt or drew themselves; each opening they
get verifies against its deal's root, and the floor's roots recompute.

Six players who each throw away up to four cards run the stub out, so the reshuffled
discards (opened at their place in the committed reshuffle order) are played too. Hands
run through the application layer on the memory store, as the endpoints read them."""
from __future__ import annotations

import json
import re
import uuid
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.games.draw import legal as draw_legal
from domain.games.draw.state import DRAW, HandState
from domain.history import phh_draw
from domain.live import table, table_commands, table_events, table_records
from domain.live.games.draw import DrawTableHand
from domain.rules.betting import BettingStructure
from domain.rules.cards import format_card
from domain.rules.deal_commitment import Opening, verify_opening
from service.adapters.store.memory import InMemoryEventStore
from service.application import commands, views
from service.application.sealing import REVEAL_CLOSED_HANDS
from tests import applications

PLAYERS = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")
_CARDS = re.compile(r"^(?:[2-9TJQKA][shdc]|Jk)+$")
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
    store = InMemoryEventStore()
    table_id = str(uuid.uuid4())
    seats = tuple(table_commands.TableSeat(p, 2000) for p in PLAYERS)
    commands.create_table(applications.of(store), table_commands.CreateTable(table_id, "five-card-draw", {"ante": 5, "showdown": showdown,
                                                                                "draw_limit": 5},
                                                   BettingStructure(), seats))
    commands.start_next_hand(applications.of(store), table_id, None)
    for choice in choices + [5] + [0] * 120:  # then someone opens, so unopened redeals end
        state = commands.load_table(applications.of(store), table_id).state
        if not state.hand_in_progress:
            break
        commands.execute(applications.of(store), table_id, None, table_commands.Act(state.to_act, *move(state.hand.game, choice)))
    assert not commands.load_table(applications.of(store), table_id).state.hand_in_progress
    return store, table_id


def move(game: HandState, choice: int) -> tuple[Any, ...]:
    """0-4 check or call, 5 the smallest bet or raise, 6 fold; on the draw, throw away the
    first 5 - `choice % 6` cards (so the filler 0 draws five, and the stub runs out); at a
    declared showdown, even show and odd muck."""
    if game.to_show is not None:
        return ("show",) if choice % 2 == 0 else ("muck",)
    if game.phase == DRAW:
        hand = game.hands[game.to_act]  # type: ignore[index]
        return ("discard", None, tuple(format_card(card) for card in hand[:5 - choice % 6]))
    legal = draw_legal.legal_actions(game)
    aggressive = legal.bet or legal.raise_  # type: ignore[union-attr]
    if choice == 5 and aggressive is not None:
        return ("bet" if legal.bet else "raise"), aggressive.min_to  # type: ignore[union-attr]
    if choice == 6 and legal.fold and not legal.check:  # type: ignore[union-attr]
        return ("fold",)
    return ("check",) if legal.check else ("call",)  # type: ignore[union-attr]


def seen_by(store: InMemoryEventStore, table_id: str, viewer: views.Viewer) -> tuple[set[str], dict[str, Any]]:
    """Every card in what the endpoints would answer this viewer about the hand, and the deal."""
    loaded = commands.load_table(applications.of(store), table_id)
    state = loaded.state
    records = [r for r in store.read_stream(commands.table_stream(table_id), reveal=REVEAL_CLOSED_HANDS)
               if r.metadata.get("hand_id") == state.hand_id]
    hand = views.hand_view(state, viewer, secrets_revealed=True)
    answers: list[Any] = [views.table_view(state, loaded.version, viewer), hand,
                          views.redact_records(records, viewer)]
    types = table.event_types("five-card-draw")
    game_events = []
    for record in records:
        if record.type in table_events.TABLE_EVENT_TYPES:
            continue
        shown = views.redact_event({"version": record.version, "type": record.type, "data": record.full_data(),
                                    "metadata": record.metadata, "revealed": record.revealed}, viewer)
        game_events.append(table_records.event_of(types, record.type, shown["data"]))
    exported = phh_draw.phh_from_events(game_events)
    answers.append([list(action.cards) for action in exported.actions
                    if getattr(action, "cards", None) and "??" not in action.cards])
    return cards_in(json.loads(json.dumps(answers, default=str))), hand["deal"]


def verified_openings(deal: dict[str, Any]) -> set[str]:
    cards = set()
    for part in (deal, *deal["redeals"]):
        for o in part["openings"] or ():
            opening = Opening(o["position"], o["card"], o["salt"], tuple(tuple(step) for step in o["path"]))
            assert verify_opening(opening, part["commitment"]), opening
            cards.add(opening.card)
    return cards


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(choices=st.lists(st.integers(0, 6), max_size=40), showdown=st.sampled_from(("automatic", "declared")))
def test_no_draw_card_a_viewer_did_not_see_appears_in_any_view_but_the_floors(choices, showdown):
    store, table_id = play(choices, showdown)
    state = commands.load_table(applications.of(store), table_id).state
    hand: DrawTableHand = state.hand
    positions = {position for seat in hand.held for _, position in seat}
    public = {card for seat in hand.held for card, position in seat if position in hand.tabled}
    for seat, name in enumerate(PLAYERS):
        viewer = views.Viewer("player", name)
        own = {card for card, _ in hand.held[seat]}
        seen, deal = seen_by(store, table_id, viewer)
        leaked = seen - public - own
        assert not leaked, f"{name} sees {sorted(leaked)}"
        assert verified_openings(deal) == own | public, name
    seen, deal = seen_by(store, table_id, views.Viewer("spectator"))
    assert not seen - public, f"a spectator sees {sorted(seen - public)}"
    assert verified_openings(deal) == public
    _, floor = seen_by(store, table_id, views.Viewer("floor"))
    assert floor["verified"] is True and all(redeal["verified"] for redeal in floor["redeals"])
    assert None not in positions, "every card handed out has its committed position"
