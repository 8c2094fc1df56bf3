"""Hold'em and Omaha played by the mixed games' flop family (domain.games.mixed, as a
rotation deals them) end every real hand exactly as domain.games.holdem does: the same
finishing stacks and the same pots, won by the same seats. The measure behind folding
hold'em into that one engine (issue 36, docs/flop-family.md): it must stay green while
the two engines become one."""
from __future__ import annotations

from pathlib import Path

import pytest

from domain.history import phh, phh_mixed
from domain.history.phh import parse
from tests.corpus import PHH as CORPUS


def _holdem_records(folder: Path) -> list[Path]:
    return [path for path in sorted(folder.rglob("*.phh"))
            if _variant(path) in phh.REPLAYABLE]


def _variant(path: Path) -> str:
    return path.read_text().split("variant = ", 1)[1].split("\n", 1)[0].strip("'\"")


def _both_engines_agree(path: Path) -> None:
    record = parse(path.read_text())
    holdem = phh.replay(record)
    flop_family = phh_mixed.replay(record, phh_mixed.ROTATION_OF[record.variant])
    assert flop_family.finishing_stacks == holdem.finishing_stacks == record.finishing_stacks
    assert flop_family.pots == holdem.pots


@pytest.mark.parametrize("path", _holdem_records(CORPUS / "wsop"), ids=lambda p: f"wsop-{p.stem}")
def test_wsop_holdem_and_omaha_hand_ends_alike_in_the_flop_family(path: Path) -> None:
    _both_engines_agree(path)


def test_every_holdem_variant_phh_replays_has_a_flop_family_game() -> None:
    assert set(phh.REPLAYABLE) <= set(phh_mixed.ROTATION_OF)


@pytest.mark.slow
def test_all_ten_thousand_pluribus_hands_end_alike_in_the_flop_family() -> None:
    paths = _holdem_records(CORPUS / "pluribus")
    assert len(paths) == 10_000
    for path in paths:
        _both_engines_agree(path)
