"""Runs the mock-appleid binary as a child process on 127.0.0.1 and a free port."""
import contextlib
import os
import pathlib
import queue
import re
import signal
import subprocess
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
START_DEADLINE_SECONDS = 120


def binary() -> str:
    configured = os.environ.get("MOCK_APPLEID_BINARY")
    if configured:
        return configured
    bin_dir = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout.strip()
    return str(pathlib.Path(bin_dir) / "mock-appleid")


def environment_with(env) -> dict:
    """This process's environment with `env` added (a None value removes the variable)."""
    environment = dict(os.environ)
    for name, value in (env or {}).items():
        if value is None:
            environment.pop(name, None)
        else:
            environment[name] = value
    return environment


def run_cli(*arguments, cwd=None, env=None, timeout=60) -> subprocess.CompletedProcess:
    """Runs the binary to completion (failing after `timeout` seconds); `env` adds to (or, with None values,
    removes from) the environment."""
    return subprocess.run([binary(), *arguments], cwd=cwd, env=environment_with(env), capture_output=True, text=True, timeout=timeout)


class Server(str):
    """A running server's base URL, with the banner `serve` printed (`.banner`) and the file its log
    (standard error) goes to (`.log_path`)."""
    banner: str
    log_path: pathlib.Path
    process: subprocess.Popen


@contextlib.contextmanager
def serving(*arguments, killed_by_test: bool = False, env=None):
    """Starts `serve --port 0` (plus `arguments`), yields its base URL once the whole start-up banner
    is printed, and stops it with SIGINT, requiring a clean exit. With `killed_by_test`, the test
    kills the process itself (and must have, by the end). `env` is added to the environment as run_cli's."""
    log = tempfile.NamedTemporaryFile(prefix="mock-appleid-", suffix=".log", delete=False)
    process = subprocess.Popen([binary(), "serve", "--port", "0", "--log-level", "notice", *arguments],
                               stdout=subprocess.PIPE, stderr=log, text=True, env=environment_with(env))
    lines: "queue.Queue[str]" = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()
    deadline = time.monotonic() + START_DEADLINE_SECONDS
    banner: list[str] = []
    while not banner or not banner[-1].startswith("Press Ctrl-C"):
        remaining = deadline - time.monotonic()
        if remaining <= 0 or process.poll() is not None:
            process.kill()
            raise RuntimeError(f"mock-appleid did not start; log: {pathlib.Path(log.name).read_text()}")
        try:
            banner.append(lines.get(timeout=min(remaining, 1.0)).rstrip("\n"))
        except queue.Empty:
            continue
    server = Server(re.match(r"mock-appleid listening on (http://\S+)", banner[0]).group(1))
    server.banner = "\n".join(banner)
    server.log_path = pathlib.Path(log.name)
    server.process = process
    try:
        yield server
    finally:
        if killed_by_test:
            if process.poll() is None:
                process.kill()
                process.wait()
                raise AssertionError("the test was to kill mock-appleid itself")
        else:
            process.send_signal(signal.SIGINT)
            try:
                assert process.wait(timeout=30) == 0, \
                    f"mock-appleid did not exit cleanly on SIGINT; log: {pathlib.Path(log.name).read_text()[-4000:]}"
            finally:
                if process.poll() is None:
                    process.kill()
