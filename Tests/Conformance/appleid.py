"""What a relying party does with Sign in with Apple, written as plainly as RP code is."""
import html.parser
import json
import pathlib
import urllib.parse

import jwt
import requests

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEAM_ID = "MOCKTEAM01"
KEY_ID = "MOCKKEY001"
PRIVATE_KEY = (ROOT / "Keys" / "AuthKey_MOCKKEY001.p8").read_text()
WEB_CLIENT = "com.example.web"
REDIRECT_URI = "http://localhost:3000/auth/apple/callback"
APPLE_ISSUER = "https://appleid.apple.com"


def server_now(base_url: str) -> int:
    return int(requests.get(f"{base_url}/__admin/clock", timeout=10).json()["epochSeconds"])


def client_secret(base_url: str, client_id: str = WEB_CLIENT, *, iat_offset: int = 0, lifetime: int = 3600,
                  headers: dict | None = None, claims: dict | None = None, key: str = PRIVATE_KEY) -> str:
    """An ES256 client secret as RPs make them (PyJWT writes the raw r||s signature JOSE requires)."""
    iat = server_now(base_url) + iat_offset
    payload = {"iss": TEAM_ID, "iat": iat, "exp": iat + lifetime, "aud": APPLE_ISSUER, "sub": client_id}
    payload.update(claims or {})
    return jwt.encode(payload, key, algorithm="ES256", headers={"kid": KEY_ID, **(headers or {})})


class _HiddenInputs(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.fields: list[tuple[str, str]] = []
        self.action = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "form":
            self.action = attributes.get("action")
        if tag == "input" and attributes.get("type") == "hidden":
            self.fields.append((attributes["name"], attributes.get("value", "")))


def form_fields(page: str) -> tuple[str, dict]:
    """The action and hidden fields of an HTML page's form."""
    parser = _HiddenInputs()
    parser.feed(page)
    return parser.action, dict(parser.fields)


def authorize_url(base_url: str, **parameters) -> str:
    defaults = {"client_id": WEB_CLIENT, "redirect_uri": REDIRECT_URI, "response_type": "code",
                "response_mode": "form_post", "scope": "name email", "state": "st4te"}
    defaults.update({k: v for k, v in parameters.items() if v is not None})
    return f"{base_url}/auth/authorize?" + urllib.parse.urlencode(defaults, quote_via=urllib.parse.quote)


def sign_in(base_url: str, url: str, persona: str = "jane", **choices) -> dict:
    """Opens the consent page, continues as `persona`, and returns what the form_post delivers."""
    page = requests.get(url, timeout=10)
    assert page.status_code == 200, page.text
    action, fields = form_fields(page.text)
    assert action == "authorize/consent"
    fields.update({"persona": persona, "action": "continue", **choices})
    delivered = requests.post(f"{base_url}/auth/authorize/consent", data=fields, timeout=10)
    assert delivered.status_code == 200, delivered.text
    redirect, result = form_fields(delivered.text)
    assert redirect == urllib.parse.parse_qs(urllib.parse.urlparse(url).query)["redirect_uri"][0]
    return result


def exchange(base_url: str, code: str, client_id: str = WEB_CLIENT, redirect_uri: str | None = REDIRECT_URI, **extra):
    data = {"client_id": client_id, "client_secret": client_secret(base_url, client_id),
            "grant_type": "authorization_code", "code": code, **extra}
    if redirect_uri is not None:
        data["redirect_uri"] = redirect_uri
    return requests.post(f"{base_url}/auth/token", data=data, timeout=10)


def verify_with_pyjwt(base_url: str, token: str, audience: str = WEB_CLIENT) -> dict:
    """The verification Apple documents, done with PyJWT's JWKS client as RPs do."""
    signing_key = jwt.PyJWKClient(f"{base_url}/auth/keys").get_signing_key_from_jwt(token)
    return jwt.decode(token, signing_key.key, algorithms=["RS256"], audience=audience, issuer=APPLE_ISSUER)


def user_field(result: dict):
    return json.loads(result["user"]) if "user" in result else None


def advance_clock(base_url: str, seconds: int) -> None:
    assert requests.post(f"{base_url}/__admin/clock", json={"advance": seconds}, timeout=10).status_code == 200
