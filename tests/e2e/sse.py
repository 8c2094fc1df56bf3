"""A small Server-Sent Events client over a plain socket, for the stream tests: it sees
the bytes the server sends (keep-alive comments included), as a browser's EventSource
parses them (https://html.spec.whatwg.org/multipage/server-sent-events.html)."""
from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass
from typing import Any

from tests.e2e.conftest import Server, scripted_players


@dataclass(frozen=True)
class Message:
    event: str
    data: Any
    id: int | None


class SseClient:
    def __init__(self, port: int, path: str, headers: dict[str, str] | None = None,
                 receive_buffer: int | None = None) -> None:
        self.sock = socket.socket()
        if receive_buffer is not None:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.connect(("127.0.0.1", port))
        lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1", "Accept: text/event-stream",
                 *(f"{name}: {value}" for name, value in (headers or {}).items())]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.buffer = b""
        self.comments: list[str] = []
        self.status = 0
        self.headers: dict[str, str] = {}

    def read_head(self, timeout: float = 10.0) -> int:
        while b"\r\n\r\n" not in self.buffer:
            self._receive(time.monotonic() + timeout)
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        self.status = int(status_line.split()[1])
        self.headers = {name.lower(): value.strip()
                        for name, _, value in (line.partition(":") for line in header_lines)}
        return self.status

    def body(self, timeout: float = 10.0) -> bytes:
        """The rest of a short answer (a problem document), up to the connection's end."""
        deadline = time.monotonic() + timeout
        length = int(self.headers.get("content-length", -1))
        while length < 0 or len(self.buffer) < length:
            if not self._receive(deadline):
                break
        return self.buffer

    def next(self, timeout: float = 10.0) -> Message:
        """The next message (comments are kept in `comments`); AssertionError on timeout."""
        deadline = time.monotonic() + timeout
        while True:
            while b"\n\n" not in self.buffer:
                assert self._receive(deadline), "the stream ended"
            block, self.buffer = self.buffer.split(b"\n\n", 1)
            fields: dict[str, str] = {}
            for line in block.decode().split("\n"):
                name, _, value = line.partition(":")
                if name == "":
                    self.comments.append(value.strip())
                else:
                    fields[name] = value[1:] if value.startswith(" ") else value
            if "data" in fields:
                return Message(fields.get("event", "message"), json.loads(fields["data"]),
                               int(fields["id"]) if "id" in fields else None)

    def next_within(self, timeout: float) -> Message | None:
        """The next message if one comes within `timeout`, else None."""
        try:
            return self.next(timeout)
        except AssertionError:
            return None

    def events_until(self, version: int, timeout: float = 10.0) -> tuple[list[Message], list[Message]]:
        """(events, turns) received until the event of `version`."""
        events: list[Message] = []
        turns: list[Message] = []
        while not events or events[-1].id != version:
            message = self.next(timeout)
            (turns if message.event == "turn" else events).append(message)
        return events, turns

    def _receive(self, deadline: float) -> bool:
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"nothing more within the time; so far: {self.buffer[-300:]!r}"
        self.sock.settimeout(remaining)
        try:
            chunk = self.sock.recv(65536)
        except TimeoutError:
            raise AssertionError(f"nothing more within the time; so far: {self.buffer[-300:]!r}") from None
        self.buffer += chunk
        return bool(chunk)

    def close(self) -> None:
        self.sock.close()


# What the stream tests share: a table with a hand dealt, its players' actions.

STACK = 10_000


def open_stream(server: Server, clients: list[SseClient], path: str,
                headers: dict[str, str] | None = None) -> SseClient:
    client = SseClient(server.port, path, headers)
    clients.append(client)
    assert client.read_head() == 200, client.body()
    assert client.headers["content-type"].startswith("text/event-stream")
    assert client.headers["cache-control"] == "no-cache"
    # A stream has no length: with one, curl and EventSource stop reading at it.
    assert "content-length" not in client.headers
    return client


def new_hand(server: Server, name: str) -> tuple[str, list[tuple[str, dict[str, str]]], int]:
    """A three-handed hold'em table with a hand dealt: (table id, players, version)."""
    players = scripted_players(server, 3, name)
    status, created, _ = server.call("POST", "/v1/tables", {
        "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player_id": p, "stack": STACK} for p, _ in players]}, server.admin)
    assert status == 201, created
    status, started, _ = server.call("POST", f"/v1/tables/{created['id']}/hands", {}, server.admin)
    assert status == 201, started
    return created["id"], players, started["version"]


def act(server: Server, table_id: str, players: list[tuple[str, dict[str, str]]],
        via: Server | None = None) -> dict:
    """The player to act checks or calls, with their own key."""
    via = via or server
    _, legal, headers = via.call("GET", f"/v1/tables/{table_id}/legal-actions", headers=via.admin)
    action = {"action": "check"} if legal["legal"]["check"] else {"action": "call"}
    status, answer, _ = via.call("POST", f"/v1/tables/{table_id}/actions", action,
                                 {**dict(players)[legal["to_act"]], "If-Match": headers["ETag"]})
    assert status == 201, answer
    return answer
