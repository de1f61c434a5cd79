"""The full flow with real relying-party libraries: authlib's OIDC client and PyJWT's JWKS client."""
import secrets

import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, jwt as authlib_jwt
from authlib.oidc.core import CodeIDToken, HybridIDToken

from appleid import (APPLE_ISSUER, REDIRECT_URI, WEB_CLIENT, authorize_url, client_secret, exchange, form_fields,
                     sign_in, user_field, verify_with_pyjwt)


def discovery(base_url):
    return requests.get(f"{base_url}/.well-known/openid-configuration", timeout=10).json()


def authlib_session(base_url, **kwargs):
    """authlib configured from the discovery document, as Apple integrations do (client_secret_post)."""
    return OAuth2Session(WEB_CLIENT, client_secret(base_url), scope="openid name email", redirect_uri=REDIRECT_URI,
                         token_endpoint_auth_method="client_secret_post", **kwargs)


def authlib_verify(base_url, id_token, claims_cls, params):
    metadata = discovery(base_url)
    keys = JsonWebKey.import_key_set(requests.get(metadata["jwks_uri"], timeout=10).json())
    claims = authlib_jwt.decode(id_token, keys, claims_cls=claims_cls, claims_params={"client_id": WEB_CLIENT, **params},
                                claims_options={"iss": {"essential": True, "value": metadata["issuer"]}})
    claims.validate(leeway=120)
    return claims


def test_first_login_with_name_verifies_with_authlib_and_pyjwt(base_url):
    session = authlib_session(base_url)
    nonce = secrets.token_urlsafe(16)
    url, state = session.create_authorization_url(discovery(base_url)["authorization_endpoint"], nonce=nonce,
                                                  response_mode="form_post")
    result = sign_in(base_url, url, "jane")
    assert result["state"] == state
    assert user_field(result) == {"name": {"firstName": "Jane", "lastName": "Appleseed"}, "email": "jane.appleseed@example.com"}
    token = session.fetch_token(discovery(base_url)["token_endpoint"], code=result["code"], state=state)
    assert token["token_type"] == "Bearer" and token["expires_in"] == 3600 and token["refresh_token"].startswith("r")
    claims = authlib_verify(base_url, token["id_token"], CodeIDToken, {"nonce": nonce, "access_token": token["access_token"]})
    assert claims["at_hash"] and claims["nonce"] == nonce
    verified = verify_with_pyjwt(base_url, token["id_token"])
    assert verified["iss"] == APPLE_ISSUER and verified["aud"] == WEB_CLIENT
    assert verified["email"] == "jane.appleseed@example.com" and verified["email_verified"] is True
    assert verified["nonce_supported"] is True and "is_private_email" not in verified
    assert verified["exp"] - verified["iat"] == 86400


def test_wrong_nonce_is_caught_by_authlib(base_url):
    session = authlib_session(base_url)
    url, _ = session.create_authorization_url(discovery(base_url)["authorization_endpoint"], nonce="real-nonce",
                                              response_mode="form_post")
    token = session.fetch_token(discovery(base_url)["token_endpoint"], code=sign_in(base_url, url)["code"])
    try:
        authlib_verify(base_url, token["id_token"], CodeIDToken, {"nonce": "other-nonce", "access_token": token["access_token"]})
    except Exception as error:  # authlib raises InvalidClaimError
        assert "nonce" in str(error)
    else:
        raise AssertionError("a mismatched nonce verified")


def test_returning_login_has_no_user_but_the_same_sub_and_email(base_url):
    first = sign_in(base_url, authorize_url(base_url), "jane")
    second = sign_in(base_url, authorize_url(base_url), "jane")
    assert "user" in first and "user" not in second
    tokens = [exchange(base_url, result["code"]).json() for result in (first, second)]
    claims = [verify_with_pyjwt(base_url, t["id_token"]) for t in tokens]
    assert claims[0]["sub"] == claims[1]["sub"]
    assert claims[1]["email"] == "jane.appleseed@example.com"


def test_hidden_email_is_a_relay_address(base_url):
    result = sign_in(base_url, authorize_url(base_url), "john")
    claims = verify_with_pyjwt(base_url, exchange(base_url, result["code"]).json()["id_token"])
    assert claims["email"].endswith("@private.icloud.com") and len(claims["email"].split("@")[0]) == 10
    assert claims["is_private_email"] is True
    assert user_field(result)["email"] == claims["email"]


def test_hybrid_code_id_token_has_a_verifiable_c_hash(base_url):
    result = sign_in(base_url, authorize_url(base_url, response_type="code id_token", nonce="n-1"), "jane")
    claims = authlib_verify(base_url, result["id_token"], HybridIDToken, {"nonce": "n-1", "code": result["code"]})
    assert claims["c_hash"]


def test_refresh_returns_an_id_token_and_no_refresh_token(base_url):
    tokens = exchange(base_url, sign_in(base_url, authorize_url(base_url, nonce="n"), "jane")["code"]).json()
    refreshed = requests.post(f"{base_url}/auth/token", timeout=10, data={
        "client_id": WEB_CLIENT, "client_secret": client_secret(base_url), "grant_type": "refresh_token",
        "refresh_token": tokens["refresh_token"]})
    assert refreshed.status_code == 200
    body = refreshed.json()
    assert set(body) == {"access_token", "token_type", "expires_in", "id_token"}
    claims = verify_with_pyjwt(base_url, body["id_token"])
    assert "nonce" not in claims and "auth_time" not in claims
    authlib_verify(base_url, body["id_token"], CodeIDToken, {"access_token": body["access_token"]})


def test_revoke_ends_the_grant_and_the_next_login_is_a_first_login(base_url):
    tokens = exchange(base_url, sign_in(base_url, authorize_url(base_url), "jane")["code"]).json()
    revoked = requests.post(f"{base_url}/auth/revoke", timeout=10, data={
        "client_id": WEB_CLIENT, "client_secret": client_secret(base_url), "token": tokens["refresh_token"],
        "token_type_hint": "refresh_token"})
    assert revoked.status_code == 200 and revoked.content == b""
    again = requests.post(f"{base_url}/auth/token", timeout=10, data={
        "client_id": WEB_CLIENT, "client_secret": client_secret(base_url), "grant_type": "refresh_token",
        "refresh_token": tokens["refresh_token"]})
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    assert "user" in sign_in(base_url, authorize_url(base_url), "jane")


def test_revoking_an_unknown_token_still_answers_200(base_url):
    response = requests.post(f"{base_url}/auth/revoke", timeout=10, data={
        "client_id": WEB_CLIENT, "client_secret": client_secret(base_url), "token": "r-not-a-token"})
    assert response.status_code == 200 and response.content == b""


def test_pkce_with_authlib(base_url):
    verifier = secrets.token_urlsafe(48)
    session = authlib_session(base_url, code_challenge_method="S256")
    url, _ = session.create_authorization_url(discovery(base_url)["authorization_endpoint"], code_verifier=verifier,
                                              response_mode="form_post")
    code = sign_in(base_url, url)["code"]
    without = exchange(base_url, code)
    assert without.status_code == 400 and without.json()["error"] == "invalid_grant"
    token = session.fetch_token(discovery(base_url)["token_endpoint"], code=code, code_verifier=verifier)
    assert token["id_token"]


def test_email_not_granted_means_no_email_claims(base_url):
    result = sign_in(base_url, authorize_url(base_url, scope="name"), "jane")
    assert user_field(result) == {"name": {"firstName": "Jane", "lastName": "Appleseed"}}
    claims = verify_with_pyjwt(base_url, exchange(base_url, result["code"]).json()["id_token"])
    assert not {"email", "email_verified", "is_private_email"} & set(claims)


def test_cancel_delivers_user_cancelled_authorize(base_url):
    page = requests.get(authorize_url(base_url), timeout=10).text
    _, fields = form_fields(page)
    delivered = requests.post(f"{base_url}/auth/authorize/consent", data={**fields, "action": "cancel"}, timeout=10)
    _, result = form_fields(delivered.text)
    assert result == {"state": "st4te", "error": "user_cancelled_authorize"}
