"""Dice poker's ruling on the floor's rulings page: the roll, the lines, another roll
(domain.ruling_forms; the API's twin is `POST /v1/rulings/dice`). A scorecard is written
as lines of `line score`."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.games.dice import dice_ruling
from domain.games.dice_scoring import LINES, UPPER_LINES
from domain.ruling_forms import LINES as LINES_FIELD
from domain.ruling_forms import NUMBER, FormError, FormField, RulingForm, read_amount, read_lines, read_number, read_text


def _request(form: Mapping[str, str]) -> dict[str, Any]:
    request: dict[str, Any] = {}
    dice = read_text(form, "dice").replace(",", " ").split()
    if dice:
        request["dice"] = [read_number(die, "dice") for die in dice]
    scorecard = {}
    for number, words in enumerate(read_lines(form, "scorecard"), 1):
        if len(words) != 2:
            raise FormError(f"scorecard, line {number}: write `line score`, e.g. `threes 9`")
        scorecard[words[0]] = read_number(words[1], f"scorecard, line {number}")
    if scorecard:
        request["scorecard"] = scorecard
    rolls = read_amount(form, "rolls_taken")
    if rolls is not None:
        request["rolls_taken"] = rolls
    return request


def _words(answer: dict[str, Any]) -> list[str]:
    said = []
    roll = answer.get("roll")
    if roll is not None:
        said.append(f"{'Another roll is allowed' if roll['another_roll'] else 'No other roll'}: "
                    f"{roll['detail']} ({roll['rule']})")
    if answer.get("joker"):
        said.append(_joker_words(answer))
    if answer.get("best_line"):
        best = answer["lines"][answer["best_line"]]
        said.append(f"Best line: {answer['best_line']} for {best['score']}"
                    + (f" and a bonus of {best['bonus']}" if best.get("bonus") else ""))
    if answer.get("legal_lines") is not None:
        said.append("May be written on: " + (", ".join(answer["legal_lines"]) or "no line"))
    totals = answer["totals"]
    said.append(f"Card total: {totals['grand_total']} (upper {totals['upper']} + bonus {totals['upper_bonus']}, "
                f"lower {totals['lower']})")
    return said


def _joker_words(answer: dict[str, Any]) -> str:
    """Where a joker may go (dice-poker.md): its face's upper line if free, else any free
    lower line (as meeting that line's need), else 0 on a free upper line."""
    face = UPPER_LINES[answer["dice"][0] - 1]
    legal = answer["legal_lines"]
    if legal == [face]:
        where = f"it must go on {face}, its face's line, which is free"
    elif any(line not in UPPER_LINES for line in legal):
        where = f"{face} is written, so any free lower line takes it as meeting its need"
    else:
        where = f"{face} and every lower line are written, so it goes as 0 on a free upper line"
    return (f"A joker: five of a kind again with 50 on Poker earns a bonus of {answer['poker_bonus']}; "
            f"{where}")


RULING_FORM = RulingForm(
    "dice", "Dice poker: the roll, the lines, another roll",
    (FormField("dice", "Dice (five values 1 to 6)"),
     FormField("rolls_taken", "Rolls taken this turn", NUMBER),
     FormField("scorecard", "Scorecard, one line per line written", LINES_FIELD, "line score",
               f"(lines: {', '.join(LINES)})")),
    _request, dice_ruling, _words,
    example={"dice": "3 3 3 5 5", "rolls_taken": "1", "scorecard": "threes 9\nfours 12"})
