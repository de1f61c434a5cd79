"""Apple's behaviours its own answers leave open, each a scenario knob played over a real socket with its
default and with its alternative: what revoking one token at `/auth/revoke` ends, the sending team's
`/auth/usermigrationinfo` right after a transfer, PKCE, and notifications delivered once or retried."""
import base64
import hashlib

import pytest
import requests

from appleid import ROOT, authorize_url, client_secret, exchange, sign_in, user_field, verify_with_pyjwt
from server_process import serving
from test_notifications import advance, deliveries, freeze_clock, notify, receiving, register, wait_for
from test_transfer import TEAM_B as OTHER_TEAM, secret

GRANT_ENDED = {"error": "invalid_grant", "error_description": "The token has expired or has been revoked."}
OTHER_KEY = "OTHERKEY01"
SECOND_CLIENT = "com.example.second.web"  # the sending team's client in an app group that stays
KNOBS = """settings: {refreshTokenRevocation: token, pkce: ignore}
errors: {userMigrationInfoAfterTransfer: invalidClient}
notifications: {retrySchedule: []}
"""


def scenario_text(knobs: bool) -> str:
    callback = '["http://localhost:3000/auth/apple/callback"]'
    return f"""base: default
name: contested-{"knobs" if knobs else "defaults"}
{KNOBS if knobs else ""}teams:
  - id: MOCKTEAM01
    keys: [{{kid: MOCKKEY001, file: {ROOT}/Keys/AuthKey_MOCKKEY001.p8}}]
    apps:
      - primaryAppID: com.example.app
        servicesIDs: [{{id: com.example.web, returnURLs: {callback}}}]
      - primaryAppID: com.example.second
        servicesIDs: [{{id: {SECOND_CLIENT}, returnURLs: {callback}}}]
  - id: {OTHER_TEAM}
    keys: [{{kid: {OTHER_KEY}, file: {ROOT}/Keys/AuthKey_{OTHER_KEY}.p8}}]
    apps:
      - primaryAppID: org.other.app
        servicesIDs: [{{id: org.other.web, returnURLs: {callback}}}]
"""


@pytest.fixture(scope="module", params=[False, True], ids=["defaults", "knobs"])
def contested(request, tmp_path_factory):
    scenario = tmp_path_factory.mktemp("contested") / "contested.yaml"
    scenario.write_text(scenario_text(request.param))
    with serving("--scenario", str(scenario)) as url:
        yield url, request.param


@pytest.fixture
def server(contested):
    url, knobs = contested
    assert requests.post(f"{url}/__admin/reset", json={}, timeout=10).status_code == 200
    return url, knobs


def tokens(base_url, persona="jane", **authorize) -> dict:
    answer = exchange(base_url, sign_in(base_url, authorize_url(base_url, **authorize), persona)["code"])
    assert answer.status_code == 200, answer.text
    return answer.json()


def refresh(base_url, token):
    return requests.post(f"{base_url}/auth/token", timeout=10, data={
        "client_id": "com.example.web", "client_secret": client_secret(base_url), "grant_type": "refresh_token", "refresh_token": token})


def revoke(base_url, token, hint):
    answer = requests.post(f"{base_url}/auth/revoke", timeout=10, data={
        "client_id": "com.example.web", "client_secret": client_secret(base_url), "token": token, "token_type_hint": hint})
    assert answer.status_code == 200 and answer.text == "", answer.text


def events(base_url, after=0) -> list:
    return requests.get(f"{base_url}/__admin/events", params={"after": after}, timeout=10).json()["events"]


def event_kinds(base_url, after) -> list:
    return [next(iter(event["event"])) for event in events(base_url, after)]


def test_what_revoking_one_token_ends(server):
    base_url, knobs = server
    first, second = tokens(base_url), tokens(base_url)
    mark = events(base_url)[-1]["sequence"]
    revoke(base_url, first["refresh_token"], "refresh_token")
    assert refresh(base_url, first["refresh_token"]).json() == GRANT_ENDED
    again = sign_in(base_url, authorize_url(base_url), "jane")
    if knobs:  # `token`: that token alone; the consent and the other tokens stay
        assert refresh(base_url, second["refresh_token"]).status_code == 200
        assert user_field(again) is None, "a returning user: the consent stayed"
        revoke(base_url, second["access_token"], "access_token")
        assert refresh(base_url, second["refresh_token"]).status_code == 200
        kinds = event_kinds(base_url, mark)
        assert kinds.count("tokenRevoked") == 2 and "consentRevoked" not in kinds
    else:  # `consent`: every token of the consent, and the next sign-in is a first one
        assert refresh(base_url, second["refresh_token"]).json() == GRANT_ENDED
        assert user_field(again) is not None
        kinds = event_kinds(base_url, mark)
        assert "consentRevoked" in kinds and "tokenRevoked" not in kinds


def test_the_sending_teams_migration_call_right_after_a_transfer(server):
    base_url, knobs = server
    sub = verify_with_pyjwt(base_url, tokens(base_url, "john")["id_token"])["sub"]
    token = requests.post(f"{base_url}/auth/token", timeout=10, data={
        "grant_type": "client_credentials", "scope": "user.migration", "client_id": SECOND_CLIENT,
        "client_secret": secret(base_url, "MOCKTEAM01", SECOND_CLIENT)}).json()["access_token"]

    def migration():
        return requests.post(f"{base_url}/auth/usermigrationinfo", headers={"Authorization": f"Bearer {token}"}, timeout=10, data={
            "client_id": SECOND_CLIENT, "client_secret": secret(base_url, "MOCKTEAM01", SECOND_CLIENT), "sub": sub,
            "target": OTHER_TEAM})

    before = migration()
    assert before.status_code == 200 and set(before.json()) == {"transfer_sub"}, before.text
    moved = requests.post(f"{base_url}/__admin/apps/com.example.app/transfer", json={"team": OTHER_TEAM}, timeout=10)
    assert moved.status_code == 201, moved.text
    after = migration()
    if knobs:
        assert after.status_code == 400 and after.json() == {"error": "invalid_client"}
        reason = requests.get(f"{base_url}/__admin/journal", timeout=10).json()["entries"][-1]["reason"]
        assert "transferred away" in reason and "errors.userMigrationInfoAfterTransfer" in reason
    else:  # TN3159: both teams may call for 60 days
        assert after.status_code == 200 and after.json() == before.json()


def test_pkce_enforced_or_ignored(server):
    base_url, knobs = server
    verifier = "v3r1f1er-" * 6
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    code = sign_in(base_url, authorize_url(base_url, code_challenge=challenge, code_challenge_method="S256"))["code"]
    without = exchange(base_url, code)
    plain_code = sign_in(base_url, authorize_url(base_url))["code"]
    unexpected = exchange(base_url, plain_code, code_verifier=verifier)
    malformed = requests.get(authorize_url(base_url, code_challenge="too-short", code_challenge_method="S512"), timeout=10)
    if knobs:  # `ignore`: accepted and not read
        assert without.status_code == 200 and unexpected.status_code == 200
        assert malformed.status_code == 200 and 'action="authorize/consent"' in malformed.text
    else:  # `enforce`: RFC 7636
        assert without.status_code == 400 and without.json()["error"] == "invalid_grant"
        assert unexpected.status_code == 400 and unexpected.json()["error"] == "invalid_grant"
        assert malformed.status_code == 400
        code = sign_in(base_url, authorize_url(base_url, code_challenge=challenge, code_challenge_method="S256"))["code"]
        assert exchange(base_url, code, code_verifier=verifier).status_code == 200


def test_a_notification_delivered_once_or_retried(server):
    base_url, knobs = server
    freeze_clock(base_url)
    with receiving(statuses=[503]) as receiver:
        register(base_url, receiver.url)
        notify(base_url, "consent-revoked")
        wait_for(lambda: deliveries(base_url)[0]["attempts"], "the first attempt recorded")
        [delivery] = deliveries(base_url)
        assert delivery["status"] == ("failed" if knobs else "pending")
        advance(base_url, 86400)
        if knobs:  # `retrySchedule: []`: delivered once; the failure waits for an admin retry
            [delivery] = deliveries(base_url)
            assert delivery["status"] == "failed" and len(delivery["attempts"]) == 1 and len(receiver.bodies) == 1
            assert requests.post(f"{base_url}/__admin/notifications/retry", json={}, timeout=10).json() == {"retried": 1}
        wait_for(lambda: receiver.accepted, "the delivery")
        assert len(receiver.bodies) == 2
