"""Starts the mock-appleid binary on a free loopback port and stops it."""
import os
import pathlib
import shutil
import signal
import subprocess
import tempfile
import time
import weakref
from typing import Optional, Sequence, Union

from .ready import read_ready_file
from .binary import find_binary
from .client import MockAppleIDClient
from .errors import ServerStartError

START_TIMEOUT_SECONDS = 60.0
STOP_TIMEOUT_SECONDS = 30.0


class MockAppleID:
    """A mock-appleid server for the length of a `with` block (or between `start()` and `stop()`).

        with MockAppleID() as appleid:
            signed_in = appleid.sign_in(persona="jane")

    `scenario` is a scenario file (None: the built-in one). With `https` (the default) the server also
    answers as https://appleid.apple.com on a second port, with a local CA kept in `tls_dir` (None: a
    temporary folder removed at stop), which `client.as_apple()` uses. `admin_token` starts the server with
    `--admin-token` and has the client send it. `arguments` go to `serve` as given.
    """

    def __init__(self, scenario: Union[str, os.PathLike, None] = None, *, https: bool = True,
                 tls_dir: Union[str, os.PathLike, None] = None, binary: Optional[str] = None,
                 admin_token: Optional[str] = None, arguments: Sequence[str] = (),
                 start_timeout: float = START_TIMEOUT_SECONDS):
        self.scenario = scenario
        self.https = https
        self.tls_dir = tls_dir
        self.binary = binary
        self.admin_token = admin_token
        self.arguments = list(arguments)
        self.start_timeout = start_timeout
        self.client: Optional[MockAppleIDClient] = None
        self._process: Optional[subprocess.Popen] = None
        self._kill_at_exit: Optional[weakref.finalize] = None
        self._log: Optional[pathlib.Path] = None
        self._temporary_tls_dir: Optional[str] = None
        self._ready_dir: Optional[str] = None

    def __enter__(self) -> MockAppleIDClient:
        return self.start()

    def __exit__(self, *_) -> None:
        self.stop()

    def start(self) -> MockAppleIDClient:
        """Starts the server and returns its client once it listens."""
        if self._process is not None:
            raise ServerStartError("this MockAppleID is already running")
        binary = find_binary(self.binary)
        self._ready_dir = tempfile.mkdtemp(prefix="mock-appleid-ready-")
        ready_file = pathlib.Path(self._ready_dir) / "ready.json"
        command = [binary, "serve", "--port", "0", "--log-level", "notice", "--ready-file", os.fspath(ready_file)]
        if self.scenario is not None:
            command += ["--scenario", os.fspath(self.scenario)]
        tls_dir = None
        if self.https:
            tls_dir = os.fspath(self.tls_dir) if self.tls_dir is not None else self._make_temporary_tls_dir()
            command += ["--https-port", "0", "--tls-dir", tls_dir]
        if self.admin_token is not None:
            command += ["--admin-token", self.admin_token]
        command += self.arguments
        log = tempfile.NamedTemporaryFile(prefix="mock-appleid-", suffix=".log", delete=False)
        self._log = pathlib.Path(log.name)
        try:
            # serve reads its flags from MOCK_APPLEID_* variables too; this server has only the flags above (a
            # developer's exported MOCK_APPLEID_ADMIN_TOKEN, meant for the CLI, must not lock this client out).
            environment = {name: value for name, value in os.environ.items() if not name.startswith("MOCK_APPLEID_")}
            self._process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
                                             env=environment)
        except OSError as error:
            self.stop()
            raise ServerStartError(f"cannot run {binary}: {error}") from error
        finally:
            log.close()
        self._kill_at_exit = weakref.finalize(self, self._process.kill)
        try:
            server = read_ready_file(self._wait_until_ready(ready_file))
        except BaseException:
            self.stop()  # whatever stopped the start (a bad ready file, Ctrl-C), nothing is left running
            raise
        self.client = MockAppleIDClient(server, binary=binary, admin_token=self.admin_token,
                                        ca_bundle=os.path.join(tls_dir, "ca-bundle.pem") if tls_dir else None)
        return self.client

    def stop(self) -> None:
        """Stops the server (SIGINT, then SIGKILL after 30 s) and removes what it made."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=STOP_TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._kill_at_exit is not None:
            self._kill_at_exit.detach()
            self._kill_at_exit = None
        if self._temporary_tls_dir is not None:
            shutil.rmtree(self._temporary_tls_dir, ignore_errors=True)
            self._temporary_tls_dir = None
        if self._log is not None:
            self._log.unlink(missing_ok=True)
            self._log = None
        if self._ready_dir is not None:
            shutil.rmtree(self._ready_dir, ignore_errors=True)
            self._ready_dir = None
        self.client = None

    def log(self) -> str:
        """What the server wrote to standard error so far."""
        return self._log.read_text(errors="replace") if self._log is not None else ""

    def _make_temporary_tls_dir(self) -> str:
        self._temporary_tls_dir = tempfile.mkdtemp(prefix="mock-appleid-tls-")
        return os.path.join(self._temporary_tls_dir, "tls")

    def _wait_until_ready(self, ready_file: pathlib.Path) -> pathlib.Path:
        """The ready file, once the server wrote it; a clear error if the server exits or is slow."""
        deadline = time.monotonic() + self.start_timeout
        while not ready_file.exists():
            exited = self._process.poll() is not None
            if exited or time.monotonic() > deadline:
                why = "exited" if exited else f"was not ready within {self.start_timeout:.0f} s"
                log = self.log()
                self.stop()
                raise ServerStartError(f"mock-appleid {why}: {log.strip() or 'no output'}")
            time.sleep(0.01)
        return ready_file
