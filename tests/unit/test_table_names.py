"""A table's name: given when the table is created, kept on TableCreated, read back by
every view; a table recorded before names reads as unnamed; a name that would not read
as one (too long, control or formatting characters, spaces at its ends) is refused with
`invalid_table_name`, and a tournament names its tables after itself."""
from __future__ import annotations

import pytest

from domain.live import table_names
from domain.live.table import handle
from domain.live.table_commands import CreateTable, TableSeat
from domain.live.table_events import TableCreated
from domain.records import from_record, to_record
from domain.rules.betting import BettingStructure
from domain.rules.violations import Violation

NL = BettingStructure.from_dict({"structure": "no-limit", "small_blind": 1, "big_blind": 2})
SEATS = (TableSeat("ann", 100), TableSeat("bob", 100))


def created(name):
    events, state = handle(None, CreateTable("t1", "holdem", {}, NL, SEATS, name=name))
    return events[0], state


@pytest.mark.parametrize("name", ["Feature table", "Table 7", "Main Event #2: day 1", "Salle Étoile", "東 1",
                                  "Ann's (high roller) 5/10", "x" * table_names.MAX_LENGTH])
def test_a_name_of_letters_digits_spaces_and_table_card_punctuation_is_kept(name):
    event, state = created(name)
    assert event.name == state.name == name
    kind, data = to_record(event)
    assert from_record({kind: TableCreated}, kind, data).name == name


def test_a_table_created_without_a_name_is_unnamed_and_an_old_event_without_the_field_reads():
    event, state = created(None)
    assert state.name is None
    _, data = to_record(event)
    del data["name"]  # as every TableCreated recorded before names existed
    assert from_record({"TableCreated": TableCreated}, "TableCreated", data).name is None


@pytest.mark.parametrize("name, says", [
    ("", "1 to 60 characters"),
    ("x" * 61, "at most 60 characters, not 61"),
    (" Feature", "neither begins nor ends with a space"),
    ("Feature  table", "two in a row"),
    ("Table\u202e7", "U+202E"),  # right-to-left override: would reorder a heading
    ("Table\n7", "U+000A"),
    ("<script>", "U+003C, U+003E"),
])
def test_a_name_that_does_not_read_as_one_is_invalid_table_name(name, says):
    with pytest.raises(Violation) as refused:
        created(name)
    assert refused.value.code == "invalid_table_name" and says in refused.value.detail
    assert refused.value.numbers["max_length"] == table_names.MAX_LENGTH


def test_a_tournament_names_its_tables_after_itself_within_the_length():
    assert table_names.tournament_table("Sunday Million", 3) == "Sunday Million table 3"
    long = table_names.tournament_table("W" * 80, 12)
    assert long is not None and long.endswith(" table 12") and len(long) == table_names.MAX_LENGTH
    assert table_names.tournament_table("Bad\u202ename", 1) is None  # unnamed rather than refused
    assert table_names.tournament_table("", 1) is None
