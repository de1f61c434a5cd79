"""A Docker engine for the container tests: the one DOCKER_HOST (or the default socket) names when it
answers, else a `dockerd` started here from Debian's `docker.io` with the vfs storage driver and its own
data root, exec root, pid file and socket in a temporary folder, stopped by pid at the end."""
import os
import pathlib
import shutil
import signal
import subprocess
import tempfile
import time

START_DEADLINE_SECONDS = 90
STOP_DEADLINE_SECONDS = 60


class DockerUnavailable(Exception):
    """No engine answers and none can be started here; the message says why."""


def _answers(environment: dict) -> bool:
    try:
        return subprocess.run(["docker", "info"], env=environment, capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


class DockerEngine:
    """Use as a context manager; `environment` is os.environ with DOCKER_HOST set to the engine's socket."""

    def __init__(self):
        self.environment = dict(os.environ)
        self.process = None
        self.folder = None

    def __enter__(self) -> "DockerEngine":
        if shutil.which("docker") is None:
            raise DockerUnavailable("the docker client is not installed (Debian: apt-get install docker.io); "
                                    "Scripts/test installs it on Debian")
        if _answers(self.environment):
            return self
        dockerd = shutil.which("dockerd") or ("/usr/sbin/dockerd" if os.path.exists("/usr/sbin/dockerd") else None)
        if dockerd is None:
            raise DockerUnavailable("no Docker engine answers and dockerd is not installed (Debian: apt-get install docker.io)")
        if os.geteuid() != 0:
            raise DockerUnavailable("no Docker engine answers, and starting dockerd needs root")
        # A short path: containerd's sockets live under the exec root, and a socket's path is limited to 107 bytes.
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="mad-", dir="/tmp"))
        socket = self.folder / "docker.sock"
        log = open(self.folder / "dockerd.log", "wb")
        self.process = subprocess.Popen(
            [dockerd, "--storage-driver", "vfs", "--data-root", str(self.folder / "data"),
             "--exec-root", str(self.folder / "exec"), "--pidfile", str(self.folder / "dockerd.pid"),
             "--host", f"unix://{socket}"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        self.environment["DOCKER_HOST"] = f"unix://{socket}"
        deadline = time.monotonic() + START_DEADLINE_SECONDS
        while not _answers(self.environment):
            if self.process.poll() is not None or time.monotonic() > deadline:
                output = (self.folder / "dockerd.log").read_text(errors="replace")[-3000:]
                self._stop()
                raise DockerUnavailable(f"dockerd did not start within {START_DEADLINE_SECONDS} s:\n{output}")
            time.sleep(0.2)
        return self

    def __exit__(self, *exception) -> None:
        self._stop()

    def _stop(self) -> None:
        if self.process is not None:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
                try:
                    self.process.wait(timeout=STOP_DEADLINE_SECONDS)
                except subprocess.TimeoutExpired:
                    os.killpg(self.process.pid, signal.SIGKILL)
                    self.process.wait()
            self.process = None
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def docker(self, *arguments: str, timeout: float = 300, check: bool = True) -> subprocess.CompletedProcess:
        """Runs the docker client against this engine; output captured as text."""
        finished = subprocess.run(["docker", *arguments], env=self.environment, capture_output=True, text=True,
                                  timeout=timeout)
        if check and finished.returncode != 0:
            raise AssertionError(f"docker {' '.join(arguments)} exited {finished.returncode}: {finished.stderr.strip()}")
        return finished
