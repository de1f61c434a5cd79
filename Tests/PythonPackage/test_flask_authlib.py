"""A Flask relying party using authlib signs in through the plugin; only its settings (environment) point
it at the server: the discovery URL and the scenario's developer key."""
import pytest

import mock_appleid as package

CALLBACK = "http://localhost:5000/auth/apple/callback"


@pytest.fixture
def flask_rp(mock_appleid, monkeypatch):
    key = package.built_in_developer_key()
    for name, value in {"FLASK_SECRET_KEY": "sample", "APPLE_CLIENT_ID": "com.example.web", "APPLE_TEAM_ID": key.team_id,
                        "APPLE_KEY_ID": key.key_id, "APPLE_PRIVATE_KEY": key.pem,
                        "APPLE_DISCOVERY_URL": mock_appleid.discovery_url}.items():
        monkeypatch.setenv(name, value)
    from flask_rp.app import create_app

    app = create_app()
    app.config["SERVER_NAME"] = "localhost:5000"
    return app.test_client()


@pytest.mark.mock_appleid(scenario="scenarios/sample-rps.yaml")
def test_authlib_signs_in_and_verifies_the_identity_token(mock_appleid, flask_rp):
    login = flask_rp.get("/login")
    assert login.status_code == 302 and login.location.startswith(mock_appleid.authorization_endpoint)
    delivered = mock_appleid.authorize(login.location, persona="jane")
    assert set(delivered) >= {"code", "state", "user"}
    signed_in = flask_rp.post("/auth/apple/callback", data=delivered)
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json["email"] == "jane.appleseed@example.com"
    assert flask_rp.get("/me").json == signed_in.json
    assert [(entry["endpoint"], entry["status"]) for entry in mock_appleid.journal()] == [
        ("/.well-known/openid-configuration", 200), ("/auth/authorize", 200), ("/auth/authorize", 200),
        ("/auth/token", 200), ("/auth/keys", 200)]


@pytest.mark.mock_appleid(scenario="scenarios/sample-rps.yaml")
def test_a_returning_user_signs_in_to_the_same_account_without_the_user_field(mock_appleid, flask_rp):
    first = mock_appleid.authorize(flask_rp.get("/login").location, persona="john")
    account = flask_rp.post("/auth/apple/callback", data=first).json
    again = mock_appleid.authorize(flask_rp.get("/login").location, persona="john")
    assert "user" in first and "user" not in again
    assert flask_rp.post("/auth/apple/callback", data=again).json == account
    assert account["email"].endswith("@private.icloud.com")
