"""Team transfer end to end: the sending team's and the recipient team's own client secrets, the team
access token, /auth/usermigrationinfo in both directions, and identity tokens verified with PyJWT
before and after the app moves."""
import re

import jwt
import requests

from appleid import PRIVATE_KEY, REDIRECT_URI, WEB_CLIENT, advance_clock, authorize_url, client_secret, sign_in, verify_with_pyjwt
from server_process import ROOT, run_cli

TEAM_B, KEY_B = "OTHERTEAM1", "OTHERKEY01"
PRIVATE_KEY_B = (ROOT / "Keys" / "AuthKey_OTHERKEY01.p8").read_text()
SUB_SHAPE = r"\d{6}\.[0-9a-f]{32}\.\d{4}"


def secret(base_url, team, client_id=WEB_CLIENT):
    """A client secret signed by `team`'s own developer key."""
    if team == TEAM_B:
        return client_secret(base_url, client_id, key=PRIVATE_KEY_B, claims={"iss": TEAM_B}, headers={"kid": KEY_B})
    return client_secret(base_url, client_id, key=PRIVATE_KEY)


def team_token(base_url, team, client_id=WEB_CLIENT) -> str:
    answer = requests.post(f"{base_url}/auth/token", timeout=10, data={
        "grant_type": "client_credentials", "scope": "user.migration", "client_id": client_id,
        "client_secret": secret(base_url, team, client_id)})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["token_type"] == "Bearer" and body["expires_in"] == 3600 and set(body) == {"access_token", "token_type", "expires_in"}
    return body["access_token"]


def migration(base_url, team, token, client_id=WEB_CLIENT, **fields):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return requests.post(f"{base_url}/auth/usermigrationinfo", headers=headers, timeout=10, data={
        "client_id": client_id, "client_secret": secret(base_url, team, client_id), **fields})


def signed_in(base_url, team, persona="john") -> dict:
    """A web sign-in and its code exchange with `team`'s secret; the id_token verified with PyJWT."""
    code = sign_in(base_url, authorize_url(base_url), persona)["code"]
    answer = requests.post(f"{base_url}/auth/token", timeout=10, data={
        "client_id": WEB_CLIENT, "client_secret": secret(base_url, team), "grant_type": "authorization_code",
        "code": code, "redirect_uri": REDIRECT_URI})
    assert answer.status_code == 200, answer.text
    return verify_with_pyjwt(base_url, answer.json()["id_token"])


def error(response) -> str:
    assert response.status_code == 400, response.text
    return response.json()["error"]


def test_the_whole_transfer_procedure(base_url):
    before = signed_in(base_url, "A")
    assert re.fullmatch(SUB_SHAPE, before["sub"]) and before["is_private_email"] is True and "transfer_sub" not in before

    token_a = team_token(base_url, "A")
    answer = migration(base_url, "A", token_a, sub=before["sub"], target=TEAM_B)
    assert answer.status_code == 200, answer.text
    transfer_sub = answer.json()["transfer_sub"]
    assert re.fullmatch(SUB_SHAPE, transfer_sub) and transfer_sub != before["sub"]
    assert migration(base_url, "A", token_a, sub=before["sub"], target=TEAM_B).json() == {"transfer_sub": transfer_sub}  # stable

    moved = requests.post(f"{base_url}/__admin/apps/com.example.app/transfer", json={"team": TEAM_B}, timeout=10)
    assert moved.status_code == 201 and moved.json()["personas"] == ["john"], moved.text

    assert error(requests.post(f"{base_url}/auth/token", timeout=10, data={  # the old team's key no longer signs for the app
        "grant_type": "client_credentials", "scope": "user.migration", "client_id": WEB_CLIENT,
        "client_secret": secret(base_url, "A")})) == "invalid_client"
    after = signed_in(base_url, TEAM_B)
    assert after["transfer_sub"] == transfer_sub
    assert re.fullmatch(SUB_SHAPE, after["sub"]) and after["sub"] != before["sub"]
    assert after["email"] != before["email"] and after["email"].endswith("@private.icloud.com")

    resolved = migration(base_url, TEAM_B, team_token(base_url, TEAM_B), transfer_sub=transfer_sub)
    assert resolved.status_code == 200, resolved.text
    assert resolved.json() == {"sub": after["sub"], "email": after["email"], "is_private_email": True}

    advance_clock(base_url, 60 * 86400)
    token_b = team_token(base_url, TEAM_B)
    assert error(migration(base_url, TEAM_B, token_b, transfer_sub=transfer_sub)) == "invalid_request"
    code = sign_in(base_url, authorize_url(base_url, response_type="code id_token"), "john")["id_token"]
    assert "transfer_sub" not in jwt.decode(code, options={"verify_signature": False})


def test_migration_errors(base_url):
    before = signed_in(base_url, "A")
    token_a = team_token(base_url, "A")
    assert error(migration(base_url, "A", None, sub=before["sub"], target=TEAM_B)) == "invalid_request"  # no Bearer
    assert error(migration(base_url, "A", "a-made-up-token", sub=before["sub"], target=TEAM_B)) == "invalid_request"
    assert error(migration(base_url, "A", token_a, sub="000123.0123456789abcdef0123456789abcdef.1234", target=TEAM_B)) == "invalid_request"
    assert error(migration(base_url, "A", token_a, sub=before["sub"], target="MOCKTEAM01")) == "invalid_request"  # own team
    assert error(migration(base_url, "A", token_a, sub=before["sub"], target="NOSUCHTEAM")) == "invalid_request"
    assert error(migration(base_url, "A", token_a, sub=before["sub"])) == "invalid_request"  # no target
    token_b = team_token(base_url, TEAM_B, "org.other.web")
    assert error(migration(base_url, "A", token_b, sub=before["sub"], target=TEAM_B)) == "invalid_request"  # another team's token
    assert error(migration(base_url, TEAM_B, token_b, "org.other.web", sub=before["sub"], target="MOCKTEAM01")) == "invalid_request"  # not B's user
    bad_secret = requests.post(f"{base_url}/auth/usermigrationinfo", headers={"Authorization": f"Bearer {token_a}"}, timeout=10,
                               data={"client_id": WEB_CLIENT, "client_secret": "nope", "sub": before["sub"], "target": TEAM_B})
    assert error(bad_secret) == "invalid_client"
    wrong_scope = requests.post(f"{base_url}/auth/token", timeout=10, data={
        "grant_type": "client_credentials", "scope": "openid", "client_id": WEB_CLIENT, "client_secret": secret(base_url, "A")})
    assert error(wrong_scope) == "invalid_scope"
    transfer_sub = migration(base_url, "A", token_a, sub=before["sub"], target=TEAM_B).json()["transfer_sub"]
    assert error(migration(base_url, TEAM_B, token_b, "org.other.web", transfer_sub=transfer_sub)) == "invalid_request"  # not moved yet
    advance_clock(base_url, 3601)
    assert error(migration(base_url, "A", token_a, sub=before["sub"], target=TEAM_B)) == "invalid_request"  # expired token
    journal = requests.get(f"{base_url}/__admin/journal", timeout=10).json()["entries"]
    assert "the access token is unknown or expired" in [e["reason"] for e in journal if e["endpoint"] == "/auth/usermigrationinfo"]


def test_transfers_from_the_cli_and_scheduled_on_the_clock(base_url):
    now = int(requests.get(f"{base_url}/__admin/clock", timeout=10).json()["epochSeconds"])
    scheduled = run_cli("transfer", "app", "com.example.web", "--to", TEAM_B, "--at", str(now + 3600), "--url", base_url)
    assert scheduled.returncode == 0 and '"scheduled"' in scheduled.stdout, scheduled.stderr
    assert requests.get(f"{base_url}/__admin/transfers", timeout=10).json()["transfers"] == []
    advance_clock(base_url, 3600)
    [transfer] = requests.get(f"{base_url}/__admin/transfers", timeout=10).json()["transfers"]
    assert (transfer["groupID"], transfer["fromTeam"], transfer["toTeam"]) == ("com.example.app", "MOCKTEAM01", TEAM_B)
    again = run_cli("transfer", "app", "com.example.app", "--to", TEAM_B, "--url", base_url)
    assert again.returncode != 0 and "already belongs to team OTHERTEAM1" in again.stderr
    unknown = run_cli("transfer", "app", "com.example.app", "--to", "NOSUCHTEAM", "--url", base_url)
    assert unknown.returncode != 0 and "no team has Team ID NOSUCHTEAM" in unknown.stderr
    listed = run_cli("transfer", "list", "--url", base_url)
    assert listed.returncode == 0 and '"toTeam"' in listed.stdout
