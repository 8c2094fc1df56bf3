"""The log's side of C2SP tlog-witness (https://c2sp.org/tlog-witness): each new
checkpoint goes to every witness as `POST <url>/add-checkpoint`, with a consistency proof
from the size the witness last cosigned; its cosignature line comes back and is kept with
the checkpoint (service.adapters.store.public_log). A 409 says the size the witness holds:
the proof is made again from there, once.

A witness is asked on a thread of its own, one checkpoint at a time: a witness slow or
away holds back its own cosignatures, never the integrator or another witness, and a
checkpoint that came while it was being asked is replaced by the newest (a cosignature
of the newest covers the ones before it).
"""
from __future__ import annotations

import base64
import logging
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence

from service.application.public_log import Tree, Witness
from service.public_log_verifier import NotVerified, signed_by, split_note

log = logging.getLogger(__name__)

ASK_TIMEOUT_S = 5.0
CONTENT_TYPE = "text/plain; charset=utf-8"

Consistency = Callable[[int, int], list[bytes]]
"""(old size, new size) -> the RFC 9162 consistency proof between them."""


def add_checkpoint_body(old_size: int, proof: Sequence[bytes], note: str) -> bytes:
    lines = [f"old {old_size}", *(base64.b64encode(h).decode("ascii") for h in proof)]
    return ("\n".join(lines) + "\n\n" + note).encode("utf-8")


class WitnessClient:
    def __init__(self, witnesses: Sequence[Witness], tree: Tree, consistency: Consistency) -> None:
        self._askers = [_Asker(witness, tree, consistency) for witness in witnesses]

    def ask(self, size: int, note: str) -> None:
        for asker in self._askers:
            asker.offer(size, note)


class _Asker:
    def __init__(self, witness: Witness, tree: Tree, consistency: Consistency) -> None:
        self._witness = witness
        self._tree = tree
        self._consistency = consistency
        self._known_size: int | None = None  # what the witness last said it holds
        self._pending: tuple[int, str] | None = None
        self._cosigned_size = -1  # the largest checkpoint it cosigned for us
        self._wanted = threading.Condition()
        threading.Thread(target=self._run, name=f"witness {witness.key.name}", daemon=True).start()

    def offer(self, size: int, note: str) -> None:
        with self._wanted:
            if size <= self._cosigned_size:
                return
            if self._pending is None or self._pending[0] < size:
                self._pending = (size, note)
                self._wanted.notify()

    def _run(self) -> None:
        while True:
            with self._wanted:
                while self._pending is None:
                    self._wanted.wait()
                size, note = self._pending
                self._pending = None
            try:
                self._ask(size, note)
            except (OSError, ValueError, NotVerified) as failed:
                log.warning("witness %s did not cosign the checkpoint of %d: %s", self._witness.url, size, failed)

    def _ask(self, size: int, note: str) -> None:
        for _ in range(2):
            old = self._known_size if self._known_size is not None and self._known_size <= size else 0
            status, body = self._post(add_checkpoint_body(old, self._consistency(old, size), note))
            if status == 409:
                self._known_size = int(body.strip().split("\n")[0])
                continue
            if status != 200:
                raise ValueError(f"answered {status}: {body[:200]!r}")
            text, _ = split_note(note)
            line = body if body.endswith("\n") else body + "\n"
            if signed_by(text, split_note(text + "\n" + line)[1], self._witness.key) is None:
                raise NotVerified("its cosignature does not verify under its key")
            self._tree.add_cosignature(size, self._witness.key.vkey(), line)
            self._known_size = self._cosigned_size = size
            return

    def _post(self, body: bytes) -> tuple[int, str]:
        request = urllib.request.Request(f"{self._witness.url}/add-checkpoint", data=body, method="POST",
                                         headers={"Content-Type": CONTENT_TYPE})
        try:
            with urllib.request.urlopen(request, timeout=ASK_TIMEOUT_S) as answer:
                return answer.status, answer.read().decode("utf-8")
        except urllib.error.HTTPError as refused:
            return refused.code, refused.read().decode("utf-8", "replace")
