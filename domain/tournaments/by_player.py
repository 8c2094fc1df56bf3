"""An immutable mapping keyed by player, cheap to change in a 10,000-player field.

A tournament's state keeps several such mappings (where each player sits, their chips)
and every event changes a few entries of them. Copying a whole dict per event costs the
field's size; `ByPlayer` is split into shards so a change copies the few small shards it
touches instead (10,000 players: about 150 entries a shard)."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Generic, TypeVar

V = TypeVar("V")


class ByPlayer(Mapping[str, V], Generic[V]):
    SHARDS = 64

    __slots__ = ("_shards", "_size")

    def __init__(self, shards: tuple[dict[str, V], ...] | None = None) -> None:
        self._shards = shards if shards is not None else tuple({} for _ in range(self.SHARDS))
        self._size = sum(len(shard) for shard in self._shards)

    def __getitem__(self, player_id: str) -> V:
        return self._shards[hash(player_id) % self.SHARDS][player_id]

    def __contains__(self, player_id: object) -> bool:
        return player_id in self._shards[hash(player_id) % self.SHARDS]

    def __iter__(self) -> Iterator[str]:
        for shard in self._shards:
            yield from shard

    def __len__(self) -> int:
        return self._size

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self.items()) == dict(other.items())

    def __hash__(self) -> int:
        return hash(frozenset(self.items()))

    def __repr__(self) -> str:
        return f"ByPlayer({len(self)} players)"

    def updated(self, changes: Mapping[str, V | None]) -> ByPlayer[V]:
        """A new mapping with `changes` applied (None removes the player)."""
        if not changes:
            return self
        shards = list(self._shards)
        copied: set[int] = set()
        for player_id, value in changes.items():
            number = hash(player_id) % self.SHARDS
            if number not in copied:
                shards[number] = dict(shards[number])
                copied.add(number)
            if value is None:
                shards[number].pop(player_id, None)
            else:
                shards[number][player_id] = value
        return ByPlayer(tuple(shards))
