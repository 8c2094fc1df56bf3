"""The JSON line every process logs in production (service.adapters.logs installs its
formatter), and the way to write a line straight to that handler when nothing else would
see the record (service.http.request_log: one line per request, the hottest log line).
"""
from __future__ import annotations

import logging
import math
from datetime import UTC, datetime
from typing import Any

from service import json_text

# One encoder for every line, made once: json.dumps with an option builds a new one each
# call, and JSONEncoder.encode a new C encoder. It has no check for circular references,
# which it could not share between the threads that log: a line's fields are the caller's
# few values, never one that holds itself; were one to, formatting still fails (a
# RecursionError for json.dumps' ValueError) and logging reports the line's error as ever.
_LINE = json_text.encoder(default=str)


class JsonFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__()
        self._second_spelled: tuple[int, str] = (-1, "")
        """The last whole second written and its text: lines come many to a second."""

    def format(self, record: logging.LogRecord) -> str:
        line = self.line(record.created, record.levelname, record.name, record.getMessage(),
                         getattr(record, "fields", {}))
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return _LINE(line)

    def line(self, created: float, level: str, logger: str, message: str, fields: dict[str, Any]) -> dict[str, Any]:
        """A JSON line's keys: the time, level, logger and message, then the record's fields."""
        return {"time": self.time_text(created), "level": level, "logger": logger, "message": message, **fields}

    def time_text(self, created: float) -> str:
        """`created` (seconds since the epoch) in UTC to the millisecond, as
        `datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")` spells it
        (rounded to the microsecond, then cut to the millisecond), the second's text made
        once per second."""
        fraction, whole = math.modf(created)  # as datetime splits it, so it rounds the same
        second, micros = divmod(round(fraction * 1_000_000), 1_000_000)
        second += int(whole)
        spelled_second, text = self._second_spelled
        if second != spelled_second:
            text = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
            self._second_spelled = (second, text)
        return f"{text}.{micros // 1000:03d}+00:00"


def direct_json_handler(logger: logging.Logger, level: int) -> logging.StreamHandler[Any] | None:
    """The handler a line of `logger` at `level` would reach, when it is only the one
    `configure` installed, in JSON, with nothing between (no filter, no other handler, no
    logger with a handler of its own on the way to the root): then a caller may write the
    line itself (`write_json_line`), as the handler would, without a LogRecord or the
    logging module's walk. None otherwise (a test capturing logs, a second handler, a
    filter, text format): log the usual way."""
    if logging.root.manager.disable >= level or not logger.isEnabledFor(level):
        return None
    found = None
    current: logging.Logger | None = logger
    while current is not None:
        if current.filters:
            return None
        for handler in current.handlers:
            if found is not None or not getattr(handler, "cardroom", False) or handler.filters \
                    or level < handler.level or not isinstance(handler.formatter, JsonFormatter):
                return None
            found = handler
        if not current.propagate:
            break
        current = current.parent
    return found if isinstance(found, logging.StreamHandler) else None


def write_json_line(handler: logging.StreamHandler[Any], created: float, level: str, logger: str,
                    message: str, fields: dict[str, Any]) -> None:
    """The line of a record with these fields written as the handler's emit writes it (the
    handler direct_json_handler found): its formatter's JSON text and the terminator,
    flushed, under the handler's lock."""
    formatter = handler.formatter
    assert isinstance(formatter, JsonFormatter)
    text = _LINE(formatter.line(created, level, logger, message, fields)) + handler.terminator
    with handler.lock:  # type: ignore[union-attr]  # created with the handler
        handler.stream.write(text)
        handler.flush()
