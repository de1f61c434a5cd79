"""A relying party's web sign-in, run in a container beside mock-appleid (Python's standard library only):
reads the discovery document at $ISSUER_URL, opens the authorize URL (the server approves headlessly as
`serve --auto-approve` says), takes the form_post's code and state, redeems the code with $CLIENT_SECRET,
and verifies the id_token as an RP must (RS256 signature against the published keys, iss, aud, exp,
nonce). Prints `signed in: <sub> <email>` and exits 0, or says what failed and exits 1. HTTPS is trusted
through SSL_CERT_FILE (the local CA, from a volume the server shares)."""
import base64
import hashlib
import html.parser
import json
import os
import secrets
import sys
import time
import urllib.parse
import urllib.request

SHA256_DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")


class FormReader(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.fields = {}

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "input" and attributes.get("name"):
            self.fields[attributes["name"]] = attributes.get("value") or ""


def b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def fetch(url: str, form=None) -> bytes:
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=30) as answer:
        return answer.read()


def verify_rs256(token: str, keys: dict) -> dict:
    head, body, signature = token.split(".")
    header = json.loads(b64url(head))
    if header.get("alg") != "RS256":
        raise ValueError(f"alg {header.get('alg')}")
    key = next((key for key in keys["keys"] if key["kid"] == header["kid"]), None)
    if key is None:
        raise ValueError(f"kid {header['kid']} is not published")
    modulus = int.from_bytes(b64url(key["n"]), "big")
    exponent = int.from_bytes(b64url(key["e"]), "big")
    size = (modulus.bit_length() + 7) // 8
    encoded = pow(int.from_bytes(b64url(signature), "big"), exponent, modulus).to_bytes(size, "big")
    digest = SHA256_DIGEST_INFO + hashlib.sha256(f"{head}.{body}".encode()).digest()
    if encoded != b"\x00\x01" + b"\xff" * (size - len(digest) - 3) + b"\x00" + digest:
        raise ValueError("the signature does not verify")
    return json.loads(b64url(body))


def main() -> int:
    issuer_url = os.environ["ISSUER_URL"].rstrip("/")
    client_id = os.environ.get("CLIENT_ID", "com.example.web")
    redirect_uri = os.environ.get("REDIRECT_URI", "http://localhost:3000/auth/apple/callback")
    discovery = json.loads(fetch(f"{issuer_url}/.well-known/openid-configuration"))
    state, nonce = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
    query = urllib.parse.urlencode({"client_id": client_id, "redirect_uri": redirect_uri, "response_type": "code",
                                    "response_mode": "form_post", "scope": "name email", "state": state, "nonce": nonce})
    page = FormReader()
    page.feed(fetch(f"{discovery['authorization_endpoint']}?{query}").decode())
    if page.fields.get("state") != state or "code" not in page.fields:
        raise ValueError(f"the form_post carried {sorted(page.fields)} (state matches: {page.fields.get('state') == state})")
    tokens = json.loads(fetch(discovery["token_endpoint"], form={
        "client_id": client_id, "client_secret": os.environ["CLIENT_SECRET"], "grant_type": "authorization_code",
        "code": page.fields["code"], "redirect_uri": redirect_uri}))
    claims = verify_rs256(tokens["id_token"], json.loads(fetch(discovery["jwks_uri"])))
    checks = {"iss": claims.get("iss") == "https://appleid.apple.com", "aud": claims.get("aud") == client_id,
              "exp": claims.get("exp", 0) > time.time() - 60, "nonce": claims.get("nonce") == nonce}
    failed = [name for name, passed in checks.items() if not passed]
    if failed:
        raise ValueError(f"the id_token's {', '.join(failed)} is wrong: {claims}")
    print(f"signed in: {claims['sub']} {claims.get('email', '')} via {discovery['token_endpoint']}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as error:  # the container's output is the test's evidence
        print(f"sign-in failed: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
