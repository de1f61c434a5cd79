"""The installed package's audit() against a real library: the Flask + authlib sample relying party, served
over a real socket and configured with the audit's server through discovery. Its verdicts are asserted
whole (docs/audit.md explains them)."""
import contextlib
import pathlib
import socket
import sys
import tempfile
import threading

import pytest

import mock_appleid as package

HERE = pathlib.Path(__file__).resolve().parent
KEYS = HERE.parents[1] / "Keys"
# The tables of verdicts the audit's suites assert, and docs/audit.md shows (data only).
sys.path.insert(0, str(HERE.parent / "Conformance"))
from audit_samples import AUTHLIB_NOT_PASSING  # noqa: E402

NO_EMAIL_PERSONA = """  - id: noemail
    firstName: Nomail
    lastName: Person
    email: null
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def served(app, host_name: str, registered: str, callback_path: str):
    """`app` on 127.0.0.1 and a free port, reached as `host_name`, and sample-rps.yaml with its callback listed
    beside the return URL `registered` (and a persona without an email); yields its origin and the scenario."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    origin = f"http://{host_name}:{server.server_port}"
    with tempfile.TemporaryDirectory() as folder:
        scenario = (HERE / "scenarios" / "sample-rps.yaml").read_text().replace("../../../Keys/", f"{KEYS}/")
        line = f"              - {registered}\n"
        assert line in scenario
        path = pathlib.Path(folder) / "audit.yaml"
        path.write_text(scenario.replace(line, line + f"              - {origin}{callback_path}\n") + NO_EMAIL_PERSONA)
        try:
            yield origin, path
        finally:
            server.shutdown()
            thread.join()


@pytest.fixture
def flask_rp_server(monkeypatch):
    """The Flask sample, configured with a server that will listen on `apple_port`."""
    apple_port = free_port()
    key = package.built_in_developer_key()
    for name, value in {"FLASK_SECRET_KEY": "sample", "APPLE_CLIENT_ID": "com.example.web", "APPLE_TEAM_ID": key.team_id,
                        "APPLE_KEY_ID": key.key_id, "APPLE_PRIVATE_KEY": key.pem,
                        "APPLE_DISCOVERY_URL": f"http://127.0.0.1:{apple_port}/.well-known/openid-configuration"}.items():
        monkeypatch.setenv(name, value)
    from flask_rp.app import create_app

    with served(create_app(), "127.0.0.1", "http://localhost:5000/auth/apple/callback", "/auth/apple/callback") as (origin, path):
        yield origin, apple_port, path


def test_the_audit_of_flask_and_authlib(flask_rp_server):
    origin, apple_port, scenario = flask_rp_server
    report = package.audit(f"{origin}/login", f"{origin}/me", port=apple_port, scenario=scenario)
    not_passing = {case.id: case.verdict for case in report.cases if case.verdict != "PASS"}
    assert not_passing == AUTHLIB_NOT_PASSING, [(case.id, case.seen, case.evidence) for case in report.cases if case.verdict != "PASS"]
    assert report.junit.count("<testcase ") == len(report.cases)


def test_an_audit_that_cannot_run_raises_with_the_reason(flask_rp_server):
    origin, apple_port, scenario = flask_rp_server
    with pytest.raises(package.AuditError, match="--signed-in must be on the relying party's host"):
        package.audit(f"{origin}/login", "http://elsewhere.invalid/me", port=apple_port, scenario=scenario)
