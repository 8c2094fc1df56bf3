"""The service's mypy baseline only shrinks: a module with more errors than the baseline
fails `make lint`, a module it does not name is allowed none, fewer errors pass with a
request to lower it (tools/mypy_baseline.py)."""
from tools.mypy_baseline import BASELINE, compare, count_errors, format_baseline, read_baseline

REPORT = """\
service/http/api/hands.py:12: error: Function is missing a return type annotation  [no-untyped-def]
service/http/api/hands.py:12: note: Use "-> None" if function does not return a value
service/http/api/hands.py:40: error: Returning Any from function declared to return "str"  [no-any-return]
workers/tasks.py:7: error: Missing type parameters for generic type "dict"  [type-arg]
"""


def test_errors_are_counted_per_module_and_notes_are_not_errors():
    assert count_errors(REPORT) == {"service/http/api/hands.py": 2, "workers/tasks.py": 1}


def test_the_baseline_reads_back_what_it_writes_without_the_modules_at_zero():
    assert read_baseline(format_baseline({"workers/tasks.py": 1, "service/a.py": 3, "service/b.py": 0})) == {
        "service/a.py": 3, "workers/tasks.py": 1}


def test_a_module_with_more_errors_than_its_baseline_grows():
    grew, shrank = compare({"service/http/api/hands.py": 1, "workers/tasks.py": 1}, count_errors(REPORT))
    assert grew == ["service/http/api/hands.py: 2 errors, the baseline allows 1"] and shrank == []


def test_a_module_the_baseline_does_not_name_may_have_no_error():
    grew, _ = compare({"service/http/api/hands.py": 2}, count_errors(REPORT))
    assert grew == ["workers/tasks.py: 1 errors, the baseline allows 0"]


def test_fewer_errors_pass_and_ask_for_a_lower_baseline():
    grew, shrank = compare({"service/http/api/hands.py": 5, "workers/tasks.py": 1, "service/gone.py": 2},
                           count_errors(REPORT))
    assert grew == []
    assert shrank == ["service/gone.py: 0 errors, the baseline says 2",
                      "service/http/api/hands.py: 2 errors, the baseline says 5"]


def test_the_committed_baseline_names_only_modules_of_service_and_workers():
    counts = read_baseline(BASELINE.read_text())
    assert counts and all(path.startswith(("service/", "workers/")) and count > 0 for path, count in counts.items())
