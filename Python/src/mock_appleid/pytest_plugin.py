"""The pytest plugin (registered through the `pytest11` entry point when the wheel is installed).

Fixtures:
- `mock_appleid`: a MockAppleIDClient for a server shared by the whole session and reset before each
  test. `@pytest.mark.mock_appleid(scenario="file.yaml")` (on a test, class or module; the closest
  marker wins per argument) picks a scenario file, relative to the test's folder, with one shared server
  per file; `isolated=True` gives the test a server of its own, stopped after it.
- `mock_appleid_session`: the session's shared client on the default scenario, not reset: for
  session-scoped fixtures. It is the same server `mock_appleid` resets before each test, so state made
  through it lasts until the next test that uses `mock_appleid`.
- `apple_hosts`: `mock_appleid`, with this process reaching it at https://appleid.apple.com (Apple's host
  names resolve to it and its local CA is trusted) for the length of the test.

Options: `--mock-appleid-scenario` (relative to the folder pytest runs in) or ini `mock_appleid_scenario`
(relative to the ini file's folder): the default scenario file; `--mock-appleid-binary` or ini
`mock_appleid_binary`: the binary to run (else $MOCK_APPLEID_BINARY, else the binary the wheel carries).
"""
import pathlib
from typing import Dict, Iterator, Optional

import pytest

from .client import MockAppleIDClient
from .server import MockAppleID

_MARKER = "mock_appleid"
_MARKER_ARGUMENTS = {"scenario", "isolated"}


def pytest_addoption(parser):
    group = parser.getgroup("mock-appleid")
    group.addoption("--mock-appleid-scenario", default=None, help="scenario file for the mock_appleid fixture")
    group.addoption("--mock-appleid-binary", default=None, help="the mock-appleid binary to run")
    parser.addini("mock_appleid_scenario", "scenario file for the mock_appleid fixture (relative to this file)")
    parser.addini("mock_appleid_binary", "the mock-appleid binary to run")


def pytest_configure(config):
    config.addinivalue_line("markers", f"{_MARKER}(scenario=None, isolated=False): the scenario file the "
                                       "mock_appleid fixture serves, and whether the test gets a server of its own")


class _SharedServers:
    """One server per scenario file for the whole session, started on first use."""

    def __init__(self, binary: Optional[str], tls_root: pathlib.Path):
        self.binary = binary
        self.tls_root = tls_root
        self.servers: Dict[Optional[str], MockAppleID] = {}

    def client(self, scenario: Optional[str]) -> MockAppleIDClient:
        if scenario not in self.servers:
            server = MockAppleID(scenario, binary=self.binary, tls_dir=self.tls_root / "tls")
            server.start()
            self.servers[scenario] = server
        return self.servers[scenario].client

    def stop_all(self) -> None:
        for server in self.servers.values():
            server.stop()


def _configured(config, name: str) -> Optional[pathlib.Path]:
    """A path option: from the command line (relative to where pytest runs) or the ini file (relative to it)."""
    given = config.getoption(f"--{name.replace('_', '-')}")
    if given:
        return (config.invocation_params.dir / given).resolve()
    given = config.getini(name)
    if given:
        return ((config.inipath.parent if config.inipath else config.rootpath) / given).resolve()
    return None


def _default_scenario(config) -> Optional[str]:
    scenario = _configured(config, "mock_appleid_scenario")
    return str(scenario) if scenario else None


def _marker_options(node) -> dict:
    """The marker's arguments, the closest marker first for each (test over class over module)."""
    options: dict = {}
    for marker in node.iter_markers(_MARKER):
        unknown = set(marker.kwargs) - _MARKER_ARGUMENTS
        if unknown or marker.args:
            pytest.fail(f"@pytest.mark.{_MARKER} takes scenario= and isolated= only, not "
                        f"{sorted(unknown) or list(marker.args)}", pytrace=False)
        for name, value in marker.kwargs.items():
            options.setdefault(name, value)
    return options


@pytest.fixture(scope="session")
def _mock_appleid_servers(request, tmp_path_factory) -> Iterator[_SharedServers]:
    binary = _configured(request.config, "mock_appleid_binary")
    servers = _SharedServers(str(binary) if binary else None, tmp_path_factory.mktemp("mock-appleid"))
    try:
        yield servers
    finally:
        servers.stop_all()


@pytest.fixture(scope="session")
def mock_appleid_session(request, _mock_appleid_servers) -> MockAppleIDClient:
    """The session's mock-appleid server on the default scenario (not reset; see the module's notes)."""
    return _mock_appleid_servers.client(_default_scenario(request.config))


@pytest.fixture
def mock_appleid(request, _mock_appleid_servers, tmp_path_factory) -> Iterator[MockAppleIDClient]:
    """A mock-appleid server in its scenario's initial state, and the client that drives it."""
    options = _marker_options(request.node)
    scenario = options.get("scenario")
    scenario = str((request.path.parent / scenario).resolve()) if scenario else _default_scenario(request.config)
    if options.get("isolated"):
        tls_dir = tmp_path_factory.mktemp("mock-appleid-isolated") / "tls"
        with MockAppleID(scenario, binary=_mock_appleid_servers.binary, tls_dir=tls_dir) as client:
            yield client
        return
    client = _mock_appleid_servers.client(scenario)
    client.reset()
    yield client


@pytest.fixture
def apple_hosts(mock_appleid) -> Iterator[MockAppleIDClient]:
    """`mock_appleid`, reachable from this process at https://appleid.apple.com with its CA trusted."""
    with mock_appleid.as_apple():
        yield mock_appleid
