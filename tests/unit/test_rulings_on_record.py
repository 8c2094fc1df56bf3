"""Rulings on the record, the domain (domain.rulings.on_record): a ruling is recorded with
its hand, step, words and who ruled; the cards it names are declared the floor's
(owner-only with no owner) and written one way; blank or oversized words are refused."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain import secrecy
from domain.rules.violations import Violation
from domain.rulings import on_record
from domain.rulings.on_record import FloorRuled, RecordRuling
from service.application.views import Viewer


def command(**changes) -> RecordRuling:
    base = dict(subject="t1", hand="t1.3", at_version=12, question="  Was the raise full?  ",
                decision="No: betting is not reopened.", ruled_by="key-7", role="floor", rule="TDA 2024 43",
                cards=("as", "10d"))
    return RecordRuling(**{**base, **changes})


def test_a_ruling_is_recorded_with_its_words_trimmed_and_its_cards_written_one_way() -> None:
    [ruled] = on_record.decide(on_record.INITIAL, command())
    assert ruled == FloorRuled(subject="t1", hand="t1.3", at_version=12, question="Was the raise full?",
                               decision="No: betting is not reopened.", ruled_by="key-7", role="floor",
                               rule="TDA 2024 43", note=None, cards=("As", "Td"))
    assert on_record.evolve(on_record.INITIAL, ruled) == on_record.RulingsLog("t1", 1)


def test_the_cards_are_declared_the_floors_alone() -> None:
    assert secrecy.declared(FloorRuled, "cards") is secrecy.Secrecy.OWNER_ONLY
    assert secrecy.secrets_named("FloorRuled").owner == secrecy.OWNER_BY_LIST
    assert FloorRuled("t", "t.1", 1, "q", "d", "k", "floor").visible_to == ()
    assert not Viewer("player", "ann").sees_cards_of(()) and Viewer("floor").sees_cards_of(())


@pytest.mark.parametrize(("changes", "code"), [
    ({"question": " "}, "invalid_ruling"), ({"decision": ""}, "invalid_ruling"),
    ({"note": "x" * (on_record.TEXT_MAX_LENGTH + 1)}, "invalid_ruling"),
    ({"cards": ("As", "as")}, "duplicate_card"), ({"cards": ("Zz",)}, "invalid_card"),
    ({"subject": "t2"}, "invalid_ruling"),
])
def test_a_ruling_without_its_words_or_with_bad_cards_is_refused(changes, code) -> None:
    log = on_record.replay(on_record.decide(on_record.INITIAL, command()))
    with pytest.raises(Violation) as refused:
        on_record.decide(log, command(**changes))
    assert refused.value.code == code


@given(st.lists(st.text(min_size=1, max_size=30).filter(str.strip), min_size=1, max_size=8))
def test_the_log_counts_every_ruling_recorded(questions: list[str]) -> None:
    recorded: list[FloorRuled] = []
    for question in questions:
        recorded += on_record.decide(on_record.replay(recorded), command(question=question, cards=()))
    assert on_record.replay(recorded) == on_record.RulingsLog("t1", len(questions))
    assert [ruled.question for ruled in recorded] == [question.strip() for question in questions]
