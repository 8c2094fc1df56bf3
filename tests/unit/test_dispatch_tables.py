"""The tables of small functions that replaced long `evolve` and `decide` chains cover their
vocabulary: every stored event type has its evolve step, every command its decider."""
from __future__ import annotations

import dataclasses

from domain.games import palace
from domain.tournaments import commands, decider, evolver
from domain.tournaments.events import EVENT_TYPES

# Values the commands carry, not commands themselves.
NOT_COMMANDS = {commands.Settings, commands.Bust, commands.ChipCount, commands.DealShare}


def test_every_stored_event_type_has_an_evolve_step() -> None:
    assert set(EVENT_TYPES.values()) == set(evolver.EVOLVERS)


def test_every_command_has_a_decider() -> None:
    every = {cls for cls in vars(commands).values()
             if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == commands.__name__}
    answered = {commands.CreateTournament} | set(decider.BEFORE_START) | set(decider.WHILE_RUNNING)
    assert every - NOT_COMMANDS == answered


def test_every_palace_event_type_has_an_evolve_step() -> None:
    assert set(palace.EVENT_TYPES.values()) == set(palace.EVOLVERS)
