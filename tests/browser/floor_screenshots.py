"""Screenshots of the floor's pages at TV, laptop and phone sizes, for the README; taken
by tests.browser.screenshots with the others.

A three-handed no-limit table with a short all-in waiting for the button's call (TDA 2024
47-A), the replayer at that all-in, the table live, a real hand from ../shared/phh in the
replayer, and the pot-limit ruling form answered. Writes floor-<page>-<size>.png.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tests.browser import chromium, room
from tests.browser.screenshots import SIZES, database

PHH_RECORD = Path(__file__).resolve().parents[2] / ".." / "shared" / "phh" / "dwan-ivey-2009.phh"
ALL_IN_STEP = 7
"""The replayer's step of the short all-in: the hand opens, starts, deals three hands,
the button raises, the small blind is all in."""
SHOVE_STEP = 14
"""Dwan-Ivey 2009: Ivey all in on the turn."""


def _submitted(browser: Any, form: str, fields: dict[str, str]) -> None:
    """Fill a form's fields and send it, as the floor would."""
    from selenium.webdriver.common.by import By

    found = browser.find_element(By.CSS_SELECTOR, form)
    for name, value in fields.items():
        browser.execute_script("arguments[0].value = arguments[1]", found.find_element(By.NAME, name), value)
    found.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    time.sleep(0.3)


def take(out: Path) -> list[Path]:
    from tests.e2e.conftest import start_gunicorn

    out.mkdir(parents=True, exist_ok=True)
    written = []
    with database() as database_url:
        serving = start_gunicorn(database_url)
        server = next(serving)
        try:
            base = f"http://127.0.0.1:{server.port}"
            table_id = room.short_all_in_hand(server, ["Ann Duke", "Bo Ferguson", "Chen Wei"])["table_id"]
            with chromium.chromium() as browser:
                room.sign_in(browser, base, server.admin["Authorization"].removeprefix("Bearer "), "/floor/rulings")
                for size in SIZES:
                    chromium.set_viewport(browser, size)
                    browser.get(f"{base}/floor/hands/{table_id}.1#step={ALL_IN_STEP}")
                    written.append(_save(browser, out, "replayer", size))
                    browser.get(f"{base}/floor/tables/{table_id}")
                    time.sleep(0.5)  # the stream open
                    written.append(_save(browser, out, "table", size))
                    browser.get(f"{base}/floor/hand-histories")
                    _submitted(browser, ".phh-form", {"phh": PHH_RECORD.read_text()})
                    browser.execute_script(f"document.querySelector('a[data-step=\"{SHOVE_STEP - 1}\"]').click();"
                                           "window.scrollTo(0, 0)")
                    written.append(_save(browser, out, "replayer-phh", size))
                    browser.get(f"{base}/floor/rulings")
                    browser.execute_script("document.querySelector('#betting select[name=structure]').value"
                                           " = 'pot-limit'")
                    _submitted(browser, "#betting form", {
                        "seats": "SB 10000\nBB 10000\nA 10000\nB 10000\nBTN 10000",
                        "actions": "A call\nB call\nBTN call\nSB call\nBB check\nSB bet 200",
                        "proposed": "BB raise 1200"})
                    written.append(_save(browser, out, "rulings", size))
        finally:
            serving.close()
    return written


def _save(browser: Any, out: Path, page: str, size: str) -> Path:
    target = out / f"floor-{page}-{size}.png"
    browser.save_screenshot(str(target))
    return target
