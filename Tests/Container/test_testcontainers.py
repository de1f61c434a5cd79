"""MockAppleIDContainer (the package's Testcontainers container) gives the pytest plugin's client."""
import pytest

testcontainers = pytest.importorskip("testcontainers", reason="the package's testcontainers extra is not installed")

from mock_appleid.container import MockAppleIDContainer  # noqa: E402


def test_the_container_gives_a_client_that_signs_in_and_drives_the_admin_api(engine, image, monkeypatch):
    for name, value in engine.environment.items():
        if name == "DOCKER_HOST":
            monkeypatch.setenv(name, value)
    # Testcontainers' reaper is an image from a registry, which is not reachable here.
    monkeypatch.setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
    with MockAppleIDContainer(image) as container:
        client = container.client
        assert client.health()["status"] == "ok"
        signed_in = client.sign_in(persona="jane")
        assert signed_in.claims["aud"] == "com.example.web" and signed_in.claims["sub"]
        client.revoke_consent("jane")
        assert any(entry["endpoint"] == "/auth/token" for entry in client.journal())
    assert container.client is None
