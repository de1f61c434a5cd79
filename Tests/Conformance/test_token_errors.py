"""Apple's terse token-endpoint errors, and every client_secret rejection one by one."""
import base64

import jwt
import pytest
import requests
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from appleid import PRIVATE_KEY, WEB_CLIENT, advance_clock, authorize_url, client_secret, exchange, sign_in

OTHER_KEY = ec.generate_private_key(ec.SECP256R1()).private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()


def der_signed_secret(base_url):
    """A secret whose ES256 signature is ASN.1 DER (what openssl_sign gives), not raw r||s."""
    good = client_secret(base_url)
    header, payload, _ = good.split(".")
    key = serialization.load_pem_private_key(PRIVATE_KEY.encode(), password=None)
    der = key.sign(f"{header}.{payload}".encode(), ec.ECDSA(hashes.SHA256()))
    return f"{header}.{payload}." + base64.urlsafe_b64encode(der).rstrip(b"=").decode()


BAD_SECRETS = {
    "expired": lambda b: client_secret(b, iat_offset=-7200, lifetime=3600),
    "exp-over-6-months": lambda b: client_secret(b, lifetime=15_777_000 + 120),
    "iat-in-future": lambda b: client_secret(b, iat_offset=600),
    "wrong-aud": lambda b: client_secret(b, claims={"aud": "https://appleid.apple.com/"}),
    "wrong-iss": lambda b: client_secret(b, claims={"iss": "OTHERTEAM1"}),
    "wrong-sub": lambda b: client_secret(b, claims={"sub": "com.example.app"}),
    "unknown-kid": lambda b: client_secret(b, headers={"kid": "NOPE000000"}),
    "bad-signature": lambda b: client_secret(b, key=OTHER_KEY),
    "der-signature": der_signed_secret,
    "not-a-jwt": lambda b: PRIVATE_KEY,
    "alg-hs256": lambda b: jwt.encode({"iss": "MOCKTEAM01", "sub": WEB_CLIENT}, "a-shared-secret-of-32-bytes-long!",
                                      algorithm="HS256", headers={"kid": "MOCKKEY001"}),
}


@pytest.mark.parametrize("name", sorted(BAD_SECRETS))
def test_bad_client_secret_is_a_bare_invalid_client(base_url, name):
    code = sign_in(base_url, authorize_url(base_url))["code"]
    response = requests.post(f"{base_url}/auth/token", timeout=10, data={
        "client_id": WEB_CLIENT, "client_secret": BAD_SECRETS[name](base_url), "grant_type": "authorization_code",
        "code": code, "redirect_uri": "http://localhost:3000/auth/apple/callback"})
    assert response.status_code == 400
    assert response.text == '{"error":"invalid_client"}'
    assert response.headers["Content-Type"] == "application/json;charset=UTF-8"
    journal = requests.get(f"{base_url}/__admin/journal", timeout=10).json()["entries"]
    assert journal[-1]["error"] == "invalid_client" and "client_secret" in journal[-1]["reason"]
    assert exchange(base_url, code).status_code == 200, "a refused secret must not consume the code"


def test_missing_kid_is_invalid_client(base_url):
    secret = jwt.encode({"iss": "MOCKTEAM01", "sub": WEB_CLIENT, "aud": "https://appleid.apple.com"}, PRIVATE_KEY,
                        algorithm="ES256")
    response = requests.post(f"{base_url}/auth/token", timeout=10, data={
        "client_id": WEB_CLIENT, "client_secret": secret, "grant_type": "refresh_token", "refresh_token": "r"})
    assert response.json() == {"error": "invalid_client"}


def test_reused_code(base_url):
    code = sign_in(base_url, authorize_url(base_url))["code"]
    assert exchange(base_url, code).status_code == 200
    second = exchange(base_url, code)
    assert second.status_code == 400
    assert second.json() == {"error": "invalid_grant", "error_description": "The code has already been used."}


def test_expired_code(base_url):
    code = sign_in(base_url, authorize_url(base_url))["code"]
    advance_clock(base_url, 301)
    response = exchange(base_url, code)
    assert response.json() == {"error": "invalid_grant", "error_description": "The code has expired or has been revoked."}


def test_redirect_uri_mismatch(base_url):
    code = sign_in(base_url, authorize_url(base_url))["code"]
    response = exchange(base_url, code, redirect_uri="http://127.0.0.1:3000/auth/apple/callback")
    # Apple's answer names the redirect_uri the exchange sent (docs/apple-reference.md §2.4 gives the sources).
    assert response.status_code == 400 and response.json() == {
        "error": "invalid_grant", "error_description": "redirect_uri mismatch. The code was not issued to http://127.0.0.1:3000/auth/apple/callback."}


def test_unsupported_grant_type(base_url):
    response = requests.post(f"{base_url}/auth/token", timeout=10, data={
        "client_id": WEB_CLIENT, "client_secret": client_secret(base_url), "grant_type": "password"})
    assert response.json() == {"error": "unsupported_grant_type"}
