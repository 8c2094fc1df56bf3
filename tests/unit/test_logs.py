"""The workers' routine lines (sweeps and pings received, sent, done) go to the routine
level; everything else keeps its own."""
from __future__ import annotations

import io
import json
import logging
from datetime import UTC, datetime

from service.adapters.logs import RoutineLines, TextFormatter
from service.log_lines import JsonFormatter, direct_json_handler, write_json_line


def _record(message: str, level: int = logging.INFO) -> logging.LogRecord:
    return logging.LogRecord("celery.app.trace", level, __file__, 1, message, (), None)


def test_a_sweep_done_is_dropped_at_info_and_kept_at_debug():
    done = "Task workers.clock_tasks.sweep_clocks[5e1c] succeeded in 0.01s: 0"
    assert RoutineLines(logging.DEBUG, threshold=logging.INFO).filter(_record(done)) is False
    kept = _record(done)
    assert RoutineLines(logging.DEBUG, threshold=logging.DEBUG).filter(kept) is True
    assert kept.levelname == "DEBUG"


def test_other_tasks_and_a_failing_sweep_keep_their_level():
    routine = RoutineLines(logging.DEBUG, threshold=logging.INFO)
    rating = _record("Task workers.rating_tasks.apply_rating[1] succeeded in 0.2s: None")
    failed = _record("Task workers.clock_tasks.sweep_clocks[2] raised", logging.ERROR)
    assert routine.filter(rating) and rating.levelno == logging.INFO
    assert routine.filter(failed) and failed.levelno == logging.ERROR


def test_text_lines_end_with_the_requests_ids():
    record = _record("GET /v1/tables/t1 200 1.2 ms")
    record.fields = {"request_id": "r1", "method": "GET", "status": 200, "table_id": "t1", "role": None}
    assert TextFormatter().format(record).endswith("GET /v1/tables/t1 200 1.2 ms  [request_id=r1 table_id=t1]")


def _json_logger(stream: io.StringIO, formatter: logging.Formatter) -> tuple[logging.Logger, logging.StreamHandler]:
    """A logger under a root of its own whose only handler is one `configure` would install."""
    root = logging.Logger("root-of-test", logging.INFO)
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter)
    handler.cardroom = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    requests = logging.Logger("cardroom.requests")
    requests.parent = root
    return requests, handler


def test_a_line_written_straight_to_the_json_handler_is_the_line_the_handler_writes():
    fields = {"request_id": "r1", "method": "POST", "status": 201, "duration_ms": 1.25, "key_id": None,
              "table_id": "t\u00e91"}
    logged, written = io.StringIO(), io.StringIO()
    requests, handler = _json_logger(logged, JsonFormatter())
    record = requests.makeRecord(requests.name, logging.INFO, __file__, 1, "%s %s", ("POST", "/x"), None,
                                 None, {"fields": fields})
    requests.handle(record)
    direct = direct_json_handler(requests, logging.INFO)
    assert direct is handler
    direct.stream = written
    write_json_line(direct, record.created, "INFO", requests.name, "POST /x", fields)
    assert written.getvalue() == logged.getvalue()
    assert json.loads(written.getvalue())["table_id"] == "t\u00e91"


def test_a_line_is_the_text_json_dumps_writes():
    fields = {"request_id": "r\u00e91", "status": 201, "duration_ms": 1.25, "key_id": None,
              "nested": {"list": [1, "\u2028", {"deep": True}]}, "when": datetime(2026, 12, 6, tzinfo=UTC),
              "raw": b"x", "error": ValueError("x")}
    formatter = JsonFormatter()
    line = formatter.line(1_765_000_000.25, "INFO", "cardroom.requests", "POST /x", fields)
    record = logging.LogRecord("cardroom.requests", logging.INFO, __file__, 1, "POST /x", (), None)
    record.created, record.fields = 1_765_000_000.25, fields
    assert formatter.format(record) == json.dumps(line, default=str)
    written = io.StringIO()
    handler = logging.StreamHandler(written)
    handler.setFormatter(formatter)
    write_json_line(handler, 1_765_000_000.25, "INFO", "cardroom.requests", "POST /x", fields)
    assert written.getvalue() == json.dumps(line, default=str) + "\n"


def test_a_line_anything_else_would_see_is_logged_the_usual_way():
    requests, handler = _json_logger(io.StringIO(), JsonFormatter())
    assert direct_json_handler(requests, logging.DEBUG) is None  # below the level
    requests.parent.addHandler(logging.StreamHandler(io.StringIO()))  # a second handler (caplog's)
    assert direct_json_handler(requests, logging.INFO) is None
    requests, handler = _json_logger(io.StringIO(), JsonFormatter())
    handler.addFilter(lambda record: True)
    assert direct_json_handler(requests, logging.INFO) is None
    requests, _ = _json_logger(io.StringIO(), TextFormatter())
    assert direct_json_handler(requests, logging.INFO) is None
    requests, _ = _json_logger(io.StringIO(), JsonFormatter())
    requests.addFilter(lambda record: True)
    assert direct_json_handler(requests, logging.INFO) is None


def test_the_time_of_a_line_is_spelled_as_datetime_spells_it():
    moments = [0.0, 1.0, 1779000000.0, 1779000000.9995, 1779000000.9999996, 1879304019.8069994,
               1823764264.3919995, 1779000000.0004999, 1779000001.0000004]
    formatter = JsonFormatter()
    for moment in moments + [moment + 0.001 for moment in moments]:
        assert formatter.time_text(moment) == datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds")
