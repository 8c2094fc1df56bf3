"""What encrypting secrets at rest costs (service.adapters.store.cipher), apart from the
database and the network: the same heads-up hold'em history (HANDS hands, as flat_costs
plays them) written through the store's reader with and without the data key, on the
in-memory store, measured in interleaved rounds so drift on a busy machine hits both alike.

- `secrets_at_rest.deal_p50_ms_plain|encrypted`: a deal through the application (the
  command that writes the most secrets: the salt, the deck, every player's hole cards), and
  `..._action_p50_ms_plain|encrypted`: a check or call (which writes none);
- `secrets_at_rest.cold_load_p50_ms_plain|encrypted`: the table loaded by a process that
  has not cached it (the newest snapshot, decrypted, and the events after it);
- `secrets_at_rest.decrypt_us_per_secret_record`: a read's added cost per record that holds
  ciphertext, over the whole history.
"""
from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Callable
from functools import partial
from typing import Any

from bench import size
from bench.flat_costs import _created, _write_history
from domain.live import table_commands
from service.adapters.store.base import Reveal
from service.adapters.store.cipher import PREFIX, FieldCipher
from service.adapters.store.memory import InMemoryEventStore
from service.adapters.store.upcasting import UpcastingStore
from service.application import commands
from service.application.application import application
from service.application.handling import Streams

HANDS = size(2000, smoke=3)
ROUNDS = size(5, smoke=1)
TIMES = size(200, smoke=2)


def _median_ms(run: Callable[[], Any], times: int) -> float:
    taken = []
    for _ in range(times):
        started = time.perf_counter()
        run()
        taken.append(time.perf_counter() - started)
    return statistics.median(taken) * 1000


def _reader(cipher: FieldCipher | None) -> UpcastingStore:
    return UpcastingStore(InMemoryEventStore(), commands.STREAM_PREFIX, "hand-", cipher)


def _deal_and_act(store: UpcastingStore) -> tuple[float, float]:
    """(deal ms, action ms): a fresh table's deals and first actions, TIMES of each."""
    app = application(store)  # type: ignore[arg-type]
    deals, actions = [], []
    for _ in range(TIMES):
        table_id = f"t-{uuid.uuid4().hex[:8]}"
        commands.create_table(app, _created(table_id))
        started = time.perf_counter()
        handled = commands.start_next_hand(app, table_id, None)
        deals.append(time.perf_counter() - started)
        state = handled.state
        assert state is not None
        started = time.perf_counter()
        commands.execute(app, table_id, None, table_commands.Act(state.to_act, "call"))
        actions.append(time.perf_counter() - started)
    return statistics.median(deals) * 1000, statistics.median(actions) * 1000


def _cold_load(store: UpcastingStore, stream: str) -> None:
    """A load by a process that has not cached the table."""
    Streams(store, commands.TABLES, cached=0).load(stream)  # type: ignore[arg-type]


def run() -> dict[str, float]:
    stores = {"plain": _reader(None), "encrypted": _reader(FieldCipher(bytes(range(32))))}
    stream = commands.table_stream("history")
    for store in stores.values():
        _write_history(store, "history", HANDS)
    timings: dict[str, dict[str, list[float]]] = {name: {"deal": [], "action": [], "cold": [], "read": []}
                                                  for name in stores}
    for turn in range(ROUNDS):
        for name in (("plain", "encrypted") if turn % 2 == 0 else ("encrypted", "plain")):
            store = stores[name]
            deal, action = _deal_and_act(store)
            timings[name]["deal"].append(deal)
            timings[name]["action"].append(action)
            timings[name]["cold"].append(_median_ms(partial(_cold_load, store, stream), TIMES))
            timings[name]["read"].append(_median_ms(
                partial(store.read_stream, stream, reveal=Reveal.ALL), size(5, smoke=1)))
    stored = stores["encrypted"].stored.read_stream(stream, reveal=Reveal.ALL)
    secret_records = sum(1 for record in stored if any(
        isinstance(value, str) and value.startswith(PREFIX)
        for value in (*record.data.values(), *(record.sealed or {}).values())))
    figures: dict[str, float] = {"secrets_at_rest.history_events": len(stored),
                                 "secrets_at_rest.history_secret_records": secret_records}
    for name in stores:
        for what, key in (("deal", "deal_p50_ms"), ("action", "action_p50_ms"), ("cold", "cold_load_p50_ms")):
            figures[f"secrets_at_rest.{key}_{name}"] = round(statistics.median(timings[name][what]), 3)
    added_ms = statistics.median(timings["encrypted"]["read"]) - statistics.median(timings["plain"]["read"])
    figures["secrets_at_rest.decrypt_us_per_secret_record"] = round(added_ms * 1000 / max(secret_records, 1), 2)
    return figures
