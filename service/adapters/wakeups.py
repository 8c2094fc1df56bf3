"""Wake a follower of the log when the append trigger notifies (migration 0009) a stream
it follows: one LISTEN connection on a daemon thread that sets an Event.

A notification carries only a stream id and a version; the woken follower reads the log
from its own checkpoint, so a notification lost (a dropped connection) costs latency,
never an event. After each (re)connection the Event is set as well, for whatever was
appended while nobody listened.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import psycopg

from service.adapters.notifications import RECONNECT_PAUSE_S, listening_connection, parse_payload

log = logging.getLogger(__name__)

WAKEUPS_NAME = "cardroom-wakeups"
STOP_CHECK_S = 1.0
"""How often the listening thread looks whether it was stopped."""


class Wakeups:
    def __init__(self, database_url: str, wanted: Callable[[str], bool]) -> None:
        self.woken = threading.Event()
        self._database_url = database_url
        self._wanted = wanted
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._listen, name="cardroom-wakeups", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=STOP_CHECK_S * 3)

    def _listen(self) -> None:
        while not self._stopped.is_set():
            try:
                with listening_connection(self._database_url, WAKEUPS_NAME) as connection:
                    self.woken.set()
                    while not self._stopped.is_set():
                        for notify in connection.notifies(timeout=STOP_CHECK_S):
                            parsed = parse_payload(notify.payload)
                            if parsed is not None and self._wanted(parsed[0]):
                                self.woken.set()
            except psycopg.Error as error:
                log.warning("The follower's notification listener lost its connection: %s", error)
            except Exception:  # noqa: BLE001 - a bug must not leave the follower on its safety net
                log.exception("The follower's notification listener failed; it listens again")
            self._stopped.wait(RECONNECT_PAUSE_S)
