""".phhs files cut into their hands by their table headers, so that one broken hand does
not make the others unreadable (domain.history.phh_collection)."""
from __future__ import annotations

import tomllib

import pytest

from domain.history.phh import parse
from domain.history.phh_collection import hands_of
from tests.unit.test_phh_odd_chips import CHOPPED_BOARD


def test_each_hand_is_its_header_and_the_lines_up_to_the_next() -> None:
    text = f"# three hands\n[1]\n{CHOPPED_BOARD}\n['hand two']\n{CHOPPED_BOARD}[3] # the last\n{CHOPPED_BOARD}"
    first, second, third = hands_of(text)
    assert (first.position, first.name, first.line) == (1, "1", 2)
    assert (second.position, second.name) == (2, "hand two")
    assert second.line == text.splitlines().index("['hand two']") + 1
    assert third.name == "3"
    assert parse(first.text) == parse(second.text) == parse(third.text) == parse(CHOPPED_BOARD)


def test_a_hand_that_is_not_toml_leaves_the_others_readable() -> None:
    text = f"[1]\n{CHOPPED_BOARD}[2]\nvariant = 'NT\n[3]\n{CHOPPED_BOARD}"
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads(text)  # as one document, no hand of it reads
    first, broken, last = hands_of(text)
    assert parse(first.text) == parse(last.text)
    with pytest.raises(tomllib.TOMLDecodeError) as error:
        tomllib.loads(broken.text)
    line, detail = broken.file_line(str(error.value))
    assert line == broken.line + 1 == text.splitlines().index("variant = 'NT") + 1
    assert detail.endswith(f"(line {line} of the file)") and "at line 1" not in detail


def test_a_hand_named_twice_is_read_twice() -> None:
    # One TOML document may not declare a table twice; two hands of a file may share a name.
    hands = hands_of(f"[1]\n{CHOPPED_BOARD}[1]\n{CHOPPED_BOARD}")
    assert [hand.name for hand in hands] == ["1", "1"]


def test_a_header_inside_a_multi_line_string_is_text() -> None:
    text = f"[1]\n_note = '''\n[2]\n'''\n{CHOPPED_BOARD}"
    (hand,) = hands_of(text)
    assert tomllib.loads(hand.text)["_note"] == "[2]\n"


@pytest.mark.parametrize("text", [
    CHOPPED_BOARD,                                # one hand
    CHOPPED_BOARD + "[_extra]\nwho = 'us'\n",      # one hand with a table of its own
    "",
    "[[1]]\nvariant = 'NT'\n",                    # an array of tables is no hand
])
def test_fields_before_the_first_header_make_one_hand_not_a_collection(text: str) -> None:
    assert hands_of(text) is None


def test_a_complaint_without_a_line_points_at_the_header() -> None:
    (hand,) = hands_of(f"\n\n[7]\n{CHOPPED_BOARD}")
    assert hand.file_line("the field 'antes' is missing") == (3, "the field 'antes' is missing")
    line, _ = hand.file_line("Invalid value (at end of document)")
    assert line == 3 + len(CHOPPED_BOARD.splitlines())
