"""A throwaway PostgreSQL server from Debian's packages (`postgresql`), on a loopback port in a temporary
directory, for `serve --database-url`: the shared-deployment tests and the benchmark start one and stop
it by pid. As root, the server runs as Debian's `postgres` user (PostgreSQL refuses to run as root)."""
import contextlib
import glob
import os
import pathlib
import pwd
import random
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


def _ephemeral_range() -> range:
    """The ports the kernel hands out to outgoing connections (Linux's default when it cannot be read)."""
    try:
        low, high = map(int, pathlib.Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    except (OSError, ValueError):
        low, high = 32768, 60999
    return range(low, high + 1)


def _free_port() -> int:
    """A free loopback port below the ephemeral range, so that no client socket (of a server retrying a
    stopped database, say) can be handed the port the database listens on, or comes back to."""
    ephemeral = _ephemeral_range()
    candidates = [port for port in range(20000, 32000) if port not in ephemeral] or list(range(10000, 20000))
    for port in random.sample(candidates, len(candidates)):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port outside the ephemeral range")


class PostgresServer:
    """A running server (`pid`: its main process): `database(name)` makes an empty database and returns
    its URL; `stop()` and `start()` take it down and bring it back on the same port with the same data."""

    def __init__(self, programs: pathlib.Path, directory: str, run_as: dict):
        self.programs = programs
        self.directory = directory
        self.data = os.path.join(directory, "data")
        self.log_path = os.path.join(directory, "server.log")
        self.run_as = run_as
        self.port = 0
        self.process = None

    @property
    def pid(self) -> int:
        return self.process.pid

    def _launch(self):
        with open(self.log_path, "a") as log:
            self.process = subprocess.Popen(
                [self.programs / "postgres", "-D", self.data, "-p", str(self.port), "-k", self.directory,
                 "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
                 "-c", "full_page_writes=off", "-c", "max_connections=200"],
                stdout=log, stderr=subprocess.STDOUT, **self.run_as)
        deadline = time.monotonic() + START_DEADLINE_SECONDS
        # Asked through its own socket folder: a server another process started on the port cannot answer.
        while subprocess.run([self.programs / "pg_isready", "-q", "-h", self.directory, "-p", str(self.port)]).returncode != 0:
            if self.process.poll() is not None or time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def start(self):
        """Starts the server: on a new free port the first time (picked again if another process bound it
        before PostgreSQL could), on the same one after `stop()`."""
        attempts = PORT_ATTEMPTS if self.port == 0 else 1
        for attempt in range(attempts):
            if attempts > 1:
                self.port = _free_port()
            offset = os.path.getsize(self.log_path) if os.path.exists(self.log_path) else 0
            if self._launch():
                return
            log_text = pathlib.Path(self.log_path).read_text()[offset:]
            self.stop()
            if "Address already in use" not in log_text or attempt == attempts - 1:
                raise RuntimeError(f"PostgreSQL did not start on port {self.port}; its log: {log_text[-2000:]}")

    def stop(self):
        """Stops the server (fast shutdown: its connections are cut), and waits until it has exited."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def processes(self) -> list[int]:
        """The server's main process, then its children (backends and helpers), found in /proc."""
        children = []
        for entry in pathlib.Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):  # gone meanwhile
                continue
            if parent == self.pid:
                children.append(int(entry.name))
        return [self.pid, *children]

    def _signal(self, pids, number):
        for pid in pids:
            try:
                os.kill(pid, number)
            except ProcessLookupError:
                pass

    def freeze(self):
        """Stops every process of the server (SIGSTOP), its main process first so that it starts no other: the
        database stops answering without closing a connection, as when its host froze or the network went
        silent. The kernel still accepts new connections; nothing answers them. `thaw()` ends it."""
        self._signal([self.pid], signal.SIGSTOP)
        self._signal(self.processes()[1:], signal.SIGSTOP)

    def thaw(self):
        self._signal(reversed(self.processes()), signal.SIGCONT)

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
    server = PostgresServer(programs, directory, run_as)
    try:
        subprocess.run([programs / "initdb", "-D", server.data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"],
                       check=True, capture_output=True, timeout=120, **run_as)
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)
