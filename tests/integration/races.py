"""The harness of the redaction races (test_redaction_race*.py): one writer plays an
auto-deal table, reader threads poll, and the test judges what the readers saw."""
from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import Any

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


def poll(client: Any, path: str, headers: dict, role: str, errors: list[str],
         versions: list[int]) -> tuple[dict, float] | None:
    """A reader's GET: (the body, when it was answered), None for a hand number guessed
    ahead of the table (404) or a failure (noted in `errors`); the highest version seen
    goes on `versions`."""
    response = client.get(path, headers=headers)
    answered = time.monotonic()
    if response.status_code == 404:
        return None
    if response.status_code != 200:
        errors.append(f"{path} as {role}: {response.status_code}")
        return None
    if "ETag" in response.headers:
        versions.append(max(versions[-1], int(response.headers["ETag"].strip('"').split(".")[0])))
    return response.get_json(), answered


def read_loop(client: Any, index: int, roles: dict[str, dict], paths: Callable[[int], list[str]],
              judge: Callable[[int, str, str, dict, float], None], stop: threading.Event,
              errors: list[str], reads: list[int], wanted: int, versions: list[int]) -> None:
    """Reader `index`: a random role reads a random one of `paths(the latest version)`
    until `stop` or `wanted` reads in all; `judge(index, role, path, body, answered)`."""
    rng = random.Random(index)
    while not stop.is_set() and sum(reads) < wanted:
        role = rng.choice(list(roles))
        path = rng.choice(paths(versions[-1]))
        polled = poll(client, path, roles[role], role, errors, versions)
        reads[index] += 1
        if errors:
            return
        if polled is not None:
            judge(index, role, path, *polled)


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
