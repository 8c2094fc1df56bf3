"""A worker process builds its pool and application once (service.wiring), on its first
task, and keeps them in the Celery app's configuration, not in a module of its own."""
from __future__ import annotations

from service import wiring
from workers import celery_app


def test_a_worker_process_builds_its_resources_once_and_keeps_them_in_the_celery_configuration(monkeypatch):
    built = []

    def build(config, scheduler):
        built.append(scheduler)
        return object()

    monkeypatch.setattr(wiring, "worker_resources", build)
    monkeypatch.delitem(celery_app.app.conf, celery_app.RESOURCES, raising=False)
    first = celery_app.resources()
    assert celery_app.resources() is first
    assert celery_app.app.conf[celery_app.RESOURCES] is first
    [scheduler] = built
    assert scheduler.celery is celery_app.app  # ratings it could not record go to this app
    del celery_app.app.conf[celery_app.RESOURCES]
