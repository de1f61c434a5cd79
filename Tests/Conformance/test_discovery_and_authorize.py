"""Discovery, keys and authorization-request errors as relying parties see them."""
import jwt
import pytest
import requests

from appleid import authorize_url, exchange, sign_in, verify_with_pyjwt


def test_discovery_document_has_apples_shape(base_url):
    document = requests.get(f"{base_url}/.well-known/openid-configuration", timeout=10).json()
    assert document["issuer"] == "https://appleid.apple.com"
    assert document["jwks_uri"] == f"{base_url}/auth/keys"
    assert document["token_endpoint_auth_methods_supported"] == ["client_secret_post"]
    assert document["response_types_supported"] == ["code"]
    assert "userinfo_endpoint" not in document


def test_tokens_are_not_signed_with_the_first_key(base_url):
    keys = requests.get(f"{base_url}/auth/keys", timeout=10).json()["keys"]
    assert len(keys) >= 3 and all(list(k) == ["kty", "kid", "use", "alg", "n", "e"] for k in keys)
    token = exchange(base_url, sign_in(base_url, authorize_url(base_url))["code"]).json()["id_token"]
    assert jwt.get_unverified_header(token) == {"kid": keys[1]["kid"], "alg": "RS256"}
    verify_with_pyjwt(base_url, token)


@pytest.mark.parametrize("parameters, code, message", [
    ({"client_id": "com.example.unknown"}, "invalid_client", None),
    ({"redirect_uri": "https://evil.example.com/callback"}, "invalid_request", "Invalid web redirect url."),
    ({"response_mode": "query"}, "invalid_request",
     "response_mode must be form_post when name or email scope is requested."),
    ({"scope": "profile"}, "invalid_request", "Invalid client scope"),
    ({"response_type": "id_token"}, "invalid_request", "Invalid response type"),
])
def test_authorize_errors_stay_on_the_server(base_url, parameters, code, message):
    response = requests.get(authorize_url(base_url, **parameters), headers={"Accept": "application/json"},
                            allow_redirects=False, timeout=10)
    assert response.status_code == 400 and "Location" not in response.headers
    assert response.json()["error"] == code
    if message:
        assert response.json()["error_description"] == message
