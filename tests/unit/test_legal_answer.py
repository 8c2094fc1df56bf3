"""A hold'em table's answer computes the legal actions once for `legal` and the notes
beside it (issue 37), and shows the same as the two computed apart."""
from __future__ import annotations

import pytest

from domain.games import holdem
from domain.live.games import holdem as live_holdem
from domain.live.games.holdem import HoldemGame
from domain.rules.betting import BettingStructure

NL = {"structure": "no-limit", "small_blind": 50, "big_blind": 100}


def _reopened_hand() -> holdem.HandState:
    """Two short all-ins reopen the raising to A (TDA 2024 47-A): a note beside `legal`."""
    _, hand = holdem.handle(None, holdem.StartHand(("SB", "BB", "A", "BTN"), (600, 10000, 10000, 450), 3,
                                                   BettingStructure.from_dict(NL)))
    for seat, action, to in ((2, "raise", 300), (3, "raise", 450), (0, "raise", 600), (1, "call", None)):
        hand = holdem.handle(hand, holdem.PostAction(seat, action, to))[1]
    return hand


def test_the_answer_is_the_view_and_the_notes(monkeypatch: pytest.MonkeyPatch):
    hand = _reopened_hand()
    view, notes = HoldemGame.legal_view(hand, "A", None), HoldemGame.legal_notes(hand)
    assert "raise_reopened" in notes
    computed = []
    legal_actions = holdem.legal_actions
    monkeypatch.setattr(live_holdem.holdem, "legal_actions", lambda h: computed.append(h) or legal_actions(h))
    assert HoldemGame.legal_answer(hand, "A", None) == (view, notes)
    assert len(computed) == 1
