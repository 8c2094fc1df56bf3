"""How the command line reaches the service: over HTTP, or through the app in-process.

Both answer `Answer`s; a problem document (4xx/5xx) is raised as `ApiError` with its
detail, so every command prints the service's own explanation. In-process, the app is
built from the environment's configuration (chain key, data folder) with the given
database and a one-time admin key, so what it writes is what the server would write.
"""
from __future__ import annotations

import json
import secrets
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

HTTP_TIMEOUT_S = 30.0
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
RETRIED_STATUSES = frozenset({503, 409})
"""503 database_unavailable (a failover), 409 idempotency_request_in_progress (the first
try is still running): sent again with the same Idempotency-Key."""
RETRY_FOR_S = 60.0
"""How long a write is retried: longer than a Patroni failover (ttl 20 s + loop_wait)."""


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)

    def json(self) -> Any:
        return json.loads(self.body or b"null")


class ApiError(Exception):
    def __init__(self, answer: Answer) -> None:
        try:
            problem = answer.json()
        except ValueError:
            problem = None
        self.answer = answer
        self.problem = problem if isinstance(problem, dict) else {}
        self.code = self.problem.get("code", f"http_{answer.status}")
        detail = self.problem.get("detail") or answer.body.decode(errors="replace")[:200]
        super().__init__(f"{answer.status} {self.code}: {detail}")


class Transport(Protocol):
    def send(self, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> Answer: ...


class HttpTransport:
    def __init__(self, url: str, key: str | None) -> None:
        self.url = url.rstrip("/")
        self.key = key

    def send(self, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> Answer:
        if self.key:
            headers = {**headers, "Authorization": f"Bearer {self.key}"}
        request = urllib.request.Request(self.url + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT_S) as response:
                return Answer(response.status, response.read(), dict(response.headers))
        except urllib.error.HTTPError as error:
            return Answer(error.code, error.read(), dict(error.headers))
        except urllib.error.URLError as error:
            raise ConnectionError(f"cannot reach {self.url}: {error.reason}") from None


class InProcessTransport:
    def __init__(self, database_url: str) -> None:
        from service.bootstrap import create_app
        from service.config import Config

        self.key = secrets.token_urlsafe(32)
        config = replace(Config.from_env(), database_url=database_url, admin_key=self.key,
                         rate_limit_per_key="", rate_limit_per_address="")
        self._client = create_app(config).test_client()

    def send(self, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> Answer:
        response = self._client.open(path, method=method, data=body,
                                     headers={**headers, "Authorization": f"Bearer {self.key}"})
        return Answer(response.status_code, response.get_data(), dict(response.headers))


def _retryable(answer: Answer) -> bool:
    if answer.status not in RETRIED_STATUSES:
        return False
    return answer.status == 503 or ApiError(answer).code == "idempotency_request_in_progress"


def _retry_after_s(answer: Answer) -> float:
    value = {name.lower(): text for name, text in answer.headers.items()}.get("retry-after", "")
    return min(float(value), 5.0) if value.isdigit() else 1.0


class Client:
    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    def call(self, method: str, path: str, *, json_body: Any = None, text: str | None = None,
             content_type: str = "application/json", headers: Mapping[str, str] | None = None) -> Answer:
        """The answer; a status of 400 or more raises ApiError."""
        sent = dict(headers or {})
        body: bytes | None = None
        if json_body is not None:
            body, sent["Content-Type"] = json.dumps(json_body).encode(), "application/json"
        elif text is not None:
            body, sent["Content-Type"] = text.encode(), content_type
        if method in WRITE_METHODS:
            # Every write carries a key: a retry after an unknown outcome (503, a failover
            # mid-COMMIT) answers the first outcome or performs the write once.
            sent.setdefault("Idempotency-Key", "cli-" + secrets.token_urlsafe(18))
        give_up_at = time.monotonic() + RETRY_FOR_S
        while True:
            answer = self.transport.send(method, path, body, sent)
            if not (method in WRITE_METHODS and _retryable(answer) and time.monotonic() < give_up_at):
                break
            time.sleep(_retry_after_s(answer))
        if answer.status >= 400:
            raise ApiError(answer)
        return answer

    def get(self, path: str) -> Any:
        return self.call("GET", path).json()
