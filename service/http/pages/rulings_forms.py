"""`/floor/rulings` (pages.md): the floor's forms for the betting, chips, showdown, dice
and Palace battle rulings, answered in words with the rule.

Each form's fields become the body of the matching `POST /v1/rulings/*`, checked by the
same schemas (service.http.api.rulings) and ruled by the same domain functions, so the
page and the API never disagree. Lines of text stand in for the API's lists: seats as
`name stack`, actions as `player action [to]` (a draw `player draw 3` or `player draw
Kd 7c`), hands as `name cards`, a scorecard as `line score`, a Palace side as `name
banner palace [soldiers]`. A form that does not parse, or a situation the rules refuse, comes back
with the reason (the code, the detail, the rule) beside the form, never a 500.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import marshmallow as ma
from flask import render_template, request
from werkzeug.wrappers import Response

from domain.games.dice import dice_ruling
from domain.games.dice_scoring import LINES, UPPER_LINES
from domain.games.palace import RULE as PALACE_RULE
from domain.games.palace import palace_battle_ruling
from domain.rules.betting import KINDS, chips
from domain.rules.declarations import ORDERS, RULE_BOOKS
from domain.rulings.betting import GAMES as BETTING_GAMES
from domain.rulings.betting import betting_ruling
from domain.rulings.chips import chips_ruling
from domain.rulings.showdown import GAMES as SHOWDOWN_GAMES
from domain.rulings.showdown import showdown_ruling
from domain.rules.violations import Violation
from service.http.api.rulings import (
    BettingRulingRequestSchema, ChipsRulingRequestSchema, DiceRulingRequestSchema,
    PalaceBattleRequestSchema, ShowdownRulingRequestSchema,
)
from service.http.pages.frame import pages
from service.http.pages.replayer import FLOOR_ROLES, validation_words
from service.http.pages.session import CSRF_FIELD, floor_page

FORM_FIELD_MAX = 20_000
"""Characters per field: far more than any situation, little enough to parse at once."""


class FormError(ValueError):
    """A field that does not read as what it stands for: said to the person who typed it."""


@dataclass(frozen=True)
class Ruling:
    """One form: its fields' request body, the schema and the domain function of its
    POST /v1/rulings/* twin, and the answer read out in words."""
    title: str
    body: Callable[[Mapping[str, str]], dict[str, Any]]
    schema: type[ma.Schema]
    rule: Callable[[Mapping[str, Any]], dict[str, Any]]
    words: Callable[[dict[str, Any]], list[str]]


# ---------------------------------------------------------------- reading the fields


def _text(form: Mapping[str, str], name: str) -> str:
    value = form.get(name, "")
    if len(value) > FORM_FIELD_MAX:
        raise FormError(f"{name}: at most {FORM_FIELD_MAX:,} characters")
    return value.strip()


def _amount(form: Mapping[str, str], name: str, *, required: bool = False) -> int | None:
    value = _text(form, name).replace(",", "").replace("_", "")
    if not value:
        if required:
            raise FormError(f"{name.replace('_', ' ')}: give an amount")
        return None
    if not value.isdigit() or len(value) > 15:
        raise FormError(f"{name.replace('_', ' ')}: {value[:40]!r} is not a whole number of chips")
    return int(value)


def _lines(form: Mapping[str, str], name: str) -> list[list[str]]:
    return [line.split() for line in _text(form, name).splitlines() if line.strip()]


def _number(word: str, where: str) -> int:
    cleaned = word.replace(",", "")
    if not cleaned.isdigit() or len(cleaned) > 15:
        raise FormError(f"{where}: {word[:40]!r} is not a whole number")
    return int(cleaned)


def _seats(form: Mapping[str, str]) -> list[dict[str, Any]]:
    seats = []
    for number, words in enumerate(_lines(form, "seats"), 1):
        if len(words) != 2:
            raise FormError(f"seats, line {number}: write `name stack`, e.g. `Ann 10000`")
        seats.append({"player": words[0], "stack": _number(words[1], f"seats, line {number}")})
    return seats


DRAW_ACTIONS = ("draw", "split_openers")


def _action(words: list[str], where: str) -> dict[str, Any]:
    if len(words) >= 2 and words[1].lower() in DRAW_ACTIONS:
        return _draw_action(words, where)
    if len(words) not in (2, 3):
        raise FormError(f"{where}: write `player action [to]`, e.g. `Ann raise 300`")
    action: dict[str, Any] = {"player": words[0], "action": words[1].lower()}
    if len(words) == 3:
        action["to"] = _number(words[2], where)
    return action


def _draw_action(words: list[str], where: str) -> dict[str, Any]:
    """`Ann draw 3` (how many) or `Ann draw Kd 7c` (the cards thrown away): the API's `discard`."""
    kind = words[1].lower()
    if len(words) < 3:
        raise FormError(f"{where}: write `player {kind} 3` (how many) or `player {kind} Kd 7c` (the cards)")
    thrown = words[2:]
    discard: int | str = (_number(thrown[0], where) if len(thrown) == 1 and thrown[0].isdigit()
                          else "".join(thrown))
    return {"player": words[0], "action": kind, "discard": discard}


def _betting_description(form: Mapping[str, str]) -> dict[str, Any]:
    description: dict[str, Any] = {"structure": _text(form, "structure") or "no-limit"}
    for name in ("small_blind", "big_blind", "ante", "small_bet", "big_bet", "bring_in"):
        amount = _amount(form, name)
        if amount is not None:
            description[name] = amount
    return description


# ---------------------------------------------------------------- the four forms


def _betting_body(form: Mapping[str, str]) -> dict[str, Any]:
    body: dict[str, Any] = {"game": _text(form, "game") or "holdem", "betting": _betting_description(form),
                            "seats": _seats(form),
                            "actions": [_action(words, f"actions, line {n}")
                                        for n, words in enumerate(_lines(form, "actions"), 1)]}
    proposed = _text(form, "proposed")
    if proposed:
        body["proposed"] = _action(proposed.split(), "proposed action")
    cards: dict[str, Any] = {}
    hole = _named_cards(form, "hole")
    if hole:
        cards["hole"] = hole
    board = _text(form, "board")
    if board:
        cards["board"] = board
    if cards:
        body["cards"] = cards
    opening = _text(form, "opening")
    if opening:
        body["settings"] = {"opening": opening}
    return body


def _named_cards(form: Mapping[str, str], name: str) -> dict[str, str]:
    """Lines of `name cards` (hands at a showdown, hole cards in a betting situation)."""
    named = {}
    for number, words in enumerate(_lines(form, name), 1):
        if len(words) != 2:
            raise FormError(f"{name}, line {number}: write `name cards`, e.g. `Ann AsKd`")
        named[words[0]] = words[1]
    return named


def _legal_words(legal: Mapping[str, Any] | None) -> str:
    if not legal:
        return "nothing: nobody is to act"
    words = [name for name in ("fold", "check") if legal.get(name)]
    if legal.get("bring_in"):
        words.append(f"bring in {chips(legal['bring_in'])}")
    if legal.get("call"):
        words.append(f"call {chips(legal['call']['adds'])} (to {chips(legal['call']['to'])})")
    for name in ("bet", "raise"):
        if legal.get(name):
            least, most = legal[name]["min_to"], legal[name]["max_to"]
            # Fixed limit (or a short stack) leaves one amount: say it once.
            span = chips(least) if least == most else f"{chips(least)} to {chips(most)}"
            words.append(f"{name} {'to ' if name == 'raise' else ''}{span}")
    if legal.get("raise_closed_reason"):
        words.append(f"no raise ({legal['raise_closed_reason'].replace('_', ' ')})")
    return ", ".join(words)


def _betting_words(answer: dict[str, Any]) -> list[str]:
    said = []
    verdict = answer.get("verdict")
    if verdict is not None:
        rule = f" ({verdict['rule']})" if verdict.get("rule") else " (no numbered rule decides it)"
        if verdict["legal"]:
            said.append(f"Legal: {verdict.get('detail') or 'the action stands'}{rule}")
        else:
            said.append(f"Not legal: {verdict['detail']}{rule}")
    if answer.get("hand_over"):
        said.append("The hand is over.")
    elif answer.get("to_act") is None:
        # Stud's bring-in goes by the up cards, a showdown by the hands: none were given.
        decided = "who wins" if answer.get("round") == "showdown" else "who acts"
        said.append(f"Nobody is to act ({answer.get('round')}): the cards decide {decided}; give them.")
    else:
        said.append(f"{answer.get('to_act')} is to act ({answer.get('round')}): {_legal_words(answer.get('legal'))}.")
    pots = answer.get("pots") or []
    if pots:
        said.append("Pots: " + "; ".join(f"{chips(p['amount'])} among {', '.join(p['eligible'])}" for p in pots))
    return said


def _chips_body(form: Mapping[str, str]) -> dict[str, Any]:
    situation: dict[str, Any] = {"structure": _text(form, "structure") or "no-limit",
                                 "raise_open": form.get("raise_open", "") == "on",
                                 "rules": _text(form, "rules") or "tda"}
    for name in ("facing_to", "committed", "last_full_raise", "pot", "stack", "big_blind",
                 "prior_chips", "unit", "opponents"):
        amount = _amount(form, name, required=name in ("stack", "big_blind"))
        if amount is not None:
            situation[name] = amount
    pushed = _text(form, "chips").replace(",", " ").split()
    body: dict[str, Any] = {"situation": situation,
                            "chips": [_number(chip, "chips pushed") for chip in pushed]}
    said = _text(form, "said")
    if said:
        body["said"] = said
    order = _text(form, "order")
    if order:
        body["order"] = order
    return body


def _chips_words(answer: dict[str, Any]) -> list[str]:
    reads = {"floor_decision": "The floor decides"}.get(answer["interpretation"],
                                                          answer["interpretation"].replace("_", " ").capitalize())
    said = [f"{reads} to {chips(answer['to'])}: {answer['detail']} ({answer['rule']})"]
    if answer.get("returned"):
        said.append(f"{chips(answer['returned'])} goes back to the player.")
    if answer.get("must_add"):
        said.append(f"The player must add {chips(answer['must_add'])}.")
    return said


def _showdown_body(form: Mapping[str, str]) -> dict[str, Any]:
    body: dict[str, Any] = {"game": _text(form, "game") or "holdem", "hands": _named_cards(form, "hands")}
    board = _text(form, "board")
    if board:
        body["board"] = board
    joker = _text(form, "joker")
    if joker:
        body["joker"] = joker
    return body


def _showdown_words(answer: dict[str, Any]) -> list[str]:
    winners = answer["winners"]
    said = [f"{' and '.join(winners)} {'win' if len(winners) > 1 else 'wins'}"
            + (" (a split pot)" if len(winners) > 1 else "") + "."]
    for group in answer["ranking"]:
        for player in group:
            hand = answer["hands"][player]
            said.append(f"{player}: {hand['description']} ({hand['best']})")
    low = answer.get("low")
    if low is not None:
        said.append(f"Low: {' and '.join(low['winners'])}" if low["winners"] else "No low qualifies: the high scoops.")
    return said


def _dice_body(form: Mapping[str, str]) -> dict[str, Any]:
    body: dict[str, Any] = {}
    dice = _text(form, "dice").replace(",", " ").split()
    if dice:
        body["dice"] = [_number(die, "dice") for die in dice]
    scorecard = {}
    for number, words in enumerate(_lines(form, "scorecard"), 1):
        if len(words) != 2:
            raise FormError(f"scorecard, line {number}: write `line score`, e.g. `threes 9`")
        scorecard[words[0]] = _number(words[1], f"scorecard, line {number}")
    if scorecard:
        body["scorecard"] = scorecard
    rolls = _amount(form, "rolls_taken")
    if rolls is not None:
        body["rolls_taken"] = rolls
    return body


def _dice_words(answer: dict[str, Any]) -> list[str]:
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


def _palace_side(form: Mapping[str, str], role: str) -> dict[str, Any]:
    words = _text(form, role).split()
    if len(words) not in (3, 4):
        raise FormError(f"{role}: write `name banner palace [soldiers]`, e.g. `Ann Ah KsKd2c Qh9d`")
    side = {"name": words[0], "banner": words[1], "palace": words[2]}
    if len(words) == 4:
        side["soldiers"] = words[3]
    return side


def _palace_body(form: Mapping[str, str]) -> dict[str, Any]:
    body: dict[str, Any] = {"attacker": _palace_side(form, "attacker"), "defender": _palace_side(form, "defender"),
                            "last_two": form.get("last_two", "") == "on"}
    small_bet = _amount(form, "small_bet")
    if small_bet is not None:
        body["small_bet"] = small_bet
    return body


SUIT_NAMES = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
_BATTLE_REASONS = {"better_hand": "the better hand",
                   "more_banner_suit_cards": "more cards of their banner's suit (the hands tie)"}


def _palace_words(answer: dict[str, Any]) -> list[str]:
    if answer["winner"] is None:
        said = ["The hands tie, and so do their banner-suit cards: "
                + ("the last two split the pot" if answer["outcome"] == "split" else "both are out")
                + f" ({PALACE_RULE})"]
    else:
        said = [f"{answer['winner']} wins the battle with {_BATTLE_REASONS[answer['reason']]}; "
                f"{answer['loser']} is out and {answer['winner']} takes {answer['captured']} ({PALACE_RULE})"]
    for hand in answer["hands"].values():
        ignored = (f", not counting {SUIT_NAMES[hand['ignored_suit']]} ({hand['ignored'] or 'none held'})"
                   if hand["ignored_suit"] else "")
        said.append(f"{hand['player']}: {hand['category'].replace('_', ' ')} ({hand['best']}){ignored}")
    if answer.get("stakes"):
        said.append(answer["stakes"]["detail"])
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


RULINGS = {
    "betting": Ruling("Betting: who acts, what is legal, is this action legal", _betting_body,
                      BettingRulingRequestSchema, betting_ruling, _betting_words),
    "chips": Ruling("Chips pushed and words said", _chips_body, ChipsRulingRequestSchema,
                    chips_ruling, _chips_words),
    "showdown": Ruling("Showdown: who wins", _showdown_body, ShowdownRulingRequestSchema,
                       showdown_ruling, _showdown_words),
    "dice": Ruling("Dice poker: the roll, the lines, another roll", _dice_body, DiceRulingRequestSchema,
                   dice_ruling, _dice_words),
    "palace-battle": Ruling("Palace Poker: a battle and its stakes", _palace_body, PalaceBattleRequestSchema,
                            palace_battle_ruling, _palace_words),
}
CHOICES = {"structures": KINDS, "betting_games": BETTING_GAMES, "showdown_games": SHOWDOWN_GAMES,
           "orders": ORDERS, "rule_books": RULE_BOOKS, "lines": LINES}


def _page(kind: str | None, form: Mapping[str, str], outcome: dict[str, Any] | None, status: int) -> Response:
    body = render_template("floor/rulings.html", rulings=RULINGS, kind=kind, form=form, outcome=outcome,
                           choices=CHOICES)
    return Response(body, status, mimetype="text/html")


@pages.route("/floor/rulings", methods=["GET"])
@floor_page(roles=FLOOR_ROLES)
def rulings_forms() -> Any:
    return _page(None, {}, None, 200)


@pages.route("/floor/rulings/<string:kind>", methods=["POST"])
@floor_page(roles=FLOOR_ROLES)
def ask_ruling(kind: str) -> Any:
    ruling = RULINGS.get(kind)
    if ruling is None:
        return _page(None, {}, {"error": f"no {kind[:40]!r} ruling: the forms are "
                                         f"{', '.join(RULINGS)}"}, 404)
    form = {name: value for name, value in request.form.items() if name != CSRF_FIELD}
    try:
        body = ruling.schema().load(ruling.body(form))
        answer = ruling.rule(body)
    except FormError as unreadable:
        return _page(kind, form, {"error": str(unreadable)}, 400)
    except ma.ValidationError as invalid:
        return _page(kind, form, {"error": "the situation does not read: " + validation_words(invalid.normalized_messages())},
                     400)
    except Violation as refused:
        status = 400 if refused.code == "validation_error" else 422
        return _page(kind, form, {"error": refused.detail, "code": refused.code, "rule": refused.rule,
                                  "numbers": dict(refused.numbers)}, status)
    return _page(kind, form, {"words": ruling.words(answer), "answer": answer}, 200)

