"""A small Sign in with Apple relying party for the audit's tests (standard library and PyJWT).

Correct by default; `--broken CHECK` leaves out exactly one check (or, as `front_channel`, never reads the
identity token that comes with the code; as `signup`, asks a person whose `sub` is new and whose email is taken to
sign up rather than comparing the two tokens' people; as `nonce_reuse`, sends one nonce for every sign-in; as
`response_mode`, also takes Apple's answer by GET; as `notification_types`, acts on any notification; as `token_age`,
bounds neither a token's age nor its lifetime; as `email_match`, signs a person in to the account whose email matches theirs
case-insensitively; as `token_shape`, wants `token_type` `Bearer` and an `expires_in` from the token endpoint), `--cookie` chooses how the state cookie
is marked (the start sends a PKCE S256 challenge, but for Sign in with Apple JS), `--flow code` asks for the code alone (no identity token on the front channel), and
`--misbehave` makes it answer badly; `--start post` begins sign-in as Auth.js does (its start page is a form whose
button posts a CSRF token that must match a cookie, and only that POST leads to Apple), `--start popup` is a
single-page app on the served Sign in with Apple JS in popup mode, which posts Apple's answer to its backend as JSON
(`--broken signature` then decodes the popup's id_token without verifying it); `--native-nonce sha256` is an iOS app that passes Apple the SHA-256 (hex) of the
nonce it posts; `--tls CERT KEY` serves it over https (and `--cookie by-scheme` marks its state cookie
`SameSite=None; Secure` over https only, as some libraries do). It prints "ready PORT" once it listens.

    python audit_rp.py --apple http://127.0.0.1:8080 --key Keys/AuthKey_MOCKKEY001.p8 [--port 0] [--host localhost]
                       [--broken nonce] [--cookie none|lax|unset] [--flow hybrid|code] [--misbehave loop]
                       [--native-nonce raw|sha256] [--listen 0.0.0.0] [--start link|post|popup]
"""
import argparse
import base64
import hashlib
import hmac
import html
import http.server
import json
import os
import secrets
import ssl
import threading
import time
import urllib.parse

import jwt
import requests
from cryptography.hazmat.primitives import serialization

TEAM_ID = "MOCKTEAM01"
KEY_ID = "MOCKKEY001"
CLIENT_ID = "com.example.web"
ISSUER = "https://appleid.apple.com"
BUNDLE_ID = "com.example.app"
BROKEN_CHECKS = ["signature", "algorithm", "aud", "nonce", "state", "exp", "replay", "user_email", "user_email_fallback",
                 "front_channel", "signup", "native_decode", "unsigned_notifications", "nonce_reuse", "response_mode", "notification_types",
                 "token_age", "email_match", "token_shape"]
# The longest an identity token may have lived, and the longest lifetime it may claim: Apple's live a day at most.
MAX_TOKEN_AGE = 2 * 86400


class Refused(Exception):
    """The sign-in is refused: answered with a 400 page, never a 5xx."""


class SignUp(Exception):
    """The sign-in stops at a sign-up form (a new person whose email an account has): no session yet."""


class RelyingParty:
    def __init__(self, origin: str, apple: str, private_key: str, broken: str | None, cookie: str, flow: str,
                 native_nonce: str = "raw", keys_cooldown: float = 30):
        self.callback = f"{origin}/callback"
        self.apple = apple
        self.private_key = private_key
        self.broken = broken
        self.cookie = cookie
        self.flow = flow
        self.native_nonce = native_nonce
        # PyJWT fetches the keys again for an unknown kid at most once per `keys_cooldown` seconds (30 by default).
        self.keys = jwt.PyJWKClient(f"{apple}/auth/keys", cache_keys=True, timeout=10, cooldown_duration=keys_cooldown)
        self.sessions: dict[str, dict] = {}
        self.redeemed: dict[str, dict] = {}
        self.used_states: set[str] = set()
        self.accounts: dict[str, str | None] = {}  # sub: email, for `signup`
        self.notified: set[str] = set()
        self.reused_nonce = secrets.token_urlsafe(16)
        self.lock = threading.Lock()

    # The sign-in's start: state, nonce and PKCE verifier in a cookie, then Apple's authorize endpoint (Sign in with Apple
    # JS, `pkce` False, sends no code_challenge).
    def start(self, pkce: bool = True) -> tuple[str, list[str]]:
        state, verifier = secrets.token_urlsafe(16), secrets.token_urlsafe(32) if pkce else ""
        nonce = self.reused_nonce if self.broken == "nonce_reuse" else secrets.token_urlsafe(16)
        query = {"client_id": CLIENT_ID, "redirect_uri": self.callback, "response_mode": "form_post", "scope": "name email",
                 "response_type": "code id_token" if self.flow == "hybrid" else "code", "state": state, "nonce": nonce}
        if pkce:
            challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
            query.update(code_challenge=challenge, code_challenge_method="S256")
        by_scheme = "; SameSite=None; Secure" if self.callback.startswith("https:") else ""
        marks = {"none": "; SameSite=None; Secure", "lax": "; SameSite=Lax", "unset": "", "by-scheme": by_scheme}[self.cookie]
        cookie = f"rp_auth={state}.{nonce}.{verifier}; Path=/; HttpOnly{marks}"
        return f"{self.apple}/auth/authorize?" + urllib.parse.urlencode(query, quote_via=urllib.parse.quote), [cookie]

    # Apple's form_post: checks everything, then opens a session.
    def finish(self, form: dict, cookies: dict) -> str:
        if "error" in form:
            raise Refused(f"Apple says {form['error']}")
        state, _, rest = cookies.get("rp_auth", "").partition(".")
        nonce, _, verifier = rest.partition(".")
        if self.broken != "state" and (not state or form.get("state") != state):
            raise Refused("state does not match")
        if self.broken not in ("state", "replay"):
            with self.lock:
                if state in self.used_states:
                    raise Refused("state already used")
                self.used_states.add(state)
        code = form.get("code") or ""
        front = None
        if self.flow == "hybrid" and self.broken != "front_channel":
            front = self.verify(form.get("id_token") or "", nonce)
            if front.get("c_hash") != token_hash(code):
                raise Refused("c_hash does not match the code")
        if self.broken == "replay" and code in self.redeemed:
            claims = self.redeemed[code]  # a code seen before is not exchanged again
        else:
            claims = self.verify(self.exchange(code, verifier), nonce)
            self.redeemed[code] = claims
        if front is not None and front["sub"] != claims["sub"] and self.broken != "signup":
            raise Refused("the two identity tokens name different people")
        email = claims.get("email")
        user = json.loads(form["user"]) if form.get("user") else {}
        if self.broken == "user_email" and user.get("email"):
            email = user["email"]
        if self.broken == "user_email_fallback" and not email:
            email = user.get("email")
        if self.broken == "email_match":  # an account whose email matches case-insensitively (casefold) is this person's
            with self.lock:
                known = [sub for sub, seen in self.accounts.items() if email and seen and seen.casefold() == email.casefold()]
                claims = {**claims, "sub": known[0]} if known else claims
                self.accounts.setdefault(claims["sub"], email)
        if self.broken == "signup":
            with self.lock:
                if claims["sub"] not in self.accounts and email is not None and email in self.accounts.values():
                    raise SignUp(email)
                self.accounts[claims["sub"]] = email
        if claims.get("email_verified") not in (True, False, "true", "false", None):
            raise Refused("email_verified is neither a boolean nor its string")
        return self.open_session(claims["sub"], email)

    # The iOS app's post: the identity token, checked as any other (aud is the bundle ID), and its nonce.
    def native(self, body: dict) -> str:
        token, nonce = body.get("identityToken") or "", body.get("nonce") or ""
        if self.native_nonce == "sha256":
            nonce = hashlib.sha256(nonce.encode()).hexdigest()
        checks = self.broken != "native_decode"
        claims = self.decode(token, checks, ["iss", "aud", "exp", "iat", "sub"], "identity token")
        if checks and claims.get("nonce") != nonce:
            raise Refused("nonce does not match")
        return self.open_session(claims["sub"], claims.get("email"))

    # A token for the app (bundle ID) verified as Apple signs it, or with `checks` off only decoded.
    def decode(self, token: str, checks: bool, required: list[str], what: str) -> dict:
        try:
            if not checks:
                return jwt.decode(token, options={"verify_signature": False})
            key = self.keys.get_signing_key_from_jwt(token)
            return jwt.decode(token, key, algorithms=["RS256"], audience=BUNDLE_ID, issuer=ISSUER, leeway=60,
                              options={"strict_aud": True, "require": required})
        except (jwt.PyJWTError, ValueError) as error:
            raise Refused(f"{what} refused: {error}") from error

    # Apple's server-to-server notification: verified, acted on once per jti.
    def notify(self, body: dict) -> None:
        checks = self.broken != "unsigned_notifications"
        claims = self.decode(body.get("payload") or "", checks, ["iss", "aud", "exp", "iat", "jti"], "notification")
        if checks:
            if claims["jti"] in self.notified:
                return
            self.notified.add(claims["jti"])
        events = claims.get("events")
        event = json.loads(events) if isinstance(events, str) else events or {}
        if event.get("type") in ("consent-revoked", "account-delete", "account-deleted") or self.broken == "notification_types":
            with self.lock:
                for session in [key for key, value in self.sessions.items() if value["sub"] == event.get("sub")]:
                    del self.sessions[session]

    def open_session(self, sub: str, email) -> str:
        session = secrets.token_urlsafe(16)
        with self.lock:
            self.sessions[session] = {"sub": sub, "email": email}
        return session

    def verify(self, token: str, nonce: str) -> dict:
        try:
            if self.broken == "algorithm":
                claims = self.decode_with_the_tokens_algorithm(token)
            elif self.broken == "signature":
                options = {"verify_signature": False, "verify_exp": True, "verify_iat": True, "verify_aud": True, "verify_iss": True,
                           "strict_aud": True}
                claims = jwt.decode(token, options=options, audience=CLIENT_ID, issuer=ISSUER, leeway=60)
            else:
                key = self.keys.get_signing_key_from_jwt(token)
                options = {"strict_aud": True, "verify_aud": self.broken != "aud", "verify_exp": self.broken != "exp",
                           "require": ["iss", "aud", "exp", "iat", "sub"]}
                claims = jwt.decode(token, key, algorithms=["RS256"], audience=CLIENT_ID, issuer=ISSUER, leeway=60, options=options)
        except (jwt.PyJWTError, ValueError) as error:
            raise Refused(f"identity token refused: {error}") from error
        issued, expires = claims.get("iat"), claims.get("exp")
        if self.broken != "token_age" and isinstance(issued, (int, float)) and (time.time() - issued > MAX_TOKEN_AGE
                                                 or isinstance(expires, (int, float)) and expires - issued > MAX_TOKEN_AGE):
            raise Refused("identity token refused: issued too long ago, or living too long")
        if self.broken != "nonce" and claims.get("nonce") != nonce:
            raise Refused("nonce does not match")
        return claims

    # Takes the algorithm from the token's header, and the public key's PEM file as the key whatever it is:
    # the key-confusion bug (the checks of the claims stay).
    def decode_with_the_tokens_algorithm(self, token: str) -> dict:
        header = jwt.get_unverified_header(token)
        if header.get("alg") not in ("none", "HS256"):
            return jwt.decode(token, self.keys.get_signing_key_from_jwt(token), algorithms=["RS256"], audience=CLIENT_ID, issuer=ISSUER,
                              leeway=60, options={"strict_aud": True, "require": ["iss", "aud", "exp", "iat", "sub"]})
        if header["alg"] == "HS256":
            key = self.keys.get_signing_key(header.get("kid")).key
            pem = key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
            head, body, signature = token.encode().split(b".")
            expected = base64.urlsafe_b64encode(hmac.new(pem, head + b"." + body, hashlib.sha256).digest()).rstrip(b"=")
            if not hmac.compare_digest(expected, signature):
                raise Refused("HS256 signature does not verify")
        options = {"verify_signature": False, "verify_exp": True, "verify_iat": True, "verify_aud": True, "verify_iss": True, "strict_aud": True}
        return jwt.decode(token, options=options, audience=CLIENT_ID, issuer=ISSUER, leeway=60)

    def exchange(self, code: str, verifier: str = "") -> str:
        now = int(time.time())
        secret = jwt.encode({"iss": TEAM_ID, "iat": now, "exp": now + 600, "aud": ISSUER, "sub": CLIENT_ID}, self.private_key,
                            algorithm="ES256", headers={"kid": KEY_ID})
        form = {"client_id": CLIENT_ID, "client_secret": secret, "grant_type": "authorization_code", "code": code,
                "redirect_uri": self.callback, **({"code_verifier": verifier} if verifier else {})}
        try:
            answer = requests.post(f"{self.apple}/auth/token", data=form, timeout=30)
        except requests.RequestException as error:
            raise Refused(f"the token endpoint failed: {error}") from error
        if answer.status_code != 200:
            raise Refused(f"the token endpoint answered {answer.status_code}")
        try:
            if self.broken == "token_shape" and (answer.json().get("token_type") != "Bearer" or "expires_in" not in answer.json()):
                raise Refused("the token endpoint's answer is not shaped as expected")
            return answer.json()["id_token"]
        except (ValueError, KeyError) as error:
            raise Refused("the token endpoint's answer has no id_token") from error


def token_hash(value: str) -> str:
    digest = hashlib.sha256(value.encode()).digest()
    return base64.urlsafe_b64encode(digest[: len(digest) // 2]).rstrip(b"=").decode()


MISBEHAVIOURS = ["garbage", "error", "loop", "offsite", "callback-error", "foreign-return-url"]
# A return URL the built-in scenario registers, on a host that is not the relying party's.
FOREIGN_RETURN_URL = "https://app.example.com/auth/apple/callback"


class SiteHandler(http.server.BaseHTTPRequestHandler):
    """What a small site's handler needs: its cookies, a bounded form, and an answer."""

    def log_message(self, *args):
        pass

    def cookies(self) -> dict:
        pairs = (part.strip().partition("=") for part in self.headers.get("Cookie", "").split(";") if "=" in part)
        return {name: value for name, _, value in pairs}

    def form(self) -> dict:
        length = min(int(self.headers.get("Content-Length", "0") or 0), 65536)
        return dict(urllib.parse.parse_qsl(self.rfile.read(length).decode(errors="replace")))

    def answer(self, status: int, body: str, headers: list[tuple[str, str]] = ()):
        data = body.encode()
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


# The single-page app of `--start popup`: Sign in with Apple JS in popup mode, Apple's answer posted to the backend.
POPUP_PAGE = """<!doctype html><title>Sign in</title>
<script src="APPLE/appleauth/static/jsapi/appleid/1/en_US/appleid.auth.js"></script>
<button id="sign-in">Sign in with Apple</button><p id="status"></p>
<script>
AppleID.auth.init(SETTINGS);
document.getElementById("sign-in").addEventListener("click", async function () {
  var status = document.getElementById("status");
  try {
    var answer = await AppleID.auth.signIn();
    var response = await fetch("/auth/apple", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(answer)});
    if (response.ok) { location.assign("/me"); } else { status.textContent = "sign-in refused: " + await response.text(); }
  } catch (failure) {
    status.textContent = "sign-in failed: " + JSON.stringify(failure);
  }
});
</script>"""


def make_handler(rp: RelyingParty, misbehave: str | None, start: str = "link"):
    class Handler(SiteHandler):
        def do_GET(self):
            path = urllib.parse.urlsplit(self.path).path
            if path == "/login" and misbehave in ("garbage", "error", "loop", "offsite"):
                self.answer_badly()
            elif path == "/login" and start == "post":
                token = secrets.token_urlsafe(16)
                self.answer(200, '<form method="post" action="/login"><input type="hidden" name="csrfToken" value="' + token + '">'
                                 '<button id="sign-in" type="submit">Sign in with Apple</button></form>',
                            [("Set-Cookie", f"rp_csrf={token}; Path=/; HttpOnly; SameSite=Lax")])
            elif path == "/login" and start == "popup":
                location, cookies = rp.start(pkce=False)
                query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
                settings = {"clientId": query["client_id"], "redirectURI": query["redirect_uri"], "scope": query["scope"],
                            "state": query["state"], "nonce": query["nonce"], "usePopup": True}
                self.answer(200, POPUP_PAGE.replace("APPLE", html.escape(rp.apple)).replace("SETTINGS", json.dumps(settings)),
                            [("Set-Cookie", cookie) for cookie in cookies])
            elif path == "/login":
                location, cookies = rp.start()
                if misbehave == "foreign-return-url":
                    location = location.replace(urllib.parse.quote(rp.callback, safe=""), urllib.parse.quote(FOREIGN_RETURN_URL, safe=""))
                self.answer(302, "", [("Location", location)] + [("Set-Cookie", cookie) for cookie in cookies])
            elif path == "/callback" and rp.broken == "response_mode":
                self.do_POST(dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query)))
            elif path == "/signup":
                self.answer(200, "<form method=post><p>An account uses this email. Choose a username to sign up:</p>"
                                 "<input name=username></form>")
            elif path == "/me":
                with rp.lock:
                    session = rp.sessions.get(self.cookies().get("rp_session", ""))
                if session is None:
                    self.answer(401, "<p>not signed in</p>")
                else:
                    self.answer(200, f"<p>signed in as {html.escape(session['sub'])} ({html.escape(str(session['email']))})</p>")
            else:
                self.answer(404, "<p>not found</p>")

        def post_json(self, path: str):
            length = min(int(self.headers.get("Content-Length", "0") or 0), 65536)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
                if path == "/native":
                    return self.answer(200, json.dumps({"session": rp.native(body)}))
                rp.notify(body)
                return self.answer(200, "{}")
            except (Refused, ValueError, AttributeError) as refusal:
                return self.answer(400, json.dumps({"error": str(refusal)}))

        def post_popup_answer(self):
            """The single-page app's backend: the answer the SDK resolved with, checked as the form_post is."""
            length = min(int(self.headers.get("Content-Length", "0") or 0), 65536)
            clear = ("Set-Cookie", "rp_auth=; Path=/; Max-Age=0")
            try:
                answer = json.loads(self.rfile.read(length) or b"{}")
                form = {name: value for name, value in answer.get("authorization", {}).items() if isinstance(value, str)}
                if answer.get("user") is not None:
                    form["user"] = json.dumps(answer["user"])
                session = rp.finish(form, self.cookies())
            except (Refused, SignUp, ValueError, AttributeError) as refusal:
                return self.answer(400, json.dumps({"error": str(refusal) or "refused"}), [clear])
            self.answer(200, "{}", [clear, ("Set-Cookie", f"rp_session={session}; Path=/; HttpOnly; SameSite=Lax")])

        def answer_badly(self):
            if misbehave == "garbage":
                self.answer(200, "\x00\x01 not a page \ufffd" * 100)
            elif misbehave == "error":
                self.answer(500, "<p>internal error</p>")
            elif misbehave == "loop":
                self.answer(302, "", [("Location", "/login")])
            else:
                self.answer(302, "", [("Location", "http://elsewhere.invalid/login")])

        def do_POST(self, form: dict | None = None):
            path = urllib.parse.urlsplit(self.path).path
            if path in ("/native", "/notifications"):
                return self.post_json(path)
            if path == "/auth/apple" and start == "popup":
                return self.post_popup_answer()
            if path == "/login" and start == "post":
                token = self.cookies().get("rp_csrf")
                if not token or self.form().get("csrfToken") != token:
                    return self.answer(403, "<p>CSRF token missing or wrong</p>")
                location, cookies = rp.start()
                return self.answer(302, "", [("Location", location)] + [("Set-Cookie", cookie) for cookie in cookies])
            if path != "/callback":
                return self.answer(404, "<p>not found</p>")
            if misbehave == "callback-error":
                return self.answer(500, "<p>Traceback: something broke</p>")
            form = self.form() if form is None else form
            clear = ("Set-Cookie", "rp_auth=; Path=/; Max-Age=0")
            try:
                session = rp.finish(form, self.cookies())
            except Refused as refusal:
                return self.answer(400, f"<p>sign-in refused: {html.escape(str(refusal))}</p>", [clear])
            except SignUp:
                return self.answer(303, "", [("Location", "/signup"), clear])
            self.answer(303, "", [("Location", "/me"), clear, ("Set-Cookie", f"rp_session={session}; Path=/; HttpOnly; SameSite=Lax")])

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--host", default="127.0.0.1", help="the host name in its own URLs")
    parser.add_argument("--listen", default="127.0.0.1", help="the address it listens on (0.0.0.0 in a container)")
    parser.add_argument("--apple", default=os.environ.get("ISSUER_URL"), help="Apple's base URL (default: $ISSUER_URL)")
    parser.add_argument("--key", required=True, help="the developer key (.p8) client secrets are signed with")
    parser.add_argument("--broken", choices=BROKEN_CHECKS)
    parser.add_argument("--cookie", choices=["none", "lax", "unset", "by-scheme"], default="none")
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="serve over https with this certificate and key")
    parser.add_argument("--keys-cooldown", type=float, default=30, help="seconds between fetches of the keys for an unknown kid")
    parser.add_argument("--flow", choices=["hybrid", "code"], default="hybrid")
    parser.add_argument("--misbehave", choices=MISBEHAVIOURS)
    parser.add_argument("--native-nonce", choices=["raw", "sha256"], default="raw")
    parser.add_argument("--start", choices=["link", "post", "popup"], default="link",
                        help="how sign-in begins: a link, a form posting a CSRF token, or Sign in with Apple JS's popup")
    arguments = parser.parse_args()
    if not arguments.apple:
        parser.error("--apple (or $ISSUER_URL) is required")
    with open(arguments.key) as key_file:
        private_key = key_file.read()
    server = http.server.ThreadingHTTPServer((arguments.listen, arguments.port), http.server.BaseHTTPRequestHandler)
    port = server.server_address[1]
    if arguments.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*arguments.tls)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    rp = RelyingParty(f"{'https' if arguments.tls else 'http'}://{arguments.host}:{port}", arguments.apple.rstrip("/"), private_key, arguments.broken, arguments.cookie,
                      arguments.flow, arguments.native_nonce, arguments.keys_cooldown)
    server.RequestHandlerClass = make_handler(rp, arguments.misbehave, arguments.start)
    print(f"ready {port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
