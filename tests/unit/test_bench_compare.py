"""tools/bench_compare.py: which way each figure is better, read from its key; B/A of the
medians; a figure flagged only when it is worse than A by more than the limit."""
import pytest

from tools.bench_compare import HIGHER, LOWER, UNJUDGED, compare, direction, figures, is_worse, ratio


@pytest.mark.parametrize(("key", "better"), [
    ("evaluation.cardroom_7card_per_s", HIGHER),
    ("node.appends_per_s_4w", HIGHER),
    ("http.bare_flask_rps", HIGHER),
    ("tables.actions_vs_bare", HIGHER),  # a share of a reference rate
    ("store.append_vs_raw_ratio", HIGHER),
    ("tables.server_cpu_ms_per_action", LOWER),
    ("action_cost.cpu_s_per_table_hour", LOWER),  # CPU before "per_s"
    ("tables.cpu_per_action_vs_bare_request", LOWER),  # CPU before "_vs_"
    ("flat_costs.action_p50_old_vs_fresh", LOWER),  # latencies' ratio: p50 before "_vs_"
    ("listings.append_us_with_trigger", LOWER),
    ("public_log.commit_to_cosigned_p99_s", LOWER),
    ("tournament.players_1000.balance_ms_per_elimination_mean", LOWER),
    ("streams.loop_resumed_missing", LOWER),
    ("tables.action_errors", LOWER),
    ("node.max_connections", UNJUDGED),  # "max" alone is no latency
    ("tournament_10k.events_in_store", UNJUDGED),
])
def test_which_way_is_better_is_read_from_the_key(key, better):
    assert direction(key)[0] == better


def test_the_medians_ratio_is_flagged_only_beyond_the_limit_in_the_worse_direction():
    a = {"x.actions_per_s": [100.0, 90.0, 300.0], "x.p99_ms": [10.0, 10.0, 10.0], "x.tables": [5.0]}
    b = {"x.actions_per_s": [85.0, 80.0, 1.0], "x.p99_ms": [11.5, 9.0, 12.0], "x.tables": [50.0], "x.only_b_ms": [1.0]}
    rows = {row[0]: row for row in compare(a, b, 0.10)}
    assert set(rows) == {"x.actions_per_s", "x.p99_ms", "x.tables"}
    assert rows["x.actions_per_s"][1:4] == (100.0, 80.0, 0.8) and rows["x.actions_per_s"][-1]  # medians, not means
    assert rows["x.p99_ms"][3] == pytest.approx(1.15) and rows["x.p99_ms"][-1]
    assert not rows["x.tables"][-1]  # a size of the run is never worse


def test_ten_percent_worse_is_not_flagged_and_better_never_is():
    assert not is_worse(HIGHER, 0.91, 0.10) and is_worse(HIGHER, 0.89, 0.10)
    assert not is_worse(LOWER, 1.09, 0.10) and is_worse(LOWER, 1.11, 0.10)
    assert not is_worse(HIGHER, 3.0, 0.10) and not is_worse(LOWER, 0.2, 0.10)


def test_an_error_count_that_appears_is_worse_and_zero_against_zero_is_even():
    assert ratio(0.0, 0.0) == 1.0 and is_worse(LOWER, ratio(0.0, 3.0), 0.10)


def test_a_run_s_figures_are_its_numbers():
    assert figures('{"a.per_s": 12, "a.p50_ms": 1.5, "a.note": "text", "a.flag": true}') == {"a.per_s": 12.0, "a.p50_ms": 1.5}
