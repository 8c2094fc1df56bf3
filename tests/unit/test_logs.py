"""The workers' routine lines (sweeps and pings received, sent, done) go to the routine
level; everything else keeps its own."""
from __future__ import annotations

import logging

from service.adapters.logs import RoutineLines, TextFormatter


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
