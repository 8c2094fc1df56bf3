"""Hands stored while a Palace hand's later reshuffles and a draw hand's redeals drew their
orders when they came (each committed then, in PalaceReshuffleCommitted or Redealt) keep
replaying and verifying as they were: every viewer's proof of the deal is the one it was.

`recorded/later_orders_drawn_mid_hand.json` holds, as the code at commit f0172f4 stored them,
a ten-player Palace table whose hand reshuffles its draw deck three times (the last two
orders committed on their own roots) and a five-card draw table whose hand is dealt again
twice, each with the deal views of the floor, a spectator and one player at the time."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain.rules.deal_commitment import Opening, verify_opening
from service.application import commands, views
from tests import applications
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
