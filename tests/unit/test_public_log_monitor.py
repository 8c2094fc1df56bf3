"""`cardroom log monitor` (service.public_log_verifier.monitor_once) against a log served
over HTTP from a tree of its own: it trusts the first checkpoint, follows one that extends
it, and on a fork (a past leaf rewritten, the tree re-signed with the log's own key)
refuses, keeping both signed notes as evidence; `--full` catches leaves served that do not
hash to the checkpoint."""
from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from domain.transparency import merkle
from service.adapters.log_keys import new_signer, sign_note
from service.application.public_log import checkpoint_text
from service.public_log_verifier import ED25519, NotVerified, monitor_once

ORIGIN = "cardroom.test/monitored"
SIGNER = new_signer(ORIGIN, ED25519)


class ServedLog:
    def __init__(self) -> None:
        self.leaves: list[bytes] = []
        self.served_leaves: list[bytes] | None = None  # what /leaves answers, when not the tree's

    def subtree(self) -> merkle.Subtree:
        nodes = merkle.complete_subtrees([merkle.leaf_hash(leaf) for leaf in self.leaves])
        return lambda level, index: nodes[(level, index)]

    def answer(self, url: str) -> Any:
        parsed = urlparse(url)
        query = {k: int(v[0]) for k, v in parse_qs(parsed.query).items()}
        if parsed.path == "/v1/log/checkpoint":
            size = len(self.leaves)
            return sign_note(checkpoint_text(ORIGIN, size, merkle.root(size, self.subtree())), SIGNER)
        if parsed.path == "/v1/log/consistency":
            proof = merkle.consistency_proof(query["from"], query["to"], self.subtree())
            return {"hashes": [base64.b64encode(h).decode() for h in proof]}
        index = int(parsed.path.rsplit("/", 1)[1])
        return {"leaf": base64.b64encode((self.served_leaves or self.leaves)[index]).decode()}


@pytest.fixture
def served() -> Iterator[tuple[ServedLog, str]]:
    log = ServedLog()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            answer = log.answer(self.path)
            body = (answer if isinstance(answer, str) else json.dumps(answer)).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield log, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_the_monitor_follows_a_growing_log_and_keeps_evidence_of_a_fork(served: tuple[ServedLog, str],
                                                                        tmp_path: Path) -> None:
    log, url = served
    state = str(tmp_path / "trusted.txt")
    log.leaves = [f"event {i}".encode() for i in range(5)]
    assert monitor_once(url, state, SIGNER.verifier, [], 0).size == 5
    log.leaves += [f"event {i}".encode() for i in range(5, 13)]
    assert monitor_once(url, state, SIGNER.verifier, [], 0, full=True).size == 13
    log.leaves = [b"rewritten", *log.leaves[1:], b"event 13"]
    with pytest.raises(NotVerified, match="FORK"):
        monitor_once(url, state, SIGNER.verifier, [], 0)
    evidence = list(tmp_path.glob("trusted.txt.fork-*"))
    assert len(evidence) == 1 and "\n13\n" in evidence[0].read_text() and "\n14\n" in evidence[0].read_text()
    assert "\n13\n" in Path(state).read_text(), "the trusted checkpoint stays"


def test_full_recomputes_the_tree_from_the_leaves_served(served: tuple[ServedLog, str], tmp_path: Path) -> None:
    log, url = served
    log.leaves = [f"event {i}".encode() for i in range(6)]
    log.served_leaves = [b"another", *log.leaves[1:]]
    with pytest.raises(NotVerified, match="do not hash"):
        monitor_once(url, str(tmp_path / "trusted.txt"), SIGNER.verifier, [], 0, full=True)
