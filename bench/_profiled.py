"""The production app and the anchor, each wrapped to measure its table actions inside a
gunicorn worker (bench/action_profile.py): `gunicorn bench._profiled:production` or
`bench._profiled:anchor`.

While the file BENCH_PROFILE_FLAG says `timed`, each POST to a table's actions is timed in
the thread's own CPU time (time.thread_time), from the WSGI call to its response's close
(so Flask's after-request work, the request log and the metrics, are in); while it says
`profiled`, it is profiled with cProfile on that clock; otherwise (warming up) neither. A worker leaving (gunicorn's graceful stop) writes what it
measured under BENCH_PROFILE_DIR: `<pid>.json` (actions and CPU seconds, timed and
profiled) and `<pid>.prof` (pstats' marshal format).
"""
from __future__ import annotations

import atexit
import cProfile
import json
import os
import pstats
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

Wsgi = Callable[[dict, Callable], Iterable[bytes]]


class Measured:
    def __init__(self, app: Wsgi) -> None:
        self._app = app
        self._flag = Path(os.environ["BENCH_PROFILE_FLAG"])
        self._lock = threading.Lock()
        self._local = threading.local()
        self._profiles: list[cProfile.Profile] = []
        self._totals = {"timed": [0, 0.0], "profiled": [0, 0.0]}
        atexit.register(self._write)

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        mode = self._mode() if environ["REQUEST_METHOD"] == "POST" and environ["PATH_INFO"].endswith("/actions") else ""
        if mode not in self._totals:
            return self._app(environ, start_response)
        profile = self._profile() if mode == "profiled" else None
        began = time.thread_time()
        if profile:
            profile.enable()
        try:
            answer = self._app(environ, start_response)
            try:
                body = list(answer)
            finally:
                close = getattr(answer, "close", None)
                if close:
                    close()
        finally:
            if profile:
                profile.disable()
            used = time.thread_time() - began
            with self._lock:
                self._totals[mode][0] += 1
                self._totals[mode][1] += used
        return body

    def _mode(self) -> str:
        try:
            return self._flag.read_text()
        except FileNotFoundError:
            return ""

    def _profile(self) -> cProfile.Profile:
        profile = getattr(self._local, "profile", None)
        if profile is None:
            profile = self._local.profile = cProfile.Profile(time.thread_time)
            with self._lock:
                self._profiles.append(profile)
        return profile

    def _write(self) -> None:
        out = Path(os.environ["BENCH_PROFILE_DIR"])
        (out / f"{os.getpid()}.json").write_text(json.dumps(self._totals))
        if self._profiles:
            stats = pstats.Stats(self._profiles[0])
            for profile in self._profiles[1:]:
                stats.add(profile)
            stats.dump_stats(out / f"{os.getpid()}.prof")


def _production() -> Any:
    from service.wsgi import app

    return app


def _anchor() -> Any:
    from bench._anchor import app

    return app


# gunicorn loads one of these in each worker; each imports only its own app.
def __getattr__(name: str) -> Measured:
    if name not in ("production", "anchor"):
        raise AttributeError(name)
    measured = Measured((_production if name == "production" else _anchor)())
    globals()[name] = measured
    return measured
