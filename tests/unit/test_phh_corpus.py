"""The real-hands corpus: every NT, FT and PO hand replays through our engine and ends with
exactly the recorded finishing stacks (fractions where PHH split an odd chip in halves)."""
from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path

import pytest

from domain.history.phh import parse, write_phh
from domain.history.phh_games import phh_from_events, replay
from tests.corpus import PHH as CORPUS

REPLAYED_VARIANTS = ("NT", "FT", "PO")


def _wsop_paths(replayed: bool) -> list[Path]:
    paths = sorted((CORPUS / "wsop").rglob("*.phh"), key=lambda p: int(p.stem))
    return [p for p in paths if (_variant(p) in REPLAYED_VARIANTS) == replayed]


def _variant(path: Path) -> str:
    return path.read_text().split("variant = ", 1)[1].split("\n", 1)[0].strip("'\"")


def test_all_ten_thousand_pluribus_hands_reproduce_their_finishing_stacks() -> None:
    paths = sorted((CORPUS / "pluribus").rglob("*.phh"))
    assert len(paths) == 10_000
    started, cpu_started = time.perf_counter(), time.process_time()
    wrong = []
    for path in paths:
        hand = parse(path.read_text())
        computed = replay(hand).finishing_stacks
        if computed != hand.finishing_stacks:
            wrong.append(f"{path}: {computed} != {hand.finishing_stacks}")
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    assert not wrong, f"{len(wrong)} hands differ, first: {wrong[:3]}"
    print(f"\n10,000 Pluribus hands parsed and replayed in {elapsed:.1f} s ({cpu:.1f} s CPU)")


HALF_CHIP_HANDS = [
    "41b/204", "102/0", "60/88", "91/53", "91/43", "32/23", "88/128", "75b/76",
]


@pytest.mark.parametrize("name", HALF_CHIP_HANDS)
def test_a_split_pot_with_an_odd_chip_is_divided_into_halves(name: str) -> None:
    hand = parse((CORPUS / "pluribus" / f"{name}.phh").read_text())
    halves = [s for s in hand.finishing_stacks if isinstance(s, Fraction)]
    assert halves and all(s.denominator == 2 for s in halves)
    result = replay(hand)
    assert result.finishing_stacks == hand.finishing_stacks
    assert sum(result.finishing_stacks) == sum(hand.starting_stacks)
    assert any(len(pot.winners) > 1 for pot in result.pots)


def test_pluribus_hand_41b_204_splits_2325_between_two_king_queens() -> None:
    hand = parse((CORPUS / "pluribus/41b/204.phh").read_text())
    result = replay(hand)
    assert result.winners == (0, 3)  # ORen KsQs and Bill QhKh chop on AcKd6h Qc 3c
    assert result.finishing_stacks[0] == result.finishing_stacks[3] == Fraction(20325, 2)


@pytest.mark.parametrize("path", _wsop_paths(replayed=True), ids=lambda p: f"wsop-{p.stem}")
def test_wsop_2023_hand_reproduces_its_finishing_stacks(path: Path) -> None:
    hand = parse(path.read_text())
    assert replay(hand).finishing_stacks == hand.finishing_stacks


def test_the_wsop_corpus_holds_the_three_replayed_variants() -> None:
    counts = {v: 0 for v in REPLAYED_VARIANTS}
    for path in _wsop_paths(replayed=True):
        counts[_variant(path)] += 1
    assert counts == {"NT": 11, "FT": 7, "PO": 7}


MIXED_GAME_COUNTS = {"F7S": 13, "F7S/8": 7, "FO/8": 14, "FR": 10, "F2L3D": 7, "N2L1D": 7}


@pytest.mark.parametrize("path", _wsop_paths(replayed=False), ids=lambda p: f"wsop-{p.stem}")
def test_wsop_2023_mixed_game_hand_reproduces_its_finishing_stacks(path: Path) -> None:
    hand = parse(path.read_text())
    assert parse(write_phh(hand)) == hand
    result = replay(hand)
    assert result.finishing_stacks == hand.finishing_stacks
    assert sum(result.finishing_stacks) == sum(hand.starting_stacks)


def test_the_wsop_corpus_holds_the_six_mixed_games() -> None:
    counts: dict[str, int] = {}
    for path in _wsop_paths(replayed=False):
        counts[_variant(path)] = counts.get(_variant(path), 0) + 1
    assert counts == MIXED_GAME_COUNTS


# Computed by PokerKit 0.5 from the same files (they record no finishing stacks).
FAMOUS_MIXED_GAME_HANDS = {
    "alice-carol-wikipedia": (196, 220, 200, 184),
    "arieh-yockey-2019": (0, 4_190_000, 5_910_000, 12_095_000),
    "phua-xuan-2019": (489_000, 226_000, 684_000, 400_000, 0, 198_000),
}


@pytest.mark.parametrize("name", sorted(FAMOUS_MIXED_GAME_HANDS))
def test_famous_hands_of_the_mixed_games_end_as_pokerkit_ends_them(name: str) -> None:
    assert replay(parse((CORPUS / f"{name}.phh").read_text())).finishing_stacks \
        == FAMOUS_MIXED_GAME_HANDS[name]


def test_carol_wins_the_wikipedia_badugi_hand_with_the_lower_badugi() -> None:
    # Alice 2s4c6d9h and Carol 3s5d7c8h both hold a badugi (four suits, four ranks);
    # badugis compare from the top card down, so Carol's 8-7-5-3 beats Alice's 9-6-4-2.
    result = replay(parse((CORPUS / "alice-carol-wikipedia.phh").read_text()))
    assert result.winners == (1,)


def test_arieh_yockey_2019_a_seven_five_beats_the_seven_six() -> None:
    # Yockey stood pat on 7-6-4-3-2 from the deal; Arieh drew to 7-5-4-3-2, the best hand
    # but one in deuce-to-seven, and took the pot; Yockey was all in.
    result = replay(parse((CORPUS / "arieh-yockey-2019.phh").read_text()))
    assert result.winners == (3,)
    assert result.finishing_stacks[0] == 0


def test_phua_xuan_2019_short_deck_queens_run_into_a_straight_past_trip_kings() -> None:
    # Short deck: everyone antes 3,000, the button alone posts a 3,000 blind and p1 acts
    # first. On 9h6cKc Jh Ts Phua's kings make trips, Xuan's queens a king-high straight.
    result = replay(parse((CORPUS / "phua-xuan-2019.phh").read_text()))
    assert result.winners == (2,)
    assert result.finishing_stacks[4] == 0


def test_dwan_ivey_2009_dwan_wins_the_million_dollar_pot_with_the_higher_straight() -> None:
    # Antes 500, blinds 1000/2000; Dwan (553,500) is all-in on the turn and Ivey's A2 wheel
    # loses to 7h6h's seven-high straight. Antonius forfeits ante and big blind.
    result = replay(parse((CORPUS / "dwan-ivey-2009.phh").read_text()))
    assert result.finishing_stacks == (1_125_600 - 553_500, 2_000_000 - 2_500, 1_109_500)
    assert result.winners == (2,)
    assert sum(pot.amount for pot in result.pots) == 1_109_500


def test_antonius_blom_2009_antonius_wins_with_a_wheel_from_fractional_stacks() -> None:
    # Pot-limit Omaha heads-up: Blom (678,473.50) is all-in on the flop; Antonius's A3 with
    # 4-5-2 makes the wheel, Blom's nines-and-fives lose. Cents are exact fractions.
    result = replay(parse((CORPUS / "antonius-blom-2009.phh").read_text()))
    assert result.finishing_stacks == (Fraction("1259450.25") + Fraction("678473.5"), 0)
    assert result.winners == (0,)


def test_every_replayed_hand_exports_back_to_the_same_phh_fields() -> None:
    paths = [*_wsop_paths(replayed=True), CORPUS / "dwan-ivey-2009.phh",
             CORPUS / "antonius-blom-2009.phh",
             *sorted((CORPUS / "pluribus").rglob("*.phh"))[:300]]
    for path in paths:
        hand = parse(path.read_text())
        result = replay(hand)
        exported = phh_from_events(result.events)
        for field in ("variant", "ante_trimming_status", "antes", "blinds_or_straddles",
                      "min_bet", "small_bet", "big_bet", "starting_stacks", "actions",
                      "players"):
            assert getattr(exported, field) == getattr(hand, field), (path, field)
        assert exported.finishing_stacks == result.finishing_stacks
        assert replay(parse(write_phh(exported))).finishing_stacks == result.finishing_stacks
