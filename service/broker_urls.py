"""What a broker URL (CELERY_BROKER_URL) says: Redis, Redis through Sentinel, or another
transport, and how the other clients of the broker (the health check, the rate limits)
reach the same Redis.

A Sentinel broker is kombu's list of sentinels, `sentinel://s1:26379;sentinel://s2:26379`,
each part with the password of the Redis master if it needs one
(`sentinel://:secret@s1:26379/0`: kombu reads the password and the database from the
first part); the name the sentinels monitor the master under is a setting of its own
(CARDROOM_BROKER_MASTER_NAME), kombu's transport option `master_name`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TypeGuard
from urllib.parse import quote, unquote, urlsplit

REDIS_SCHEMES = ("redis://", "rediss://")
SENTINEL_SCHEME = "sentinel://"
DEFAULT_SENTINEL_PORT = 26379


def is_redis(url: str | None) -> TypeGuard[str]:
    return url is not None and url.startswith(REDIS_SCHEMES)


def is_sentinel(url: str | None) -> TypeGuard[str]:
    return url is not None and url.startswith(SENTINEL_SCHEME)


def is_amqp(url: str | None) -> TypeGuard[str]:
    return url is not None and url.startswith(("amqp://", "amqps://", "pyamqp://"))


@dataclass(frozen=True)
class Sentinels:
    """The sentinels a sentinel:// broker URL names, and what its first part says of the master."""

    addresses: tuple[tuple[str, int], ...]
    password: str | None
    username: str | None
    db: int

    @classmethod
    def of(cls, url: str) -> Sentinels:
        """Raises ValueError for a part that is not `sentinel://host[:port]`."""
        parts = [part.strip() for part in url.split(";") if part.strip()]
        addresses = []
        for part in parts:
            if not part.startswith(SENTINEL_SCHEME):
                raise ValueError(f"every part must start with {SENTINEL_SCHEME}")
            split = urlsplit(part)
            if not split.hostname:
                raise ValueError("a part names no host")
            addresses.append((split.hostname, split.port or DEFAULT_SENTINEL_PORT))
        first = urlsplit(parts[0])
        path = first.path.strip("/")
        if path and not path.isdigit():
            raise ValueError("the database after the first host must be a number")
        return cls(tuple(addresses), unquote(first.password) if first.password else None,
                   unquote(first.username) if first.username else None, int(path or 0))

    def limits_url(self, master_name: str) -> str:
        """The same master as `limits`' storage URL (`redis+sentinel://h1:p1,h2:p2/name`)."""
        auth = ""
        if self.password is not None:
            auth = f"{quote(self.username or '', safe='')}:{quote(self.password, safe='')}@"
        hosts = ",".join(f"{host}:{port}" for host, port in self.addresses)
        return f"redis+sentinel://{auth}{hosts}/{quote(master_name, safe='')}"
