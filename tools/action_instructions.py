"""CPU instructions per production table action (issue 37), counted by valgrind's callgrind.

The production app (bench.tables' production settings: player keys, an Idempotency-Key on
every write, receipts, JSON request logs at INFO, metrics in multiprocess files, rate
limits counted in Redis, a 30 s action clock, six-handed no-limit hold'em with 100 big
blinds, the players' choices of bench.tables._ProductionPlayer) is loaded in one process,
as a gunicorn worker loads it (service.wsgi, then the worker's frozen heap), and called
through its WSGI callable with the environ gunicorn would build. Only the app's own work is
counted, from the WSGI call to the response's close (each call runs in a contextvars
Context, and callgrind collects inside `context_run` only): not the sockets, gunicorn's
HTTP parsing or this client's building the requests and reading the answers, nor the
app's background threads between requests.

Instructions, not time: callgrind counts the same whatever else the machine runs. Two runs,
each in its own process under callgrind, side by side: ACTIONS actions, and half as many.
Each counts from the end of its set-up (imports, the app's wiring, the tables' players and
keys run uninstrumented, `--instr-atstart=no`, then `callgrind_control --instr=on`), and
what is left of start-up (the first calls of each code path) and the exit is the same in
both and cancels out of `(I(N) - I(N/2)) / (N/2)`. The two runs play the same games: the deals come from a
seeded generator through the same code (commands.SecretShuffle and SecretDraws with
`secrets` replaced by a seeded random.Random), the client's choices are seeded,
and PYTHONHASHSEED is fixed, so the second half of the longer run is the same actions
every time and a cut's before and after differ by what it cut, not by the cards.

Valgrind runs the app some fifty times slower, which would turn what depends on the
clock into something else than production's: the revocation ask every 0.5 s of the key
cache, the rate limiter's 1 s windows, the pool's metrics sampling, the request log's
second. The app's modules that ask the clock for those see a clock that advances
STEP_S a request instead (about one gunicorn worker's share of bench.action_cost's
production rate), the same in both runs.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/cardroom_<scratch> \\
        .venv/bin/python tools/action_instructions.py [--actions 600] [--top 30] [--keep DIR]

`--top K`: the K C functions (the interpreter's, OpenSSL's, libpq's...) with the most own
instructions per action (callgrind_annotate's, the longer run less the shorter). `--profile`: no callgrind; the
ACTIONS actions under cProfile, the Python functions printed by own and by cumulative time.
DATABASE_URL must be a scratch database of its own (it is written to; `postgres` is refused).
"""
from __future__ import annotations

import argparse
import contextvars
import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import types
import uuid
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TABLES = 4
"""Tables played in turn (each with its six players and their keys), as a few clients would."""
STEP_S = 0.003
"""The app's clock (for what it does by the clock) advances this much a request."""
SEED = 37


class _SteppedClock:
    """`time` for the app's clocked modules: monotonic() and time() move STEP_S a request."""

    def __init__(self) -> None:
        self.monotonic_at = time.monotonic()
        self.wall_at = time.time()

    def step(self) -> None:
        self.monotonic_at += STEP_S
        self.wall_at += STEP_S

    def module(self) -> types.ModuleType:
        clocked = types.ModuleType("time")
        clocked.__dict__.update(vars(time))
        clocked.monotonic = lambda: self.monotonic_at  # type: ignore[attr-defined]
        clocked.time = lambda: self.wall_at  # type: ignore[attr-defined]
        return clocked


class _SeededSecrets:
    """What commands.SecretShuffle and SecretDraws ask of `secrets`, from a seeded generator."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def randbits(self, bits: int) -> int:
        return self._rng.getrandbits(bits)

    def token_bytes(self, count: int) -> bytes:
        return self._rng.randbytes(count)

    def randbelow(self, limit: int) -> int:
        return self._rng.randrange(limit)


class _Wsgi:
    """Requests to the app's WSGI callable with the environ gunicorn builds."""

    def __init__(self, app: Any, clock: _SteppedClock) -> None:
        self._app = app
        self._clock = clock

    def call(self, method: str, path: str, body: dict[str, Any] | None,
             headers: dict[str, str]) -> tuple[int, Any, str | None]:
        self._clock.step()
        raw = json.dumps(body).encode() if body is not None else b""
        environ = {
            "REQUEST_METHOD": method, "SCRIPT_NAME": "", "PATH_INFO": path, "QUERY_STRING": "", "RAW_URI": path,
            "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1", "REMOTE_PORT": "40000", "HTTP_HOST": "127.0.0.1:8000",
            "wsgi.version": (1, 0), "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(raw),
            "wsgi.errors": sys.stderr, "wsgi.multithread": True, "wsgi.multiprocess": True, "wsgi.run_once": False,
            "CONTENT_LENGTH": str(len(raw)),
        }
        if body is not None:
            environ["CONTENT_TYPE"] = "application/json"
        for name, value in headers.items():
            environ["HTTP_" + name.upper().replace("-", "_")] = value
        answered: list[Any] = []

        def start_response(status: str, response_headers: list[tuple[str, str]], exc_info: Any = None) -> None:
            answered[:] = [int(status[:3]), dict(response_headers)]

        # Run in a Context, so callgrind counts this alone (--toggle-collect=context_run):
        # neither building the environ nor reading the answer is the server's.
        data = contextvars.copy_context().run(self._served, environ, start_response)
        status, response_headers = answered
        return status, json.loads(data) if data else {}, response_headers.get("ETag")


    def _served(self, environ: dict[str, Any], start_response: Any) -> bytes:
        """The app's call to the response's close, as gunicorn makes it."""
        chunks = self._app(environ, start_response)
        try:
            return b"".join(chunks)
        finally:
            getattr(chunks, "close", lambda: None)()


class _Tables:
    """bench.tables._ProductionPlayer's play, in process: TABLES tables in turn."""

    def __init__(self, wsgi: _Wsgi, admin_key: str, rng: random.Random) -> None:
        from bench.tables import PRODUCTION_SEATS

        self._wsgi = wsgi
        self._admin = {"Authorization": f"Bearer {admin_key}"}
        self._rng = rng
        self._keys: list[dict[str, str]] = []
        self._tables: list[list[Any]] = []
        for _ in range(TABLES):
            keys = {}
            for seat in range(PRODUCTION_SEATS):
                _, player, _ = self._admin_call("POST", "/v1/players", {"name": f"P{seat}"})
                _, issued, _ = self._admin_call("POST", "/v1/keys", {"role": "player", "player_id": player["id"]})
                keys[player["id"]] = issued["key"]
            self._keys.append(keys)
            self._tables.append(self._new_table(keys))

    @staticmethod
    def _fresh_key() -> str:
        """A new Idempotency-Key (from the system, not the seed: a second run must not be
        answered from the first run's records; what a key costs is not what it is)."""
        return str(uuid.uuid4())

    def _admin_call(self, method: str, path: str, body: dict[str, Any] | None,
                    headers: dict[str, str] | None = None) -> tuple[int, Any, str | None]:
        return self._wsgi.call(method, path, body, {**self._admin, "Idempotency-Key": self._fresh_key(),
                                                    **(headers or {})})

    def _new_table(self, keys: dict[str, str]) -> list[Any]:
        from bench.tables import PRODUCTION_ACTION_CLOCK_S, PRODUCTION_STACK

        status, created, _ = self._admin_call("POST", "/v1/tables", {
            "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
            "seats": [{"player_id": p, "stack": PRODUCTION_STACK} for p in keys],
            "auto_deal": True, "action_clock_s": PRODUCTION_ACTION_CLOCK_S})
        assert status == 201, created
        status, next_up, etag = self._admin_call("POST", f"/v1/tables/{created['id']}/hands", {},
                                                 {"If-Match": f'"{created["version"]}"'})
        assert status == 201, next_up
        return [created["id"], next_up, etag]

    def _choose(self, legal: dict[str, Any]) -> dict[str, Any]:
        from bench.tables import production_choice
        return production_choice(self._rng, legal)

    def play(self, actions: int) -> int:
        """`actions` actions, the tables in turn (a finished table replaced, as bench.tables
        does); the refusals counted."""
        refused = 0
        for number in range(actions):
            index = number % TABLES
            state = self._tables[index]
            table_id, next_up, etag = state
            if next_up["to_act"] is None:
                self._tables[index] = state = self._new_table(self._keys[index])
                table_id, next_up, etag = state
            headers = {"Authorization": f"Bearer {self._keys[index][next_up['to_act']]}",
                       "If-Match": etag or "", "Idempotency-Key": self._fresh_key()}
            status, answer, etag = self._wsgi.call("POST", f"/v1/tables/{table_id}/actions",
                                                   self._choose(next_up["legal"]), headers)
            if status == 201:
                state[1], state[2] = answer, etag
            else:
                refused += 1
                _, state[1], state[2] = self._admin_call("GET", f"/v1/tables/{table_id}/legal-actions", None)
        return refused


def _child(actions: int, profile: Path | None, gate: Path | None) -> None:
    """One run: the production app loaded as a gunicorn worker loads it, then `actions` actions."""
    clock = _SteppedClock()
    from service.application import api_keys, commands
    from service.http import metrics, rate_limits, request_log

    for module in (rate_limits, metrics, request_log):
        module.time = clock.module()  # type: ignore[attr-defined]
    commands.secrets = _SeededSecrets(SEED)  # type: ignore[attr-defined,assignment]
    from service.http.gunicorn_worker import _collect_less
    from service.wsgi import app

    _collect_less()
    keys = app.extensions["cardroom"].keys
    assert isinstance(keys, api_keys.ApiKeys)
    keys._clock = lambda: clock.monotonic_at  # noqa: SLF001 - the stepped clock, as above
    tables = _Tables(_Wsgi(app, clock), os.environ["CARDROOM_ADMIN_KEY"], random.Random(SEED))
    if gate is not None:  # set up: callgrind starts counting, then the gate opens
        print("ready", flush=True)
        while not gate.exists():
            time.sleep(0.01)
    if profile is None:
        refused = tables.play(actions)
    else:
        import cProfile

        profiler = cProfile.Profile(time.thread_time)  # CPU: not the waits for PostgreSQL
        refused = profiler.runcall(tables.play, actions)
        profiler.dump_stats(profile)
    print(json.dumps({"actions": actions, "refused": refused}), flush=True)


def _scratch_url() -> str:
    url = os.environ.get("DATABASE_URL")
    if not url:
        raise SystemExit("action_instructions: set DATABASE_URL to a scratch database of its own")
    from psycopg.conninfo import conninfo_to_dict

    if conninfo_to_dict(url).get("dbname") in (None, "postgres"):
        raise SystemExit("action_instructions: DATABASE_URL names `postgres`; it writes: give it a scratch database")
    return url


def _runs(env: dict[str, str], scratch: Path, counts: tuple[int, ...], valgrind: bool,
          profile: Path | None = None) -> dict[int, Path]:
    """A child run for each count, side by side; their callgrind files (or the profile)."""
    started = {}
    for actions in counts:
        metrics = scratch / f"metrics.{actions}"
        metrics.mkdir()
        command = [sys.executable, __file__, "--child", str(actions)]
        if profile is not None:
            command += ["--profile-to", str(profile)]
        if valgrind:
            command = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no",
                       "--toggle-collect=context_run",
                       f"--callgrind-out-file={scratch / f'callgrind.{actions}.out'}",
                       *command, "--gate", str(scratch / f"gate.{actions}")]
        with open(scratch / f"run.{actions}.log", "wb") as log:
            started[actions] = subprocess.Popen(command, env={**env, "PROMETHEUS_MULTIPROC_DIR": str(metrics)},
                                                stdout=subprocess.PIPE, stderr=log)
    for actions, child in started.items():
        if valgrind:
            _open_gate(child, scratch / f"gate.{actions}")
        said, _ = child.communicate()
        if child.returncode != 0:
            raise SystemExit(f"action_instructions: the run of {actions} failed ({child.returncode}); "
                             f"its log: {(scratch / f'run.{actions}.log').read_text()[-3000:]}")
        print(f"   run of {actions}: {said.decode().strip()}", flush=True)
    return {actions: profile or scratch / f"callgrind.{actions}.out" for actions in counts}


def _open_gate(child: subprocess.Popen[bytes], gate: Path) -> None:
    """Once the child has loaded the app and set up its tables (run uninstrumented, some ten
    times faster than counted), callgrind's instrumentation on, then the gate open."""
    assert child.stdout is not None
    line = child.stdout.readline()
    if line.strip() != b"ready":
        return  # it failed before its actions: its exit status and log say why
    subprocess.run(["callgrind_control", "--instr=on", str(child.pid)], check=True, capture_output=True)
    gate.touch()


def instructions(callgrind_out: Path) -> int:
    """The run's instructions (callgrind's `summary:` or `totals:` line)."""
    for line in callgrind_out.read_text(errors="replace").splitlines():
        if match := re.match(r"(?:summary|totals): (\d+)", line):
            return int(match.group(1))
    raise ValueError(f"no instruction total in {callgrind_out}")


def _by_function(callgrind_out: Path) -> dict[str, int]:
    """callgrind_annotate's own count of each C function (file:function) in the run."""
    annotated = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100",
                                str(callgrind_out)], capture_output=True, text=True, check=True).stdout
    counts: dict[str, int] = {}
    for line in annotated.splitlines():
        if match := re.match(r"\s*([\d,]+) \([^)]*\)\s+(\S.*)$", line):
            # A recursive call's cost is named with a suffix ('2): it adds to the function's.
            function, _, library = match.group(2).partition(" [")
            name = re.sub(r"'\d+$", "", function).rsplit("/", 1)[-1]
            if library:
                name += " [" + library.rsplit("/", 1)[-1]
            if name != "PROGRAM TOTALS":
                counts[name] = counts.get(name, 0) + int(match.group(1).replace(",", ""))
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=600, help="the longer run's actions (the other: half)")
    parser.add_argument("--top", type=int, default=0, help="print callgrind_annotate's top K (inclusive)")
    parser.add_argument("--keep", type=Path, help="keep the callgrind files (and logs) in this folder")
    parser.add_argument("--profile", action="store_true", help="cProfile the actions instead (no valgrind)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--profile-to", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--gate", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        _child(args.child, args.profile_to, args.gate)
        return
    from bench.tables import _production_env
    from service.adapters.migrate import upgrade
    from service.application.api_keys import new_secret

    url = _scratch_url()
    upgrade(url)
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="action-instructions-") as scratch_dir:
        scratch = Path(scratch_dir)
        env = {**_production_env(dict(os.environ), stack, scratch_dir), "DATABASE_URL": url,
               "CARDROOM_ADMIN_KEY": new_secret(), "PYTHONHASHSEED": "0"}
        if args.profile:
            import pstats

            kept = args.keep or scratch
            kept.mkdir(parents=True, exist_ok=True)
            profiled = _runs(env, scratch, (args.actions,), False, kept / "actions.prof")
            stats = pstats.Stats(str(profiled[args.actions]))
            stats.sort_stats("tottime").print_stats(40)
            stats.sort_stats("cumulative").print_stats(60)
            return
        runs = _runs(env, scratch, (args.actions, args.actions // 2), True)
        counted = {n: instructions(out) for n, out in runs.items()}
        half = args.actions // 2
        per_action = (counted[args.actions] - counted[half]) / (args.actions - half)
        print(f"action_instructions: {counted[args.actions]:,} instructions in {args.actions} actions, "
              f"{counted[half]:,} in {half}: {per_action:,.0f} per action")
        if args.top:
            # Own counts only: a Python function's inclusive count is its interpreter's
            # frames', recursive, which callgrind cannot add up.
            print("\nper action, own (the longer run less the shorter):")
            longer, shorter = (_by_function(runs[n]) for n in (args.actions, half))
            costs = {name: (count - shorter.get(name, 0)) / (args.actions - half) for name, count in longer.items()}
            for name, count in sorted(costs.items(), key=lambda item: -item[1])[:args.top]:
                print(f"{count:>14,.0f}  {name}")
            libraries: dict[str, float] = {}
            for name, count in costs.items():
                library = name.rpartition(" [")[2].rstrip("]") if " [" in name else "?"
                libraries[library] = libraries.get(library, 0) + count
            print("\nper action, by library:")
            for library, count in sorted(libraries.items(), key=lambda item: -item[1])[:12]:
                print(f"{count:>14,.0f}  {library}")
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            for path in scratch.iterdir():
                if path.is_file():
                    (args.keep / path.name).write_bytes(path.read_bytes())


if __name__ == "__main__":
    main()
