"""Signing-key rotation and a shuffled JWKS, as a relying party that selects Apple's keys by kid sees them."""
import jwt
import pytest
import requests

from appleid import APPLE_ISSUER
from native_rp import NATIVE_CLIENT, admin_keys, jwks_client, native_sign_in, unverified, verify


def token(base_url) -> str:
    return native_sign_in(base_url)["identityToken"]


def kid_of(token_: str) -> str:
    return unverified(token_)[0]["kid"]


def published_kids(base_url) -> list:
    return [key["kid"] for key in requests.get(f"{base_url}/auth/keys", timeout=10).json()["keys"]]


def activate(base_url, kid) -> dict:
    response = requests.post(f"{base_url}/__admin/keys/{kid}/activate", json={}, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def retire(base_url, kid) -> requests.Response:
    return requests.post(f"{base_url}/__admin/keys/{kid}/retire", json={}, timeout=10)


def other_published_kid(base_url) -> str:
    keys = admin_keys(base_url)
    return next(kid for kid in keys["published"] if kid != keys["active"])


def test_tokens_are_signed_by_the_active_published_key(base_url):
    keys = admin_keys(base_url)
    signed = token(base_url)
    assert kid_of(signed) == keys["active"]
    assert keys["active"] in keys["published"] and len(keys["published"]) >= 2
    assert published_kids(base_url) == keys["published"]
    assert verify(base_url, signed)["iss"] == APPLE_ISSUER


def test_token_from_before_a_rotation_verifies_while_its_key_is_published(base_url):
    old = token(base_url)
    old_kid = kid_of(old)
    new_kid = other_published_kid(base_url)
    assert activate(base_url, new_kid)["active"] == new_kid
    new = token(base_url)
    assert kid_of(new) == new_kid
    assert old_kid in published_kids(base_url)
    client = jwks_client(base_url)  # one fresh fetch serves both
    assert verify(base_url, old, client=client)["sub"] == verify(base_url, new, client=client)["sub"]


def test_retired_key_no_longer_verifies_its_old_tokens(base_url):
    old = token(base_url)
    old_kid = kid_of(old)
    activate(base_url, other_published_kid(base_url))
    retired = retire(base_url, old_kid)
    assert retired.status_code == 200, retired.text
    assert old_kid not in retired.json()["published"]
    assert old_kid not in published_kids(base_url)
    with pytest.raises(jwt.PyJWKClientError, match="Unable to find a signing key"):
        jwks_client(base_url).get_signing_key_from_jwt(old)
    assert verify(base_url, token(base_url))["aud"] == NATIVE_CLIENT


def test_the_active_key_cannot_be_retired(base_url):
    active = admin_keys(base_url)["active"]
    refused = retire(base_url, active)
    assert refused.status_code == 409
    assert active in published_kids(base_url)
    assert verify(base_url, token(base_url))["aud"] == NATIVE_CLIENT


def test_generated_key_signs_the_next_token_and_verifies(base_url):
    long_lived = jwks_client(base_url, cooldown_duration=0)  # refreshes its cached JWKS on an unknown kid
    before = token(base_url)
    assert verify(base_url, before, client=long_lived)
    added = requests.post(f"{base_url}/__admin/keys", json={"kid": "newKid01", "generate": True, "activate": True},
                          timeout=10)
    assert added.status_code == 201, added.text
    assert added.json()["active"] == "newKid01" and "newKid01" in added.json()["published"]
    after = token(base_url)
    assert kid_of(after) == "newKid01"
    assert "newKid01" in published_kids(base_url)
    assert verify(base_url, after)["sub"] == verify(base_url, before)["sub"]  # fresh client
    assert verify(base_url, after, client=long_lived)["aud"] == NATIVE_CLIENT  # cached client, refreshed by kid
    public = jwks_client(base_url).get_signing_key("newKid01")
    assert public.key_type == "RSA" and public.key.key_size >= 2048


def test_a_key_change_ahead_of_the_clock_is_accepted_for_later_and_one_it_has_reached_is_made_now(base_url):
    now = requests.get(f"{base_url}/__admin/clock", timeout=10).json()["epochSeconds"]
    later = requests.post(f"{base_url}/__admin/keys", json={"kid": "laterKid1", "generate": True, "activate": True, "at": now + 600},
                          timeout=10)
    assert later.status_code == 202, later.text
    assert "laterKid1" not in later.json()["published"] and "laterKid1" not in published_kids(base_url)
    assert requests.post(f"{base_url}/__admin/clock", json={"advance": 601}, timeout=10).status_code == 200
    assert admin_keys(base_url)["active"] == "laterKid1" and "laterKid1" in published_kids(base_url)

    now = requests.get(f"{base_url}/__admin/clock", timeout=10).json()["epochSeconds"]
    reached = requests.post(f"{base_url}/__admin/keys", json={"kid": "pastKid01", "generate": True, "at": now - 60}, timeout=10)
    assert reached.status_code == 201 and "pastKid01" in reached.json()["published"], reached.text
    unknown = requests.post(f"{base_url}/__admin/keys/noSuchKid/activate", json={"at": now - 60}, timeout=10)
    assert unknown.status_code == 404 and unknown.json()["error"] == "not_found", unknown.text
    scheduled = requests.post(f"{base_url}/__admin/keys/pastKid01/retire", json={"at": now + 60}, timeout=10)
    assert scheduled.status_code == 202 and "pastKid01" in scheduled.json()["published"], scheduled.text


def test_reset_restores_the_scenario_keys(base_url):
    scenario = admin_keys(base_url)
    requests.post(f"{base_url}/__admin/keys", json={"kid": "newKid02", "generate": True, "activate": True}, timeout=10)
    assert admin_keys(base_url)["active"] == "newKid02"
    assert requests.post(f"{base_url}/__admin/reset", json={}, timeout=10).status_code == 200
    assert admin_keys(base_url) == scenario
    assert kid_of(token(base_url)) == scenario["active"]


def test_shuffled_jwks_varies_its_order_and_only_kid_selection_is_safe(base_url):
    shuffled = requests.put(f"{base_url}/__admin/keys/shuffle", json={"shuffled": True}, timeout=10)
    assert shuffled.status_code == 200, shuffled.text
    assert admin_keys(base_url)["shuffled"] is True
    signed = token(base_url)
    orders, blind_failures = set(), 0
    for _ in range(20):
        jwks = requests.get(f"{base_url}/auth/keys", timeout=10).json()
        kids = tuple(key["kid"] for key in jwks["keys"])
        orders.add(kids)
        first = jwt.PyJWK(jwks["keys"][0])  # the RP bug: trusting keys[0]
        try:
            jwt.decode(signed, first.key, algorithms=["RS256"], audience=NATIVE_CLIENT, issuer=APPLE_ISSUER)
        except jwt.InvalidSignatureError:
            blind_failures += 1
        by_kid = jwt.PyJWKSet.from_dict(jwks)[kid_of(signed)]
        assert jwt.decode(signed, by_kid.key, algorithms=["RS256"], audience=NATIVE_CLIENT, issuer=APPLE_ISSUER)
    assert len(orders) > 1
    assert len({frozenset(order) for order in orders}) == 1, "shuffling must not change which keys are published"
    assert blind_failures >= 1


def test_unshuffled_jwks_keeps_one_order(base_url):
    assert admin_keys(base_url)["shuffled"] is False
    orders = {tuple(published_kids(base_url)) for _ in range(20)}
    assert len(orders) == 1
