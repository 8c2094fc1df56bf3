"""The clients of `make test-ha`: threads writing through two app servers as players and the
floor would, every write with an Idempotency-Key, a 503 retried with the same key until it
is answered otherwise, and every answer kept (with its receipts) to be checked against the
log afterwards.

- Table clients each play their own heads-up auto-deal table (checks and calls, If-Match
  the version the last answer gave) and now and then register a player.
- Clock clients each keep a table with a one-second action clock dealing: between hands
  they bring back any player the clock sat out and deal; in the hand nobody acts, so the
  workers' clock watch acts at every deadline. Nothing else writes those tables, so a
  clock and a client never race (a 409 would be counted as an `other` answer).
"""
from __future__ import annotations

import http.client
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

RETRY_503_AFTER_S = 0.5
# A request may wait in COMMIT for a synchronous standby during a failover: the client
# waits for its answer rather than give up and retry while it still runs.
CLIENT_TIMEOUT_S = 120
STACK = 1_000_000
WRITES_PER_REGISTRATION = 8
CLOCK_POLL_S = 0.25


@dataclass(frozen=True)
class Answer:
    client: int
    kind: str
    """action, deal, return, player (writes) or read."""
    started: float
    finished: float
    status: int
    """0: no HTTP answer (the connection failed or was closed)."""
    code: str | None
    replayed: bool
    receipts: tuple[dict[str, Any], ...]
    failure: str | None = None

    @property
    def write(self) -> bool:
        return self.kind != "read"

    @property
    def acknowledged(self) -> bool:
        return self.write and 200 <= self.status < 300


class Stopped(Exception):
    """The load stopped while a client waited for an answer."""


@dataclass
class Client:
    """One keep-alive connection to one server, reopened after a failure."""
    index: int
    port: int
    admin: dict[str, str]
    answers: list[Answer]
    stopping: threading.Event
    connection: http.client.HTTPConnection | None = None

    def call(self, kind: str, method: str, path: str, body: dict | None = None,
             headers: dict[str, str] | None = None) -> tuple[Answer, dict]:
        started = time.monotonic()
        try:
            if self.connection is None:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=CLIENT_TIMEOUT_S)
            self.connection.request(method, path, body=json.dumps(body) if body is not None else None,
                                    headers={"Content-Type": "application/json", **self.admin, **(headers or {})})
            response = self.connection.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException) as failed:
            self.close()
            answer = Answer(self.index, kind, started, time.monotonic(), 0, None, False, (),
                            f"{type(failed).__name__}: {failed}")
            self.answers.append(answer)
            return answer, {}
        try:
            document = json.loads(raw) if raw else {}
        except ValueError:
            document = {"unparsed": raw[:200].decode(errors="replace")}
        receipts = tuple(json.loads(text) for text in response.headers.get_all("Cardroom-Receipt") or ())
        answer = Answer(self.index, kind, started, time.monotonic(), response.status,
                        document.get("code") if isinstance(document, dict) else None,
                        response.getheader("Idempotent-Replayed") == "true", receipts)
        self.answers.append(answer)
        return answer, document

    def write(self, kind: str, method: str, path: str, body: dict | None = None,
              headers: dict[str, str] | None = None) -> tuple[Answer, dict]:
        """A write under a fresh Idempotency-Key, sent again with the same key while the
        answer is a 503 (or no answer): the first outcome, or the write done once. Given up
        (unacknowledged: Stopped) when the load stops first."""
        key = {"Idempotency-Key": f"ha-{self.index}-{secrets.token_hex(8)}", **(headers or {})}
        while True:
            answer, document = self.call(kind, method, path, body, key)
            if answer.status not in (0, 503):
                return answer, document
            if self.stopping.is_set():
                raise Stopped()
            time.sleep(RETRY_503_AFTER_S)

    def read(self, path: str) -> dict:
        """GET until answered 200 (a 503 while the database is away is waited out); raises
        Stopped when the load stops first."""
        while True:
            answer, document = self.call("read", "GET", path)
            if answer.status == 200:
                return document
            if self.stopping.is_set():
                raise Stopped()
            time.sleep(RETRY_503_AFTER_S)

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None


@dataclass
class Load:
    """The clients, started together and stopped together; `answers` holds every answer."""
    ports: list[int]
    admin: dict[str, str]
    tables: list[tuple[str, list[str]]]
    """(table id, its two players), one per table client."""
    clock_tables: list[str]
    answers: list[Answer] = field(default_factory=list)
    errors: list[Exception] = field(default_factory=list)
    """What stopped a client thread (asserted empty by the test)."""
    _stopping: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)

    def __enter__(self) -> Load:
        count = len(self.tables) + len(self.clock_tables)
        for index in range(count):
            client = Client(index, self.ports[index % len(self.ports)], self.admin, self.answers, self._stopping)
            if index < len(self.tables):
                target: Any = self._play
                args: tuple = (client, *self.tables[index])
            else:
                target, args = self._keep_clocks_running, (client, self.clock_tables[index - len(self.tables)])
            self._threads.append(threading.Thread(target=self._run, args=(target, *args), name=f"ha-client-{index}",
                                                  daemon=True))
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stopping.set()
        for thread in self._threads:
            thread.join(timeout=CLIENT_TIMEOUT_S)

    def acknowledged(self) -> list[Answer]:
        return [answer for answer in list(self.answers) if answer.acknowledged]

    def first_acknowledged_after(self, moment: float) -> Answer | None:
        """The first write acknowledged by a request sent after `moment` and performed then
        (not the replay of an earlier outcome)."""
        later = [a for a in self.acknowledged() if a.started >= moment and not a.replayed]
        return min(later, key=lambda a: a.finished, default=None)

    def _run(self, target: Any, *args: Any) -> None:
        try:
            target(*args)
        except Stopped:
            pass
        except Exception as failed:  # kept for the test to report
            self.errors.append(failed)

    def _play(self, client: Client, table_id: str, players: list[str]) -> None:
        try:
            view = client.read(f"/v1/tables/{table_id}")
            version, to_act, legal = view["version"], None, None
            if view["hand"] is None:
                answer, written = client.write("deal", "POST", f"/v1/tables/{table_id}/hands", {},
                                               {"If-Match": f'"{version}"'})
                assert answer.status == 201, written
                version, to_act, legal = written["version"], written["to_act"], written["legal"]
            writes = 0
            while not self._stopping.is_set():
                writes += 1
                if writes % WRITES_PER_REGISTRATION == 0:
                    client.write("player", "POST", "/v1/players", {"name": f"Failover {client.index}.{writes}"})
                    continue
                if to_act is None:  # only after a refusal: read where the table is
                    legal_view = client.read(f"/v1/tables/{table_id}/legal-actions")
                    version = client.read(f"/v1/tables/{table_id}")["version"]
                    to_act, legal = legal_view["to_act"], legal_view["legal"]
                    continue
                action = {"player_id": to_act, "action": "check" if legal.get("check") else "call"}
                answer, written = client.write("action", "POST", f"/v1/tables/{table_id}/actions", action,
                                               {"If-Match": f'"{version}"'})
                if answer.status == 201:
                    version, to_act, legal = written["version"], written["to_act"], written["legal"]
                else:
                    to_act = None
        finally:
            client.close()

    def _keep_clocks_running(self, client: Client, table_id: str) -> None:
        try:
            while not self._stopping.is_set():
                view = client.read(f"/v1/tables/{table_id}")
                if view["hand"] is not None and not view["hand"]["over"]:
                    time.sleep(CLOCK_POLL_S)  # the clock will act
                    continue
                for seat in view["seats"]:
                    if seat.get("sitting_out"):
                        client.write("return", "DELETE", f"/v1/tables/{table_id}/absences/{seat['player_id']}")
                view = client.read(f"/v1/tables/{table_id}")
                client.write("deal", "POST", f"/v1/tables/{table_id}/hands", {}, {"If-Match": f'"{view["version"]}"'})
        finally:
            client.close()
