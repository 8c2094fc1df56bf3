"""A PostgreSQL 15 cluster of three nodes under Patroni, with its own etcd, for `make test-ha`.

Debian's packages (`patroni` 3.0, `etcd-server` 3.4, PostgreSQL 15's binaries in
/usr/lib/postgresql/15/bin; the embedded server in the virtualenv is too new for this
Patroni). Everything listens on 127.0.0.1 on ports chosen at run time and lives in one
fresh folder, removed afterwards. PostgreSQL refuses to run as root: as root, etcd and
Patroni (and so PostgreSQL) run as the system user `cardroom-ha`, created if absent.

Only processes started here are signalled: etcd and the Patroni daemons (tied to this
process with PR_SET_PDEATHSIG, so they stop if it is killed) and the postmasters Patroni
started, each known by the pid in its data directory's postmaster.pid and checked against
its command line before a signal.
"""
from __future__ import annotations

import ctypes
import json
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from service.adapters.embedded import free_port
from tests.processes import is_running, process_start_time, process_tree

POSTGRES_BIN = Path("/usr/lib/postgresql/15/bin")
PATRONI = Path("/usr/bin/patroni")
PATRONICTL = Path("/usr/bin/patronictl")
ETCD = Path("/usr/bin/etcd")
HA_USER = "cardroom-ha"
SUPERUSER = "postgres"
NODES = 3
START_TIMEOUT_S = 120.0
STOP_PATIENCE_S = 20.0

# The settings under test (README, "Running on a Patroni cluster"): a commit is acknowledged
# only once a synchronous standby has it, and with `strict` never by the primary alone, so
# the standby Patroni promotes holds every acknowledged commit. A leader that stops renewing
# its key loses it after `ttl`.
DCS_SETTINGS: dict[str, Any] = {
    "ttl": 20,
    "loop_wait": 5,
    "retry_timeout": 5,
    "maximum_lag_on_failover": 1048576,
    "synchronous_mode": True,
    "synchronous_mode_strict": True,
    "synchronous_node_count": 1,
    "postgresql": {
        "use_pg_rewind": True,
        "use_slots": True,
        "parameters": {
            "wal_level": "replica",
            "hot_standby": "on",
            "wal_log_hints": "on",
            "max_wal_senders": 10,
            "max_replication_slots": 10,
            "max_connections": 150,
            # A standby retries a primary it cannot stream from (a new primary that has not
            # made its replication slot yet) every second, not every five.
            "wal_retrieve_retry_interval": "1s",
            "synchronous_commit": "on",
            # Small: three servers share a 2-core test machine.
            "shared_buffers": "32MB",
        },
    },
}


def missing() -> str | None:
    """Why the cluster cannot run here, or None."""
    absent = [str(path) for path in (PATRONI, PATRONICTL, ETCD, POSTGRES_BIN / "postgres",
                                     POSTGRES_BIN / "pg_basebackup") if not path.exists()]
    if absent:
        return ("missing " + ", ".join(absent) + ": install Debian's patroni, etcd-server and "
                "postgresql-15 (.ci/run does)")
    return None


@dataclass(frozen=True)
class Account:
    """Whom the servers run as: None for this process's own user (when it is not root)."""
    uid: int | None = None
    gid: int | None = None


def unprivileged_account() -> Account:
    """As root, the system user `cardroom-ha` (created with useradd if absent); else ourselves."""
    if os.geteuid() != 0:
        return Account()
    try:
        entry = pwd.getpwnam(HA_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
                        "--shell", "/usr/sbin/nologin", HA_USER], check=True)
        entry = pwd.getpwnam(HA_USER)
    return Account(entry.pw_uid, entry.pw_gid)


_PR_SET_PDEATHSIG = 1


def spawn(command: list[str], log_path: Path, account: Account, env: dict[str, str] | None = None
          ) -> subprocess.Popen[bytes]:
    """`command` as `account`, in a session of its own, its output to `log_path`; the kernel
    sends it SIGTERM if this thread dies (set after the change of user, which would clear it)."""
    parent = os.getpid()
    libc = ctypes.CDLL(None, use_errno=True)

    def tie_to_parent() -> None:
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM))
        if os.getppid() != parent:
            os._exit(1)

    with log_path.open("ab") as log:
        return subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
            cwd=log_path.parent, user=account.uid, group=account.gid,
            extra_groups=[] if account.uid is not None else None,
            preexec_fn=tie_to_parent, start_new_session=True,
        )


def clean_environment() -> dict[str, str]:
    """Ours without libpq's PG* variables (a PGHOST of the caller's must not steer Patroni)."""
    return {key: value for key, value in os.environ.items() if not key.startswith("PG")}


def http_json(url: str, method: str = "GET", body: dict | None = None, timeout: float = 2.0) -> tuple[int, Any]:
    """(status, JSON body) of a request to etcd or Patroni's REST API; (0, None) if unreachable."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
            status = response.status
    except urllib.error.HTTPError as error:
        raw, status = error.read(), error.code
    except (OSError, ValueError):
        return 0, None
    try:
        return status, json.loads(raw) if raw else None
    except ValueError:
        return status, raw.decode(errors="replace")


@dataclass
class Node:
    name: str
    directory: Path
    postgres_port: int
    rest_port: int
    process: subprocess.Popen[bytes] | None = None

    @property
    def data_dir(self) -> Path:
        return self.directory / "data"

    @property
    def config_path(self) -> Path:
        return self.directory / "patroni.yml"

    @property
    def log_path(self) -> Path:
        return self.directory / "patroni.log"

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.postgres_port}"

    def status(self) -> dict:
        """Patroni's own view of this node (`role`: primary or replica, `state`...); {} if down."""
        code, body = http_json(f"http://127.0.0.1:{self.rest_port}/patroni")
        return body if code in (200, 503) and isinstance(body, dict) else {}

    def postmaster_pid(self) -> int | None:
        """The postmaster running on this node's data directory now, if any."""
        try:
            pid = int((self.data_dir / "postmaster.pid").read_text().split()[0])
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            return None
        return pid if str(self.data_dir).encode() in command else None


@dataclass
class PatroniCluster:
    """etcd and three Patroni nodes under one fresh folder; `start()`, then `stop()`."""
    root: Path
    account: Account
    logs_to: Path | None = None
    """Where the logs are copied before the folder is removed."""
    scope: str = "cardroom-ha"
    etcd_port: int = field(default_factory=free_port)
    etcd_peer_port: int = field(default_factory=free_port)
    nodes: list[Node] = field(default_factory=list)
    etcd: subprocess.Popen[bytes] | None = None
    seen: dict[int, str] = field(default_factory=dict)
    """Every process of ours seen (pid -> start time), so a stop signals only those."""

    def __post_init__(self) -> None:
        for index in range(1, NODES + 1):
            directory = self.root / f"node{index}"
            self.nodes.append(Node(f"node{index}", directory, free_port(), free_port()))

    # -- what the tests use ---------------------------------------------------------------

    def url(self, database: str = "postgres", user: str = SUPERUSER) -> str:
        """libpq's multi-host URL naming every node; libpq connects to whichever is primary."""
        hosts = ",".join(node.host for node in self.nodes)
        return f"postgresql://{user}@{hosts}/{database}?target_session_attrs=read-write&connect_timeout=2"

    def roles(self) -> dict[str, str]:
        """node name -> role as Patroni's /cluster says it (leader, sync_standby, replica),
        from whichever node answers."""
        for node in self.nodes:
            code, body = http_json(f"http://127.0.0.1:{node.rest_port}/cluster")
            if code == 200 and isinstance(body, dict):
                return {member["name"]: member["role"] for member in body.get("members", [])
                        if member.get("state") in ("running", "streaming")}
        return {}

    def leader(self) -> Node | None:
        named = {node.name: node for node in self.nodes}
        for name, role in self.roles().items():
            if role == "leader":
                return named.get(name)
        return None

    def sync_standby(self) -> Node | None:
        named = {node.name: node for node in self.nodes}
        for name, role in self.roles().items():
            if role == "sync_standby":
                return named.get(name)
        return None

    def wait_until_healthy(self, replicas: int = NODES - 1, timeout_s: float = START_TIMEOUT_S) -> Node:
        """A leader and `replicas` running replicas, one of them the synchronous standby."""
        deadline = time.monotonic() + timeout_s
        while True:
            roles = self.roles()
            leaders = [n for n, r in roles.items() if r == "leader"]
            standbys = [n for n, r in roles.items() if r in ("sync_standby", "replica")]
            if len(leaders) == 1 and len(standbys) >= replicas and "sync_standby" in roles.values():
                leader = self.leader()
                if leader is not None:
                    return leader
            if time.monotonic() > deadline:
                raise AssertionError(f"the cluster is not healthy after {timeout_s:.0f} s: {roles}\n{self.logs()}")
            for node in self.nodes:
                if node.process is not None and node.process.poll() is not None and replicas == NODES - 1:
                    raise AssertionError(f"{node.name}'s Patroni exited:\n{self.logs()}")
            time.sleep(0.5)

    def kill_primary(self, node: Node) -> None:
        """A crash of the primary's machine as PostgreSQL and Patroni see it: SIGKILL to its
        postmaster and its Patroni at once (no shutdown, no leader key released)."""
        postmaster = node.postmaster_pid()
        assert postmaster is not None, f"{node.name} runs no postmaster"
        assert node.process is not None
        self._remember(postmaster)
        os.kill(postmaster, signal.SIGKILL)
        node.process.kill()
        node.process.wait()

    def rejoin(self, node: Node) -> None:
        """The lost machine back: its Patroni started again, which rewinds its PostgreSQL
        (pg_rewind) onto the new primary's timeline and starts it as a replica."""
        node.process = spawn([str(PATRONI), str(node.config_path)], node.log_path, self.account,
                             clean_environment())
        self._remember(node.process.pid)

    def switchover(self, leader: Node, candidate: Node) -> subprocess.CompletedProcess[str]:
        """`patronictl switchover` (planned, at once), as an operator runs it."""
        return subprocess.run(
            [str(PATRONICTL), "-c", str(leader.config_path), "switchover", "--leader", leader.name,
             "--candidate", candidate.name, "--force", self.scope],
            capture_output=True, text=True, timeout=60, env=clean_environment(), user=self.account.uid,
            group=self.account.gid, extra_groups=[] if self.account.uid is not None else None,
        )

    def logs(self, lines: int = 25) -> str:
        parts = []
        for path in [self.root / "etcd.log"] + [node.log_path for node in self.nodes]:
            try:
                tail = path.read_text(errors="replace").splitlines()[-lines:]
            except OSError:
                tail = ["(no log)"]
            parts.append(f"--- {path.name if path.parent == self.root else path.parent.name + '/' + path.name}\n"
                         + "\n".join(tail))
        return "\n".join(parts)

    # -- start and stop -------------------------------------------------------------------

    def start(self) -> Node:
        self.root.mkdir(parents=True, exist_ok=True)
        self._hand_to_account(self.root)
        self._start_etcd()
        for node in self.nodes:
            node.directory.mkdir()
            self._hand_to_account(node.directory)
            node.config_path.write_text(yaml.safe_dump(self._patroni_config(node), sort_keys=False))
            node.process = spawn([str(PATRONI), str(node.config_path)], node.log_path, self.account,
                                 clean_environment())
            self._remember(node.process.pid)
        return self.wait_until_healthy()

    def stop(self) -> None:
        """Patroni stops its PostgreSQL on SIGTERM; whatever of ours outlives the patience is
        killed; then etcd; then the folder is removed."""
        self._remember_postmasters()
        for node in self.nodes:
            if node.process is not None and node.process.poll() is None:
                node.process.terminate()
        deadline = time.monotonic() + STOP_PATIENCE_S
        for node in self.nodes:
            if node.process is not None:
                try:
                    node.process.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    node.process.kill()
                    node.process.wait()
        for node in self.nodes:
            postmaster = node.postmaster_pid()
            if postmaster is not None:
                self._remember(postmaster)
                os.kill(postmaster, signal.SIGQUIT)  # immediate shutdown: its backends go too
        self._kill_what_is_left(patience_s=5.0)
        if self.etcd is not None and self.etcd.poll() is None:
            self.etcd.terminate()
            try:
                self.etcd.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.etcd.kill()
                self.etcd.wait()
        self._kill_what_is_left(patience_s=1.0)
        if self.logs_to is not None:
            self.logs_to.mkdir(parents=True, exist_ok=True)
            for log in [self.root / "etcd.log", *(node.log_path for node in self.nodes)]:
                if log.exists():
                    shutil.copy(log, self.logs_to / f"{log.parent.name}-{log.name}")
        shutil.rmtree(self.root, ignore_errors=True)

    def _start_etcd(self) -> None:
        data = self.root / "etcd"
        client = f"http://127.0.0.1:{self.etcd_port}"
        peer = f"http://127.0.0.1:{self.etcd_peer_port}"
        self.etcd = spawn([str(ETCD), "--name", "ha", "--data-dir", str(data),
                           "--listen-client-urls", client, "--advertise-client-urls", client,
                           "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                           "--initial-cluster", f"ha={peer}", "--initial-cluster-state", "new",
                           "--initial-cluster-token", self.root.name],
                          self.root / "etcd.log", self.account, clean_environment())
        self._remember(self.etcd.pid)
        deadline = time.monotonic() + 30
        while http_json(f"{client}/health")[0] != 200:
            if self.etcd.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"etcd did not start:\n{self.logs()}")
            time.sleep(0.1)

    def _patroni_config(self, node: Node) -> dict[str, Any]:
        local = "127.0.0.1"
        return {
            "scope": self.scope,
            "namespace": "/cardroom/",
            "name": node.name,
            "log": {"level": "INFO"},
            "restapi": {"listen": f"{local}:{node.rest_port}", "connect_address": f"{local}:{node.rest_port}"},
            "etcd3": {"hosts": [f"{local}:{self.etcd_port}"]},
            "bootstrap": {
                "dcs": DCS_SETTINGS,
                "initdb": [{"encoding": "UTF8"}, {"locale": "C"}, "data-checksums"],
            },
            "postgresql": {
                "listen": f"{local}:{node.postgres_port}",
                "connect_address": f"{local}:{node.postgres_port}",
                "data_dir": str(node.data_dir),
                "bin_dir": str(POSTGRES_BIN),
                "pgpass": str(node.directory / "pgpass"),
                # Test machine: every connection from this host is trusted (the app's
                # login role keeps its own password for the day it is not).
                "pg_hba": [
                    "local all all trust",
                    f"host all all {local}/32 trust",
                    f"host replication replicator {local}/32 trust",
                ],
                "authentication": {
                    "superuser": {"username": SUPERUSER, "password": "cardroom-ha-superuser"},
                    "replication": {"username": "replicator", "password": "cardroom-ha-replicator"},
                },
                "parameters": {"unix_socket_directories": str(node.directory)},
            },
            "watchdog": {"mode": "off"},
            "tags": {"nofailover": False, "noloadbalance": False, "clonefrom": False, "nosync": False},
        }

    def _hand_to_account(self, path: Path) -> None:
        if self.account.uid is not None:
            os.chown(path, self.account.uid, self.account.gid or -1)

    def _remember(self, pid: int) -> None:
        for member in process_tree(pid):
            start = process_start_time(member)
            if start is not None:
                self.seen.setdefault(member, start)

    def _remember_postmasters(self) -> None:
        for node in self.nodes:
            postmaster = node.postmaster_pid()
            if postmaster is not None:
                self._remember(postmaster)

    def _kill_what_is_left(self, patience_s: float) -> None:
        deadline = time.monotonic() + patience_s
        while time.monotonic() < deadline and any(is_running(p, s) for p, s in self.seen.items()):
            time.sleep(0.1)
        for pid, start in self.seen.items():
            if is_running(pid, start):
                with suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


@contextmanager
def patroni_cluster(logs_to: Path | None = None) -> Iterator[PatroniCluster]:
    """A healthy cluster (leader, synchronous standby, replica) in a fresh folder; stopped
    and removed on leaving, whatever happened (its logs copied to `logs_to` first)."""
    account = unprivileged_account()
    cluster = PatroniCluster(Path(tempfile.mkdtemp(prefix="cardroom-ha-")), account, logs_to)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
