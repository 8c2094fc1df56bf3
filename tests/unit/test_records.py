from dataclasses import dataclass
from fractions import Fraction

import pytest

from domain.records import from_record, to_record


@dataclass(frozen=True)
class Share:
    seat: int
    amount: int | Fraction


@dataclass(frozen=True)
class PotAwarded:
    pot: int
    winners: tuple[Share, ...]
    board: tuple[str, ...]
    note: str | None = None


TYPES = {"PotAwarded": PotAwarded}


def test_an_event_round_trips_through_its_record_with_tuples_and_nested_parts():
    event = PotAwarded(pot=1, winners=(Share(0, 150), Share(3, 150)), board=("As", "Kd"))
    type_name, data = to_record(event)
    assert type_name == "PotAwarded"
    assert data == {"pot": 1, "winners": [{"seat": 0, "amount": 150}, {"seat": 3, "amount": 150}],
                    "board": ["As", "Kd"], "note": None}
    assert from_record(TYPES, type_name, data) == event


def test_fractional_amounts_are_kept_exactly_as_strings():
    event = PotAwarded(pot=0, winners=(Share(1, Fraction(325, 2)),), board=())
    _, data = to_record(event)
    assert data["winners"][0]["amount"] == "325/2"
    assert from_record(TYPES, "PotAwarded", data) == event


def test_an_unknown_event_type_is_refused():
    with pytest.raises(KeyError):
        from_record(TYPES, "ChipsInvented", {})
