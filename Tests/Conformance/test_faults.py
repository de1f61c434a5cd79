"""Queued faults, each seen through the library a relying party uses against Apple: PyJWT and authlib for broken
identity tokens, requests / authlib / PyJWKClient for a failing or slow /auth/token and /auth/keys."""
import time

import jwt
import pytest
import requests
from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import errors as authlib_errors

try:  # authlib 1.7+ validates claims with joserfc and raises its errors
    from joserfc import errors as joserfc_errors
except ImportError:
    joserfc_errors = None

from appleid import (APPLE_ISSUER, REDIRECT_URI, WEB_CLIENT, authorize_url, client_secret, exchange, sign_in,
                     verify_with_pyjwt)
from native_rp import (NATIVE_CLIENT, NonceMismatch, authlib_validate, check_nonce, exchange_native, jwks_client,
                       journal, native_sign_in, queue_fault, queued_faults, refresh, unverified, verify)

NONCE = "fault-nonce"

# What PyJWT (with PyJWKClient picking the key) raises for each broken identity token, and the decode options
# that switch off exactly that check: with them the same token verifies, so only the injected flaw is wrong.
PYJWT_REACTIONS = {
    "id-token-expired": (jwt.ExpiredSignatureError, {"verify_exp": False}),
    # PyJWT checks iat: a token issued in the future is "not yet valid (iat)".
    "id-token-not-yet-valid": (jwt.ImmatureSignatureError, {"verify_iat": False}),
    "id-token-wrong-issuer": (jwt.InvalidIssuerError, {"verify_iss": False}),
    "id-token-wrong-audience": (jwt.InvalidAudienceError, {"verify_aud": False}),
    "id-token-unknown-kid": (jwt.PyJWKClientError, None),
    "id-token-bad-signature": (jwt.InvalidSignatureError, None),
    "id-token-foreign-key": (jwt.InvalidSignatureError, None),
    # An RP that allows RS256 only refuses both before checking any signature.
    "id-token-alg-none": (jwt.InvalidAlgorithmError, None),
    "id-token-hs256-public-key": (jwt.InvalidAlgorithmError, None),
    # PyJWT takes an aud array that contains the client unless told to be strict.
    "id-token-audience-array": (jwt.InvalidAudienceError, {"strict_aud": False}),
    # PyJWT (2.10 and later) requires sub to be a string; the token then names no one person, so it is not relaxed.
    "id-token-subject-array": (jwt.exceptions.InvalidSubjectError, None),
    # A claim the RP requires is missing; without sub the token names no one.
    "id-token-no-subject": (jwt.MissingRequiredClaimError, None),
    "id-token-no-issuer": (jwt.MissingRequiredClaimError, {"verify_iss": False, "require": ["aud", "exp", "iat", "sub"]}),
    "id-token-no-audience": (jwt.MissingRequiredClaimError, {"verify_aud": False, "require": ["iss", "exp", "iat", "sub"]}),
    "id-token-no-expiry": (jwt.MissingRequiredClaimError, {"require": ["iss", "aud", "iat", "sub"]}),
    "id-token-no-issued-at": (jwt.MissingRequiredClaimError, {"require": ["iss", "aud", "exp", "sub"]}),
    # PyJWT refuses a critical header extension it does not support, and an algorithm it was not given.
    "id-token-unknown-critical-header": (jwt.InvalidTokenError, None),
    "id-token-other-algorithm": (jwt.InvalidAlgorithmError, None),
    # PyJWT takes a string exp as the number it spells, which has passed.
    "id-token-expiry-as-string": (jwt.ExpiredSignatureError, {"verify_exp": False}),
}


def web_id_token(base_url) -> str:
    """Web flow: consent, then the code exchange mints the id_token."""
    response = exchange(base_url, sign_in(base_url, authorize_url(base_url, nonce=NONCE), "jane")["code"])
    assert response.status_code == 200, response.text
    return response.json()["id_token"]


def native_id_token(base_url) -> str:
    return native_sign_in(base_url, nonce=NONCE)["identityToken"]


def fault_entries(base_url) -> list:
    """Journal entries of requests a fault answered."""
    return [entry for entry in journal(base_url) if "fault" in entry["reason"]]


SOURCES = {"native": (native_id_token, NATIVE_CLIENT), "web-exchange": (web_id_token, WEB_CLIENT)}


def jose_errors(*names):
    """The named error classes of authlib.jose and, where authlib delegates to it, joserfc."""
    modules = [authlib_errors] + ([joserfc_errors] if joserfc_errors else [])
    return tuple(getattr(module, name) for module in modules for name in names if hasattr(module, name))


ExpiredTokenError = jose_errors("ExpiredTokenError")
InvalidClaimError = jose_errors("InvalidClaimError")
MissingClaimError = jose_errors("MissingClaimError")
BadSignatureError = jose_errors("BadSignatureError")


# --- identity-token faults -------------------------------------------------------------------------------

@pytest.mark.parametrize("source", sorted(SOURCES))
def test_identity_tokens_issued_long_ago_or_expiring_never_verify_with_pyjwt_as_apple_signed_them(base_url, source):
    """PyJWT has no largest age or lifetime: a week-old iat and an exp of 1e20 pass its checks, so only a relying party's
    own bound refuses them."""
    mint, audience = SOURCES[source]
    queue_fault(base_url, "id-token-issued-long-ago")
    stale = verify(base_url, mint(base_url), audience=audience)
    assert time.time() - stale["iat"] > 6 * 86400 and stale["exp"] > time.time()
    queue_fault(base_url, "id-token-expiry-far-future")
    assert verify(base_url, mint(base_url), audience=audience)["exp"] == 1e20


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("fault", sorted(PYJWT_REACTIONS))
def test_id_token_fault_is_caught_by_pyjwt_and_consumed_once(base_url, fault, source):
    mint, audience = SOURCES[source]
    queue_fault(base_url, fault)
    broken = mint(base_url)
    expected, relaxed = PYJWT_REACTIONS[fault]
    with pytest.raises(expected):
        verify(base_url, broken, audience=audience)
    if relaxed is not None:
        claims = verify(base_url, broken, audience=audience, **relaxed)
        assert claims["sub"].startswith("000")
    assert queued_faults(base_url) == []
    assert verify(base_url, mint(base_url), audience=audience)["nonce"] == NONCE


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_claim_faults_leave_a_token_that_verifies_but_names_the_wrong_nonce_or_person(base_url, source):
    mint, audience = SOURCES[source]
    honest = verify(base_url, mint(base_url), audience=audience)
    queue_fault(base_url, "id-token-wrong-nonce")
    assert verify(base_url, mint(base_url), audience=audience)["nonce"] == "not-" + NONCE
    queue_fault(base_url, "id-token-other-subject")
    other = verify(base_url, mint(base_url), audience=audience)["sub"]
    assert other != honest["sub"] and other.count(".") == 2 and other.startswith("000")
    queue_fault(base_url, "id-token-alg-none")
    header, _ = unverified(mint(base_url))
    assert header["alg"] == "none"


def test_expired_token_is_expired_by_the_clock_not_just_by_claims(base_url):
    queue_fault(base_url, "id-token-expired")
    _, claims = unverified(native_id_token(base_url))
    assert claims["exp"] < time.time() and claims["iat"] < claims["exp"]


def test_not_yet_valid_token_is_beyond_a_five_minute_skew_allowance(base_url):
    queue_fault(base_url, "id-token-not-yet-valid")
    token = native_id_token(base_url)
    _, claims = unverified(token)
    assert 3000 < claims["iat"] - time.time() < 4200
    key = jwks_client(base_url).get_signing_key_from_jwt(token).key
    with pytest.raises(jwt.ImmatureSignatureError):
        jwt.decode(token, key, algorithms=["RS256"], audience=NATIVE_CLIENT, issuer=APPLE_ISSUER, leeway=300)


def test_unknown_kid_is_not_published(base_url):
    queue_fault(base_url, "id-token-unknown-kid")
    header, _ = unverified(native_id_token(base_url))
    published = [key["kid"] for key in requests.get(f"{base_url}/auth/keys", timeout=10).json()["keys"]]
    assert header["kid"] not in published
    with pytest.raises(jwt.PyJWKClientError, match="Unable to find a signing key"):
        jwks_client(base_url).get_signing_key(header["kid"])


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_no_nonce_passes_signature_checks_but_fails_the_nonce_check(base_url, source):
    mint, audience = SOURCES[source]
    queue_fault(base_url, "id-token-no-nonce")
    claims = verify(base_url, mint(base_url), audience=audience)  # signature, iss, aud, exp all fine
    assert "nonce" not in claims
    with pytest.raises(NonceMismatch):
        check_nonce(claims, NONCE)
    check_nonce(verify(base_url, mint(base_url), audience=audience), NONCE)


def test_id_token_fault_applies_to_the_code_exchange_token(base_url):
    code = native_sign_in(base_url, nonce=NONCE)["authorizationCode"]
    queue_fault(base_url, "id-token-wrong-issuer")
    response = exchange_native(base_url, code)
    assert response.status_code == 200, response.text
    with pytest.raises(jwt.InvalidIssuerError):
        verify(base_url, response.json()["id_token"])


def test_id_token_fault_applies_to_a_refreshed_token(base_url):
    tokens = exchange_native(base_url, native_sign_in(base_url)["authorizationCode"]).json()
    queue_fault(base_url, "id-token-expired")
    refreshed = refresh(base_url, tokens["refresh_token"])
    assert refreshed.status_code == 200, refreshed.text
    with pytest.raises(jwt.ExpiredSignatureError):
        verify(base_url, refreshed.json()["id_token"])
    assert verify(base_url, refresh(base_url, tokens["refresh_token"]).json()["id_token"])["aud"] == NATIVE_CLIENT


def test_hybrid_authorize_id_token_takes_the_fault(base_url):
    queue_fault(base_url, "id-token-bad-signature")
    result = sign_in(base_url, authorize_url(base_url, response_type="code id_token", nonce=NONCE), "jane")
    with pytest.raises(jwt.InvalidSignatureError):
        verify_with_pyjwt(base_url, result["id_token"])
    # the fault is spent on the authorize token: the exchange's token verifies
    assert verify_with_pyjwt(base_url, exchange(base_url, result["code"]).json()["id_token"])["nonce"] == NONCE


# authlib (OIDC ID token validation with a 30 s leeway) reacts to each broken token as well; its claims
# validation raises joserfc's errors, the signature check authlib's own.
AUTHLIB_REACTIONS = {
    "id-token-expired": ExpiredTokenError,
    "id-token-not-yet-valid": InvalidClaimError,  # "The token was issued in the future"
    "id-token-wrong-issuer": InvalidClaimError,
    "id-token-wrong-audience": InvalidClaimError,
    "id-token-bad-signature": BadSignatureError,
    "id-token-no-nonce": MissingClaimError,
}


@pytest.mark.parametrize("fault", sorted(AUTHLIB_REACTIONS))
def test_id_token_fault_is_rejected_by_authlib(base_url, fault):
    queue_fault(base_url, fault)
    with pytest.raises(AUTHLIB_REACTIONS[fault]):
        authlib_validate(base_url, native_id_token(base_url), nonce=NONCE)
    assert authlib_validate(base_url, native_id_token(base_url), nonce=NONCE)["nonce"] == NONCE


def test_authlib_names_the_wrong_issuer(base_url):
    queue_fault(base_url, "id-token-wrong-issuer")
    with pytest.raises(InvalidClaimError) as raised:
        authlib_validate(base_url, native_id_token(base_url), nonce=NONCE)
    assert "iss" in str(raised.value)


def test_authlib_cannot_find_the_unknown_kid(base_url):
    queue_fault(base_url, "id-token-unknown-kid")
    with pytest.raises(ValueError, match="Key not found"):
        authlib_validate(base_url, native_id_token(base_url), nonce=NONCE)


def test_fault_for_one_client_leaves_others_alone(base_url):
    queue_fault(base_url, "id-token-wrong-audience", clientID=WEB_CLIENT)
    assert verify(base_url, native_id_token(base_url))["aud"] == NATIVE_CLIENT
    with pytest.raises(jwt.InvalidAudienceError):
        verify(base_url, web_id_token(base_url), audience=WEB_CLIENT)
    assert queued_faults(base_url) == []


def test_always_fault_stays_until_cleared(base_url):
    queue_fault(base_url, "id-token-wrong-issuer", always=True)
    for _ in range(3):
        with pytest.raises(jwt.InvalidIssuerError):
            verify(base_url, native_id_token(base_url))
    listed = queued_faults(base_url)
    assert len(listed) == 1 and "remaining" not in listed[0] and "every time" in listed[0]["description"]
    assert requests.delete(f"{base_url}/__admin/faults", timeout=10).status_code in (200, 204)
    assert queued_faults(base_url) == []
    assert verify(base_url, native_id_token(base_url))["iss"] == APPLE_ISSUER


# --- /auth/token transport and protocol faults ------------------------------------------------------------

@pytest.mark.parametrize("status", [None, 500, 502])
def test_token_server_error_then_a_new_code_exchanges(base_url, status):
    queue_fault(base_url, "token-server-error", **({"status": status} if status else {}))
    failed = exchange_native(base_url, native_sign_in(base_url)["authorizationCode"])
    assert failed.status_code == (status or 503)
    assert failed.content == b""
    with pytest.raises(requests.HTTPError):
        failed.raise_for_status()
    assert [entry["status"] for entry in fault_entries(base_url)] == [status or 503]
    credential = native_sign_in(base_url)
    succeeded = exchange_native(base_url, credential["authorizationCode"])
    assert succeeded.status_code == 200, succeeded.text
    assert verify(base_url, succeeded.json()["id_token"])["sub"] == credential["user"]


def test_token_server_error_count(base_url):
    queue_fault(base_url, "token-server-error", count=2)
    statuses = [exchange_native(base_url, native_sign_in(base_url)["authorizationCode"]).status_code for _ in range(3)]
    assert statuses == [503, 503, 200]


def test_token_server_error_is_seen_by_authlib(base_url):
    queue_fault(base_url, "token-server-error")
    session = OAuth2Session(WEB_CLIENT, client_secret(base_url), redirect_uri=REDIRECT_URI,
                            token_endpoint_auth_method="client_secret_post")
    code = sign_in(base_url, authorize_url(base_url), "jane")["code"]
    with pytest.raises(requests.HTTPError) as raised:  # authlib raises for the status before reading a body
        session.fetch_token(f"{base_url}/auth/token", code=code)
    assert raised.value.response.status_code == 503
    fresh = sign_in(base_url, authorize_url(base_url), "jane")["code"]
    assert verify_with_pyjwt(base_url, session.fetch_token(f"{base_url}/auth/token", code=fresh)["id_token"])


def test_token_delay_times_out_an_impatient_client_and_answers_a_patient_one_late(base_url):
    # The delay is long against the clients' timeouts, so that a loaded machine's slowness cannot pass for it.
    queue_fault(base_url, "token-delay", seconds=4, count=2)
    abandoned = native_sign_in(base_url)["authorizationCode"]
    with pytest.raises(requests.Timeout):  # 2 s against the 4 s delay: the client gives up first
        exchange_native(base_url, abandoned, timeout=2)
    # The second delayed exchange (a new code) is answered late; by then the abandoned one has been handled too.
    patient = native_sign_in(base_url)
    started = time.monotonic()
    late = exchange_native(base_url, patient["authorizationCode"], timeout=30)
    assert time.monotonic() - started >= 3.5
    assert late.status_code == 200, late.text
    assert verify(base_url, late.json()["id_token"])["sub"] == patient["user"]
    # Both delays are spent: the next new code exchanges promptly.
    credential = native_sign_in(base_url)
    prompt = exchange_native(base_url, credential["authorizationCode"], timeout=2)
    assert prompt.status_code == 200, prompt.text
    assert queued_faults(base_url) == []
    # The server still handled the exchange the client gave up on: that code is spent.
    assert exchange_native(base_url, abandoned).json()["error"] == "invalid_grant"


@pytest.mark.parametrize("error", ["invalid_grant", "invalid_client"])
def test_token_error_answers_apples_error_to_a_valid_request(base_url, error):
    queue_fault(base_url, "token-error", error=error)
    credential = native_sign_in(base_url)
    refused = exchange_native(base_url, credential["authorizationCode"])
    assert refused.status_code == 400
    assert refused.json() == {"error": error}
    assert refused.headers["Content-Type"].startswith("application/json")
    assert [entry.get("error") for entry in fault_entries(base_url)] == [error]
    again = exchange_native(base_url, credential["authorizationCode"])
    assert again.status_code == 200, again.text
    assert verify(base_url, again.json()["id_token"])["sub"] == credential["user"]


@pytest.mark.parametrize("error", ["invalid_grant", "invalid_client"])
def test_token_error_is_an_oauth_error_in_authlib(base_url, error):
    queue_fault(base_url, "token-error", error=error)
    session = OAuth2Session(WEB_CLIENT, client_secret(base_url), redirect_uri=REDIRECT_URI,
                            token_endpoint_auth_method="client_secret_post")
    code = sign_in(base_url, authorize_url(base_url), "jane")["code"]
    with pytest.raises(OAuthError) as raised:
        session.fetch_token(f"{base_url}/auth/token", code=code)
    assert raised.value.error == error
    assert verify_with_pyjwt(base_url, session.fetch_token(f"{base_url}/auth/token", code=code)["id_token"])


# --- /auth/keys faults -----------------------------------------------------------------------------------

@pytest.mark.parametrize("status", [None, 500])
def test_keys_unavailable_fails_pyjwkclient_then_a_retry_works(base_url, status):
    token = native_id_token(base_url)
    queue_fault(base_url, "keys-unavailable", **({"status": status} if status else {}))
    client = jwks_client(base_url)
    with pytest.raises(jwt.PyJWKClientConnectionError):
        client.get_signing_key_from_jwt(token)
    assert [(entry["endpoint"], entry["status"]) for entry in fault_entries(base_url)] == [("/auth/keys", status or 503)]
    claims = verify(base_url, token, client=client)
    assert claims["nonce"] == NONCE


def test_keys_unavailable_is_a_bare_5xx(base_url):
    queue_fault(base_url, "keys-unavailable")
    response = requests.get(f"{base_url}/auth/keys", timeout=10)
    assert response.status_code == 503
    assert requests.get(f"{base_url}/auth/keys", timeout=10).json()["keys"]


def test_keys_delay_times_out_pyjwkclient_then_a_retry_works(base_url):
    token = native_id_token(base_url)
    queue_fault(base_url, "keys-delay", seconds=4, count=2)
    client = jwks_client(base_url, timeout=2)
    with pytest.raises(jwt.PyJWKClientConnectionError):  # 2 s against the 4 s delay
        client.get_signing_key_from_jwt(token)
    # A patient fetch gets the keys late (and outlasts the abandoned fetch).
    started = time.monotonic()
    late = requests.get(f"{base_url}/auth/keys", timeout=30)
    assert time.monotonic() - started >= 3.5
    assert late.status_code == 200 and late.json()["keys"]
    # The delays are spent: the same client now fetches within its timeout and verifies.
    assert verify(base_url, token, client=client)["nonce"] == NONCE


def test_token_response_shape_is_lower_case_bearer_without_expires_in_and_authlib_takes_it(base_url):
    queue_fault(base_url, "token-response-shape")
    session = OAuth2Session(WEB_CLIENT, client_secret(base_url), redirect_uri=REDIRECT_URI,
                            token_endpoint_auth_method="client_secret_post")
    token = session.fetch_token(f"{base_url}/auth/token", code=sign_in(base_url, authorize_url(base_url), "jane")["code"])
    assert token["token_type"] == "bearer" and "expires_in" not in token
    assert verify_with_pyjwt(base_url, token["id_token"])
    assert queued_faults(base_url) == []
    usual = exchange(base_url, sign_in(base_url, authorize_url(base_url), "jane")["code"]).json()
    assert usual["token_type"] == "Bearer" and usual["expires_in"] > 0
