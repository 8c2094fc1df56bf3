"""Given-events builders shared by the Palace Poker tests, and the tests that they build
the table they claim to (banners, palace cards, draw deck, who acts first)."""
from __future__ import annotations

from collections.abc import Sequence

from domain.games import palace as P
from domain.games import palace_decider

S, B = 10, 20


def dealt(
    banners: dict[str, str],
    palaces: dict[str, str],
    draw: str = "",
    stacks: Sequence[int] | None = None,
    dealer: int | None = None,
    small_bet: int = S,
    big_bet: int = B,
    structure: str = "fixed-limit",
) -> list[P.Event]:
    """The events of a finished deal: players in seat order as in `banners`, the dealer the
    last seat unless given (so the first seat acts first), antes of half a small bet, each
    player's palace cards, and `draw` as the draw deck, top card first."""
    players = tuple(banners)
    count = len(players)
    dealer = count - 1 if dealer is None else dealer
    stacks = tuple(stacks) if stacks is not None else (1000,) * count
    ante = small_bet // 2
    deal_order = tuple(players[(dealer + 1 + step) % count] for step in range(count))
    by_player = dict(zip(players, stacks))
    palace_cards = {player: _cards(palaces[player]) for player in players}
    interleaved = tuple(palace_cards[player][round_] for round_ in range(3) for player in deal_order)
    gathered = interleaved + _cards(draw)
    events: list[P.Event] = [
        P.HandStarted(players, stacks, dealer, small_bet, big_bet, structure, ante),
        P.AntesPosted(deal_order, tuple(min(ante, by_player[p]) for p in deal_order)),
    ]
    events += [P.BannerDealt(player, banners[player]) for player in deal_order]
    events.append(P.PalaceDeckShuffled(len(gathered), gathered))
    events += [P.PalaceCardsDealt(player, palace_cards[player], (player,)) for player in deal_order]
    return events


def _cards(text: str) -> tuple[str, ...]:
    return tuple(text[i:i + 2] for i in range(0, len(text), 2))


def when(events: Sequence[P.Event], command: P.Command) -> list[P.Event]:
    return palace_decider.decide(P.replay(events), command)


def after(events: Sequence[P.Event], *commands: P.Command) -> list[P.Event]:
    """The given events followed by those the commands lead to, in order."""
    history = list(events)
    for command in commands:
        history += when(history, command)
    return history


def chips_on_table(state: P.PalaceHand) -> int:
    return sum(seat.stack for seat in state.seats) + state.pot


def test_the_builder_deals_banners_palaces_and_the_draw_deck():
    state = P.replay(dealt({"Ann": "Ah", "Bob": "Ks"}, {"Ann": "2c3c4c", "Bob": "5d6d7d"},
                           draw="9h8h"))
    ann, bob = state.seats
    assert (ann.banner, ann.palace, bob.banner, bob.palace) == ("Ah", ("2c", "3c", "4c"), "Ks",
                                                                 ("5d", "6d", "7d"))
    assert state.draw_deck == ("9h", "8h")
    assert state.discard_pile == ()
    assert state.phase == P.TURN and state.seats[state.to_act].player == "Ann"
    assert state.pot == 10 and (ann.stack, bob.stack) == (995, 995)


def test_the_builder_seats_the_dealer_where_asked():
    state = P.replay(dealt({"Ann": "Ah", "Bob": "Ks", "Cy": "Qd"},
                           {"Ann": "2c3c4c", "Bob": "5d6d7d", "Cy": "8s9sTs"}, dealer=0))
    assert state.seats[state.to_act].player == "Bob"
    assert state.left == (1, 2, 0)
