"""A throwaway PostgreSQL server from Debian's packages (`postgresql`), on a loopback port in a temporary
directory, for `serve --database-url`: the shared-deployment tests and the benchmark start one and stop
it by pid. As root, the server runs as Debian's `postgres` user (PostgreSQL refuses to run as root)."""
import contextlib
import glob
import os
import pathlib
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time

PORT_ATTEMPTS = 3
START_DEADLINE_SECONDS = 60


class PostgresUnavailable(Exception):
    """PostgreSQL's server programs are not installed, or cannot run here; the message says why."""


def server_programs() -> pathlib.Path:
    """The folder of `initdb`, `postgres` and `createdb`: Debian's newest, or the ones on PATH."""
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"),
                      key=lambda path: int(pathlib.Path(path).parts[4]) if pathlib.Path(path).parts[4].isdigit() else 0)
    found = versions[-1] if versions else shutil.which("postgres")
    if not found:
        raise PostgresUnavailable("PostgreSQL's server (Debian package postgresql) is not installed; "
                                  "Scripts/test installs it on Debian")
    return pathlib.Path(found).parent


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresServer:
    """A running server (`pid`: its main process): `database(name)` makes an empty database and returns its URL."""

    def __init__(self, programs: pathlib.Path, port: int, run_as: dict, pid: int):
        self.pid = pid
        self.programs = programs
        self.port = port
        self.run_as = run_as

    def database(self, name: str) -> str:
        subprocess.run([self.programs / "createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name],
                       check=True, capture_output=True, timeout=30, **self.run_as)
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def sql(self, database: str, statement: str) -> str:
        """Runs one statement with psql and returns what it printed (unaligned, tuples only)."""
        return subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", database,
                               "-Atc", statement], check=True, capture_output=True, text=True, timeout=30,
                              **self.run_as).stdout.strip()


@contextlib.contextmanager
def postgres_server():
    """Starts PostgreSQL (durability traded for speed: it is thrown away), yields a `PostgresServer`,
    and stops it by pid. Raises `PostgresUnavailable` when it cannot run here."""
    programs = server_programs()
    directory = tempfile.mkdtemp(prefix="mock-appleid-pg-")
    run_as = {}
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            shutil.rmtree(directory)
            raise PostgresUnavailable("running as root, and there is no postgres user to run PostgreSQL as") from None
        os.chown(directory, user.pw_uid, user.pw_gid)
        run_as = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
    data = os.path.join(directory, "data")
    log_path = os.path.join(directory, "server.log")
    process = None
    try:
        subprocess.run([programs / "initdb", "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"],
                       check=True, capture_output=True, timeout=120, **run_as)
        # PostgreSQL takes a port number, not port 0: a free one is picked, and picked again if another
        # process bound it before PostgreSQL could.
        for attempt in range(PORT_ATTEMPTS):
            port = _free_port()
            with open(log_path, "w") as log:
                process = subprocess.Popen(
                    [programs / "postgres", "-D", data, "-p", str(port), "-k", directory, "-c", "listen_addresses=127.0.0.1",
                     "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=200"],
                    stdout=log, stderr=subprocess.STDOUT, **run_as)
            deadline = time.monotonic() + START_DEADLINE_SECONDS
            # Asked through its own socket folder: a server another process started on the port cannot answer.
            while subprocess.run([programs / "pg_isready", "-q", "-h", directory, "-p", str(port)]).returncode != 0:
                if process.poll() is not None or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            else:
                break
            log_text = pathlib.Path(log_path).read_text()
            if process.poll() is None or "Address already in use" not in log_text or attempt == PORT_ATTEMPTS - 1:
                raise RuntimeError(f"PostgreSQL did not start; its log: {log_text[-2000:]}")
        yield PostgresServer(programs, port, run_as, process.pid)
    finally:
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGINT)  # fast shutdown
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(directory, ignore_errors=True)
