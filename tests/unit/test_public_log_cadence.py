"""The integrator's cadence (public_log.gathering_s, as workers.public_log_tasks runs it):
while events keep coming, a batch and its checkpoint at least once a second (issue 31),
each over all that came meanwhile; after a quiet spell, a moment's gathering first."""
from __future__ import annotations

import pytest

from service.application.public_log import CHECKPOINT_EVERY_S, GATHER_S, gathering_s


def batch_starts(durations: list[float]) -> list[float]:
    """When each batch begins, events arriving all along (none waited for)."""
    starts, now = [0.0], 0.0
    for duration in durations:
        now += duration
        now += gathering_s(starts[-1], now, waited=False)
        starts.append(now)
    return starts


@pytest.mark.parametrize("duration", [0.0, 0.01, 0.2, 0.5, 0.79, 0.8, 0.95])
def test_while_events_keep_coming_a_checkpoint_is_signed_at_least_once_a_second(duration: float) -> None:
    starts = batch_starts([duration] * 20)
    gaps = [later - earlier for earlier, later in zip(starts, starts[1:])]
    assert max(gaps) <= 1.0
    assert min(gaps) == pytest.approx(max(CHECKPOINT_EVERY_S, duration))


def test_a_batch_longer_than_the_cadence_is_followed_by_the_next_at_once() -> None:
    assert gathering_s(0.0, CHECKPOINT_EVERY_S + 0.3, waited=False) == 0.0


def test_events_after_a_quiet_spell_are_gathered_a_moment_not_one_a_checkpoint() -> None:
    assert gathering_s(0.0, 60.0, waited=True) == GATHER_S
    assert gathering_s(0.0, 0.1, waited=True) == pytest.approx(CHECKPOINT_EVERY_S - 0.1)


def test_the_cadence_leaves_a_checkpoint_within_the_issues_second() -> None:
    assert GATHER_S < CHECKPOINT_EVERY_S < 1.0
