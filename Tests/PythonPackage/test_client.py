"""The Python API outside pytest's fixtures: MockAppleID as a context manager and its client."""
import os
import pathlib
import socket
import subprocess
import sys
import time

import jwt
import pytest
import requests

from mock_appleid import (DEFAULT_CLIENT_ID, MockAppleID, MockAppleIDError, ServerStartError,
                          built_in_developer_key)

KEYS = pathlib.Path(__file__).resolve().parents[2] / "Keys"


@pytest.fixture(scope="module")
def appleid():
    with MockAppleID() as client:
        yield client


@pytest.fixture(autouse=True)
def fresh(appleid):
    appleid.reset()


def verified(appleid, token):
    """The identity token verified as Apple asks relying parties to verify it (PyJWT's JWKS client)."""
    key = jwt.PyJWKClient(appleid.jwks_url).get_signing_key_from_jwt(token)
    return jwt.decode(token, key.key, algorithms=["RS256"], audience=DEFAULT_CLIENT_ID, issuer="https://appleid.apple.com")


def test_a_headless_sign_in_returns_the_code_the_user_and_tokens_that_verify(appleid):
    signed_in = appleid.sign_in(persona="jane", nonce="n-0S6")
    assert signed_in.code and signed_in.state == "mock-appleid-state"
    assert signed_in.user == {"name": {"firstName": "Jane", "lastName": "Appleseed"}, "email": "jane.appleseed@example.com"}
    assert set(signed_in.tokens) >= {"access_token", "refresh_token", "id_token", "expires_in", "token_type"}
    claims = verified(appleid, signed_in.id_token)
    assert claims == signed_in.claims
    assert claims["email"] == "jane.appleseed@example.com" and claims["nonce"] == "n-0S6"


def test_the_second_sign_in_sends_no_user_as_apple_does(appleid):
    assert appleid.sign_in(persona="jane").user is not None
    again = appleid.sign_in(persona="jane")
    assert again.user is None and again.claims["email"] == "jane.appleseed@example.com"


def test_a_web_message_sign_in_reads_what_the_popup_would_post(appleid):
    signed_in = appleid.sign_in(persona="jane", response_type="code id_token", response_mode="web_message")
    assert signed_in.code and signed_in.state == "mock-appleid-state"
    assert signed_in.user["email"] == "jane.appleseed@example.com"
    assert verified(appleid, signed_in.tokens["id_token"])["sub"]


def test_consent_choices_reach_the_user_field_and_the_token(appleid):
    signed_in = appleid.sign_in(persona="jane", email_choice="hide", first_name="Janie")
    assert signed_in.user["name"] == {"firstName": "Janie", "lastName": "Appleseed"}  # an empty part keeps the persona's
    assert signed_in.claims["is_private_email"] in (True, "true")
    assert signed_in.claims["email"].endswith("@private.icloud.com")


def test_code_id_token_delivers_an_identity_token_at_the_authorize_step(appleid):
    signed_in = appleid.sign_in(response_type="code id_token", exchange=False)
    assert signed_in.tokens is None
    assert verified(appleid, signed_in.delivered["id_token"])["sub"] == signed_in.claims["sub"]


def test_cancel_on_the_consent_page_delivers_apples_error(appleid):
    url = f"{appleid.authorization_endpoint}?client_id={DEFAULT_CLIENT_ID}&redirect_uri=http%3A%2F%2Flocalhost%3A3000%2Fauth%2Fapple%2Fcallback&response_type=code&response_mode=form_post&scope=name&state=s1"
    assert appleid.authorize(url, cancel=True) == {"error": "user_cancelled_authorize", "state": "s1"}


def test_apples_host_in_an_authorize_url_is_sent_to_the_server(appleid):
    url = ("https://appleid.apple.com/auth/authorize?client_id=com.example.web&response_type=code"
           "&redirect_uri=http%3A%2F%2Flocalhost%3A3000%2Fauth%2Fapple%2Fcallback&response_mode=query")
    delivered = appleid.authorize(url, persona="john")
    assert set(delivered) == {"code"}


def test_personas_can_be_created_and_changed_and_sign_in(appleid):
    created = appleid.create_persona("kim", first_name="Kim", last_name="Lee", email="kim@example.com")
    assert (created["firstName"], created["email"]) == ("Kim", "kim@example.com")
    appleid.change_persona("kim", email=None)
    assert "email" not in appleid.persona("kim") or appleid.persona("kim")["email"] is None
    assert "email" not in appleid.sign_in(persona="kim").claims


def test_auto_approve_signs_in_without_a_consent_page(appleid):
    appleid.auto_approve("john", email_choice="share")
    signed_in = appleid.sign_in(persona="jane")  # the consent page never shows, so the persona asked is moot
    assert signed_in.claims["email"] == "john.hidden@example.com"
    appleid.stop_auto_approve()
    assert appleid.sign_in(persona="jane").claims["email"] == "jane.appleseed@example.com"


def test_the_clock_can_be_set_and_advanced_and_tokens_follow_it(appleid):
    appleid.set_clock(2_000_000_000, frozen=True)
    assert appleid.now() == 2_000_000_000
    appleid.advance_clock(90)
    assert appleid.clock()["frozen"] is True and appleid.now() == 2_000_000_090
    assert appleid.sign_in().claims["iat"] == 2_000_000_090


def test_client_secrets_follow_the_mock_clock(appleid):
    appleid.set_clock(1_900_000_000, frozen=True)
    secret = appleid.client_secret(lifetime=600)
    claims = jwt.decode(secret, options={"verify_signature": False})
    assert (claims["iss"], claims["sub"], claims["iat"], claims["exp"]) == ("MOCKTEAM01", DEFAULT_CLIENT_ID, 1_900_000_000, 1_900_000_600)
    assert jwt.get_unverified_header(secret)["kid"] == "MOCKKEY001"


def test_a_secret_signed_with_the_built_in_developer_key_is_accepted(appleid):
    key = built_in_developer_key()
    now = appleid.now()
    secret = jwt.encode({"iss": key.team_id, "iat": now, "exp": now + 300, "aud": "https://appleid.apple.com",
                         "sub": DEFAULT_CLIENT_ID}, key.pem, algorithm="ES256", headers={"kid": key.key_id})
    assert appleid.sign_in(client_secret=secret).tokens["token_type"] == "Bearer"


def test_a_refused_exchange_raises_with_the_journals_real_reason(appleid):
    code = appleid.sign_in(exchange=False).code
    appleid.exchange_code(code)
    with pytest.raises(MockAppleIDError) as refused:
        appleid.exchange_code(code)
    assert (refused.value.status, refused.value.error, refused.value.endpoint) == (400, "invalid_grant", "/auth/token")
    assert "already exchanged" in refused.value.reason and refused.value.reason in str(refused.value)


def test_an_expired_client_secret_is_named_as_the_reason(appleid):
    code = appleid.sign_in(exchange=False).code
    stale = appleid.client_secret(lifetime=60)
    appleid.advance_clock(120)
    with pytest.raises(MockAppleIDError) as refused:
        appleid.exchange_code(code, client_secret=stale)
    assert refused.value.error == "invalid_client" and "exp" in refused.value.reason


def test_an_error_delivered_to_the_redirect_uri_raises_with_the_journals_reason(appleid):
    with pytest.raises(MockAppleIDError) as refused:
        appleid.sign_in(cancel=True)
    assert (refused.value.error, refused.value.endpoint) == ("user_cancelled_authorize", "/auth/authorize")
    assert refused.value.reason and refused.value.reason == appleid.journal()[-1]["reason"]


def test_client_secrets_are_signed_with_the_key_the_scenario_registers_for_the_clients_team(appleid):
    secret = appleid.client_secret("org.other.web")
    assert jwt.get_unverified_header(secret)["kid"] == "OTHERKEY01"
    assert jwt.decode(secret, options={"verify_signature": False})["iss"] == "OTHERTEAM1"
    signed_in = appleid.sign_in("org.other.web", "http://localhost:3000/auth/apple/callback")
    assert signed_in.claims["aud"] == "org.other.web"
    with pytest.raises(MockAppleIDError, match="not in the scenario"):
        appleid.client_secret("com.unknown.client")


def test_loopback_calls_ignore_an_http_proxy(appleid):
    """The proxy is set before the package is imported, as in a CI job behind one."""
    program = f"import mock_appleid.transport as t; print(t.call('GET', '{appleid.base_url}/__admin/health').status)"
    finished = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60,
                              env={**os.environ, "HTTP_PROXY": "http://127.0.0.1:9", "http_proxy": "http://127.0.0.1:9"})
    assert (finished.returncode, finished.stdout.strip()) == (0, "200"), finished.stderr


def test_client_secrets_skip_keys_that_are_revoked_or_have_no_private_half(tmp_path):
    from cryptography.hazmat.primitives import serialization

    other = serialization.load_pem_private_key((KEYS / "AuthKey_MOCKKEY002.p8").read_bytes(), password=None)
    (tmp_path / "public.pem").write_bytes(other.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    scenario = tmp_path / "keys.yaml"
    scenario.write_text(f"""
name: keys
settings: {{allowLoopbackReturnURLs: true}}
signingKeys: [{{kid: mRS2bT4nWz, alg: RS256, file: {KEYS}/signing-mRS2bT4nWz.pem, signing: true}}]
teams:
  - id: MOCKTEAM01
    keys:
      - {{kid: AAAAAAAAA1, file: {tmp_path}/public.pem}}
      - {{kid: AAAAAAAAA2, file: {KEYS}/AuthKey_MOCKKEY002.p8, revoked: true}}
      - {{kid: MOCKKEY001, file: {KEYS}/AuthKey_MOCKKEY001.p8}}
    apps:
      - primaryAppID: com.example.app
        servicesIDs: [{{id: com.example.web, returnURLs: ["http://localhost:3000/auth/apple/callback"]}}]
personas: [{{id: jane, firstName: Jane, lastName: Appleseed, email: jane@example.com}}]
""")
    with MockAppleID(scenario, https=False) as client:
        assert jwt.get_unverified_header(client.client_secret())["kid"] == "MOCKKEY001"
        assert client.sign_in().tokens["token_type"] == "Bearer"
        with pytest.raises(MockAppleIDError, match="no usable developer key AAAAAAAAA1"):
            client.client_secret(key_id="AAAAAAAAA1")
        own = client.client_secret(key_file=str(KEYS / "AuthKey_MOCKKEY001.p8"))
        assert (jwt.get_unverified_header(own)["kid"], jwt.decode(own, options={"verify_signature": False})["iss"]) == (
            "MOCKKEY001", "MOCKTEAM01")
        with pytest.raises(MockAppleIDError, match="pass team_id and key_id"):
            client.client_secret(key_file=str(tmp_path / "public.pem"))


def test_an_admin_token_is_sent_when_the_server_requires_one():
    with MockAppleID(https=False, admin_token="s3cret-token-for-tests") as guarded:
        assert guarded.health()["status"] == "ok"
        assert requests.get(f"{guarded.base_url}/__admin/health", timeout=10).status_code == 401
        assert guarded.sign_in().code


def test_an_authorize_error_page_raises_with_the_reason(appleid):
    with pytest.raises(MockAppleIDError) as refused:
        appleid.sign_in(redirect_uri="https://evil.example/callback")
    assert refused.value.endpoint == "/auth/authorize" and "evil.example" in refused.value.reason


def test_admin_refusals_raise_with_the_servers_message(appleid):
    with pytest.raises(MockAppleIDError) as refused:
        appleid.persona("nobody")
    assert (refused.value.status, refused.value.error) == (404, "not_found") and "nobody" in refused.value.reason
    with pytest.raises(MockAppleIDError) as refused:
        appleid.create_persona("x", no_such_field=1)
    assert refused.value.status == 400 and "noSuchField" in refused.value.reason


def test_as_apple_reaches_the_server_at_apples_address_with_its_ca_trusted(appleid):
    resolver, trust = socket.getaddrinfo, os.environ.get("REQUESTS_CA_BUNDLE")
    with appleid.as_apple():
        keys = requests.get("https://appleid.apple.com/auth/keys", timeout=10)
        discovery = requests.get("https://appleid.apple.com/.well-known/openid-configuration", timeout=10).json()
    assert keys.json() == requests.get(appleid.jwks_url, timeout=10).json()
    assert discovery["token_endpoint"] == "https://appleid.apple.com/auth/token"
    assert (socket.getaddrinfo, os.environ.get("REQUESTS_CA_BUNDLE")) == (resolver, trust)


def test_a_bad_scenario_file_is_a_clear_start_error(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: broken\nteams: [\n")
    started = time.monotonic()
    with pytest.raises(ServerStartError) as failed:
        MockAppleID(broken).start()
    assert "broken.yaml" in str(failed.value) and time.monotonic() - started < 30


def test_stop_ends_the_process_and_removes_the_temporary_ca(tmp_path):
    server = MockAppleID()
    client = server.start()
    ca_bundle = client.ca_bundle
    assert requests.get(f"{client.base_url}/__admin/health", timeout=10).json()["status"] == "ok"
    server.stop()
    with pytest.raises(MockAppleIDError, match="no answer"):
        client.health()
    assert not os.path.exists(ca_bundle)


def test_serve_variables_of_the_callers_environment_do_not_reach_the_server(monkeypatch):
    # serve reads MOCK_APPLEID_* variables as flags; a developer's exported token (meant for the CLI) or
    # state file must not change the server MockAppleID starts with its own flags.
    monkeypatch.setenv("MOCK_APPLEID_ADMIN_TOKEN", "exported-for-the-cli-0123456789")
    monkeypatch.setenv("MOCK_APPLEID_AUTO_APPROVE", "john")
    with MockAppleID(https=False) as client:
        assert client.health()["status"] == "ok"
        assert client._admin("GET", "auto-approve") == {"autoApprove": None}
