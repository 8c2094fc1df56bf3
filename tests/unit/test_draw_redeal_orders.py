"""Five-card draw's redeals (service.md "Provably fair deals": a hand's first event commits
to the shuffle before the first action): however often nobody opens, every deck the hand
is dealt again from, and the order its discards would be reshuffled in, is the one the
hand's secret fixed before the first action (domain.rules.deal_commitment.derived_order).
Nothing is drawn after the deal; each redeal is still committed card by card on its own
root before its first card, so a player opens their own cards and nobody else's, and the
floor checks every redeal against the secret the first root binds."""
from __future__ import annotations

import dataclasses
import hmac

import pytest

from domain.games.draw.events import Redealt
from domain.live import table, table_commands, table_state
from domain.live.games.common import DealSeal, Viewing
from domain.live.games.draw import DrawGame, DrawTableHand
from domain.rules import deal_commitment
from domain.rules.cards import deck_texts
from service.application.views import Viewer, deal_view, legal_actions_view
from tests.unit.test_palace_deal_openings import NoDraws
from tests.unit.test_table_games import SeededDraws, _create, _deal

PLAYERS = ("p0", "p1", "p2")


def _derived(secret: bytes, label: str, with_joker: bool) -> tuple[str, ...]:
    """The order from the canonical text in domain/rules/deal_commitment.py."""
    return tuple(sorted(deck_texts(with_joker), key=lambda card: hmac.digest(
        secret, f"cardroom-order|{label}|{card}".encode(), "sha256").hex()))


def _act(state: table_state.TableState, action: str, **given: object) -> tuple[list, table_state.TableState]:
    player = legal_actions_view(state)["to_act"]
    return table.handle(state, table_commands.Act(player, action, **given), 0, NoDraws())  # type: ignore[arg-type]


def _dealt_again(redeals: int, joker: str | None) -> tuple[list, table_state.TableState]:
    """A hand in which everyone checks `redeals` times (each all-check round is dealt again,
    the pot kept), then one bets and the others fold; randomness refused after the deal.
    The events after the deal."""
    settings = {"ante": 5, **({"joker": joker} if joker else {})}
    draws = SeededDraws(4)
    state = _create("five-card-draw", settings, (500, 500, 500))
    state = table.handle(state, _deal(draws, joker is not None), 0, draws)[1]
    events: list = []
    while state.hand.game.redeals < redeals:
        more, state = _act(state, "check")
        events += more
    more, state = _act(state, "bet", to=legal_actions_view(state)["legal"]["bet"]["min_to"])
    events += more
    while state.hand_in_progress:
        more, state = _act(state, "fold")
        events += more
    return events, state


@pytest.mark.parametrize("joker", [None, "wild"])
def test_however_often_nobody_opens_every_deck_was_fixed_before_the_first_action(joker):
    events, state = _dealt_again(6, joker)
    secret = bytes.fromhex(state.salt)
    with_joker = joker is not None
    assert state.hand.derived_redeals is True
    redealt = [e for e in events if isinstance(e, Redealt)]
    assert len(redealt) == 6
    for number, event in enumerate(redealt, start=1):
        assert event.deck == _derived(secret, f"draw-redeal-{number}-deck", with_joker)
        assert event.reshuffle_order == _derived(secret, f"draw-redeal-{number}-reshuffle", with_joker)
    assert len({e.deck for e in redealt}) == 6
    floor = deal_view(state, Viewer("floor"), True)
    assert floor["verified"] is True
    assert [(r["verified"], r["derived"]) for r in floor["redeals"]] == [(True, True)] * 6
    for player in PLAYERS:
        shown = deal_view(state, Viewer("player", player), True)
        assert shown["salt"] is None and shown["deck"] is None
        for part in (shown, *shown["redeals"]):
            assert part["deck"] is None and "derived" not in part
            opened = [deal_commitment.Opening(o["position"], o["card"], o["salt"], tuple(tuple(s) for s in o["path"]))
                      for o in part["openings"]]
            assert len(opened) >= 5 and all(deal_commitment.verify_opening(o, part["commitment"]) for o in opened)


def test_a_redeal_other_than_the_one_the_secret_fixed_fails_the_floors_check():
    _, state = _dealt_again(2, None)
    hand = state.hand
    assert isinstance(hand, DrawTableHand)
    secret = bytes.fromhex(state.salt)
    seal = DealSeal(state.commitment, deal_commitment.SCHEME, state.salt)
    floor = Viewing(lambda _: True, True)
    assert DrawGame.deal_view(hand, list(PLAYERS), seal, True, floor)["verified"] is True
    # Another deck, committed on a root of its own that matches it: only the secret tells.
    other = SeededDraws(9).shuffled(deck_texts())
    swapped = dataclasses.replace(hand.deals[2], deck=other, commitment=deal_commitment.deal_root(
        other + (hand.deals[2].reshuffle_order or ()), secret, hand.deals[2].first))
    tampered = dataclasses.replace(hand, deals=hand.deals[:2] + (swapped,))
    shown = DrawGame.deal_view(tampered, list(PLAYERS), seal, True, floor)
    assert [(r["verified"], r["derived"]) for r in shown["redeals"]] == [(True, True), (False, False)]
