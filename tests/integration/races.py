"""The harness of the redaction races (test_redaction_race*.py): one writer plays an
auto-deal table, reader threads poll, and the test judges what the readers saw."""
from __future__ import annotations

import random
import threading
import time
from typing import Any, Callable

from tests.integration.conftest import ADMIN

Choose = Callable[[dict, random.Random], dict]
"""(the `legal` of the player to act, the writer's generator) -> the action's body."""


def play_table(client: Any, table_id: str, keys: dict[str, dict], choose: Choose, stop: threading.Event,
               errors: list[str], closing_sent: dict[str, float]) -> None:
    """Act for whoever is to act until `stop`, noting when the request that closed each
    hand was sent (`closing_sent`); a refused action other than a lost race ends it."""
    rng = random.Random(1)
    while not stop.is_set():
        looked = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN)
        legal = looked.get_json()
        player = legal["to_act"]
        if player is None:
            errors.append(f"the table stopped dealing: {legal}")
            return
        action = choose(legal["legal"], rng)
        sent = time.monotonic()
        answer = client.post(f"/v1/tables/{table_id}/actions", json=action,
                             headers={**keys[player], "If-Match": looked.headers["ETag"]})
        if answer.status_code == 409:
            continue
        if answer.status_code != 201:
            errors.append(f"{action} -> {answer.status_code} {answer.get_data(as_text=True)}")
            return
        for event in answer.get_json()["events"]:
            if event["type"] == "HandClosed":
                closing_sent[event["data"]["hand_id"]] = sent


def run_race(play: Callable[[], None], read: Callable[[int], None], readers: int, reads: list[int],
             wanted: int, time_limit_s: float, stop: threading.Event, errors: list[str]) -> None:
    """Run the writer and `readers` readers until `wanted` reads, the time limit or an error."""
    threads = [threading.Thread(target=play)] + [
        threading.Thread(target=read, args=(i,)) for i in range(readers)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    while sum(reads) < wanted and time.monotonic() - started < time_limit_s and not errors:
        time.sleep(0.2)
    stop.set()
    for thread in threads:
        thread.join()
