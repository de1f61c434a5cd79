"""Starts the real mock-appleid binary once per session on 127.0.0.1 and a free port."""
import os
import pathlib
import queue
import re
import signal
import subprocess
import tempfile
import threading
import time

import pytest
import requests

ROOT = pathlib.Path(__file__).resolve().parents[2]
START_DEADLINE_SECONDS = 120


def _binary() -> str:
    configured = os.environ.get("MOCK_APPLEID_BINARY")
    if configured:
        return configured
    bin_dir = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout.strip()
    return str(pathlib.Path(bin_dir) / "mock-appleid")


@pytest.fixture(scope="session")
def base_url():
    """The base URL of a running server on the built-in scenario, stopped with SIGINT at the end."""
    log = tempfile.NamedTemporaryFile(prefix="mock-appleid-", suffix=".log", delete=False)
    process = subprocess.Popen([_binary(), "serve", "--port", "0", "--log-level", "notice"],
                               stdout=subprocess.PIPE, stderr=log, text=True)
    lines: "queue.Queue[str]" = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()
    deadline = time.monotonic() + START_DEADLINE_SECONDS
    url = None
    while url is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or process.poll() is not None:
            process.kill()
            raise RuntimeError(f"mock-appleid did not start; log: {pathlib.Path(log.name).read_text()}")
        try:
            match = re.match(r"mock-appleid listening on (http://\S+)", lines.get(timeout=min(remaining, 1.0)))
            url = match.group(1) if match else None
        except queue.Empty:
            continue
    yield url
    process.send_signal(signal.SIGINT)
    try:
        assert process.wait(timeout=30) == 0, "mock-appleid did not exit cleanly on SIGINT"
    finally:
        if process.poll() is None:
            process.kill()


@pytest.fixture(autouse=True)
def fresh_state(base_url):
    """Every test starts from the scenario's initial state."""
    assert requests.post(f"{base_url}/__admin/reset", timeout=10).status_code == 200
