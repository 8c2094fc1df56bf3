"""Properties over random legal hands: chips and cards are conserved, what legal_actions
offers decide accepts, replay is deterministic, records round-trip, and no event a player
may see shows them another player's palace cards before a showdown."""
from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.games import palace as P
from domain.games import palace_decider
from domain.live.games.common import DealSeal, Viewing
from domain.live.games.palace import PALACE_DECK, RESHUFFLE_KEYS, PalaceDeckCut, PalaceGame, ranked_reshuffle_order
from domain.rules import deal_commitment
from domain.rules.cards import format_card, new_deck, shuffled

FULL_DECK = tuple(format_card(card) for card in new_deck())
PATIENCE = 200  # after this many actions the players only stay, bet the minimum and call


def choose(rng: random.Random, state: P.PalaceHand, patient: bool, aggression: float) -> P.Command:
    """A random command among those legal_actions offers (patient players end the hand)."""
    offer = palace_decider.legal_actions(state)
    player, legal = offer["to_act"], offer["legal"]
    if state.phase == P.DISCARDING:
        soldiers = list(legal["discard"]["from"])
        least = legal["discard"]["min_cards"]
        count = least if patient else rng.randint(least, len(soldiers))
        return P.Discard(player, tuple(rng.sample(soldiers, count)))
    if state.phase == P.DEFENDING:
        if patient:
            return P.Call(player)
        choice = rng.choice(["fold", "call"] + (["raise"] if legal["raise"] else []))
        if choice == "raise":
            return P.Raise(player, rng.randint(legal["raise"]["min_to"], legal["raise"]["max_to"]))
        return P.Fold(player) if choice == "fold" else P.Call(player)
    if state.phase == P.ANSWERING_RAISE:
        return P.Call(player) if patient or rng.random() < 0.5 else P.Fold(player)
    attack = legal["attack"]
    if patient:
        return P.Stay(player) if legal["stay"] else P.Attack(player, attack["targets"][0])
    # Mostly buying, so that hands last long enough to see draw decks run dry and soldiers
    # pile up; some tables battle more than others.
    weights = {"buy": 8, "discard": 2, "attack": aggression, "stay": 2, "fold": 0.3}
    choices = [name for name in weights if legal[name]]
    choice = rng.choices(choices, [weights[name] for name in choices])[0]
    if choice == "buy":
        return P.Buy(player, permutation(rng) if legal["buy"]["needs_reshuffle"] else ())
    if choice == "discard":
        soldiers = list(legal["discard"]["from"])
        return P.Discard(player, tuple(rng.sample(soldiers, rng.randint(1, len(soldiers)))))
    if choice == "attack":
        return P.Attack(player, rng.choice(attack["targets"]),
                        rng.randint(attack["min_to"], attack["max_to"]))
    return P.Stay(player) if choice == "stay" else P.Fold(player)


def permutation(rng: random.Random) -> tuple[str, ...]:
    return tuple(format_card(card) for card in shuffled(new_deck(), rng))


def random_hand(data: st.DataObject, reshuffle_order: Callable[[int], tuple[str, ...]] | None = None,
                ) -> tuple[list[P.Command], list[P.Event]]:
    """The table from hypothesis; deck orders and the players' choices from a seeded RNG
    (drawing every card through hypothesis made the tests ten times slower).
    `reshuffle_order(n)`: the order the draw deck's nth reshuffle takes (else a random one)."""
    count = data.draw(st.integers(2, 10), label="players")
    small_bet = data.draw(st.integers(1, 20))
    rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
    aggression = data.draw(st.sampled_from([0.2, 1.0, 4.0]), label="aggression")
    start = P.StartHand(
        players=tuple(f"p{seat}" for seat in range(count)),
        stacks=tuple(data.draw(st.lists(st.integers(0, 300), min_size=count, max_size=count))),
        dealer=data.draw(st.integers(0, count - 1)),
        small_bet=small_bet,
        big_bet=data.draw(st.integers(small_bet, 3 * small_bet)),
        structure=data.draw(st.sampled_from(["fixed-limit", "no-limit"])),
        deck=permutation(rng),
        palace_order=permutation(rng),
        banner_reshuffle_order=permutation(rng),
    )
    commands: list[P.Command] = [start]
    events = palace_decider.decide(P.INITIAL, start)
    state = P.replay(events)
    reshuffles = 0
    while state.phase != P.OVER:
        command = choose(rng, state, len(commands) > PATIENCE, aggression)
        if isinstance(command, P.Buy) and command.reshuffle_order and reshuffle_order is not None:
            reshuffles += 1
            command = P.Buy(command.player, reshuffle_order(reshuffles))
        commands.append(command)
        new = palace_decider.decide(state, command)
        events += new
        state = P.replay(new, state)
    return commands, events


def states(events: list[P.Event]) -> Iterator[tuple[P.PalaceHand, P.Event, P.PalaceHand]]:
    state = P.INITIAL
    for event in events:
        after = P.evolve(state, event)
        yield state, event, after
        state = after


SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.data())
def test_chips_are_conserved_across_random_legal_hands(data):
    _, events = random_hand(data)
    total = sum(events[0].stacks)
    for _, event, state in states(events):
        assert sum(seat.stack for seat in state.seats) + state.pot == total
        assert all(seat.stack >= 0 for seat in state.seats)
        if isinstance(event, P.HandEnded):
            assert state.pot == 0
            assert max(event.amounts) - min(event.amounts) <= 1  # equal shares, odd chips aside


@SETTINGS
@given(st.data())
def test_every_card_is_somewhere_once_and_nobody_keeps_more_than_five_soldiers(data):
    _, events = random_hand(data)
    for _, _, state in states(events):
        if state.phase in (P.NOT_STARTED, P.DEALING):
            continue
        held = [card for seat in state.seats for card in seat.cards]
        everywhere = held + list(state.draw_deck) + list(state.discard_pile)
        assert sorted(everywhere) == sorted(FULL_DECK)
        if state.phase in (P.TURN, P.DEFENDING, P.ANSWERING_RAISE):
            assert all(len(seat.soldiers) <= 5 for seat in state.seats)


@SETTINGS
@given(st.data())
def test_replay_is_deterministic_and_records_round_trip(data):
    commands, events = random_hand(data)
    again: list[P.Event] = []
    state = P.INITIAL
    for command in commands:
        new = palace_decider.decide(state, command)
        again += new
        state = P.replay(new, state)
    assert again == events
    assert P.replay(events) == state
    records = [(type(e).__name__, dataclasses.asdict(e)) for e in events]
    assert [P.event_from_record(name, data) for name, data in records] == events


def strings_in(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, tuple):
        for item in value:
            yield from strings_in(item)
    elif dataclasses.is_dataclass(value):
        for item in dataclasses.fields(value):
            yield from strings_in(getattr(value, item.name))


@SETTINGS
@given(st.data())
def test_no_event_shows_a_player_another_players_palace_cards_before_a_showdown(data):
    _, events = random_hand(data)
    players = events[0].players
    for before, event, after in states(events):
        if isinstance(event, P.PalaceCardsShown):
            continue  # the final showdown is public
        fighters = (event.attacker, event.defender) if isinstance(event, P.BattleCardsShown) else ()
        for viewer in players + (None,):  # None: a spectator
            shown = set(strings_in(P.redacted_for(event, viewer)))
            for owner in players:
                if owner == viewer or (viewer in fighters and owner in fighters):
                    continue
                palace = {card for state in (before, after) for seat in state.seats
                          if seat.player == owner for card in seat.palace}
                assert not shown & palace, (viewer, owner, event)


@SETTINGS
@given(st.data())
def test_a_players_proof_of_the_deal_opens_the_palaces_they_saw_and_no_other(data):
    # service.md "Provably fair deals, without exposing mucked cards", at the table's
    # adapter: the orders the hand was dealt from, committed card by card before the deal.
    # Every reshuffle's order as the table takes it: the first drawn before the deal, each
    # later one ranked by the keys the same root covers.
    secret = bytes(range(32))
    first = permutation(random.Random(0))
    commands, events = random_hand(data, lambda n: first if n == 1 else ranked_reshuffle_order(secret, n))
    start = commands[0]
    assert isinstance(start, P.StartHand)
    cut = PalaceDeckCut(start.deck, start.banner_reshuffle_order, start.palace_order, first, reshuffle_keys=True)
    hand = PalaceGame.evolve(None, cut)
    for event in events:
        hand = PalaceGame.evolve(hand, event)
    seal = DealSeal(deal_commitment.deal_root(cut.committed, secret), deal_commitment.SCHEME, secret.hex())
    palaces = {e.player: {hand.position(PALACE_DECK, card) for card in e.cards}
               for e in events if isinstance(e, P.PalaceCardsDealt)}
    saw = {player: set(positions) for player, positions in palaces.items()}
    for event in events:
        if isinstance(event, P.BattleCardsShown):
            for player in (event.attacker, event.defender):
                saw[player] |= palaces[event.attacker] | palaces[event.defender]
        elif isinstance(event, P.PalaceCardsShown):
            for player in saw:
                saw[player] |= palaces[event.player]
    every_palace = set().union(*palaces.values())
    bought = {e.card for e in events if isinstance(e, P.SoldierBought)}
    ranked = [card for _, card in hand.ranked]
    for player in start.players:
        viewing = Viewing(lambda owner, me=player: me in ((owner,) if isinstance(owner, str) else owner), False)
        shown = PalaceGame.deal_view(hand, list(start.players), seal, True, viewing)
        assert shown["verified"] is True and all(r["verified"] for r in shown["reshuffles"])
        opened = {o["position"]: o["card"] for o in shown["openings"]}
        assert set(opened) & every_palace == saw[player]
        # Every soldier is opened against the one root, those of the later reshuffles at their keys.
        assert bought <= set(opened.values()), player
        assert {opened[p] for p in opened if p >= RESHUFFLE_KEYS} == set(ranked)
        assert [card for r in shown["reshuffles"] for card in _cards(r["dealt"])] == ranked


def _cards(text: str) -> list[str]:
    return [text[i:i + 2] for i in range(0, len(text), 2)]
