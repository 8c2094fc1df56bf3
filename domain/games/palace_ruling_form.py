"""Palace Poker's ruling on the floor's rulings page: a battle and its stakes
(domain.ruling_forms; the API's twin is `POST /v1/rulings/palace-battle`). A side is
written `name banner palace [soldiers]`."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.games.palace import RULE
from domain.games.palace_battles import palace_battle_ruling
from domain.ruling_forms import CHECKBOX, NUMBER, FormError, FormField, RulingForm, read_amount, read_text, ticked

SIDE_SYNTAX = "name banner palace [soldiers]"
SUIT_NAMES = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
_BATTLE_REASONS = {"better_hand": "the better hand",
                   "more_banner_suit_cards": "more cards of their banner's suit (the hands tie)"}


def _side(form: Mapping[str, str], role: str) -> dict[str, Any]:
    words = read_text(form, role).split()
    if len(words) not in (3, 4):
        raise FormError(f"{role}: write `{SIDE_SYNTAX}`, e.g. `Ann Ah KsKd2c Qh9d`")
    side = {"name": words[0], "banner": words[1], "palace": words[2]}
    if len(words) == 4:
        side["soldiers"] = words[3]
    return side


def _request(form: Mapping[str, str]) -> dict[str, Any]:
    request: dict[str, Any] = {"attacker": _side(form, "attacker"), "defender": _side(form, "defender"),
                               "last_two": ticked(form, "last_two")}
    small_bet = read_amount(form, "small_bet")
    if small_bet is not None:
        request["small_bet"] = small_bet
    return request


def _words(answer: dict[str, Any]) -> list[str]:
    if answer["winner"] is None:
        said = ["The hands tie, and so do their banner-suit cards: "
                + ("the last two split the pot" if answer["outcome"] == "split" else "both are out")
                + f" ({RULE})"]
    else:
        said = [f"{answer['winner']} wins the battle with {_BATTLE_REASONS[answer['reason']]}; "
                f"{answer['loser']} is out and {answer['winner']} takes {answer['captured']} ({RULE})"]
    for hand in answer["hands"].values():
        ignored = (f", not counting {SUIT_NAMES[hand['ignored_suit']]} ({hand['ignored'] or 'none held'})"
                   if hand["ignored_suit"] else "")
        said.append(f"{hand['player']}: {hand['category'].replace('_', ' ')} ({hand['best']}){ignored}")
    if answer.get("stakes"):
        said.append(answer["stakes"]["detail"])
    return said


RULING_FORM = RulingForm(
    "palace-battle", "Palace Poker: a battle and its stakes",
    (FormField("attacker", "Attacker", syntax=SIDE_SYNTAX),
     FormField("defender", "Defender", syntax=SIDE_SYNTAX),
     FormField("small_bet", "Small bet (for the stakes)", NUMBER),
     FormField("last_two", "Only these two are left in the hand", CHECKBOX)),
    _request, palace_battle_ruling, _words,
    example={"attacker": "Ann Ah KsKd2c Qh9d", "defender": "Bob 5s 7h7d3c", "small_bet": "10"})
