"""`/floor/rulings` (pages.md): the floor's forms for the betting, chips, showdown and
who-shows-first rulings, and for each registered game's ruling of its own (domain.registry, its
`ruling_form`), answered in words with the rule.

Each form's fields become the body of the matching `POST /v1/rulings/*`, checked by the
same schemas (service.http.api.rulings, when the API has the ruling) and ruled by the same
domain functions, so the page and the API never disagree. Lines of text stand in for the
API's lists: seats as `name stack` round the table with the button marked
(`name stack button`), actions as `player action [to]` (a draw `player draw 3`
or `player draw Kd 7c`), hands as `name cards`; a game's form says how its fields are
written. A form that does not parse, or a situation the rules refuse, comes back with the
reason (the code, the detail, the rule) beside the form, never a 500.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import marshmallow as ma
from flask import render_template, request
from werkzeug.wrappers import Response

from domain import registry
from domain.rules.betting import KINDS, chips
from domain.rules.declarations import ORDERS, RULE_BOOKS
from domain.rules.violations import Violation
from domain.ruling_forms import FormError, RulingForm, read_amount, read_lines, read_number, read_text, ticked
from domain.rulings.betting import betting_ruling
from domain.rulings.chips import chips_ruling
from domain.rulings.showdown import showdown_ruling
from domain.rulings.who_shows_first import showdown_order_ruling
from service.http.api.rulings import REQUEST_SCHEMAS
from service.http.pages.frame import pages
from service.http.pages.replayer import FLOOR_ROLES, validation_words
from service.http.pages.session import CSRF_FIELD, floor_page


@dataclass(frozen=True)
class Ruling:
    """One form: its fields' request body, the domain function of its POST /v1/rulings/*
    twin (whose schema checks the body first), and the answer read out in words."""
    title: str
    body: Callable[[Mapping[str, str]], dict[str, Any]]
    rule: Callable[[Mapping[str, Any]], dict[str, Any]]
    words: Callable[[dict[str, Any]], list[str]]


# ---------------------------------------------------------------- reading the fields


BUTTON_MARKS = ("button", "btn", "(button)", "dealer")


def _seats(form: Mapping[str, str]) -> list[dict[str, Any]]:
    """The seats as the table has them, clockwise, the button marked (`Cat 10000 button`;
    unmarked, the last line is the button), turned into the API's order: from the first
    seat left of the button, the button last. A floor person reads names round the table,
    not positions counted from the button."""
    seats, marked = [], []
    for number, words in enumerate(read_lines(form, "seats"), 1):
        if len(words) == 3 and words[2].lower() in BUTTON_MARKS:
            marked.append(number - 1)
        elif len(words) != 2:
            raise FormError(f"seats, line {number}: write `name stack`, e.g. `Ann 10000`, "
                            f"and `Cat 10000 button` for the button")
        seats.append({"player": words[0], "stack": read_number(words[1], f"seats, line {number}")})
    if len(marked) > 1:
        raise FormError(f"seats: one button, not {len(marked)} (lines {', '.join(str(m + 1) for m in marked)})")
    button = marked[0] if marked else len(seats) - 1
    return seats[button + 1:] + seats[:button + 1]


DRAW_ACTIONS = ("draw", "split_openers")


def _action(words: list[str], where: str) -> dict[str, Any]:
    if len(words) >= 2 and words[1].lower() in DRAW_ACTIONS:
        return _draw_action(words, where)
    if len(words) not in (2, 3):
        raise FormError(f"{where}: write `player action [to]`, e.g. `Ann raise 300`")
    action: dict[str, Any] = {"player": words[0], "action": words[1].lower()}
    if len(words) == 3:
        action["to"] = read_number(words[2], where)
    return action


def _draw_action(words: list[str], where: str) -> dict[str, Any]:
    """`Ann draw 3` (how many) or `Ann draw Kd 7c` (the cards thrown away): the API's `discard`."""
    kind = words[1].lower()
    if len(words) < 3:
        raise FormError(f"{where}: write `player {kind} 3` (how many) or `player {kind} Kd 7c` (the cards)")
    thrown = words[2:]
    discard: int | str = (read_number(thrown[0], where) if len(thrown) == 1 and thrown[0].isdigit()
                          else "".join(thrown))
    return {"player": words[0], "action": kind, "discard": discard}


def _betting_description(form: Mapping[str, str]) -> dict[str, Any]:
    description: dict[str, Any] = {"structure": read_text(form, "structure") or "no-limit"}
    for name in ("small_blind", "big_blind", "ante", "small_bet", "big_bet", "bring_in"):
        amount = read_amount(form, name)
        if amount is not None:
            description[name] = amount
    return description


# ---------------------------------------------------------------- the four forms


def _hand_body(form: Mapping[str, str]) -> dict[str, Any]:
    """The hand as the betting and the who-shows-first rulings describe it."""
    body: dict[str, Any] = {"game": read_text(form, "game") or "holdem", "betting": _betting_description(form),
                            "seats": _seats(form),
                            "actions": [_action(words, f"actions, line {n}")
                                        for n, words in enumerate(read_lines(form, "actions"), 1)]}
    cards: dict[str, Any] = {}
    hole = _named_cards(form, "hole")
    if hole:
        cards["hole"] = hole
    board = read_text(form, "board")
    if board:
        cards["board"] = board
    if cards:
        body["cards"] = cards
    return body


def _betting_body(form: Mapping[str, str]) -> dict[str, Any]:
    body = _hand_body(form)
    proposed = read_text(form, "proposed")
    if proposed:
        body["proposed"] = _action(proposed.split(), "proposed action")
    opening = read_text(form, "opening")
    if opening:
        body["settings"] = {"opening": opening}
    return body


def _named_cards(form: Mapping[str, str], name: str) -> dict[str, str]:
    """Lines of `name cards` (hands at a showdown, hole cards in a betting situation)."""
    named = {}
    for number, words in enumerate(read_lines(form, name), 1):
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
        # A bring-in goes by the up cards, a showdown by the hands: none were given.
        decided = "who wins" if answer.get("round") == "showdown" else "who acts"
        said.append(f"Nobody is to act ({answer.get('round')}): the cards decide {decided}; give them.")
    else:
        said.append(f"{answer.get('to_act')} is to act ({answer.get('round')}): {_legal_words(answer.get('legal'))}.")
    pots = answer.get("pots") or []
    if pots:
        said.append("Pots: " + "; ".join(f"{chips(p['amount'])} among {', '.join(p['eligible'])}" for p in pots))
    return said


def _chips_body(form: Mapping[str, str]) -> dict[str, Any]:
    situation: dict[str, Any] = {"structure": read_text(form, "structure") or "no-limit",
                                 "raise_open": ticked(form, "raise_open"),
                                 "rules": read_text(form, "rules") or "tda"}
    for name in ("facing_to", "committed", "last_full_raise", "pot", "stack", "big_blind",
                 "prior_chips", "unit", "opponents"):
        amount = read_amount(form, name, required=name in ("stack", "big_blind"))
        if amount is not None:
            situation[name] = amount
    pushed = read_text(form, "chips").replace(",", " ").split()
    body: dict[str, Any] = {"situation": situation,
                            "chips": [read_number(chip, "chips pushed") for chip in pushed]}
    said = read_text(form, "said")
    if said:
        body["said"] = said
    order = read_text(form, "order")
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
    body: dict[str, Any] = {"game": read_text(form, "game") or "holdem", "hands": _named_cards(form, "hands")}
    board = read_text(form, "board")
    if board:
        body["board"] = board
    joker = read_text(form, "joker")
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


def _showdown_order_words(answer: dict[str, Any]) -> list[str]:
    """The ruling's own sentence (who, why, the rule), then the order of show."""
    said = [answer["words"]]
    if len(answer["order"]) > 1:
        said.append(("Tabled at once, in order: " if answer["all_in"] else "Order of show: ") + ", ".join(answer["order"]))
    return said


HOUSE_RULINGS = {
    "betting": Ruling("Betting: who acts, what is legal, is this action legal", _betting_body,
                      betting_ruling, _betting_words),
    "chips": Ruling("Chips pushed and words said", _chips_body, chips_ruling, _chips_words),
    "showdown": Ruling("Showdown: who wins", _showdown_body, showdown_ruling, _showdown_words),
    "showdown-order": Ruling("Who shows first", _hand_body, showdown_order_ruling, _showdown_order_words),
}
"""The rulings asked of many games (a game's ruling of its own comes with its registration)."""


def _game_ruling(form: RulingForm) -> Ruling:
    return Ruling(form.title, form.request, form.rule, form.words)


def _rulings() -> dict[str, Ruling]:
    """The house's forms, then every registered game's own: read at each request, so a game
    registered later (a test's) has its form with no line here changed."""
    return {**HOUSE_RULINGS, **{form.path: _game_ruling(form) for form in registry.ruling_forms()}}


def _page(kind: str | None, form: Mapping[str, str], outcome: dict[str, Any] | None, status: int) -> Response:
    choices = {"structures": KINDS, "orders": ORDERS, "rule_books": RULE_BOOKS,
               "betting_games": registry.names(lambda game: game.betting_ruling),
               "showdown_games": registry.names(lambda game: game.showdown_ruling)}
    asked = _rulings().get(kind) if kind else None
    body = render_template("floor/rulings.html", rulings=HOUSE_RULINGS, game_forms=registry.ruling_forms(),
                           kind=kind, asked=asked.title if asked else None, form=form, outcome=outcome,
                           choices=choices)
    return Response(body, status, mimetype="text/html")


@pages.route("/floor/rulings", methods=["GET"])
@floor_page(roles=FLOOR_ROLES)
def rulings_forms() -> Any:
    return _page(None, {}, None, 200)


@pages.route("/floor/rulings/<string:kind>", methods=["POST"])
@floor_page(roles=FLOOR_ROLES)
def ask_ruling(kind: str) -> Any:
    rulings = _rulings()
    ruling = rulings.get(kind)
    if ruling is None:
        return _page(None, {}, {"error": f"no {kind[:40]!r} ruling: the forms are "
                                         f"{', '.join(rulings)}"}, 404)
    form = {name: value for name, value in request.form.items() if name != CSRF_FIELD}
    schema = REQUEST_SCHEMAS.get(kind)  # none: a ruling the API does not serve checks its request alone
    try:
        body = ruling.body(form) if schema is None else schema().load(ruling.body(form))
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
    return _page(kind, form, {"words": ruling.words(answer), "answer": answer, "numbers": _raw_fields(answer)}, 200)


def _raw_fields(answer: Mapping[str, Any]) -> dict[str, Any]:
    """The answer's numbers as the API gives them, for the page's "details": the verdict's
    when there is one, else the answer's plain fields (its words already say the rest)."""
    verdict = answer.get("verdict") or {}
    if verdict.get("numbers"):
        return dict(verdict["numbers"])
    return {key: value for key, value in answer.items() if isinstance(value, (int, str)) and value != ""}

