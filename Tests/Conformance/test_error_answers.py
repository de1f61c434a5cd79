"""Apple's answers where its technote (TN3107) speaks and where observed answers differ: each default
follows the technote, and each `errors` knob plays the observed alternative, over a real socket."""
import jwt
import pytest
import requests

from appleid import APPLE_ISSUER, KEY_ID, PRIVATE_KEY, REDIRECT_URI, TEAM_ID, WEB_CLIENT, authorize_url, client_secret, \
    exchange, server_now, sign_in
from server_process import serving

GRANT_ENDED = {"error": "invalid_grant", "error_description": "The token has expired or has been revoked."}


@pytest.fixture(scope="module")
def observed(tmp_path_factory):
    """A server whose `errors` knobs all play the answers observed from Apple instead of TN3107's."""
    scenario = tmp_path_factory.mktemp("errors") / "observed.yaml"
    scenario.write_text("base: default\nname: observed-errors\nerrors:\n  revokeHintMismatch: ignore\n"
                        "  refreshAfterConsentRevoked: invalid_grant\n  nonFormBody: invalid_client\n"
                        "  clientSecretFractionalTimes: refuse\n")
    with serving("--scenario", str(scenario)) as url:
        yield url


@pytest.fixture(params=["base_url", "observed"])
def server(request):
    """Each test runs against the defaults and against the knobs."""
    url = request.getfixturevalue(request.param)
    assert requests.post(f"{url}/__admin/reset", json={}, timeout=10).status_code == 200
    return url, request.param == "base_url"


def tokens(base_url, persona="jane") -> dict:
    answer = exchange(base_url, sign_in(base_url, authorize_url(base_url), persona)["code"])
    assert answer.status_code == 200, answer.text
    return answer.json()


def refresh(base_url, token):
    return requests.post(f"{base_url}/auth/token", timeout=10, data={
        "client_id": WEB_CLIENT, "client_secret": client_secret(base_url), "grant_type": "refresh_token", "refresh_token": token})


def revoke(base_url, token, hint):
    return requests.post(f"{base_url}/auth/revoke", timeout=10, data={
        "client_id": WEB_CLIENT, "client_secret": client_secret(base_url), "token": token, "token_type_hint": hint})


def last_reason(base_url) -> str:
    return requests.get(f"{base_url}/__admin/journal", timeout=10).json()["entries"][-1]["reason"]


def test_a_token_type_hint_that_names_the_other_kind_of_token(server):
    base_url, technote = server
    for kind, wrong_hint in (("refresh_token", "access_token"), ("access_token", "refresh_token")):
        issued = tokens(base_url)
        answer = revoke(base_url, issued[kind], wrong_hint)
        if technote:
            assert answer.status_code == 400 and answer.json() == {"error": "invalid_request"}
            assert f"token_type_hint is {wrong_hint}" in last_reason(base_url)
            assert refresh(base_url, issued["refresh_token"]).status_code == 200  # nothing was revoked
        else:
            assert answer.status_code == 200 and answer.content == b""
            assert refresh(base_url, issued["refresh_token"]).json() == GRANT_ENDED
    # The right hint: revoked, whatever the knob.
    issued = tokens(base_url)
    assert revoke(base_url, issued["refresh_token"], "refresh_token").status_code == 200
    assert refresh(base_url, issued["refresh_token"]).json() == GRANT_ENDED


def test_a_refresh_token_after_the_person_revoked_consent(server):
    base_url, technote = server
    ended_by_person = tokens(base_url)["refresh_token"]
    assert requests.post(f"{base_url}/__admin/personas/jane/revoke-consent", json={"client": WEB_CLIENT}, timeout=10).status_code == 200
    answer = refresh(base_url, ended_by_person)
    assert answer.status_code == 400
    assert answer.json() == ({"error": "invalid_request"} if technote else GRANT_ENDED)
    assert "stopped using Sign in with Apple with app group com.example.app" in last_reason(base_url)
    # One the relying party revoked itself stays invalid_grant, whatever the knob.
    ended_by_rp = tokens(base_url)["refresh_token"]
    assert revoke(base_url, ended_by_rp, "refresh_token").status_code == 200
    assert refresh(base_url, ended_by_rp).json() == GRANT_ENDED


@pytest.mark.parametrize("endpoint", ["/auth/token", "/auth/revoke"])
def test_a_body_that_is_not_form_encoded(server, endpoint):
    base_url, technote = server
    fields = {"client_id": WEB_CLIENT, "client_secret": client_secret(base_url), "grant_type": "authorization_code",
              "code": "c", "token": "t"}
    for send in ({"json": fields}, {"data": "client_id=" + WEB_CLIENT, "headers": {"Content-Type": "text/plain"}}):
        answer = requests.post(f"{base_url}{endpoint}", timeout=10, **send)
        assert answer.status_code == 400
        assert answer.json() == {"error": "invalid_request" if technote else "invalid_client"}
        assert "application/x-www-form-urlencoded" in last_reason(base_url)


def test_a_body_that_is_not_form_encoded_as_unsupported_grant_type(tmp_path):
    scenario = tmp_path / "grant-type.yaml"
    scenario.write_text("base: default\nname: non-form-grant-type\nerrors: {nonFormBody: unsupported_grant_type}\n")
    with serving("--scenario", str(scenario)) as base_url:
        answer = requests.post(f"{base_url}/auth/token", timeout=10, json={"client_id": WEB_CLIENT, "grant_type": "authorization_code"})
        assert answer.status_code == 400 and answer.json() == {"error": "unsupported_grant_type"}


def test_a_client_secret_with_fractional_times(server):
    base_url, technote = server
    now = server_now(base_url) + 0.25  # what `Date.now() / 1000` gives in JavaScript
    secret = jwt.encode({"iss": TEAM_ID, "iat": now, "exp": now + 3600.5, "aud": APPLE_ISSUER, "sub": WEB_CLIENT},
                        PRIVATE_KEY, algorithm="ES256", headers={"kid": KEY_ID})
    code = sign_in(base_url, authorize_url(base_url))["code"]
    answer = requests.post(f"{base_url}/auth/token", timeout=10, data={
        "client_id": WEB_CLIENT, "client_secret": secret, "grant_type": "authorization_code", "code": code,
        "redirect_uri": REDIRECT_URI})
    if technote:
        assert answer.status_code == 200, answer.text
    else:
        assert answer.status_code == 400 and answer.text == '{"error":"invalid_client"}'
        assert "client_secret iat is" in last_reason(base_url) and "not a whole number of seconds" in last_reason(base_url)


def test_a_refresh_token_the_person_ended_is_answered_alike_after_a_restart(tmp_path):
    state = str(tmp_path / "world.sqlite")
    with serving("--state", state) as base_url:
        ended = tokens(base_url)["refresh_token"]
        assert requests.post(f"{base_url}/__admin/personas/jane/revoke-consent", json={"client": WEB_CLIENT}, timeout=10).status_code == 200
    with serving("--state", state) as base_url:
        assert refresh(base_url, ended).json() == {"error": "invalid_request"}
