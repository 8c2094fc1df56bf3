"""Screenshots of every page at TV, laptop and phone sizes, for the README (the floor's
pages by tests.browser.floor_screenshots):

    .venv/bin/python -m tests.browser.screenshots [--out docs/screenshots]

A room with one tournament in its second level (two tables, a move waiting for a hand to
end, two players out; the seating screen finding a seat by name, and as a carousel; the
clock alone and with the payouts beside it; the desk asking before a level change, the
seat cards and the table draw as they print), one on its break with a colour-up, one
finished with its winner, and a cash table, on the
PostgreSQL of DATABASE_URL (a fresh database, dropped afterwards) or an embedded one, served by gunicorn as in production and shown in
headless Chromium (tests.browser.chromium). Writes <page>-<size>.png.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.browser import chromium, room

NAMES = ["Ann Duke", "Bo Ferguson", "Chen Wei", "Dara Ó Briain", "Eli Seidel", "Fatima Zahra", "Gus Hansen",
         "Hana Sato", "Ivo Ivanov", "Jana Novak", "Kofi Mensah", "Lena Berg", "Mo Salah", "Nadia Rahman"]
SIZES = ("tv", "laptop", "phone")


@contextmanager
def database() -> Iterator[str]:
    from tests.conftest import _fresh_database_on

    server_url = os.environ.get("DATABASE_URL")
    if server_url:
        fresh = _fresh_database_on(server_url)
        yield next(fresh)[1]
        fresh.close()
        return
    from service.adapters.embedded.postgres import FAST_UNSAFE_SETTINGS, EmbeddedPostgres

    embedded = EmbeddedPostgres(Path(tempfile.mkdtemp(prefix="cardroom-shots-")) / "data",
                                settings=FAST_UNSAFE_SETTINGS)
    embedded.start()
    try:
        fresh = _fresh_database_on(embedded.url)
        yield next(fresh)[1]
        fresh.close()
    finally:
        embedded.stop()


def set_the_room(server: room.Server, database_url: str) -> str:
    players = room.players(server, NAMES)
    tournament_id = room.tournament(server, "Friday Deepstack", players, table_size=8)
    room.write(server, tournament_id, "clock/level", {"level": 2, "remaining_s": 14 * 60 + 32})
    tables = room.read(server, tournament_id)["tables"]
    first = [p["player_id"] for p in tables[0]["players"]]
    room.deal_hand(database_url, tournament_id, tables[0]["number"])
    stacks = {p: room.STARTING_STACK for p in first}
    stacks[first[1]], stacks[first[2]], stacks[first[3]] = 0, 0, 3 * room.STARTING_STACK
    room.finish_hand(database_url, tournament_id, tables[0]["number"], stacks)
    tables = room.read(server, tournament_id)["tables"]
    busy = tables[-1]
    room.deal_hand(database_url, tournament_id, busy["number"])
    other = next(t for t in tables if t["number"] != busy["number"])
    free = next(s for s in range(1, 9) if s not in {p["seat"] for p in other["players"]})  # seats from 1
    room.write(server, tournament_id, "moves", {"player_id": busy["players"][0]["player_id"],
                                                "to_table": other["number"], "to_seat": free})
    cash = room.players(server, ["Pia Larsen", "Quinn Ames", "Rui Costa"])
    status, table, _ = server.call("POST", "/v1/tables", {
        "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 1, "big_blind": 2},
        "seats": [{"player_id": p, "stack": 200} for p in cash]}, server.admin)
    assert status == 201, table
    server.call("POST", f"/v1/tables/{table['id']}/hands", {}, server.admin)
    return tournament_id


def set_the_evening(server: room.Server) -> dict[str, str]:
    """The clock's other states: an event on its break, with a colour-up, late registration,
    re-entries, rebuys and add-ons; and one finished, its winner named."""
    players = room.players(server, ["Ann Duke", "Bo Ferguson", "Chen Wei", "Dara Ó Briain", "Eli Seidel"])
    levels = [room.level(20, 25, 50), room.level(20, 50, 100), {"break": True, "minutes": 15, "colour_up": 100},
              room.level(20, 100, 200, 200)]
    on_break = room.tournament(
        server, "Saturday Turbo", players, levels=levels, starting_stack=10000, denominations=[25, 100, 500],
        late_registration_until_level=2, re_entries_allowed=1, rebuy_price=100, rebuy_chips=10000,
        rebuys_allowed=1, rebuy_until_level=2, add_on_price=100, add_on_chips=10000, add_ons_allowed=1,
        add_on_until_level=2)
    room.write(server, on_break, "clock/level", {"period": 3, "remaining_s": 11 * 60 + 48})
    finished = room.tournament(server, "Sunday Final", players[:3], tables="physical")
    seated = [p["player_id"] for t in room.read(server, finished)["tables"] for p in t["players"]]
    for loser in seated[:2]:
        room.write(server, finished, "eliminations", {"player_id": loser})
    return {"break": on_break, "finished": finished}


def set_the_desk(server: room.Server) -> str:
    """An event at physical tables in its rebuy period, as the desk shows it mid-evening: a
    player busted and waiting to rebuy, two who declined (the last one undoable), and the
    move their table's busts called for, waiting for the floor to confirm it seated."""
    players = room.players(server, NAMES + ["Olu Ade", "Pau Gasol"])
    tournament_id = room.tournament(server, "Sunday Rebuy", players, table_size=8, tables="physical",
                                    rebuy_price=100, rebuy_chips=room.STARTING_STACK, rebuy_until_level=2)
    first = [p["player_id"] for p in room.read(server, tournament_id)["tables"][0]["players"]]
    room.write(server, tournament_id, "eliminations", {"player_id": first[0], "busted_by": first[3]})
    for player in first[1:3]:
        room.write(server, tournament_id, "eliminations", {"player_id": player})
        room.write(server, tournament_id, "rebuys/decline", {"player_id": player})
    return tournament_id


def take(out: Path) -> list[Path]:
    from tests.e2e.conftest import start_gunicorn

    out.mkdir(parents=True, exist_ok=True)
    written = []
    with database() as database_url:
        serving = start_gunicorn(database_url)
        server = next(serving)
        try:
            base = f"http://127.0.0.1:{server.port}"
            tournament_id = set_the_room(server, database_url)
            desk = f"/floor/tournaments/{set_the_desk(server)}"
            evening = set_the_evening(server)
            pages = {"home": "/", "clock": f"/screens/tournaments/{tournament_id}/clock",
                     "seating": f"/screens/tournaments/{tournament_id}/seating",
                     "payouts": f"/screens/tournaments/{tournament_id}/payouts",
                     "clock-payouts": f"/screens/tournaments/{tournament_id}/clock?layout=payouts",
                     "clock-break": f"/screens/tournaments/{evening['break']}/clock",
                     "clock-finished": f"/screens/tournaments/{evening['finished']}/clock",
                     "seating-carousel": f"/screens/tournaments/{tournament_id}/seating?layout=carousel",
                     "sign-in": "/floor/sign-in", "desk": desk, "desk-confirm": desk,
                     "seat-cards": f"{desk}/print/seat-cards", "table-draw": f"{desk}/print/table-draw"}
            with chromium.chromium() as browser:
                for size in SIZES:
                    chromium.set_viewport(browser, size)
                    for page, path in pages.items():
                        if path.startswith("/floor/tournaments") and not browser.get_cookie("cardroom_session"):
                            room.sign_in(browser, base, server.admin["Authorization"].removeprefix("Bearer "), path)
                        browser.get(base + path)
                        time.sleep(0.5)  # the stream open, the clock ticked
                        _show(browser, page)
                        target = out / f"{page}-{size}.png"
                        browser.save_screenshot(str(target))
                        written.append(target)
        finally:
            serving.close()
    return written


def _show(browser: Any, page: str) -> None:
    """What a page's screenshot shows beyond its first view: a player finding their seat
    by name (the one who must move); the desk's question before a level change."""
    from selenium.webdriver.common.by import By

    if page == "seating":
        mover = browser.execute_script("const m = document.querySelector('[data-move]'); return m && m.dataset.name")
        browser.find_element(By.ID, "find-seat").send_keys((mover or "an")[:4])
        time.sleep(0.2)
    elif page == "desk-confirm":
        browser.find_element(By.ID, "next-level").click()
        time.sleep(0.3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    reason = chromium.missing()
    if reason:
        raise SystemExit(f"no screenshots: {reason}")
    # The floor's pages build on this module's sizes and database, so they come in here.
    from tests.browser import floor_screenshots
    out = parser.parse_args().out
    for path in take(out) + floor_screenshots.take(out):
        print(f"{path} {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
