"""Hands stored while a Palace hand's later reshuffles and a draw hand's redeals drew their
orders when they came (each committed then, in PalaceReshuffleCommitted or Redealt) keep
replaying and verifying as they were: every viewer's proof of the deal is the one it was.

`recorded/later_orders_drawn_mid_hand.json` holds, as the code at commit f0172f4 stored them,
a ten-player Palace table whose hand reshuffles its draw deck three times (the last two
orders committed on their own roots) and a five-card draw table whose hand is dealt again
twice, each with the deal views of the floor, a spectator and one player at the time. A
hand begun before and still played after goes on the way it began, taking its later orders
from its secret instead of drawing them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain.games import palace
from domain.games.draw.events import Redealt
from domain.games.palace_interpretations import in_shuffled_order
from domain.live import table, table_commands
from domain.live.games.palace import PalaceReshuffleCommitted
from domain.rules import deal_commitment
from domain.rules.cards import deck_texts
from domain.rules.deal_commitment import Opening, verify_opening
from service.application import commands, views
from tests import applications
from tests.unit.test_palace_deal_openings import NoDraws
from tests.unit.test_table_form import stored

RECORDED = json.loads((Path(__file__).parent / "recorded" / "later_orders_drawn_mid_hand.json").read_text())


def _viewer(name: str) -> views.Viewer:
    return views.Viewer(name) if name in ("floor", "spectator") else views.Viewer("player", name)


def _replayed(game: str):
    store, table_id = stored(RECORDED[game]["records"])
    return commands.load_table(applications.of(store), table_id).state


def _checked(openings: list[dict] | None, root: str) -> int:
    for o in openings or ():
        assert verify_opening(Opening(o["position"], o["card"], o["salt"], tuple(tuple(s) for s in o["path"])), root)
    return len(openings or ())


@pytest.mark.parametrize("game", sorted(RECORDED))
def test_a_hand_whose_later_orders_were_drawn_mid_hand_replays_to_the_same_proofs(game):
    state = _replayed(game)
    assert not state.hand_in_progress
    for name, recorded in RECORDED[game]["deal_views"].items():
        assert views.deal_view(state, _viewer(name), True) == recorded, name


def test_the_recorded_palace_hand_commits_its_later_reshuffles_on_their_own_roots():
    types = [r["type"] for r in RECORDED["palace"]["records"]]
    assert types.count("DrawDeckReshuffled") == 3 and types.count("PalaceReshuffleCommitted") == 3
    state = _replayed("palace")
    floor = views.deal_view(state, views.Viewer("floor"), True)
    assert floor["verified"] is True and len(floor["reshuffles"]) == 3
    assert all(r["verified"] and r["order"] for r in floor["reshuffles"])
    player = views.deal_view(state, views.Viewer("player", "P0"), True)
    assert player["verified"] is True and player["salt"] is None
    opened = _checked(player["openings"], player["commitment"])
    later = sum(_checked(r["openings"], r["commitment"]) for r in player["reshuffles"])
    assert opened and later >= 2  # a soldier bought from each later reshuffle


def test_the_recorded_draw_hand_commits_each_redeal_on_its_own_root():
    assert [r["type"] for r in RECORDED["five-card-draw"]["records"]].count("Redealt") == 2
    state = _replayed("five-card-draw")
    floor = views.deal_view(state, views.Viewer("floor"), True)
    assert floor["verified"] is True and [r["verified"] for r in floor["redeals"]] == [True, True]
    player = views.deal_view(state, views.Viewer("player", "D0"), True)
    assert all(_checked(r["openings"], r["commitment"]) >= 5 for r in player["redeals"])  # their five, each deal


def _replayed_until(game: str, before: int):
    """The recorded table up to (not including) record `before`: its hand being played."""
    store, table_id = stored(RECORDED[game]["records"][:before])
    return commands.load_table(applications.of(store), table_id).state


def _index(game: str, type_name: str, nth: int) -> int:
    return [i for i, r in enumerate(RECORDED[game]["records"]) if r["type"] == type_name][nth]


def test_a_palace_hand_begun_before_the_keys_goes_on_committing_each_later_order_on_its_own_root():
    # Stopped before its second reshuffle: the buy takes the order committed at the first,
    # and commits the next one, the order the hand's secret derives, nothing drawn.
    state = _replayed_until("palace", _index("palace", "DrawDeckReshuffled", 1))
    hand = state.hand
    assert not hand.cut.reshuffle_keys and len(hand.reshuffles) == 1 and not hand.game.draw_deck
    secret = bytes.fromhex(state.salt)
    player = views.legal_actions_view(state)["to_act"]
    events, state = table.handle(state, table_commands.Act(player, "buy"), 0, NoDraws())  # type: ignore[arg-type]
    reshuffled = next(e for e in events if isinstance(e, palace.DrawDeckReshuffled))
    assert reshuffled.order == in_shuffled_order(hand.game.discard_pile, hand.reshuffles[0].order)
    committed = [e for e in events if isinstance(e, PalaceReshuffleCommitted)]
    order = deal_commitment.derived_order(deck_texts(), secret, "palace-reshuffle-3")
    assert committed == [PalaceReshuffleCommitted(order, deal_commitment.deal_root(order, secret, 5 * 52), 5 * 52)]
    while state.hand_in_progress:
        shown = views.legal_actions_view(state)
        move = ("discard", ()) if shown["round"] == "discarding" else ("fold", None)
        state = table.handle(state, table_commands.Act(shown["to_act"], move[0], discard=move[1]), 0, NoDraws())[1]  # type: ignore[arg-type]
    floor = views.deal_view(state, views.Viewer("floor"), True)
    assert floor["verified"] is True and len(floor["reshuffles"]) == 2
    player = views.deal_view(state, views.Viewer("player", "P0"), True)
    assert player["verified"] is True and sum(_checked(r["openings"], r["commitment"]) for r in player["reshuffles"]) == 1


def test_a_draw_hand_begun_before_derived_redeals_takes_the_derived_deck_on_its_own_root():
    # Stopped at the check that ends its second unopened round.
    state = _replayed_until("five-card-draw", _index("five-card-draw", "RedealRequired", 1) - 1)
    assert state.hand.derived_redeals is False and state.hand.game.redeals == 1
    secret = bytes.fromhex(state.salt)
    player = views.legal_actions_view(state)["to_act"]
    events, state = table.handle(state, table_commands.Act(player, "check"), 0, NoDraws())  # type: ignore[arg-type]
    redealt = next(e for e in events if isinstance(e, Redealt))
    deck = deal_commitment.derived_order(deck_texts(), secret, "draw-redeal-2-deck")
    reshuffle = deal_commitment.derived_order(deck_texts(), secret, "draw-redeal-2-reshuffle")
    first = state.hand.deals[2].first
    assert (redealt.deck, redealt.reshuffle_order) == (deck, reshuffle) and first == 2 * 2 * 52
    assert redealt.commitment == deal_commitment.deal_root(deck + reshuffle, secret, first)
    while state.hand_in_progress:
        player = views.legal_actions_view(state)["to_act"]
        legal = views.legal_actions_view(state)["legal"]
        action = ("bet", legal["bet"]["min_to"]) if legal.get("bet") else ("fold", None)
        state = table.handle(state, table_commands.Act(player, action[0], action[1]), 0, NoDraws())[1]  # type: ignore[arg-type]
    floor = views.deal_view(state, views.Viewer("floor"), True)
    assert floor["verified"] is True and all(r["verified"] and "derived" not in r for r in floor["redeals"])
