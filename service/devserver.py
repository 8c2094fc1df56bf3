"""`make run`: everything on embedded defaults, stopped in order on Ctrl-C.

PostgreSQL (unless DATABASE_URL) and Redis (unless CELERY_BROKER_URL) start from their
wheels under the data directory (CARDROOM_DATA_DIR, default .data), migrations run as the
owner role, the application's restricted login is set up (service.adapters.migrate), an admin key
is ensured, then a witness of the public log (service.witness, on PORT + 100; the log's
key is made first while the log has no checkpoint), gunicorn and a Celery worker with
beat, connected as that login. SIGINT or SIGTERM
stops what was started, last first: Celery before the broker it consumes from, the web
before the database. Every child is tied to this process (PR_SET_PDEATHSIG), so even a
SIGKILL here leaves no orphan behind. Data under the data directory survives restarts.

While running, it watches what it started: a component that dies (PostgreSQL, the
broker, gunicorn's master, Celery's main process) is named on the terminal and started
again, on the same port; what the dead process left in its process group (Celery's
beat and pool, gunicorn's workers) is killed first. One that keeps dying stops
everything.
"""
from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import ExitStack, suppress
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from service import witness
from service.adapters.connection_strings import user_of
from service.adapters.log_keys import LOG_KEY_FILE, LogKeyMissing, log_signer
from service.adapters.migrate import PROJECT_ROOT, app_database_url, grant_writer, upgrade
from service.application.api_keys import new_secret
from service.config import SERVICE_URL_FILE, Config

# Threads per worker: enough to cover PostgreSQL round trips, few enough that request
# threads do not queue for the GIL. In interleaved runs of the table benchmark (2 workers,
# 16 clients) 4 threads had the lower p99 in every pair (47-71 ms against 67-100 ms with 8)
# at the same throughput.
GUNICORN_THREADS = 4
KEEP_ALIVE_S = 30
CHILD_STOP_PATIENCE_S = 30.0
_PR_SET_PDEATHSIG = 1


def gunicorn_workers() -> int:
    return max(2, min(4, os.cpu_count() or 1))


def gunicorn_command(wsgi_app: str, port: int) -> list[str]:
    """The web server as `make run` starts it (the HTTP benchmark uses the same).
    Refuses a port something already listens on: with SO_REUSEPORT, a second server would
    silently share it instead of failing to bind."""
    _refuse_taken_port(port)
    return [
        sys.executable, "-m", "gunicorn", wsgi_app,
        "--bind", f"127.0.0.1:{port}",
        # gunicorn's gthread worker, reading each whole request in its event loop before
        # a thread serves it: a client that stalls mid-request holds no thread (see
        # service/http/gunicorn_worker.py).
        "--worker-class", "service.http.gunicorn_worker.BufferingWorker",
        "--workers", str(gunicorn_workers()),
        "--threads", str(GUNICORN_THREADS),
        "--graceful-timeout", "10",
        # A player acts every few seconds: their connection stays open between actions
        # (gunicorn's default closes it after 2 idle seconds). Idle connections wait in
        # the worker's poller, not on a thread.
        "--keep-alive", str(KEEP_ALIVE_S),
        # Each worker listens on its own SO_REUSEPORT socket, so the kernel spreads new
        # connections across workers. On one shared socket, a burst of keep-alive clients
        # was all accepted by one worker (16 of 16 in the table benchmark) while the other
        # sat idle: half the machine unused, and the latency of one GIL for everybody.
        "--reuse-port",
        # gunicorn's control socket defaults to one path per user (~/.gunicorn): two
        # servers on one machine (tests, benchmarks) would fight over it.
        "--no-control-socket",
        "--config", "python:service.http.gunicorn_config",
    ]


def _refuse_taken_port(port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # SO_REUSEADDR lets the probe past connections in TIME_WAIT (a restart on the same
        # port); without SO_REUSEPORT it still fails where anything listens.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as error:
            raise SystemExit(f"port {port} on 127.0.0.1 is taken ({error.strerror}): set PORT") from None


def celery_command(data_dir: Path) -> list[str]:
    return [
        sys.executable, "-m", "celery", "-A", "workers.celery_app", "worker",
        "--beat", "--schedule", str(data_dir / "celerybeat-schedule"),
        "--concurrency", "2", "--loglevel", "INFO",
    ]


WITNESS_PORT_OFFSET = 100
"""The local witness listens on PORT + this (8100 by default), else on a free port."""


def _witness_port(port: int) -> int:
    wanted = port + WITNESS_PORT_OFFSET
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", wanted))
        except OSError:
            probe.bind(("127.0.0.1", 0))
            return int(probe.getsockname()[1])
    return wanted


def _log_verifier_key(config: Config, database_url: str, data_dir: Path) -> str:
    """The public log's verifier key: its key made in the data directory while the log
    has no checkpoint (never after: service.adapters.log_keys)."""
    with psycopg.connect(database_url, autocommit=True) as connection:
        signed = connection.execute("SELECT EXISTS (SELECT FROM log_checkpoints)").fetchone()
    try:
        signer = log_signer(config.log_key, data_dir / LOG_KEY_FILE, config.log_origin,
                            create=not (signed and signed[0]))
    except LogKeyMissing as missing:
        raise SystemExit(f"cardroom: {missing}") from None
    return signer.verifier.vkey()


def _witness_dir(data_dir: Path) -> Path:
    return data_dir / "witness"


def public_log_settings(config: Config, database_url: str, data_dir: Path, witness_port: int) -> dict[str, str]:
    """The children's witness settings: the local witness, whose cosignature the public
    checkpoint needs (unless CARDROOM_WITNESSES names others)."""
    if os.environ.get("CARDROOM_WITNESSES"):
        return {}
    _log_verifier_key(config, database_url, data_dir)  # made before a witness is told it
    key = witness.build(_witness_dir(data_dir), witness.DEFAULT_NAME, []).signer.verifier.vkey()
    return {"CARDROOM_WITNESSES": f"http://127.0.0.1:{witness_port} {key}",
            "CARDROOM_WITNESS_POLICY": os.environ.get("CARDROOM_WITNESS_POLICY") or "1"}


def witness_command(config: Config, database_url: str, data_dir: Path, port: int) -> list[str]:
    return [sys.executable, "-m", "service.witness", "--log-key", _log_verifier_key(config, database_url, data_dir),
            "--state-dir", str(_witness_dir(data_dir)), "--port", str(port)]


def spawn_tied(
    command: Sequence[str], env: dict[str, str], output: int | None = None
) -> subprocess.Popen[bytes]:
    """A child that shares our terminal output (unless `output` redirects it), lives in its own session (a Ctrl-C in the
    terminal reaches only us, so we can stop children in order) and gets SIGTERM from the
    kernel if we die."""
    parent = os.getpid()
    libc = ctypes.CDLL(None, use_errno=True)

    def tie_to_parent() -> None:
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM))
        if os.getppid() != parent:  # we died between fork and prctl
            os._exit(1)

    return subprocess.Popen(
        list(command), cwd=PROJECT_ROOT, env=env, stdin=subprocess.DEVNULL,
        stdout=output, stderr=output, preexec_fn=tie_to_parent, start_new_session=True,
    )


def stop_process(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the main process only (gunicorn and Celery stop their own workers);
    SIGKILL for the whole group if it does not finish in time, and for whatever of the
    group outlived it (a Celery beat whose worker died)."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        with suppress(subprocess.TimeoutExpired):
            process.wait(timeout=CHILD_STOP_PATIENCE_S)
    kill_group(process.pid)
    process.wait()


def kill_group(group: int, patience_s: float = 5.0) -> None:
    """SIGKILL to every process left in a child's process group (each child leads its own
    session), then wait until they are gone."""
    deadline = time.monotonic() + patience_s
    try:
        os.killpg(group, signal.SIGKILL)
        while time.monotonic() < deadline:
            os.killpg(group, 0)
            time.sleep(0.05)
    except ProcessLookupError:
        pass


class ChildProcess:
    """gunicorn or Celery as the dev server runs it: started again on the same command
    when it dies."""

    def __init__(self, command: Callable[[], list[str]], env: dict[str, str]) -> None:
        self._command, self._env = command, env
        self.process = spawn_tied(command(), env)

    def exit_code(self) -> int | None:
        return self.process.poll()

    def restart(self) -> None:
        kill_group(self.process.pid)  # what the dead main process left behind
        self.process.wait()
        self.process = spawn_tied(self._command(), self._env)

    def stop(self) -> None:
        stop_process(self.process)


@dataclass
class Component:
    """Something the dev server started and watches: `exit_code` is None while it runs."""
    name: str
    exit_code: Callable[[], int | None]
    restart: Callable[[], object]
    restarts: deque[float] = field(default_factory=deque)


RESTARTS_ALLOWED = 3
RESTART_WINDOW_S = 60.0


def how_it_ended(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def watch(components: Sequence[Component], stop: threading.Event,
          say: Callable[[str], None]) -> int:
    """Until `stop`: a component that died is said by name and started again; one that
    keeps dying (more than RESTARTS_ALLOWED times in RESTART_WINDOW_S) or cannot be
    started again stops everything (exit status 1)."""
    while not stop.wait(0.5):
        for component in components:
            code = component.exit_code()
            if code is None:
                continue
            now = time.monotonic()
            while component.restarts and component.restarts[0] < now - RESTART_WINDOW_S:
                component.restarts.popleft()
            if len(component.restarts) >= RESTARTS_ALLOWED:
                say(f"{component.name} stopped ({how_it_ended(code)}) for the "
                    f"{RESTARTS_ALLOWED + 1}th time within {RESTART_WINDOW_S:g} s; stopping everything")
                return 1
            component.restarts.append(now)
            say(f"{component.name} stopped ({how_it_ended(code)}); starting it again ...")
            try:
                component.restart()
            except Exception as error:  # noqa: BLE001 - said, then everything stops
                say(f"{component.name} could not be started again ({error}); stopping everything")
                return 1
            say(f"{component.name} is running again")
    return 0


def ensure_admin_key(config: Config, data_dir: Path) -> tuple[str, str]:
    """The admin key and where it comes from: CARDROOM_ADMIN_KEY, else a key created once
    in <data dir>/admin-key (mode 0600) and reused on every start."""
    if config.admin_key:
        return config.admin_key, "the CARDROOM_ADMIN_KEY environment variable"
    path = data_dir / "admin-key"
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip(), str(path)
    with os.fdopen(descriptor, "w") as file:
        file.write(new_secret() + "\n")
    return path.read_text().strip(), str(path)


def application_database_url(config: Config, database_url: str, data_dir: Path) -> str:
    """What the API and the workers connect with: APP_DATABASE_URL (its user is given the
    writer's rights), else the database's `cardroom_<database>_app` with a password kept in
    the data directory."""
    if config.app_database_url:
        user = user_of(config.app_database_url)
        if user:
            grant_writer(database_url, user)
        return config.app_database_url
    return app_database_url(database_url, data_dir)


def fresh_metrics_dir(data_dir: Path) -> Path:
    """Where the web workers and the Celery processes keep their metrics for /metrics to
    add up (prometheus-client's multiprocess mode); emptied at each start, since the
    counters of processes from an earlier run would otherwise count again."""
    directory = data_dir / "metrics"
    directory.mkdir(exist_ok=True)
    for old in directory.glob("*.db"):
        old.unlink()
    return directory


def banner(url: str, admin_key_source: str, data_dir: Path) -> list[str]:
    """The lines that say where everything is, last on the terminal."""
    return [
        f"Cardroom is running at {url}",
        f"  API documentation: {url}/docs   metrics: {url}/metrics   health: {url}/healthz",
        f"  admin key: {admin_key_source}",
        f"  data folder: {data_dir}",
        f"  command line: .venv/bin/cardroom --url {url} status",
        "Ctrl-C stops everything.",
    ]


class StopRequested(Exception):
    pass


def run(config: Config, stop: threading.Event, say: Callable[[str], None] = print) -> int:
    data_dir = config.data_dir.resolve()
    data_dir.mkdir(parents=True, exist_ok=True)

    def check_stop() -> None:
        if stop.is_set():
            raise StopRequested

    watched: list[Component] = []
    with ExitStack() as started:  # unwinds last-started first
        try:
            database_url = config.database_url
            if not database_url:
                from service.adapters.embedded.postgres import EmbeddedPostgres

                postgres = EmbeddedPostgres(data_dir / "postgres")
                database_url = postgres.start()
                started.callback(postgres.stop)
                watched.append(Component("PostgreSQL (embedded)", postgres.exit_code, postgres.restart))
                say(f"PostgreSQL (embedded): {database_url}, data in {postgres.data_dir}")
            check_stop()
            broker_url = config.broker_url
            if not broker_url:
                from service.adapters.embedded.broker import EmbeddedBroker

                broker = EmbeddedBroker(data_dir / "broker")
                broker_url = broker.start()
                started.callback(broker.stop)
                watched.append(Component("the Redis broker (embedded)", broker.exit_code, broker.restart))
                say(f"Redis broker (embedded): {broker_url}")
            check_stop()
            upgrade(database_url)
            app_url = application_database_url(config, database_url, data_dir)
            say(f"the API and the worker connect as {user_of(app_url)} (least privilege)")
            admin_key, admin_key_source = ensure_admin_key(config, data_dir)
            env = {
                # The children get the application's login only, never the migrations'.
                **{k: v for k, v in os.environ.items() if k != "APP_DATABASE_URL"},
                "DATABASE_URL": app_url,
                "CELERY_BROKER_URL": broker_url,
                "CARDROOM_ADMIN_KEY": admin_key,
                "CARDROOM_DATA_DIR": str(data_dir),
                "PORT": str(config.port),
                # A person reads this terminal: text lines, unless asked for JSON.
                "CARDROOM_LOG_FORMAT": os.environ.get("CARDROOM_LOG_FORMAT") or "text",
                "PROMETHEUS_MULTIPROC_DIR": str(fresh_metrics_dir(data_dir)),
            }
            witness_port = _witness_port(config.port)
            env.update(public_log_settings(config, database_url, data_dir, witness_port))
            check_stop()
            witness = ChildProcess(lambda: witness_command(config, database_url, data_dir, witness_port), env)
            started.callback(witness.stop)
            watched.append(Component("the public log's witness", witness.exit_code, witness.restart))
            web = ChildProcess(lambda: gunicorn_command("service.wsgi:app", config.port), env)
            started.callback(web.stop)
            worker = ChildProcess(lambda: celery_command(data_dir), env)
            started.callback(worker.stop)
            watched.append(Component("the web server (gunicorn)", web.exit_code, web.restart))
            watched.append(Component("the Celery worker (with beat)", worker.exit_code, worker.restart))
            url = f"http://127.0.0.1:{config.port}"
            # The command line finds the service here (service.cli.main.default_url).
            served = data_dir / SERVICE_URL_FILE
            served.write_text(url + "\n")
            started.callback(served.unlink, missing_ok=True)
            for line in banner(url, admin_key_source, data_dir):
                say(line)
            status = watch(watched, stop, say)
            say("stopping ...")
            return status
        except StopRequested:
            say("stopping before start-up finished ...")
            return 0


def main() -> int:
    stop = threading.Event()

    def request_stop(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    try:
        return run(Config.from_env(), stop, say=lambda line: print(line, flush=True))
    except Exception as error:  # a clear message instead of a traceback for setup errors
        print(f"cannot start: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
        return 2


if __name__ == "__main__":
    sys.exit(main())
