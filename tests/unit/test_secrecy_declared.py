"""Secrecy is declared on the events (domain.secrecy), and the application redacts from the
declarations alone: a game whose card field says nothing fails here, not in production."""
from __future__ import annotations

import dataclasses
import importlib
import re
from dataclasses import dataclass, field

import pytest

from domain import registry, secrecy
from domain.live import table
from domain.secrecy import OWNER_ONLY, SEALED, Secrecy
from service.application.sealing import hidden, seal
from service.application.views import Viewer, redact_event

# A field that holds cards, a deck, an order of cards, a salt or a pending roll, by its name.
CARD_BEARING = re.compile(r"card|deck|order|salt|palace|_hand$|discarded|received|values|dice|kept|drawn|best")
OTHER_EVENT_MODULES = ("domain.games.draw_match", "domain.tournaments.events", "domain.players", "domain.series.series",
                       "domain.ratings", "domain.rulings.on_record")


def every_event_class() -> list[type]:
    classes = {cls for game in registry.table_names() for cls in table.event_types(game).values()}
    for module in OTHER_EVENT_MODULES:
        classes |= set(importlib.import_module(module).EVENT_TYPES.values())
    return sorted(classes, key=lambda cls: (cls.__module__, cls.__qualname__))


def card_bearing_fields() -> list[tuple[type, str]]:
    return [(cls, item.name) for cls in every_event_class() for item in dataclasses.fields(cls)
            if CARD_BEARING.search(item.name)]


def test_the_property_sees_the_games_card_fields() -> None:
    found = {(cls.__name__, name) for cls, name in card_bearing_fields()}
    assert {("HoleCardsDealt", "cards"), ("HandOpened", "salt"), ("PalaceDeckCut", "palace_order"),
            ("RollPrepared", "values"), ("BattleCardsShown", "attacker_hand")} <= found


@pytest.mark.parametrize(("cls", "name"), card_bearing_fields(),
                         ids=lambda x: x if isinstance(x, str) else f"{x.__module__}.{x.__name__}")
def test_every_card_bearing_field_of_every_game_declares_its_secrecy(cls: type, name: str) -> None:
    assert secrecy.declared(cls, name) is not None, (
        f"{cls.__module__}.{cls.__name__}.{name} holds cards or a secret and declares no secrecy: "
        "give it field(metadata=PUBLIC, OWNER_ONLY or SEALED) (domain.secrecy)")


def test_every_table_record_type_is_registered_with_its_declarations() -> None:
    registered = secrecy.registered()
    for game in registry.table_names():
        for name, cls in table.event_types(game).items():
            assert cls in registered[name]
            assert set(secrecy.secrets_of(cls).at_rest) <= set(secrecy.secrets_named(name).at_rest)


def test_a_name_several_games_share_is_read_with_the_secrets_of_each() -> None:
    # Hold'em's HandStarted seals its deck, five-card draw's its reshuffle order too.
    assert secrecy.secrets_named("HandStarted").sealed == ("deck", "reshuffle_order")


def test_an_owner_only_field_needs_a_field_naming_its_owner() -> None:
    @dataclass(frozen=True)
    class Orphan:
        cards: str = field(metadata=OWNER_ONLY)

    with pytest.raises(TypeError, match="names no owner"):
        secrecy.register([Orphan])


# A game the service has never heard of, registered by this test alone.
@dataclass(frozen=True)
class FortuneDealt:
    position: int
    fortune: str = field(metadata=OWNER_ONLY)
    omen: str = field(metadata=SEALED)
    table_talk: str = ""


secrecy.register([FortuneDealt])


def fortune(data_revealed: bool) -> dict:
    public, sealed = seal("FortuneDealt", {"position": 0, "fortune": "AsKd", "omen": "Qh", "table_talk": "gl"})
    assert sealed == {"omen": "Qh"} and public["omen"] is None
    return {"version": 7, "type": "FortuneDealt", "revealed": data_revealed,
            "data": {**public, **sealed} if data_revealed else public, "metadata": {"visible_to": "alice"}}


def test_a_test_only_events_owner_only_field_is_redacted_for_everyone_but_its_owner_and_the_floor() -> None:
    assert secrecy.declared(FortuneDealt, "fortune") is Secrecy.OWNER_ONLY
    for viewer in (Viewer("player", "bob"), Viewer("spectator"), Viewer("player")):
        assert redact_event(fortune(False), viewer)["data"] == {
            "position": 0, "fortune": None, "omen": None, "table_talk": "gl"}
    assert redact_event(fortune(False), Viewer("player", "alice"))["data"]["fortune"] == "AsKd"
    assert redact_event(fortune(False), Viewer("floor"))["data"]["fortune"] == "AsKd"


def test_a_test_only_events_sealed_field_reads_as_null_until_revealed() -> None:
    assert hidden("FortuneDealt", {"position": 0, "fortune": "AsKd", "omen": "Qh"})["omen"] is None
    assert redact_event(fortune(False), Viewer("floor"))["data"]["omen"] is None
    assert redact_event(fortune(True), Viewer("floor"))["data"]["omen"] == "Qh"
