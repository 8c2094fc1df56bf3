"""A card room for the browser tests and the screenshots: tournaments made through the API
of a real server (tests.e2e.conftest.start_gunicorn), players with names, and the few
tournament facts no HTTP route writes (a hand dealt at a table, a name longer than the
API takes) written through the application layer on the same database."""
from __future__ import annotations

import time
import uuid
from typing import Any

from tests.e2e.conftest import Server

STARTING_STACK = 12345
"""A number no screen shows except as the average stack: a player's chips never reach the
public screens."""


def level(minutes: int, small: int, big: int, ante: int = 0) -> dict[str, Any]:
    return {"minutes": minutes, "small_blind": small, "big_blind": big, "ante": ante}


STRUCTURE = [level(20, 100, 200), level(20, 200, 400, 50), {"break": True, "minutes": 10},
             level(20, 300, 600, 75), level(20, 500, 1000, 100)]


def players(server: Server, names: list[str]) -> list[str]:
    ids = []
    for name in names:
        status, created, _ = server.call("POST", "/v1/players", {"name": name}, server.admin)
        assert status == 201, created
        ids.append(created["id"])
    return ids


def tournament(server: Server, name: str, entrants: list[str], *, table_size: int = 9, start: bool = True,
               **settings: Any) -> str:
    body = {"name": name, "game": "holdem", "levels": STRUCTURE, "starting_stack": STARTING_STACK,
            "buy_in": 100, "starts_at": "now", "payout_percentages": ["50", "30", "20"],
            "table_size": table_size, **settings}
    status, created, _ = server.call("POST", "/v1/tournaments", body, server.admin)
    assert status == 201, created
    tournament_id = created["id"]
    for player_id in entrants:
        status, answer, _ = server.call("POST", f"/v1/tournaments/{tournament_id}/registrations",
                                        {"player_id": player_id}, server.admin)
        assert status == 201, answer
    if start:
        write(server, tournament_id, "start")
    return tournament_id


def write(server: Server, tournament_id: str, path: str, body: dict | None = None) -> dict:
    status, answer, _ = server.call("POST", f"/v1/tournaments/{tournament_id}/{path}", body or {},
                                    server.admin)
    assert status in (201, 202), answer
    return answer


def read(server: Server, tournament_id: str) -> dict:
    status, shown, _ = server.call("GET", f"/v1/tournaments/{tournament_id}", headers=server.admin)
    assert status == 200, shown
    return shown


def deal_hand(database_url: str, tournament_id: str, table: int) -> None:
    """A hand starts at a table (what the table service records): moves there now wait."""
    from domain.tournaments import commands as tournament_commands

    _send(database_url, tournament_id, tournament_commands.DealHand(table, at=int(time.time())))


def finish_hand(database_url: str, tournament_id: str, table: int, stacks: dict[str, int]) -> None:
    """The hand at `table` ends with these stacks; a player left with none is out (what
    the table service records). Waiting moves are made, tables balanced or broken."""
    from domain.tournaments import commands as tournament_commands

    busted = tuple(tournament_commands.Bust(player, STARTING_STACK) for player, chips in stacks.items() if chips == 0)
    counts = tuple(tournament_commands.ChipCount(player, chips) for player, chips in stacks.items())
    _send(database_url, tournament_id, tournament_commands.FinishHand(table, at=int(time.time()), busted=busted,
                                                                      seed=1, stacks=counts))


def server_keyed_store(pool: Any) -> Any:
    """A store keyed as the server these tests run (the same environment): the events it
    writes carry the MACs the server's reads check, and it opens the secrets it sealed."""
    from service.config import Config
    from tests.stores import store_as_the_apps

    return store_as_the_apps(pool, Config.from_env())


def _send(database_url: str, tournament_id: str, command: Any) -> None:
    from service.adapters.store.postgres import open_pool
    from service.application import tournaments
    from service.application.application import application

    pool = open_pool(database_url, max_size=1)
    try:
        tournaments.send(application(server_keyed_store(pool)), tournament_id, command, actor="test")
    finally:
        pool.close()


def player_named_beyond_the_api(database_url: str, name: str) -> str:
    """A player whose name the API would refuse (e.g. 5,000 characters), as a log written
    by another version or an import may hold: the pages must still render it as text."""
    from service.adapters.store.base import NewEvent
    from service.adapters.store.postgres import open_pool

    player_id = str(uuid.uuid4())
    pool = open_pool(database_url, max_size=1)
    try:
        server_keyed_store(pool).append(f"player-{player_id}", 0, [
            NewEvent("PlayerRegistered", {"player_id": player_id, "name": name})], actor="test")
    finally:
        pool.close()
    return player_id


def sign_in(driver: Any, base: str, key: str, then: str) -> None:
    """Through the sign-in form, as a person would."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(f"{base}/floor/sign-in?next={then}")
    driver.find_element(By.NAME, "key").send_keys(key)
    driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    WebDriverWait(driver, 5).until(lambda d: d.get_cookie("cardroom_session") is not None
                                   and "/floor/sign-in" not in d.current_url)


def short_all_in_hand(server: Server, names: list[str]) -> dict[str, Any]:
    """A live no-limit hand three-handed: the button raises to 300, the small blind is all
    in for 450 (short of the full raise to 500), the big blind calls; the button may only
    call or fold (TDA 2024 47-A) and the hand waits for them."""
    ann, bob, cat = players(server, names)
    status, created, _ = server.call("POST", "/v1/tables", {
        "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player_id": ann, "stack": 5000}, {"player_id": bob, "stack": 450},
                  {"player_id": cat, "stack": 5000}]}, server.admin)
    assert status == 201, created
    table_id = created["id"]
    status, started, _ = server.call("POST", f"/v1/tables/{table_id}/hands", {}, server.admin)
    version = started["version"]
    for player, action, to in ((ann, "raise", 300), (bob, "raise", 450), (cat, "call", None)):
        body = {"action": action, "player_id": player, "expected_version": version, **({"to": to} if to else {})}
        status, acted, _ = server.call("POST", f"/v1/tables/{table_id}/actions", body, server.admin)
        assert status == 201, acted
        version = acted["version"]
    return {"table_id": table_id, "players": [ann, bob, cat], "version": version}
