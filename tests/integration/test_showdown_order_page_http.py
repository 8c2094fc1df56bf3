"""Who shows first on the floor's rulings page (issue 33): the form takes the hand as the
betting form does (seats round the table, the button marked, every action), answers first
on the page in the ruling's own words with the rule (TDA 2024 17-A: the last aggressor on
the river; with no bet, the first seat left of the button; 16: all in, every hand tabled),
then the order of show; a hand still being bet comes back with why."""
from __future__ import annotations

from typing import Any

import pytest

from tests.integration.conftest import key_for
from tests.integration.test_floor_pages_http import answer_of, csrf, ruled, sign_in

pytestmark = pytest.mark.integration

SEATS = "Cy 5000 button\nAnn 5000\nBob 5000"  # round the table: Ann is first left of the button
LIMPED = "Cy call\nAnn call\nBob check"
CHECKED = "Ann check\nBob check\nCy check"
RIVER_RAISED = "Ann check\nBob bet 300\nCy raise 900\nAnn fold\nBob call"


@pytest.fixture
def floor(client: Any) -> Any:
    browser = client.application.test_client()
    sign_in(browser, key_for(client, "floor"))
    return browser


def asked(floor: Any, actions: str, seats: str = SEATS) -> str:
    text = ruled(floor, "showdown-order", game="holdem", structure="no-limit", small_blind="50", big_blind="100",
                 seats=seats, actions=actions)
    assert text.index('id="answer"') < text.index('action="/floor/rulings/betting"'), "the answer is above the forms"
    return answer_of(text)


def test_the_last_aggressor_on_the_river_shows_first(floor: Any) -> None:
    answer = asked(floor, "\n".join([LIMPED, CHECKED, CHECKED, RIVER_RAISED]))
    assert ('<p class="words">Cy shows first (TDA 2024 17-A): Cy made the last bet or raise on the river. '
            "Then, clockwise, Bob shows or mucks.</p>") in answer
    assert '<p class="arithmetic">Order of show: Cy, Bob</p>' in answer


def test_with_no_bet_on_the_river_the_first_seat_left_of_the_button_shows_first(floor: Any) -> None:
    answer = asked(floor, "\n".join([LIMPED, CHECKED, CHECKED, CHECKED]))
    assert "Ann shows first (TDA 2024 17-A): nobody bet on the river, and Ann, the first left of the button" in answer
    assert "Order of show: Ann, Bob, Cy" in answer


def test_all_in_with_the_betting_over_every_hand_is_tabled(floor: Any) -> None:
    answer = asked(floor, "Cy raise 5000\nAnn call\nBob call")
    assert "Every hand is tabled at once, face up (TDA 2024 16): Ann, Bob and Cy are all in" in answer
    assert "Tabled at once, in order: Ann, Bob, Cy" in answer


def test_a_hand_still_being_bet_comes_back_with_why(floor: Any) -> None:
    form = floor.get("/floor/rulings")
    page = floor.post("/floor/rulings/showdown-order", data={
        "csrf_token": csrf(form), "game": "holdem", "structure": "no-limit", "small_blind": "50",
        "big_blind": "100", "seats": SEATS, "actions": LIMPED})
    assert page.status_code == 422
    assert "Refused: the betting is not over: Ann is to act" in answer_of(page.get_data(as_text=True))
