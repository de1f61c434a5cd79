"""One server for the session, reset before every test."""
import pytest
import requests

from server_process import serving


@pytest.fixture(scope="session")
def base_url():
    """The base URL of a running server on the built-in scenario."""
    with serving() as url:
        yield url


@pytest.fixture(autouse=True)
def fresh_state(request):
    """Every test that uses the shared server starts from the scenario's initial state."""
    if "base_url" in request.fixturenames:
        base_url = request.getfixturevalue("base_url")
        assert requests.post(f"{base_url}/__admin/reset", json={}, timeout=10).status_code == 200
