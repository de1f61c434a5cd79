"""The image on its own: what it holds, how it runs (non-root, read-only), its health check, the admin rule
from the host, a whole sign-in through the published port, and clear failures for bad settings."""
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from conftest import REPOSITORY

HEALTHY_DEADLINE_SECONDS = 60
ADMIN_TOKEN = "container-test-admin-token-0123456789"
_direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _get(url: str, token: str = None):
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with _direct.open(request, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


class Container:
    """One `docker run -d` of the image, removed at the end."""

    def __init__(self, engine, image, *arguments, environment=None):
        flags = [item for name, value in (environment or {}).items() for item in ("--env", f"{name}={value}")]
        self.engine = engine
        self.started = time.monotonic()
        self.id = engine.docker("run", "--detach", "--publish", "127.0.0.1::8080", *flags, *arguments, image).stdout.strip()

    def inspect(self):
        return json.loads(self.engine.docker("inspect", self.id).stdout)[0]

    @property
    def base_url(self) -> str:
        port = self.engine.docker("port", self.id, "8080/tcp").stdout.split()[0].rsplit(":", 1)[1]
        return f"http://127.0.0.1:{port}"

    def logs(self) -> str:
        finished = self.engine.docker("logs", self.id, check=False)
        return finished.stdout + finished.stderr

    def wait_until(self, wanted, deadline_seconds=HEALTHY_DEADLINE_SECONDS):
        """Polls `docker inspect` until `wanted(state)` holds; the time it took."""
        deadline = time.monotonic() + deadline_seconds
        while True:
            state = self.inspect()["State"]
            if wanted(state):
                return time.monotonic() - self.started
            assert time.monotonic() < deadline, f"container state {state}; logs:\n{self.logs()}"
            time.sleep(0.05)

    def remove(self):
        self.engine.docker("rm", "--force", "--volumes", self.id, check=False)


@pytest.fixture
def run(engine, image):
    started = []

    def start(*arguments, environment=None):
        container = Container(engine, image, *arguments, environment=environment)
        started.append(container)
        return container

    yield start
    for container in started:
        container.remove()


def test_the_image_is_from_scratch_runs_as_non_root_and_checks_its_health(engine, image):
    configuration = json.loads(engine.docker("image", "inspect", image).stdout)[0]["Config"]
    assert configuration["User"] == "10001:10001"
    assert configuration["Healthcheck"]["Test"] == ["CMD", "/usr/local/bin/mock-appleid", "health", "--quiet"]
    assert {"8080/tcp", "8443/tcp", "2525/tcp"} <= set(configuration["ExposedPorts"])
    assert configuration["Entrypoint"] == ["/usr/local/bin/mock-appleid"] and configuration["Cmd"] == ["serve"]
    # The sizes for the record: as stored, and as a registry would carry it (gzip of the saved layers).
    size = json.loads(engine.docker("image", "inspect", image).stdout)[0]["Size"]
    saved = subprocess.run(f"docker save {image} | gzip -6 | wc -c", shell=True, env=engine.environment,
                           capture_output=True, text=True, check=True)
    print(f"\nimage {image}: {size / 1e6:.1f} MB uncompressed, {int(saved.stdout) / 1e6:.1f} MB compressed (gzip)")


def test_a_read_only_container_turns_healthy_serves_keys_and_a_whole_sign_in_from_the_host(run, client_secret, portable_binary):
    # libcrypto named, so that an image without it cannot start: Scripts/build-image copies it in.
    container = run("--read-only", environment={"MOCK_APPLEID_AUTO_APPROVE": "jane", "MOCK_APPLEID_RSA_SIGNER": "libcrypto"})
    healthy_after = container.wait_until(lambda state: state.get("Health", {}).get("Status") == "healthy")
    assert "RS256 by:    libcrypto (OpenSSL 3" in container.logs(), container.logs()
    status, body = _get(container.base_url + "/auth/keys")
    assert status == 200 and json.loads(body)["keys"], body
    # The process is the image's user, not root (read on the host, where the container's process is one).
    pid = container.inspect()["State"]["Pid"]
    uids = next(line for line in open(f"/proc/{pid}/status") if line.startswith("Uid:")).split()[1:]
    assert set(uids) == {"10001"}, uids
    assert container.inspect()["HostConfig"]["ReadonlyRootfs"] is True
    # The sample RP's sign-in, run on the host against the published port: authorize (approved headlessly),
    # the code redeemed with a client secret, the id_token verified.
    signed_in = subprocess.run([sys.executable, str(REPOSITORY / "Tests/Container/rp/sign_in.py")],
                               env={**os.environ, "ISSUER_URL": container.base_url, "CLIENT_SECRET": client_secret},
                               capture_output=True, text=True, timeout=60)
    assert signed_in.returncode == 0 and "signed in: " in signed_in.stdout, signed_in.stdout + signed_in.stderr
    # For the record: start → healthy beside the bare binary's start → ready file.
    print(f"\nstart → healthy {healthy_after:.2f} s (health checked every 2 s); "
          f"bare binary start → ready {_bare_start_up(portable_binary):.3f} s")


def _bare_start_up(binary) -> float:
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        ready = os.path.join(folder, "ready.json")
        started = time.monotonic()
        process = subprocess.Popen([str(binary), "serve", "--port", "0", "--ready-file", ready],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while not os.path.exists(ready):
                assert process.poll() is None and time.monotonic() - started < 30
                time.sleep(0.002)
            return time.monotonic() - started
        finally:
            process.terminate()
            process.wait(timeout=30)


def test_the_admin_api_answers_the_host_only_with_the_admin_token(run):
    closed = run()
    closed.wait_until(lambda state: state.get("Health", {}).get("Status") == "healthy")
    status, body = _get(closed.base_url + "/__admin/health")
    assert status == 403 and json.loads(body)["error"] == "not_loopback", body
    assert "loopback clients only" in closed.logs()

    opened = run(environment={"MOCK_APPLEID_ADMIN_TOKEN": ADMIN_TOKEN})
    # The health check inside the container sends the token it reads from the same variable.
    opened.wait_until(lambda state: state.get("Health", {}).get("Status") == "healthy")
    assert _get(opened.base_url + "/__admin/health")[0] == 401
    status, body = _get(opened.base_url + "/__admin/health", ADMIN_TOKEN)
    assert status == 200 and json.loads(body)["status"] == "ok", body
    assert "Bearer token required" in opened.logs()


def test_the_state_file_in_data_outlives_a_restart_of_a_read_only_container(run, engine):
    container = run("--read-only", environment={"MOCK_APPLEID_ADMIN_TOKEN": ADMIN_TOKEN,
                                                "MOCK_APPLEID_STATE": "/data/world.sqlite"})
    container.wait_until(lambda state: state.get("Health", {}).get("Status") == "healthy")
    request = urllib.request.Request(container.base_url + "/__admin/personas", method="POST",
                                     data=json.dumps({"id": "kept", "email": "kept@example.com"}).encode(),
                                     headers={"Authorization": f"Bearer {ADMIN_TOKEN}", "Content-Type": "application/json"})
    with _direct.open(request, timeout=10) as answer:
        assert answer.status in (200, 201)
    engine.docker("restart", container.id, timeout=120)
    container.started = time.monotonic()
    container.wait_until(lambda state: state.get("Health", {}).get("Status") == "healthy")
    status, body = _get(container.base_url + "/__admin/personas/kept", ADMIN_TOKEN)
    assert status == 200 and json.loads(body)["email"] == "kept@example.com", body


@pytest.mark.parametrize("environment, says", [
    ({"MOCK_APPLEID_PORT": "eighty"}, "MOCK_APPLEID_PORT as --port"),
    ({"MOCK_APPLEID_ACCESS_LOG": "sometimes"}, "MOCK_APPLEID_ACCESS_LOG=sometimes must be true or false"),
    ({"MOCK_APPLEID_STATE": "/missing/world.sqlite"}, "--state: /missing/world.sqlite: its folder /missing does not exist"),
    ({"MOCK_APPLEID_SCENARIO": "/scenarios/ci.yaml"}, "/scenarios/ci.yaml: cannot read the file"),
    ({"MOCK_APPLEID_SMTP_PORT": "8080"}, "cannot listen for HTTP on 0.0.0.0:8080: the port is in use"),
], ids=["port-not-a-number", "flag-not-a-boolean", "state-volume-missing", "scenario-volume-missing", "port-taken"])
def test_a_bad_setting_exits_non_zero_with_a_clear_message_in_the_logs(run, environment, says):
    container = run(environment=environment)
    container.wait_until(lambda state: state["Status"] == "exited")
    assert container.inspect()["State"]["ExitCode"] != 0
    assert says in container.logs(), container.logs()
