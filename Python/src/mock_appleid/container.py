"""mock-appleid in a container, for Testcontainers (`pip install 'mock-appleid[testcontainers]'`):

    from mock_appleid.container import MockAppleIDContainer

    with MockAppleIDContainer("mock-appleid:latest") as container:
        signed_in = container.client.sign_in(persona="jane")

`container.client` is the same client the pytest plugin hands out (base_url, sign_in, client_secret, the
admin calls). The container is started with an admin token of its own (the admin API answers only loopback
clients otherwise, and the host is not loopback to the container) and a ready file, which is read back to
learn the scenario's clients and developer keys. Client secrets are signed on this machine with the
package's binary; a scenario's own .p8 files are inside the container, so pass `key_file` for those.
Testcontainers' reaper container is pulled from a registry: where none is reachable, set
TESTCONTAINERS_RYUK_DISABLED=true."""
import dataclasses
import io
import secrets
import tarfile
import time
from typing import Optional

import docker.errors
from testcontainers.core.container import DockerContainer

from .binary import find_binary
from .client import MockAppleIDClient
from .errors import ServerStartError
from .ready import parse_ready_file
from .transport import call

#: serve's HTTP port inside the image, and the folder the container writes its ready file in (a name of its
#: own for each container: a /data kept from an earlier run must not hold a ready file that looks like this one's).
HTTP_PORT = 8080
READY_FOLDER = "/data"
START_TIMEOUT_SECONDS = 60.0


class MockAppleIDContainer(DockerContainer):
    """The mock-appleid image as a Testcontainers container; `client` is set once it is ready."""

    def __init__(self, image: str = "mock-appleid:latest", *, admin_token: Optional[str] = None,
                 binary: Optional[str] = None, start_timeout: float = START_TIMEOUT_SECONDS, **keywords):
        super().__init__(image, **keywords)
        self.admin_token = admin_token or secrets.token_urlsafe(32)
        self.binary = binary
        self.start_timeout = start_timeout
        self.client: Optional[MockAppleIDClient] = None
        self.with_env("MOCK_APPLEID_ADMIN_TOKEN", self.admin_token)
        self.ready_file = f"{READY_FOLDER}/ready-{secrets.token_hex(8)}.json"
        self.with_env("MOCK_APPLEID_READY_FILE", self.ready_file)
        self.with_exposed_ports(HTTP_PORT)

    def start(self) -> "MockAppleIDContainer":
        super().start()
        try:
            base_url = f"http://{self.get_container_host_ip()}:{self.get_exposed_port(HTTP_PORT)}"
            self._wait_until_ready(base_url)
            server = parse_ready_file(self._read_file(self.ready_file), f"{self.ready_file} in the container")  # there: waited for
            self.client = MockAppleIDClient(dataclasses.replace(server, base_url=base_url, https_port=None),
                                            binary=find_binary(self.binary), admin_token=self.admin_token)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self, force=True, delete_volume=True) -> None:
        """Removes the container; stopping again (Testcontainers' `with` does after a failed start) does nothing."""
        self.client = None
        if self._container is None:
            return
        try:
            super().stop(force=force, delete_volume=delete_volume)
        except docker.errors.NotFound:
            pass
        finally:
            self._container = None

    def _wait_until_ready(self, base_url: str) -> None:
        """Until /__admin/health answers ok through the published port and the ready file is written (the
        server writes it once every listener is bound, just after HTTP answers); a clear error if the
        container exits or is slow."""
        deadline = time.monotonic() + self.start_timeout
        headers = {"Authorization": f"Bearer {self.admin_token}"}
        while True:
            try:
                if call("GET", f"{base_url}/__admin/health", headers=headers).status == 200:
                    self._read_file(self.ready_file)
                    return
            except Exception:  # not listening yet (the port is published before the server binds it), or no ready file yet
                pass
            container = self.get_wrapped_container()
            container.reload()
            if container.status == "exited" or time.monotonic() > deadline:
                why = "exited" if container.status == "exited" else f"was not ready within {self.start_timeout:.0f} s"
                logs = container.logs().decode(errors="replace").strip()
                raise ServerStartError(f"the mock-appleid container {why}: {logs[-2000:] or 'no output'}")
            time.sleep(0.05)

    def _read_file(self, path: str) -> str:
        chunks, _ = self.get_wrapped_container().get_archive(path)
        with tarfile.open(fileobj=io.BytesIO(b"".join(chunks))) as archive:
            member = archive.next()
            extracted = archive.extractfile(member) if member is not None else None
            if extracted is None:
                raise ServerStartError(f"{path} is not a file in the container")
            return extracted.read().decode()
