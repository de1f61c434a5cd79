"""The installed package's audit() against a real library: the Flask + authlib sample relying party, served
over a real socket and configured with the audit's server through discovery. Its verdicts are asserted
whole (docs/audit.md explains them)."""
import contextlib
import pathlib
import socket
import tempfile
import threading

import pytest

import mock_appleid as package

HERE = pathlib.Path(__file__).resolve().parent
KEYS = HERE.parents[1] / "Keys"

# How the relying party uses the front-channel id_token at all, judged once each.
FRONT_CHANNEL_USE = ["id_token.unvalidated", "id_token.nonce_not_sent"]
# The same list as Tests/Conformance/audit_samples.py's (which test_audit.py checks against `audit --list-cases`); a copy that
# misses a case fails this directory's tables, which then expect a PASS where the audit SKIPs.
FRONT_CHANNEL = ["id_token.signature", "id_token.foreign_key", "id_token.alg_none", "id_token.hs256_public_key",
                 "id_token.alg_none_case", "id_token.alg_none_signed", "id_token.jwk_header", "id_token.x5c_header",
                 "id_token.hs256_key_forms", "id_token.kid_tricks",
                 "id_token.unknown_kid", "id_token.iss", "id_token.aud", "id_token.aud_array", "id_token.expired",
                 "id_token.iat_future", "id_token.nonce", "id_token.nonce_missing", "id_token.c_hash", "id_token.sub_mismatch",
                 "id_token.missing_sub", "id_token.missing_iss", "id_token.missing_aud", "id_token.missing_exp", "id_token.missing_iat",
                 "id_token.sub_array", "id_token.sub_duplicate", "id_token.iat_stale", "id_token.exp_huge", "id_token.claim_types",
                 "id_token.crit_unknown", "id_token.alg_other_rsa"]

BACKENDS = ["native.signature", "native.aud", "native.expired", "native.nonce", "native.other_team", "native.aud_same_team_other_app",
            "notifications.forged", "notifications.aud", "notifications.iss", "notifications.expired", "notifications.replay",
            "notifications.consent_revoked", "notifications.account_delete", "notifications.email_disabled", "notifications.email_enabled",
            "notifications.unknown_type", "notifications.retried"]

# authlib asks for response_type=code, so the front-channel cases do not apply, and the sample has no iOS
# backend or notification endpoint. authlib verifies the token endpoint's identity token fully and fetches the
# keys again for a new kid. It keeps its state in Flask's session cookie, which Flask marks with no SameSite: a
# person three minutes on Apple's page comes back without it. The sample's callback, written as authlib's
# documentation shows, lets authlib's errors through as a 500. Its state lives in that cookie too, so a form_post
# delivered again with the cookies of the first has its state, and authlib redeems the code again: only Apple's
# invalid_grant stops it (a WARN; before, a PASS). authlib checks a token's azp, not its aud: a token Apple made for
# another app (no azp) is refused for lacking one, but a token for this client and another audience whose azp names
# this client passes (before, when the audit's token had no azp, it was refused too, and the case PASSed).
AUTHLIB_NOT_PASSING = {
    **{case: "SKIP" for case in FRONT_CHANNEL_USE + FRONT_CHANNEL + BACKENDS}, "token_id_token.sub_mismatch": "SKIP",
    "token_id_token.aud_array": "FAIL", "callback.cancel": "WARN", "token.invalid_grant": "WARN",
    "token.server_error": "WARN", "cookies.slow_person": "FAIL", "callback.replay": "WARN",
    # Its client sends no PKCE challenge unless configured to, and its claims check bounds neither a token's age (a week-old
    # iat) nor its lifetime (an exp of 1e20).
    "request.pkce": "WARN", "token_id_token.iat_stale": "WARN", "token_id_token.exp_huge": "WARN",
}
NO_EMAIL_PERSONA = """  - id: noemail
    firstName: Nomail
    lastName: Person
    email: null
"""


def documented_verdicts(library: str) -> dict:
    """docs/audit.md's row for `library` in its table of real libraries: the verdicts other than PASS."""
    for line in (HERE.parents[1] / "docs" / "audit.md").read_text().splitlines():
        if line.startswith(f"| `{library}` |"):
            listed = {}
            for part in line.split("|")[3].split(";"):
                verdict, _, ids = part.strip().partition(":")
                listed.update({case: verdict for case in ids.split("`")[1::2]})
            return listed
    raise AssertionError(f"docs/audit.md has no row for {library}")


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
    assert documented_verdicts("authlib") == AUTHLIB_NOT_PASSING
    assert report.junit.count("<testcase ") == len(report.cases)


def test_an_audit_that_cannot_run_raises_with_the_reason(flask_rp_server):
    origin, apple_port, scenario = flask_rp_server
    with pytest.raises(package.AuditError, match="--signed-in must be on the relying party's host"):
        package.audit(f"{origin}/login", "http://elsewhere.invalid/me", port=apple_port, scenario=scenario)
