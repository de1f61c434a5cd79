"""A relying party's backend for the native (iOS) flow, and the admin calls that drive the mock.

Verification is what Apple documents for an identity token: fetch /auth/keys, pick the key by the
token's kid, verify RS256, and check iss, aud (the bundle id for a native app, the Services ID on the
web) and exp. PyJWT and authlib do it, not this module.
"""
import jwt
import requests
from authlib.jose import JsonWebKey, jwt as authlib_jwt
from authlib.oidc.core import CodeIDToken

from appleid import APPLE_ISSUER, client_secret

NATIVE_CLIENT = "com.example.app"


def native_sign_in(base_url: str, persona: str = "jane", nonce: str = "native-nonce", **extra) -> dict:
    """What the app's ASAuthorizationAppleIDCredential carries, via POST /__admin/native-sign-in."""
    body = {"persona": persona, "bundleID": NATIVE_CLIENT, "nonce": nonce, "scopes": ["name", "email"], **extra}
    response = requests.post(f"{base_url}/__admin/native-sign-in", json=body, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def exchange_native(base_url: str, code: str, *, timeout: float = 10, **extra) -> requests.Response:
    """The app's backend redeems the credential's authorizationCode: no redirect_uri, as Apple wants."""
    data = {"client_id": NATIVE_CLIENT, "client_secret": client_secret(base_url, NATIVE_CLIENT),
            "grant_type": "authorization_code", "code": code, **extra}
    return requests.post(f"{base_url}/auth/token", data=data, timeout=timeout)


def refresh(base_url: str, refresh_token: str, client_id: str = NATIVE_CLIENT) -> requests.Response:
    return requests.post(f"{base_url}/auth/token", timeout=10, data={
        "client_id": client_id, "client_secret": client_secret(base_url, client_id), "grant_type": "refresh_token",
        "refresh_token": refresh_token})


def jwks_client(base_url: str, **options) -> jwt.PyJWKClient:
    return jwt.PyJWKClient(f"{base_url}/auth/keys", **options)


def verify(base_url: str, token: str, audience: str = NATIVE_CLIENT, client: jwt.PyJWKClient | None = None,
           **decode_options) -> dict:
    """PyJWT: key by kid from the JWKS, RS256, iss, aud (one audience, strictly), exp (and iat not in the future)."""
    signing_key = (client or jwks_client(base_url)).get_signing_key_from_jwt(token)
    return jwt.decode(token, signing_key.key, algorithms=["RS256"], audience=audience, issuer=APPLE_ISSUER,
                      options={"require": ["iss", "aud", "exp", "iat", "sub"], "strict_aud": True, **decode_options})


class NonceMismatch(Exception):
    pass


def check_nonce(claims: dict, expected: str) -> None:
    """The RP's own replay check: the token must carry the nonce the app sent."""
    if "nonce" not in claims:
        raise NonceMismatch("the identity token has no nonce claim")
    if claims["nonce"] != expected:
        raise NonceMismatch(f"nonce {claims['nonce']!r} is not {expected!r}")


def authlib_validate(base_url: str, token: str, audience: str = NATIVE_CLIENT, *, nonce: str | None = None,
                     leeway: int = 30, claims_cls=CodeIDToken) -> dict:
    """authlib: import the JWKS, decode, and validate the OIDC ID token claims."""
    keys = JsonWebKey.import_key_set(requests.get(f"{base_url}/auth/keys", timeout=10).json())
    params = {"client_id": audience}
    if nonce is not None:
        params["nonce"] = nonce
    claims = authlib_jwt.decode(token, keys, claims_cls=claims_cls, claims_params=params,
                                claims_options={"iss": {"essential": True, "value": APPLE_ISSUER},
                                                "aud": {"essential": True, "value": audience}})
    claims.validate(leeway=leeway)
    return claims


def queue_fault(base_url: str, fault: str, **options) -> dict:
    response = requests.post(f"{base_url}/__admin/faults", json={"fault": fault, **options}, timeout=10)
    assert response.status_code == 201, response.text
    return response.json()


def queued_faults(base_url: str) -> list:
    return requests.get(f"{base_url}/__admin/faults", timeout=10).json()["faults"]


def journal(base_url: str) -> list:
    return requests.get(f"{base_url}/__admin/journal", timeout=10).json()["entries"]


def admin_keys(base_url: str) -> dict:
    return requests.get(f"{base_url}/__admin/keys", timeout=10).json()


def unverified(token: str) -> tuple[dict, dict]:
    """Header and claims, read without verifying (to say what a test minted, never to trust it)."""
    return jwt.get_unverified_header(token), jwt.decode(token, options={"verify_signature": False})
