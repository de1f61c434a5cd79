"""The two Compose files of Container/, brought up as the README shows: the sample RP signs in beside
mock-appleid, over plain HTTP by its service name, and with Apple's real URLs through the HTTPS drop-in."""
import os
import shutil
import subprocess
import uuid

import pytest

from conftest import REPOSITORY


@pytest.fixture(scope="session")
def compose():
    found = shutil.which("docker-compose")
    if found is None:
        if os.environ.get("MOCK_APPLEID_REQUIRE_DOCKER"):
            pytest.fail("docker-compose is required here (Debian: apt-get install docker-compose)")
        pytest.skip("docker-compose is not installed (Debian: apt-get install docker-compose)")
    return found


@pytest.mark.parametrize("file, says", [
    ("compose.yaml", "via http://mock-appleid:8080/auth/token"),
    ("compose.https.yaml", "via https://appleid.apple.com/auth/token"),
])
def test_the_sample_rp_signs_in_beside_mock_appleid(compose, engine, image, rp_image, client_secret, file, says):
    project = f"mock-appleid-{uuid.uuid4().hex[:8]}"
    environment = {**engine.environment, "RP_IMAGE": rp_image, "CLIENT_SECRET": client_secret, "MOCK_APPLEID_IMAGE": image}
    command = [compose, "--file", str(REPOSITORY / "Container" / file), "--project-name", project]
    try:
        up = subprocess.run([*command, "up", "--exit-code-from", "rp", "--abort-on-container-exit"],
                            env=environment, capture_output=True, text=True, timeout=300)
        assert up.returncode == 0 and "signed in: " in up.stdout and says in up.stdout, up.stdout + up.stderr
    finally:
        down = subprocess.run([*command, "down", "--volumes"], env=environment, capture_output=True, text=True, timeout=300)
        assert down.returncode == 0, down.stdout + down.stderr
