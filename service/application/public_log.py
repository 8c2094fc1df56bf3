"""The public log: every event of the global log as a leaf of one RFC 9162 Merkle tree,
signed checkpoints over it, and the proofs anyone checks with public keys alone
(service.public_log_verifier; docs/TRANSPARENCY.md).

A leaf commits only to what the public may know: the stream, version and type, the
SHA-256 of the event's public form (the event as the keyless public view serves it while
its hand is live: no hole card, sealed fields null), the names of the fields sealed until
the hand closes, and the per-card commitments the event publishes (each a root over
salted leaves: domain.rules.deal_commitment). No digest in it is computable from a card.

The integrator (`Integrator`, run by the worker: workers.public_log_tasks) follows the
global log like the tournament manager, from a tracking record of its own: a batch's
leaves, the complete subtrees they close and the moved tracking record commit in one
transaction, under an advisory lock (one integrator at a time, whichever worker; the lock
is PostgreSQL's, so it fails over with the database; unlike a row lock it gives the batch
no transaction id until its first write, so it holds back no other reader of the log). Only after that commit does
it sign a checkpoint of the tree it committed, so two integrators, or one before and one
after a failover, can only ever sign the same tree at a given size: the log never forks.
Before extending the tree, an integrator that starts (or finds the tree grown by another)
recomputes the newest signed root from the stored nodes: a node changed in the database
stops it. Writes never wait for any of this.
"""
from __future__ import annotations

import base64
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, TypeVar, cast

from domain.secrecy import secrets_named
from domain.transparency import merkle
from service.adapters.log_keys import NoteSigner, sign_note, with_cosignatures
from service.adapters.store.base import Checkpoint, RecordedEvent, format_recorded_at
from service.application import tournaments, views
from service.application.parts import Application
from service.application.process_managers import Batch, TransactionalStore, log_held_back
from service.public_log_verifier import Checkpoint as SignedCheckpoint
from service.public_log_verifier import NotVerified, VerifierKey, event_leaf, leaf_hash, open_checkpoint, parse_vkey, signed_by, split_note, verify_inclusion

log = logging.getLogger(__name__)
T = TypeVar("T")

INTEGRATOR = "public-log"
"""The integrator's tracking record: every integrator shares it, so they take turns."""
BATCH_EVENTS = 1000
GATHER_S = 0.2
"""After a wait for events (none came during the batch before), this long gathering them."""
CHECKPOINT_EVERY_S = 0.8
"""While events keep coming, a batch begins this long after the one before began (or as
that one ends, if it took longer): a checkpoint signed and cosigned at least once a second
while a batch takes under a second (issue 31), each over all that came meanwhile. A batch
costs as much again whatever it holds (its transaction, lock, reads of the tree, signature
and the witness's round trip), so fewer of them cost the production action less: per event
integrated, batches 0.2 s apart took the integrator 80 us of CPU, 0.8 s apart 50-66
(bench.public_log's integrator_cpu_us_per_event)."""
PUBLIC = views.Viewer("public")
COMMITMENT_SUFFIX = "commitment"
"""The public fields that hold a per-card commitment end so (`commitment`,
`next_commitment`, `roll_commitment`)."""


def public_form(record: RecordedEvent) -> dict[str, Any]:
    """The event as the keyless public view serves it while its hand is live: a table's
    as `GET /v1/tables/{id}/stream?view=public` (views.redact_event for a spectator, sealed
    fields null), a tournament's as its public feed (views.tournament_records)."""
    if record.stream_id.startswith(tournaments.STREAM_PREFIX):
        return views.tournament_records([record])[0]
    return views.redact_event({"version": record.version, "type": record.type, "data": record.data,
                               "metadata": record.metadata,
                               "recorded_at": format_recorded_at(record.recorded_at)}, PUBLIC)


def record_leaf(record: RecordedEvent) -> bytes:
    try:
        form = public_form(record)
    except (KeyError, TypeError, ValueError, AttributeError):
        # A record the views cannot show (an unreadable stream's: the view refuses it too):
        # its leaf commits to its stream, version and type alone, so the log goes on.
        log.warning("the public view cannot show %s version %d: its leaf holds no public form",
                    record.stream_id, record.version)
        form = {"version": record.version, "type": record.type, "data": {}}
    declared = secrets_named(record.type)
    sealed = [name for name in declared.sealed if name in form["data"]]
    commitments = [value for name, value in form["data"].items()
                   if declared.at_rest and name.endswith(COMMITMENT_SUFFIX) and isinstance(value, str)]
    return event_leaf(record.stream_id, record.version, record.type, form, sealed, commitments)


class Tree(Protocol):
    """The tree's rows (service.adapters.store.public_log)."""

    def lock(self) -> None:
        """The integrators' lock, until the open transaction ends."""

    def size(self) -> int: ...

    def nodes(self, wanted: Sequence[tuple[int, int]]) -> dict[tuple[int, int], bytes]: ...

    def append(self, leaves: Sequence[tuple[int, str, int, bytes]],
               nodes: Sequence[tuple[int, int, bytes]]) -> None: ...

    def leaf(self, index: int) -> bytes | None: ...

    def leaf_of(self, stream_id: str, version: int) -> tuple[int, bytes] | None: ...

    def leaves_of(self, stream_id: str) -> list[tuple[int, int, bytes]]: ...

    def streams(self, prefix: str = "") -> list[str]: ...

    def newest_checkpoints(self, cosigned_by: int = 0, count: int = 1) -> list[tuple[int, str, str]]: ...

    def checkpoint(self, size: int) -> tuple[str, str] | None: ...

    def add_checkpoint(self, size: int, note: str, vkey: str) -> None: ...

    def cosignatures(self, size: int) -> dict[str, str]: ...

    def add_cosignature(self, size: int, witness: str, line: str) -> None: ...

    def last_cosigned(self) -> dict[str, float]: ...

    def backlog(self, integrator: str) -> int: ...


class LogTracking(Protocol):
    """Where the integrator stands in the global log (service.adapters.store.trackings)."""

    def claim(self, name: str, *, lock_row: bool = True) -> Checkpoint: ...

    def move(self, name: str, checkpoint: Checkpoint) -> None: ...


class LogDamaged(Exception):
    """The stored tree does not hash to what the log signed: a row changed in the database."""


def frontier(size: int) -> list[tuple[int, int]]:
    """The complete subtrees a tree of `size` leaves is made of, largest first: all an
    append needs (each new node's left sibling is one of them)."""
    found, start = [], 0
    for level in range(size.bit_length() - 1, -1, -1):
        if size >> level & 1:
            found.append((level, start >> level))
            start += 1 << level
    return found


def fetched(tree: Tree, compute: Callable[[merkle.Subtree], T]) -> T:
    """`compute` (a proof) over the stored nodes, every node it needs read in one query."""
    wanted = list(dict.fromkeys(merkle.subtrees_read(compute)))  # proofs of many leaves share nodes
    return compute(subtree_reader(tree, tree.nodes(wanted)))


def subtree_reader(tree: Tree, cache: dict[tuple[int, int], bytes] | None = None) -> merkle.Subtree:
    """merkle.Subtree over the stored nodes, one query a node not in `cache`."""
    known = {} if cache is None else cache

    def subtree(level: int, index: int) -> bytes:
        if (level, index) not in known:
            found = tree.nodes([(level, index)])
            if (level, index) not in found:
                raise LogDamaged(f"the node ({level}, {index}) is missing from the stored tree")
            known.update(found)
        return known[(level, index)]
    return subtree


def gathering_s(last_began: float, now: float, *, waited: bool, every_s: float = CHECKPOINT_EVERY_S) -> float:
    """How long to gather events before the next batch, the last (not full) having begun at
    `last_began` (time.monotonic): until `every_s` after it began, and at least GATHER_S when
    the integrator `waited` for these events (none came during that batch)."""
    due = last_began + every_s - now
    return max(GATHER_S, due) if waited else max(0.0, due)


def checkpoint_text(origin: str, size: int, root: bytes) -> str:
    """C2SP tlog-checkpoint: origin, decimal size, base64 root, each on its line."""
    return f"{origin}\n{size}\n{base64.b64encode(root).decode('ascii')}\n"


class Integrator:
    """`signer(create)`: the log's signing key (service.adapters.log_keys.log_signer), made
    only when `create` (the log has no checkpoint yet); `after_signing(size, note)`: told
    the newest checkpoint after each batch (the witnesses are asked to cosign it)."""

    def __init__(self, app: Application, tracking: LogTracking, tree: Tree,
                 signer: Callable[[bool], NoteSigner], *, name: str = INTEGRATOR,
                 batch_events: int = BATCH_EVENTS,
                 after_signing: Callable[[int, str], None] | None = None) -> None:
        self._store = cast(TransactionalStore, app.store)
        self._tracking = tracking
        self._tree = tree
        self._signer_of = signer
        self._signer: NoteSigner | None = None
        self._name = name
        self._batch_events = batch_events
        self._after_signing = after_signing
        self._size: int | None = None  # the tree this integrator last committed (None: not checked yet)
        self._frontier: dict[tuple[int, int], bytes] = {}

    def handle_batch(self) -> Batch:
        """Integrate the next batch of the global log, then sign the tree it committed."""
        signer = self._signer or self._load_signer()
        try:
            with self._store.transaction():
                self._tree.lock()
                checkpoint = self._tracking.claim(self._name, lock_row=False)
                size = self._tree.size()
                if size != self._size:
                    self._check_stored_tree(size, signer)
                records, after = self._store.read_all(checkpoint, self._batch_events)
                grown = self._appended(size, records)
                full = len(records) == self._batch_events
                held_back = not full and log_held_back(after)
                self._tracking.move(self._name, after)
        except BaseException:
            self._size = None  # rolled back: the next batch reads the stored tree again
            raise
        self._size = grown
        signed = None if grown != size else self._tree.checkpoint(grown)
        note = self._sign(grown, signer) if signed is None else signed[0]
        if self._after_signing is not None:
            # Every batch, so a witness away when a checkpoint was signed is asked again.
            self._after_signing(grown, note)
        return Batch(len(records), 0, full, held_back)

    def _load_signer(self) -> NoteSigner:
        self._signer = self._signer_of(not self._tree.newest_checkpoints())
        return self._signer

    def _check_stored_tree(self, size: int, signer: NoteSigner) -> None:
        """The newest signed root recomputed from the stored nodes (and their frontier
        loaded): a node or leaf changed in the database since it was signed stops here."""
        nodes = self._tree.nodes(frontier(size))
        if len(nodes) != len(frontier(size)):
            raise LogDamaged(f"the stored tree of {size} leaves is missing nodes of its right edge")
        signed = self._tree.newest_checkpoints()
        if signed:
            signed_size, note, vkey = signed[0]
            if vkey == signer.verifier.vkey():
                stated = open_checkpoint(note, signer.verifier)
                if fetched(self._tree, partial(merkle.root, signed_size)) != stated.root:
                    raise LogDamaged(f"the stored tree no longer hashes to the signed root of {signed_size}")
        self._frontier = nodes

    def _appended(self, size: int, records: Sequence[RecordedEvent]) -> int:
        if not records:
            return size
        leaves, nodes = [], []
        known = self._frontier
        for index, record in enumerate(records, start=size):
            leaf = record_leaf(record)
            leaves.append((index, record.stream_id, record.version, leaf))
            made = merkle.parents_completed(index, leaf, lambda level, at: known[(level, at)])
            nodes += made
            known.update({(level, at): hash_ for level, at, hash_ in made})
        self._tree.append(leaves, nodes)
        grown = size + len(records)
        self._frontier = {place: known[place] for place in frontier(grown)}
        return grown

    def _sign(self, size: int, signer: NoteSigner) -> str:
        root = merkle.root(size, lambda level, at: self._frontier[(level, at)])
        note = sign_note(checkpoint_text(signer.name, size, root), signer)
        self._tree.add_checkpoint(size, note, signer.verifier.vkey())
        return note


# --- reading: the public endpoints ----------------------------------------------------

class Refused(Exception):
    """A public log request that cannot be answered: the HTTP layer's problem document."""

    def __init__(self, status: int, code: str, detail: str, *, retry_after_s: int | None = None,
                 numbers: Mapping[str, Any] | None = None) -> None:
        super().__init__(detail)
        self.status, self.code, self.detail = status, code, detail
        self.retry_after_s = retry_after_s
        self.numbers = dict(numbers or {})


@dataclass(frozen=True)
class Witness:
    url: str
    key: VerifierKey


def parse_witnesses(text: str) -> list[Witness]:
    """CARDROOM_WITNESSES: "<url> <verifier key>" pairs, comma-separated."""
    found = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        url, _, vkey = item.partition(" ")
        try:
            found.append(Witness(url.rstrip("/"), parse_vkey(vkey)))
        except NotVerified as wrong:
            raise ValueError(f"CARDROOM_WITNESSES: {wrong}") from None
    return found


@dataclass(frozen=True)
class Checkpointed:
    size: int
    root: bytes
    note: str
    """The signed note with the cosignatures that verify."""


NOT_YET_RETRY_S = 1


class PublicLog:
    """What the public endpoints read: the tree, the log's verifier key (None: this host
    knows it only from the checkpoints it reads), the witnesses and their policy."""

    def __init__(self, tree: Tree, log_key: VerifierKey | None, witnesses: Sequence[Witness], policy: int) -> None:
        self._tree = tree
        self._log_key = log_key
        self._witnesses = list(witnesses)
        self._policy = policy

    def keys(self) -> dict[str, Any]:
        key = self._key()
        return {"log": None if key is None else key.vkey(), "witnesses": [w.key.vkey() for w in self._witnesses]}

    def _key(self) -> VerifierKey | None:
        if self._log_key is not None:
            return self._log_key
        newest = self._tree.newest_checkpoints()
        return parse_vkey(newest[0][2]) if newest else None

    def checkpoint(self) -> Checkpointed:
        """The newest checkpoint that meets the witness policy, with its cosignatures."""
        key = self._key()
        if key is not None:
            for size, note, vkey in self._tree.newest_checkpoints(self._policy, count=5):
                if vkey != key.vkey():
                    continue
                found = self._cosigned(size, note, key)
                if found is not None:
                    return found
        raise Refused(404, "no_checkpoint", "the log has no checkpoint yet that meets its witness policy "
                      f"({self._policy} cosignatures)", retry_after_s=NOT_YET_RETRY_S,
                      numbers={"witness_policy": self._policy})

    def _cosigned(self, size: int, note: str, key: VerifierKey) -> Checkpointed | None:
        text, _ = split_note(note)
        try:
            checkpoint = open_checkpoint(note, key)
        except NotVerified:
            log.error("the public log's checkpoint of %d does not verify under its key: not served", size)
            return None
        lines = self._tree.cosignatures(size) if self._witnesses else {}
        valid = []
        for witness in self._witnesses:
            line = lines.get(witness.key.vkey())
            if line is not None and signed_by(text, split_note(text + "\n" + line)[1], witness.key) is not None:
                valid.append(line)
        if len(valid) < self._policy:
            return None
        return Checkpointed(size, checkpoint.root, with_cosignatures(note, valid))

    def leaf(self, index: int) -> bytes:
        leaf = self._tree.leaf(index)
        if leaf is None:
            raise Refused(404, "not_found", f"the log has no leaf {index} yet", numbers={"index": index})
        return leaf

    def _stored_size(self, size: int) -> None:
        stored = self._tree.size()
        if size > stored:
            raise Refused(404, "beyond_the_tree", f"the tree has {stored} leaves, not {size}",
                          numbers={"size": size, "tree_size": stored})

    def inclusion(self, index: int, size: int) -> list[bytes]:
        if index >= size:
            raise Refused(422, "index_not_in_tree", f"leaf {index} is not in a tree of {size}",
                          numbers={"index": index, "size": size})
        self._stored_size(size)
        return fetched(self._tree, partial(merkle.inclusion_proof, index, size))

    def consistency(self, old: int, new: int) -> list[bytes]:
        if old > new:
            raise Refused(422, "sizes_out_of_order", f"a consistency proof goes from a smaller tree, not {old} to {new}",
                          numbers={"from": old, "to": new})
        self._stored_size(new)
        return fetched(self._tree, partial(merkle.consistency_proof, old, new))

    def proof(self, stream_id: str, version: int, exists: Callable[[], bool]) -> dict[str, Any]:
        """All that proves one event offline: its index and leaf, the newest checkpoint
        meeting the policy, and the inclusion path to it. Checked before it goes out: a
        stored node changed in the database is a 503, never a proof that fails later."""
        found = self._tree.leaf_of(stream_id, version)
        checkpoint = self.checkpoint() if found is not None else None
        if found is None or checkpoint is None or found[0] >= checkpoint.size:
            if not exists():
                raise Refused(404, "not_found", f"no event {stream_id} version {version}",
                              numbers={"version": version})
            raise Refused(404, "not_yet_integrated", f"{stream_id} version {version} is not yet in a checkpoint "
                          "of the public log: ask again in a moment", retry_after_s=NOT_YET_RETRY_S,
                          numbers={"version": version})
        index, leaf = found
        hashes = fetched(self._tree, partial(merkle.inclusion_proof, index, checkpoint.size))
        try:
            verify_inclusion(index, checkpoint.size, leaf_hash(leaf), hashes, checkpoint.root)
        except NotVerified:
            log.error("the public log's stored tree does not prove leaf %d against its signed checkpoint", index)
            raise Refused(503, "public_log_damaged", "the stored tree does not hash to the signed checkpoint: "
                          "the operators are told; nothing is served from it") from None
        return {"index": index, "leaf": _b64(leaf), "size": checkpoint.size,
                "hashes": [_b64(h) for h in hashes], "checkpoint": checkpoint.note}

    def streams(self, prefix: str = "") -> list[str]:
        """The streams the tree holds a leaf of: `verify` checks each, so a stream deleted
        whole (events and listing) is still named."""
        return self._tree.streams(prefix)

    UNCHECKED = ("the public log has no checkpoint signed under its key yet: a removed tail or a "
                 "deleted stream is not caught (every chain is still checked)")

    def unchecked(self) -> str | None:
        """Why `first_difference` can say nothing (a warning beside `verify`'s results), or None."""
        return self.UNCHECKED if self._newest_signed() is None else None

    def _newest_signed(self) -> SignedCheckpoint | None:
        """The newest checkpoint signed under the log's key, opened."""
        key = self._key()
        newest = self._tree.newest_checkpoints()
        if key is None or not newest or newest[0][2] != key.vkey():
            return None
        return open_checkpoint(newest[0][1], key)

    def first_difference(self, stream_id: str, records: Sequence[RecordedEvent],
                         from_version: int = 1) -> tuple[int, str] | None:
        """Where the stream, as stored now, first differs from what the public log holds of
        it from `from_version` on (version, why), or None: each of its leaves in the newest
        checkpoint proven against that checkpoint's signed root, then recomputed from the
        stored event at its version. So an event edited or removed after it was integrated
        is found from the signed tree, whatever else the operator rewrote (a chain rehashed
        and re-MACed) and whatever was lost beside it (the app host's data directory): the
        tree and its checkpoints are public data. About 0.1 ms a leaf: a proof of each, from
        nodes read in one query. None too when the log has no checkpoint (`unchecked`)."""
        checkpoint = self._newest_signed()
        if checkpoint is None:
            return None
        leaves = [leaf for leaf in self._tree.leaves_of(stream_id)
                  if leaf[0] < checkpoint.size and leaf[1] >= from_version]
        proofs = fetched(self._tree, lambda subtree: [merkle.inclusion_proof(index, checkpoint.size, subtree)
                                                      for index, _, _ in leaves])
        stored = {record.version: record for record in records}
        for (index, version, leaf), hashes in zip(leaves, proofs):
            try:
                verify_inclusion(index, checkpoint.size, leaf_hash(leaf), hashes, checkpoint.root)
            except NotVerified:
                return version, (f"the public log's stored tree does not prove its leaf of version {version}: "
                                 "a row of the tree was changed")
            record = stored.get(version)
            if record is None:
                return version, (f"the public log holds version {version} (leaf {index}, signed in its checkpoint "
                                 f"of {checkpoint.size}); the stream no longer has it: removed")
            if record_leaf(record) != leaf:
                return version, (f"version {version} is not the event the public log holds at leaf {index} "
                                 f"(signed in its checkpoint of {checkpoint.size}): rewritten")
        return None

    def status(self, now: float) -> dict[str, Any]:
        """For GET /v1/status: the integrator's backlog, the tree and its newest checkpoint,
        and how long ago each witness last cosigned (None: never)."""
        newest = self._tree.newest_checkpoints()
        cosigned = self._tree.last_cosigned()
        return {"backlog": self._tree.backlog(INTEGRATOR), "tree_size": self._tree.size(),
                "checkpoint_size": newest[0][0] if newest else None,
                "witnesses": [{"key": w.key.vkey(), "last_cosigned_s_ago":
                               None if w.key.vkey() not in cosigned else round(now - cosigned[w.key.vkey()], 3)}
                              for w in self._witnesses]}


def _b64(value: bytes) -> str:
    return base64.b64encode(value).decode("ascii")

