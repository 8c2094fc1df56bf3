"""A witness of the public log: `cardroom witness` (or `python -m service.witness`), an
HTTP server speaking C2SP tlog-witness (https://c2sp.org/tlog-witness) with a key and a
state of its own.

`POST /add-checkpoint` takes `old <size>`, the consistency proof's hashes (base64, a line
each), a blank line, and a checkpoint signed by a log it knows (its verifier key given at
start). It cosigns (C2SP tlog-cosignature, cosignature/v1) only a checkpoint that extends
the one it last cosigned for that log:
- 200: the cosignature line (the witness's state moved to the new checkpoint first);
- 409 (text/x.tlog.size): `old` is not the size it holds, which the body gives;
- 422: the proof does not show the new tree extending the one it holds (a fork: refused,
  and its state stays as it was);
- 403: the log's signature does not verify; 404: a log it does not know; 400: malformed.

Its state (origin -> size and root) is a JSON file, replaced whole (written aside, then
renamed) under a lock, so a crash leaves the old state or the new one.
"""
from __future__ import annotations

import argparse
import base64
import binascii
import contextlib
import json
import logging
import os
import threading
import time
from collections.abc import Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from service.adapters.log_keys import NoteSigner, witness_signer
from service.public_log_verifier import NotVerified, VerifierKey, open_checkpoint, parse_checkpoint, parse_vkey, split_note, verify_consistency

log = logging.getLogger(__name__)

DEFAULT_NAME = "cardroom-witness.localhost"
KEY_FILE = "witness-key"
STATE_FILE = "witness-state.json"
MAX_BODY_BYTES = 64 * 1024
SIZE_CONTENT_TYPE = "text/x.tlog.size"


class Refusal(Exception):
    def __init__(self, status: HTTPStatus, detail: str, *, body: str | None = None,
                 content_type: str = "text/plain; charset=utf-8") -> None:
        super().__init__(detail)
        self.status, self.body, self.content_type = status, body if body is not None else detail + "\n", content_type


class Witness:
    """The witness's rules, apart from HTTP: `add_checkpoint(body) -> cosignature line`."""

    def __init__(self, signer: NoteSigner, logs: Sequence[VerifierKey], state_file: Path,
                 clock: Any = time.time) -> None:
        self.signer = signer
        self._logs = {key.name: key for key in logs}
        self._state_file = state_file
        self._clock = clock
        self._lock = threading.Lock()

    def state(self) -> dict[str, dict[str, Any]]:
        if not self._state_file.is_file():
            return {}
        return json.loads(self._state_file.read_text())

    def add_checkpoint(self, body: str) -> str:
        old, proof, note = _parsed(body)
        try:
            text, _ = split_note(note)
            origin = parse_checkpoint(text).origin
        except NotVerified as malformed:
            raise Refusal(HTTPStatus.BAD_REQUEST, str(malformed)) from None
        key = self._logs.get(origin)
        if key is None:
            raise Refusal(HTTPStatus.NOT_FOUND, f"this witness does not know the log {origin!r}")
        try:
            checkpoint = open_checkpoint(note, key)
        except NotVerified as forged:
            raise Refusal(HTTPStatus.FORBIDDEN, str(forged)) from None
        with self._lock:
            state = self.state()
            held = state.get(origin, {"size": 0, "root": None})
            if old != held["size"]:
                raise Refusal(HTTPStatus.CONFLICT, f"this witness holds {held['size']}",
                              body=f"{held['size']}\n", content_type=SIZE_CONTENT_TYPE)
            if checkpoint.size < old:
                raise Refusal(HTTPStatus.BAD_REQUEST, f"the checkpoint's {checkpoint.size} is smaller than {old}")
            if held["root"] is not None:
                try:
                    verify_consistency(old, checkpoint.size, base64.b64decode(held["root"]), checkpoint.root, proof)
                except NotVerified as fork:
                    log.error("refused a checkpoint of %s that does not extend the one held: %s", origin, fork)
                    raise Refusal(HTTPStatus.UNPROCESSABLE_ENTITY, f"not consistent with {old}: {fork}") from None
            state[origin] = {"size": checkpoint.size, "root": base64.b64encode(checkpoint.root).decode("ascii")}
            self._save(state)
        return self.signer.signature_line(text, int(self._clock()))

    def _save(self, state: dict[str, Any]) -> None:
        aside = self._state_file.with_suffix(".new")
        with aside.open("w") as file:
            json.dump(state, file)
            file.flush()
            os.fsync(file.fileno())
        aside.replace(self._state_file)


def _parsed(body: str) -> tuple[int, list[bytes], str]:
    head, blank, note = body.partition("\n\n")
    lines = head.split("\n")
    if not blank or not lines[0].startswith("old ") or not lines[0][4:].isdigit():
        raise Refusal(HTTPStatus.BAD_REQUEST, "the body is `old <size>`, the proof's lines, a blank line and the note")
    try:
        proof = [base64.b64decode(line, validate=True) for line in lines[1:]]
    except binascii.Error:
        raise Refusal(HTTPStatus.BAD_REQUEST, "a proof line that is not base64") from None
    return int(lines[0][4:]), proof, note


def handler_for(witness: Witness) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            if self.path != "/add-checkpoint":
                return self._answer(HTTPStatus.NOT_FOUND, "only POST /add-checkpoint\n")
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY_BYTES:
                return self._answer(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "too large\n")
            try:
                line = witness.add_checkpoint(self.rfile.read(length).decode("utf-8"))
            except UnicodeDecodeError:
                return self._answer(HTTPStatus.BAD_REQUEST, "not UTF-8\n")
            except Refusal as refused:
                return self._answer(refused.status, refused.body, refused.content_type)
            self._answer(HTTPStatus.OK, line)

        def _answer(self, status: HTTPStatus, body: str, content_type: str = "text/plain; charset=utf-8") -> None:
            encoded = body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(encoded)))
            self.end_headers()
            self.wfile.write(encoded)

        def log_message(self, format: str, *args: Any) -> None:
            log.info("witness: " + format, *args)
    return Handler


def serve(witness: Witness, host: str, port: int) -> ThreadingHTTPServer:
    """The witness's server, bound (its port: `server.server_address[1]`); serve_forever() runs it."""
    return ThreadingHTTPServer((host, port), handler_for(witness))


def build(state_dir: Path, name: str, log_keys: Sequence[str]) -> Witness:
    state_dir.mkdir(parents=True, exist_ok=True)
    return Witness(witness_signer(state_dir / KEY_FILE, name), [parse_vkey(k) for k in log_keys],
                   state_dir / STATE_FILE)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A C2SP tlog-witness for Cardroom's public log.")
    parser.add_argument("--log-key", action="append", default=[], help="a log's verifier key to witness (repeat)")
    parser.add_argument("--state-dir", type=Path, default=Path(".data") / "witness")
    parser.add_argument("--name", default=DEFAULT_NAME, help="the witness's key name (made once)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8100)
    parser.add_argument("--print-key", action="store_true", help="print the witness's verifier key and exit")
    arguments = parser.parse_args(argv)
    witness = build(arguments.state_dir, arguments.name, arguments.log_key)
    if arguments.print_key:
        print(witness.signer.verifier.vkey())
        return 0
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    server = serve(witness, arguments.host, arguments.port)
    log.info("witness %s on http://%s:%d", witness.signer.verifier.vkey(), arguments.host, server.server_address[1])
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
