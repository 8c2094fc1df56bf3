"""Invariants of five-card draw over random hands: random settings, random decks, random
legal actions. Chips are conserved, replay (through store records) is deterministic, and
no player ever sees another player's cards before the showdown."""
from __future__ import annotations

import dataclasses
import random
import re
from typing import Any

from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from domain.games.draw import engine as draw_engine
from domain.games.draw import events as draw_events
from domain.games.draw import legal as draw_legal
from domain.games.draw import openers as draw_openers
from domain.games.draw import stream as draw_stream
from domain.games.draw.commands import Discard, Redeal, StartHand
from domain.games.draw.events import CardsShown, HoleCardsDealt, OpenersShown, PlayerDrew
from domain.games.draw.state import HandState
from domain.games.draw.stream import EVENT_TYPES
from domain.games.draw_settings import DrawSettings
from domain.games.hand_events import PostAction, PotAwarded
from domain.records import from_record, to_record
from domain.rules.cards import format_card, new_deck, shuffled

MAX_COMMANDS = 3000


@st.composite
def tables(draw_value) -> tuple[DrawSettings, tuple[int, ...], int, int]:
    settings = DrawSettings(
        mode=draw_value(st.sampled_from(("betting", "betting", "betting", "no-betting"))),
        ante=draw_value(st.integers(1, 50)),
        draw_limit=draw_value(st.sampled_from(("3_or_4_with_ace", 3, 5))),
        opening=draw_value(st.sampled_from((None, "jacks_or_better"))),
        second_round_start=draw_value(st.sampled_from(("opener", "left_of_dealer"))),
        joker=draw_value(st.sampled_from((None, "wild", "bug"))),
        structure=draw_value(st.sampled_from(("no-limit", "pot-limit", "fixed-limit"))),
        raise_cap=draw_value(st.sampled_from((None, 4, 5))),
        heads_up_uncapped=draw_value(st.booleans()))
    n = draw_value(st.integers(2, 6))
    stacks = tuple(draw_value(st.lists(st.integers(1, 600), min_size=n, max_size=n))) \
        if settings.betting else ()
    return settings, stacks, draw_value(st.integers(0, n - 1)), draw_value(st.integers(0, 2**32))


def _deck(settings: DrawSettings, rng: random.Random) -> tuple[str, ...]:
    return tuple(format_card(c) for c in shuffled(new_deck(settings.joker is not None), rng))


def _random_command(state: HandState, rng: random.Random) -> Any:
    if state.awaiting == "redeal":
        return Redeal(_deck(state.settings, rng), reshuffle_order=_deck(state.settings, rng))
    seat = state.to_act
    if state.awaiting == "draw":
        hand = list(state.hands[seat])
        discard = rng.sample(hand, rng.choice((rng.randint(0, 5), 5)))
        while len(discard) > draw_legal.draw_limit(state.settings, [c for c in hand if c not in discard]):
            discard.pop()
        thrown = tuple(format_card(c) for c in discard)
        # An opener who throws part of the openers away says so (splitting openers).
        return Discard(seat, thrown, split_openers=draw_openers.breaks_openers(state, seat, thrown))
    legal = draw_legal.legal_actions(state)
    options = [("fold", None)] if rng.random() < 0.15 else []
    if legal.check:
        options.append(("check", None))
    if legal.call:
        options += [("call", None)] * 2
    for name, allowed in (("bet", legal.bet), ("raise", legal.raise_)):
        if allowed:
            options += [(name, rng.choice((allowed.min_to, allowed.max_to,
                                          rng.randint(allowed.min_to, allowed.max_to))))] * 2
    action, to = rng.choice(options or [("fold", None)])
    return PostAction(seat, action, to)


def play(settings: DrawSettings, stacks: tuple[int, ...], button: int, seed: int):
    """One random hand: (all events, final state), checking conservation at every step."""
    rng = random.Random(seed)
    n = len(stacks) if settings.betting else 2 + seed % 5
    start = StartHand(tuple(f"P{i}" for i in range(n)), button % n, settings,
                           _deck(settings, rng), stacks,
                           reshuffle_order=_deck(settings, rng) if rng.random() < 0.5 else None)
    events, state = draw_engine.handle(None, start)
    total = sum(stacks)
    for _ in range(MAX_COMMANDS):
        if state.over:
            break
        if settings.betting:
            assert sum(state.stacks) + sum(state.betting.committed) == total
        new, state = draw_engine.handle(state, _random_command(state, rng))
        events += new
    assert state.over
    assert sum(events[-1].stacks) == (total if settings.betting else 0)
    return events, state


@hypothesis_settings(max_examples=150, deadline=None)
@given(tables())
def test_chips_are_conserved_and_every_hand_ends(table):
    events, state = play(*table)
    settings = table[0]
    if settings.betting:
        awarded = sum(sum(e.shares) for e in events if isinstance(e, PotAwarded))
        assert awarded == sum(e.amount for e in events if isinstance(e, PotAwarded))
        assert all(stack >= 0 for stack in state.stacks)
    else:
        assert sum(state.points) >= 1


@hypothesis_settings(max_examples=60, deadline=None)
@given(tables())
def test_replay_through_store_records_rebuilds_the_same_state(table):
    events, state = play(*table)
    records = [to_record(event) for event in events]
    rebuilt = [from_record(EVENT_TYPES, name, data) for name, data in records]
    assert rebuilt == events
    assert draw_stream.replay(rebuilt) == state
    assert play(*table)[0] == events  # same inputs, same hand


_CARDS = re.compile(r"(?:[2-9TJQKA][shdc]|Jk)+")


def _card_texts(value: Any) -> set[str]:
    """Every card named anywhere in an event."""
    if dataclasses.is_dataclass(value):
        return set().union(*(_card_texts(getattr(value, f.name)) for f in dataclasses.fields(value)))
    if isinstance(value, tuple):
        return set().union(set(), *(_card_texts(v) for v in value))
    if isinstance(value, str) and _CARDS.fullmatch(value):
        return {value[i:i + 2] for i in range(0, len(value), 2)}
    return set()


@hypothesis_settings(max_examples=60, deadline=None)
@given(tables())
def test_a_player_never_sees_another_players_cards_before_the_showdown(table):
    events, state = play(*table)
    showdown = next((k for k, e in enumerate(events)
                     if isinstance(e, (CardsShown, OpenersShown))), len(events))
    before = events[:showdown]
    for viewer in range(state.seat_count):
        own: set[str] = set()
        for event in before:
            if isinstance(event, HoleCardsDealt) and event.position == viewer:
                own |= _card_texts(event.cards)
            if isinstance(event, PlayerDrew) and event.position == viewer:
                own |= _card_texts(event.received)
        seen = set().union(*(_card_texts(draw_events.visible_event(e, viewer, "player")) for e in before))
        assert seen <= own
    spectator = set().union(*(_card_texts(draw_events.visible_event(e, None, "spectator")) for e in before))
    assert spectator == set()
