"""The Compose files of Container/, brought up as the README shows: the sample RP signs in beside
mock-appleid, over plain HTTP by its service name, and with Apple's real URLs through the HTTPS drop-in; and the
audit runs as a service beside a relying party."""
import json
import os
import shutil
import subprocess
import uuid
from xml.etree import ElementTree

import pytest

import sample_rp_image
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


@pytest.fixture(scope="session")
def audited_rp_image(engine) -> str:
    return sample_rp_image.build_audited(engine, "mock-appleid-audited-rp:test")


def test_the_audit_runs_as_a_service_beside_the_rp_and_mock_appleid(compose, engine, image, audited_rp_image, tmp_path):
    """compose.audit.yaml with the audit's correct sample RP: the audit, a one-shot service, reaches the RP by
    its service name while the RP reaches mock-appleid by its, passes every case it can play, and leaves its three
    reports in the folder given."""
    reports = tmp_path / "reports"
    reports.mkdir()
    reports.chmod(0o777)  # the audit runs as the image's user, 10001
    project = f"mock-appleid-{uuid.uuid4().hex[:8]}"
    environment = {**engine.environment, "RP_IMAGE": audited_rp_image, "MOCK_APPLEID_IMAGE": image, "AUDIT_REPORTS": str(reports)}
    command = [compose, "--file", str(REPOSITORY / "Container" / "compose.audit.yaml"), "--project-name", project]
    try:
        up = subprocess.run([*command, "up", "--exit-code-from", "audit", "--abort-on-container-exit"],
                            env=environment, capture_output=True, text=True, timeout=600)
        log = up.stdout + up.stderr
        assert up.returncode == 0, log
        report = json.loads((reports / "audit.json").read_text())
        verdicts = {case["id"]: case["verdict"] for case in report["cases"]}
        # The compose file names no iOS backend and no notification endpoint: those cases are skipped.
        without_backends = {case: "SKIP" if case.startswith(("native.", "notifications.")) else "PASS" for case in verdicts}
        assert len(verdicts) > 50 and "SKIP" in without_backends.values() and verdicts == without_backends, log
        assert report["start"] == "http://rp.localhost:8000/login" and report["gate"]["failing"] == []
        suite = ElementTree.parse(reports / "junit.xml").getroot()
        suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
        assert int(suite.get("tests")) == len(verdicts) and suite.get("failures") == "0" and suite.get("errors") == "0"
        assert (reports / "audit.html").read_text().count('<details class="case" ') == len(verdicts)
    finally:
        down = subprocess.run([*command, "down", "--volumes"], env=environment, capture_output=True, text=True, timeout=300)
        assert down.returncode == 0, down.stdout + down.stderr
