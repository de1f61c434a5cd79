"""Native Sign in with Apple: the identity token an app gets, and its backend's code exchange, verified with
PyJWT and authlib as a relying party verifies Apple's."""
import hashlib
import secrets

import jwt
import pytest
import requests
from authlib.oidc.core.util import create_half_hash

from appleid import APPLE_ISSUER, WEB_CLIENT, authorize_url, exchange, sign_in, user_field, verify_with_pyjwt
from native_rp import (NATIVE_CLIENT, NonceMismatch, authlib_validate, check_nonce, exchange_native, native_sign_in,
                       refresh, unverified, verify)

JANE_SUB_PREFIX = "000"


def test_first_native_sign_in_verifies_with_the_bundle_id_and_says_likely_real(base_url):
    nonce = secrets.token_urlsafe(16)
    credential = native_sign_in(base_url, "jane", nonce)
    claims = verify(base_url, credential["identityToken"], audience=NATIVE_CLIENT)
    assert claims["iss"] == APPLE_ISSUER and claims["aud"] == NATIVE_CLIENT
    assert claims["sub"] == credential["user"] and claims["sub"].startswith(JANE_SUB_PREFIX)
    assert claims["real_user_status"] == 2 and credential["realUserStatus"] == 2
    assert credential["firstAuthorization"] is True
    assert credential["fullName"] == {"firstName": "Jane", "lastName": "Appleseed"}
    assert claims["email"] == credential["email"] == "jane.appleseed@example.com"
    assert claims["nonce"] == nonce
    assert claims["c_hash"] == create_half_hash(credential["authorizationCode"], "RS256").decode()
    assert jwt.get_unverified_header(credential["identityToken"])["alg"] == "RS256"


def test_native_identity_token_is_not_for_the_web_services_id(base_url):
    token = native_sign_in(base_url)["identityToken"]
    with pytest.raises(jwt.InvalidAudienceError):
        verify(base_url, token, audience=WEB_CLIENT)


def test_native_identity_token_passes_authlib_id_token_validation(base_url):
    credential = native_sign_in(base_url, nonce="authlib-nonce")
    claims = authlib_validate(base_url, credential["identityToken"], NATIVE_CLIENT, nonce="authlib-nonce")
    assert claims["sub"] == credential["user"] and claims["real_user_status"] == 2


@pytest.mark.parametrize("given, expected", [(0, 0), ("unsupported", 0), (1, 1), ("unknown", 1), (2, 2),
                                             ("likelyReal", 2)])
def test_real_user_status_override(base_url, given, expected):
    credential = native_sign_in(base_url, realUserStatus=given)
    claims = verify(base_url, credential["identityToken"])
    assert claims["real_user_status"] == expected
    assert credential["realUserStatus"] == expected


@pytest.mark.parametrize("status, expected", [("unknown", 1), ("unsupported", 0)])
def test_patched_persona_default_real_user_status(base_url, status, expected):
    patched = requests.patch(f"{base_url}/__admin/personas/jane", json={"realUserStatus": status}, timeout=10)
    assert patched.status_code == 200, patched.text
    assert patched.json()["realUserStatus"] == status
    claims = verify(base_url, native_sign_in(base_url)["identityToken"])
    assert claims["real_user_status"] == expected


def test_second_native_sign_in_has_no_real_user_status_and_no_name(base_url):
    first = native_sign_in(base_url, nonce="first")
    second = native_sign_in(base_url, nonce="second")
    claims = verify(base_url, second["identityToken"])
    assert second["firstAuthorization"] is False
    assert "real_user_status" not in claims
    assert "fullName" not in second and "email" not in second  # the credential has them the first time only
    assert claims["sub"] == second["user"] == first["user"]
    assert first["email"] == claims["email"] == "jane.appleseed@example.com"  # the token keeps the email


def test_native_after_web_is_not_a_first_authorization_of_the_app_group(base_url):
    web = sign_in(base_url, authorize_url(base_url), "jane")
    assert "user" in web
    credential = native_sign_in(base_url)
    claims = verify(base_url, credential["identityToken"])
    assert credential["firstAuthorization"] is False
    assert "real_user_status" not in claims and "fullName" not in credential


@pytest.mark.parametrize("nonce", [
    "plain",
    "with spaces / slashes + plus = equals & amp ? query",
    "ünïcødé-日本語-🍎",
    hashlib.sha256(b"raw nonce the app kept").hexdigest(),  # what apps send: SHA-256 of their raw nonce
    "x" * 512,
])
def test_nonce_claim_is_exactly_the_given_string(base_url, nonce):
    claims = verify(base_url, native_sign_in(base_url, nonce=nonce)["identityToken"])
    assert claims["nonce"] == nonce and isinstance(claims["nonce"], str)
    check_nonce(claims, nonce)
    with pytest.raises(NonceMismatch):
        check_nonce(claims, nonce + "-other")


def test_authlib_rejects_a_native_token_for_another_nonce(base_url):
    token = native_sign_in(base_url, nonce="the-nonce")["identityToken"]
    with pytest.raises(Exception) as raised:
        authlib_validate(base_url, token, nonce="not-the-nonce")
    assert "nonce" in str(raised.value)


def test_authorization_code_exchanges_without_redirect_uri(base_url):
    credential = native_sign_in(base_url, nonce="exchange-nonce")
    response = exchange_native(base_url, credential["authorizationCode"])
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["token_type"] == "Bearer" and body["expires_in"] == 3600
    assert body["access_token"] and body["refresh_token"]
    claims = verify(base_url, body["id_token"], audience=NATIVE_CLIENT)
    assert claims["aud"] == NATIVE_CLIENT and claims["iss"] == APPLE_ISSUER
    assert claims["sub"] == credential["user"]
    assert claims["email"] == credential["email"]


def test_native_code_with_a_redirect_uri_is_invalid_grant(base_url):
    code = native_sign_in(base_url)["authorizationCode"]
    response = exchange(base_url, code, client_id=NATIVE_CLIENT)  # sends the web redirect_uri
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"


def test_second_exchange_of_a_native_code_is_invalid_grant(base_url):
    code = native_sign_in(base_url)["authorizationCode"]
    assert exchange_native(base_url, code).status_code == 200
    again = exchange_native(base_url, code)
    assert again.status_code == 400
    assert again.json()["error"] == "invalid_grant"


def test_native_code_cannot_be_redeemed_by_the_web_client(base_url):
    code = native_sign_in(base_url)["authorizationCode"]
    response = exchange(base_url, code, client_id=WEB_CLIENT, redirect_uri=None)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"


def test_web_sign_in_has_the_same_sub_but_the_services_id_audience(base_url):
    credential = native_sign_in(base_url)
    web = sign_in(base_url, authorize_url(base_url), "jane")
    web_token = exchange(base_url, web["code"]).json()["id_token"]
    web_claims = verify_with_pyjwt(base_url, web_token)
    assert web_claims["aud"] == WEB_CLIENT
    assert web_claims["sub"] == credential["user"]
    assert "real_user_status" not in web_claims
    with pytest.raises(jwt.InvalidAudienceError):
        verify(base_url, web_token, audience=NATIVE_CLIENT)


def test_first_web_sign_in_carries_no_real_user_status(base_url):
    web = sign_in(base_url, authorize_url(base_url), "jane")
    assert user_field(web)["name"] == {"firstName": "Jane", "lastName": "Appleseed"}
    claims = verify_with_pyjwt(base_url, exchange(base_url, web["code"]).json()["id_token"])
    assert "real_user_status" not in claims
    assert claims["sub"] == native_sign_in(base_url)["user"]


def test_hidden_email_native_sign_in_is_a_relay_address(base_url):
    credential = native_sign_in(base_url, "john")
    claims = verify(base_url, credential["identityToken"])
    assert claims["email"] == credential["email"]
    assert claims["email"].endswith("@private.icloud.com")
    assert claims["is_private_email"] is True
    assert credential["fullName"] == {"firstName": "John", "lastName": "Hidden"}
    assert claims["sub"] != native_sign_in(base_url, "jane")["user"]


def test_native_refresh_token_gives_an_id_token_for_the_bundle_id(base_url):
    credential = native_sign_in(base_url)
    tokens = exchange_native(base_url, credential["authorizationCode"]).json()
    refreshed = refresh(base_url, tokens["refresh_token"])
    assert refreshed.status_code == 200, refreshed.text
    assert "refresh_token" not in refreshed.json()
    claims = verify(base_url, refreshed.json()["id_token"])
    assert claims["sub"] == credential["user"] and claims["aud"] == NATIVE_CLIENT
    assert "nonce" not in claims and "real_user_status" not in claims


def test_unknown_bundle_id_or_persona_is_refused(base_url):
    services_id = requests.post(f"{base_url}/__admin/native-sign-in", timeout=10, json={
        "persona": "jane", "bundleID": WEB_CLIENT, "nonce": "n", "scopes": ["email"]})
    assert services_id.status_code == 400
    nobody = requests.post(f"{base_url}/__admin/native-sign-in", timeout=10, json={
        "persona": "nobody", "bundleID": NATIVE_CLIENT, "nonce": "n", "scopes": ["email"]})
    assert nobody.status_code == 400
    _, claims = unverified(native_sign_in(base_url)["identityToken"])
    assert claims["real_user_status"] == 2, "refused sign-ins must not count as the first authorization"
