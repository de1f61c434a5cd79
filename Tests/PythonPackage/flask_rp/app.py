"""A Flask relying party that signs in with Apple through authlib, as its documentation shows.
Everything that names Apple comes from the environment (its settings); nothing here knows of a mock."""
import os
import time

from authlib.integrations.flask_client import OAuth
from flask import Flask, jsonify, session, url_for
from joserfc import jwt
from joserfc.jwk import ECKey

APPLE_DISCOVERY = "https://appleid.apple.com/.well-known/openid-configuration"


def client_secret(team_id: str, key_id: str, client_id: str, private_key: str) -> str:
    """Apple's client secret: an ES256 JWT signed with the developer key, here valid for a day."""
    now = int(time.time())
    claims = {"iss": team_id, "iat": now, "exp": now + 86400, "aud": "https://appleid.apple.com", "sub": client_id}
    return jwt.encode({"alg": "ES256", "kid": key_id}, claims, ECKey.import_key(private_key))


def create_app() -> Flask:
    app = Flask(__name__)
    app.secret_key = os.environ["FLASK_SECRET_KEY"]
    client_id = os.environ["APPLE_CLIENT_ID"]
    oauth = OAuth(app)
    oauth.register(
        "apple",
        client_id=client_id,
        client_secret=client_secret(os.environ["APPLE_TEAM_ID"], os.environ["APPLE_KEY_ID"], client_id,
                                    os.environ["APPLE_PRIVATE_KEY"]),
        server_metadata_url=os.environ.get("APPLE_DISCOVERY_URL", APPLE_DISCOVERY),
        client_kwargs={"scope": "openid name email", "token_endpoint_auth_method": "client_secret_post"},
        authorize_params={"response_mode": "form_post"},
    )

    @app.get("/login")
    def login():
        return oauth.apple.authorize_redirect(url_for("callback", _external=True))

    @app.post("/auth/apple/callback")
    def callback():
        token = oauth.apple.authorize_access_token()
        claims = token["userinfo"]
        session["user"] = {"sub": claims["sub"], "email": claims.get("email")}
        return jsonify(session["user"])

    @app.get("/me")
    def me():
        return jsonify(session.get("user"))

    return app
