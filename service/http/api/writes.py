"""What every write's answer gets (every POST and DELETE goes through `answer_write`, from
service.http.auth.require): a receipt per stream it appended to and, with an Idempotency-Key,
the first answer again, as payments APIs do it.

Receipts: one `Cardroom-Receipt` header per stream the write appended to, holding the JSON
`{"stream", "version", "hash", "mac"}` of the stream's head after the write, the MAC under
the chain key (ChainSigner, with the store). A client keeps it and may later show it to
`POST /v1/receipts/verify`, which says whether the log still reaches it.

Idempotency: a key belongs to the API key that sent it (the record is keyed by (API key
id, Idempotency-Key)) and holds the request's fingerprint (method, path with query, SHA-256
of the body bytes) and the first answer, for `Config.idempotency_window_s` (24 hours).
- The same key and the same request: the first answer again, status included (a retried
  create is a 201 again, not a 200), with its body, its Content-Type, Location, ETag and
  receipts, and `Idempotent-Replayed: true`. Nothing runs, nothing is written.
- The same key with another method, path or body: 422 `idempotency_key_reused`, naming the
  first request's method and path. Nothing runs.
- Two requests with one key at once: one runs; the other is a 409
  `idempotency_request_in_progress` with Retry-After, at once (it holds no thread waiting).
- Only an answer in the 2xx range is recorded, in the same transaction as the events it
  answers for (a crash leaves both or neither). A refused request wrote nothing, so its key
  stays free and a corrected request may use it.
- A stored answer that fails its MAC (changed or inserted in the database, not by the
  service) is never replayed: 409 `idempotency_record_refused`, nothing runs.
- A secret is shown once: fields a view names with `keep_out_of_record` (an issued key's
  secret) are stored as null, and a replay answers them as null.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from datetime import timedelta
from typing import Any

from flask import Flask, Request, Response, current_app, request

from service import json_text
from service.application import live_writes
from service.application.event_log import Head
from service.application.live_writes import Answer, Fingerprint, KeyInUse, KeyReused, RecordRefused, Replayed, Written
from service.http.api import app_resources, request_idempotency_key
from service.http.problems import Problem

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
RECEIPT_HEADER = "Cardroom-Receipt"
REPLAYED_HEADER = "Idempotent-Replayed"
RECORDED_HEADERS = ("Content-Type", "Location", "ETag", RECEIPT_HEADER)
RETRY_IN_PROGRESS_AFTER_S = 1

# The fields to store as null, while a request with an Idempotency-Key runs (None otherwise:
# there is no record to keep them out of).
_withheld: ContextVar[tuple[str, ...] | None] = ContextVar("withheld_from_record", default=None)


def keep_out_of_record(*fields: str) -> None:
    """The answer's top-level `fields` are secrets shown once: the record stores them as null."""
    withheld = _withheld.get()
    if withheld is not None:
        _withheld.set(withheld + fields)


def answer_write(owner: str, view: Callable[..., Any], args: Any, kwargs: Any) -> Any:
    """Run the write `view` for the caller whose API key id is `owner`, through the
    application's live writes (service.application.live_writes)."""
    # The request and the app looked up once each: every use of Flask's proxies is a
    # lookup of its own, and this runs on every request.
    served = request._get_current_object()  # type: ignore[attr-defined]
    if served.method not in WRITE_METHODS:
        return view(*args, **kwargs)
    key = request_idempotency_key(served)
    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    wired = app_resources(app)
    store = wired.store

    def write() -> Response:
        return app.make_response(view(*args, **kwargs))

    if key is None or store is None:
        written = live_writes.receipted(write)
        return with_receipts(written.result, written.heads)
    fingerprint = Fingerprint.of(served.method, _path_with_query(served), served.get_data(cache=True))
    window = timedelta(seconds=wired.config.idempotency_window_s)
    token = _withheld.set(())
    try:
        outcome = live_writes.once(store, owner, key, fingerprint, window, write, _kept)
    except KeyReused as reused:
        raise _key_reused(reused.first, reused.now) from None
    except KeyInUse:
        raise Problem(409, "idempotency_request_in_progress",
                      "a request with this Idempotency-Key is still running: retry after it",
                      headers={"Retry-After": str(RETRY_IN_PROGRESS_AFTER_S)}) from None
    except RecordRefused:
        raise Problem(409, "idempotency_record_refused",
                      "the stored answer for this Idempotency-Key fails its integrity check (it was "
                      "written in the database, not by the service): it is not replayed and nothing "
                      "ran; the operator is told (GET /v1/status)") from None
    finally:
        _withheld.reset(token)
    return _replayed(outcome.answer) if isinstance(outcome, Replayed) else outcome


def _kept(written: Written[Response]) -> Answer | None:
    """What the record keeps of the answer: only one in the 2xx range (a refused request
    wrote nothing, so its key stays free), with its receipts."""
    response = written.result
    if not 200 <= response.status_code < 300:
        return None
    return _recorded(with_receipts(response, written.heads))


# One encoder for every receipt (service.json_text: json.dumps with an option builds a new
# one each call, JSONEncoder.encode a new C encoder).
_RECEIPT = json_text.encoder(separators=(",", ":"))


def receipt_text(head: Head) -> str:
    return _RECEIPT({"stream": head.stream_id, "version": head.version, "hash": head.hash,
                            "mac": head.mac})


def with_receipts(response: Response, heads: Iterable[Head]) -> Response:
    for head in heads:
        response.headers.add(RECEIPT_HEADER, receipt_text(head))
    return response


def _path_with_query(served: Request) -> str:
    query = served.query_string.decode("latin-1")
    return served.path + ("?" + query if query else "")


def _key_reused(was: Fingerprint, fingerprint: Fingerprint) -> Problem:
    differs = [part for part, a, b in (("method", was.method, fingerprint.method),
                                       ("path", was.path, fingerprint.path),
                                       ("body", was.body_sha256, fingerprint.body_sha256))
               if a != b]
    return Problem(422, "idempotency_key_reused",
                   f"this Idempotency-Key was first used for {was.method} {was.path}; its "
                   f"{', '.join(differs)} differ(s) here: use a new key for a new request",
                   numbers={"first_method": was.method, "first_path": was.path,
                            "method": fingerprint.method, "path": fingerprint.path, "differs": differs})


def _replayed(answer: Answer) -> Response:
    response = Response(answer.body, status=answer.status)
    response.headers.clear()
    for name, value in answer.headers:
        response.headers.add(name, value)
    response.headers[REPLAYED_HEADER] = "true"
    return response


def _recorded(response: Response) -> Answer:
    body = response.get_data()
    withheld = _withheld.get()
    if withheld and response.is_json:
        shown = json.loads(body)
        body = current_app.json.dumps({**shown, **dict.fromkeys(withheld)}).encode() + b"\n"
    headers = tuple((name, value) for name, value in response.headers.items()
                    if name in RECORDED_HEADERS)
    return Answer(response.status_code, body, headers)
