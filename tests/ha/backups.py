"""A PostgreSQL 15 server of the test's own that archives its WAL, its base backup and its
point-in-time restore, with PostgreSQL's own tools only (the commands the README gives):

- archiving: `archive_mode = on`, `archive_command = 'test ! -f ARCHIVE/%f && cp %p ARCHIVE/%f'`
  (never overwrite a segment already archived);
- a base backup: `pg_basebackup -D BACKUP -X stream -c fast` (the WAL it needs included);
- a restore: the backup copied to a data directory, `restore_command = 'cp ARCHIVE/%f %p'`,
  `recovery_target_time`, `recovery_target_action = 'promote'` and an empty `recovery.signal`;
  PostgreSQL replays the archive up to the target and opens a new timeline there.

As root the server and the tools run as `cardroom-ha` (tests.ha.cluster), since PostgreSQL
refuses root.
"""
from __future__ import annotations

import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from service.adapters.embedded import free_port
from tests.ha.cluster import POSTGRES_BIN, SUPERUSER, Account, spawn

START_TIMEOUT_S = 60.0


def run_as(account: Account, command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, user=account.uid,
                          group=account.gid, extra_groups=[] if account.uid is not None else None)
    assert done.returncode == 0, f"{' '.join(command)}:\n{done.stdout}{done.stderr}"
    return done.stdout


@dataclass
class ArchivingServer:
    """A server on `directory/data` archiving its WAL to `archive`."""
    directory: Path
    account: Account
    archive: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def data_dir(self) -> Path:
        return self.directory / "data"

    @property
    def log_path(self) -> Path:
        return self.directory / "postgres.log"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def prepare(self) -> None:
        """Its folder and the archive, the account's."""
        for path in (self.directory, self.archive):
            path.mkdir(parents=True, exist_ok=True)
            if self.account.uid is not None:
                shutil.chown(path, self.account.uid, self.account.gid)

    def initialise(self) -> None:
        self.prepare()
        run_as(self.account, [str(POSTGRES_BIN / "initdb"), "-D", str(self.data_dir), "-U", SUPERUSER,
                              "--auth=trust", "-E", "UTF8", "--locale=C", "--data-checksums"])

    def start(self, recovery: dict[str, str] | None = None) -> None:
        """Start, archiving; with `recovery` settings (and recovery.signal written), restore
        first and wait until the server is promoted."""
        archive = str(self.archive)
        settings = {
            "port": str(self.port), "listen_addresses": "127.0.0.1",
            "unix_socket_directories": str(self.directory),
            "wal_level": "replica", "archive_mode": "on",
            "archive_command": f"test ! -f {archive}/%f && cp %p {archive}/%f",
            "shared_buffers": "32MB", "max_connections": "40",
            **(recovery or {}),
        }
        command = [str(POSTGRES_BIN / "postgres"), "-D", str(self.data_dir)]
        for name, value in settings.items():
            command += ["-c", f"{name}={value}"]
        self.process = spawn(command, self.log_path, self.account)
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                with psycopg.connect(self.url(), connect_timeout=2) as connection:
                    if not connection.execute("SELECT pg_is_in_recovery()").fetchone()[0]:
                        return
            except psycopg.OperationalError:
                pass
            assert self.process.poll() is None, f"PostgreSQL exited:\n{self.log()}"
            assert time.monotonic() < deadline, f"PostgreSQL not open for writes:\n{self.log()}"
            time.sleep(0.2)

    def base_backup(self, target: Path) -> None:
        run_as(self.account, [str(POSTGRES_BIN / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(self.port),
                              "-U", SUPERUSER, "-D", str(target), "-X", "stream", "-c", "fast"])

    def archive_current_wal(self) -> None:
        """Close the WAL segment being written and wait until it is in the archive, so the
        archive holds everything written until now."""
        with psycopg.connect(self.url(), autocommit=True) as connection:
            segment = connection.execute("SELECT pg_walfile_name(pg_switch_wal())").fetchone()[0]
            deadline = time.monotonic() + 30
            while not (self.archive / segment).exists():
                assert time.monotonic() < deadline, f"{segment} never archived:\n{self.log()}"
                time.sleep(0.1)

    def restore(self, backup: Path, target_time: str) -> None:
        """This server's data directory (not there yet) from the base backup, then the
        archive replayed up to `target_time`, then promoted."""
        self.prepare()
        run_as(self.account, ["cp", "-a", str(backup), str(self.data_dir)])
        run_as(self.account, ["touch", str(self.data_dir / "recovery.signal")])
        self.start({"restore_command": f"cp {self.archive}/%f %p", "recovery_target_time": target_time,
                    "recovery_target_action": "promote"})

    def stop(self) -> None:
        """Fast shutdown (SIGINT), SIGKILL if it will not."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def log(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"
