"""A private PostgreSQL cluster for the tests, and a fresh database per test.

The cluster starts on first use (a session-scoped fixture), in a temporary
directory, on a free loopback port, as an unprivileged user (initdb refuses
root: under root it runs as ``nobody``), and is stopped and deleted when the
session ends, failed or not. Each test gets its own database, created from a
template the PostgreSQL migrations were applied to once, and dropped after.

PostgreSQL comes from Debian's ``postgresql`` package; without it every test
that needs it fails, naming the package and the command that installs it.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

MISSING = (
    "PostgreSQL is not installed: the PostgreSQL store tests need Debian's "
    "'postgresql' package. Install it with: bash tests/system-packages.sh "
    "(or: apt-get update && apt-get install -y postgresql)"
)
TEMPLATE = "svc_template"
SUPERUSER = "svc"


def find_bin_dir() -> Path | None:
    """The newest /usr/lib/postgresql/<version>/bin with initdb, or None."""
    found = []
    for initdb in Path("/usr/lib/postgresql").glob("*/bin/initdb"):
        try:
            found.append((float(initdb.parent.parent.name), initdb.parent))
        except ValueError:
            continue
    return max(found)[1] if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgCluster:
    """One postgres server of our own (see the module docstring)."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.base = Path(tempfile.mkdtemp(prefix="svc-pg-"))
        self.data = self.base / "data"
        self.port = 0
        self.password = secrets.token_urlsafe(16)
        self._run_as: dict[str, Any] = {}
        if os.geteuid() == 0:
            # initdb and postgres refuse to run as root.
            user = pwd.getpwnam("nobody")
            self._run_as = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
            os.chown(self.base, user.pw_uid, user.pw_gid)
        self._started = False

    def _run(self, *args: str) -> None:
        proc = subprocess.run(
            [str(self.bin_dir / args[0]), *args[1:]],
            capture_output=True,
            text=True,
            cwd=self.base,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"},
            check=False,
            **self._run_as,
        )
        if proc.returncode != 0:
            log = self.base / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{args[0]} failed: {proc.stdout}\n{proc.stderr}\n{tail}")

    def start(self) -> None:
        pwfile = self.base / "pwfile"
        pwfile.write_text(self.password + "\n")
        if self._run_as:
            os.chown(pwfile, self._run_as["user"], self._run_as["group"])
        self._run(
            "initdb", "-D", str(self.data), "-U", SUPERUSER, "--pwfile", str(pwfile),
            "--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8",
            "--locale=C.UTF-8", "--no-sync",
        )  # fmt: skip
        pwfile.unlink()
        for attempt in range(5):
            self.port = _free_port()
            options = (
                f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1"
                " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
                " -c max_connections=300 -c shared_buffers=64MB"
            )
            try:
                self._run(
                    "pg_ctl", "-D", str(self.data), "-l", str(self.base / "server.log"),
                    "-o", options, "-w", "-t", "60", "start",
                )  # fmt: skip
                break
            except RuntimeError:
                if attempt == 4:  # the port was taken meanwhile, five times over
                    raise
        self._started = True

    def stop(self) -> None:
        if self._started:
            self._started = False
            with contextlib.suppress(RuntimeError):
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.base, ignore_errors=True)

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}:{self.password}@127.0.0.1:{self.port}/{dbname}"

    def admin(self, *statements: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement.encode())

    def create_database(self, name: str, *, template: str = "template0") -> str:
        # FILE_COPY: quicker than WAL_LOG for a small template (fsync is off).
        self.admin(f'CREATE DATABASE "{name}" TEMPLATE "{template}" STRATEGY FILE_COPY')
        return self.url(name)

    def drop_database(self, name: str) -> None:
        self.admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def build_template(self) -> None:
        """A database with every PostgreSQL migration applied, to copy per test."""
        import psycopg

        from svc.store.postgresql import apply_migrations

        url = self.create_database(TEMPLATE)
        with psycopg.connect(url, autocommit=True, cursor_factory=psycopg.ClientCursor) as conn:
            apply_migrations(conn)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    bin_dir = find_bin_dir()
    if bin_dir is None:
        pytest.fail(MISSING, pytrace=False)
    cluster = PgCluster(bin_dir)
    atexit.register(cluster.stop)  # also when the session ends without teardown
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        # A terminated test run (a CI timeout) unwinds as an interrupt does, so
        # the cluster is stopped and deleted rather than left running.
        signal.signal(signal.SIGTERM, _interrupt)
    try:
        cluster.start()
        cluster.build_template()
        yield cluster
    finally:
        cluster.stop()
        atexit.unregister(cluster.stop)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _fresh_name() -> str:
    return "t_" + secrets.token_hex(6)


@pytest.fixture
def pg_url(pg_cluster: PgCluster) -> Iterator[str]:
    """The URL of a fresh database of this test's own, already migrated."""
    name = _fresh_name()
    url = pg_cluster.create_database(name, template=TEMPLATE)
    try:
        yield url
    finally:
        pg_cluster.drop_database(name)


@pytest.fixture
def pg_empty_url(pg_cluster: PgCluster) -> Iterator[str]:
    """The URL of a fresh database with nothing in it (not migrated)."""
    name = _fresh_name()
    url = pg_cluster.create_database(name)
    try:
        yield url
    finally:
        pg_cluster.drop_database(name)


__all__ = ["MISSING", "PgCluster", "find_bin_dir", "pg_cluster", "pg_empty_url", "pg_url"]
