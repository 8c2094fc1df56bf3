"""Names beside ids (live.md): every object of an answer that names a player by
`player_id` also carries the player's `name`, and a list of ids under `players` (a hand's
players) gets a `names` map beside it; looked up once per answer (service.application.listings)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from service.application import listings
from service.http.api import resources


def with_names(body: Any) -> Any:
    """`body` with `name` after each `player_id` of its objects (null for an id nobody
    registered, e.g. an empty seat). Player names never change, so an ETag by version
    still holds."""
    ids: set[str] = set()
    _collect(body, ids)
    return _named(body, names_of(ids))


def names_of(player_ids: Iterable[str]) -> dict[str, str]:
    """The names players registered under (one query), for answers, captions and exports."""
    pool = resources().pool
    return listings.names(pool, player_ids) if pool is not None else {}


def _collect(value: Any, ids: set[str]) -> None:
    if isinstance(value, dict):
        player = value.get("player_id")
        if isinstance(player, str):
            ids.add(player)
        ids.update(_id_list(value.get("players")))
        for item in value.values():
            _collect(item, ids)
    elif isinstance(value, list):
        for item in value:
            _collect(item, ids)


def _named(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, list):
        return [_named(item, names) for item in value]
    if not isinstance(value, dict):
        return value
    named: dict[str, Any] = {}
    for key, item in value.items():
        named[key] = _named(item, names)
        if key == "player_id" and isinstance(item, str) and "name" not in value:
            named["name"] = names.get(item)
        elif key == "players" and _id_list(item) and "names" not in value:
            named["names"] = {player: names.get(player) for player in item}
    return named


def _id_list(value: Any) -> list[str]:
    if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
        return value
    return []
