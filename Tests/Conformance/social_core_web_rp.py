"""social-core's AppleIdAuth hosted as a small web site for the audit, as a Django or Flask integration hosts it:
a session cookie, `auth_url()` at the start and `auth_complete()` at the callback, the session id rotated at
sign-in (as Django's login does). The backend is unmodified but for its three Apple URLs, which point at the
audit's server (social-core has them as class attributes). Prints "ready PORT" once it listens.

    python social_core_web_rp.py --apple http://127.0.0.1:8080 [--cookie lax|none]
"""
import argparse
import html
import http.server
import secrets
import threading
import urllib.parse

from social_core.backends.apple import AppleIdAuth
from social_core.exceptions import SocialAuthBaseException

from audit_rp import SiteHandler
from social_core_rp import RelyingPartyStrategy


class SiteStrategy(RelyingPartyStrategy):
    """The conformance suite's strategy with this request's session, data and return URL."""

    def __init__(self, session: dict, data: dict, callback: str):
        super().__init__()
        self.session = session
        self.data = data
        self.callback = callback

    def build_absolute_uri(self, path=None):
        return self.callback


def make_handler(callback: str, cookie_marks: str):
    sessions: dict[str, dict] = {}
    lock = threading.Lock()

    class Handler(SiteHandler):
        def session(self, create: bool = False) -> tuple[str, dict]:
            """The request's session; a new one only where a sign-in starts."""
            sid = self.cookies().get("sid", "")
            with lock:
                if sid not in sessions:
                    if not create:
                        return "", {}
                    sid = secrets.token_urlsafe(16)
                    sessions[sid] = {}
                return sid, sessions[sid]

        def cookie(self, sid: str) -> tuple[str, str]:
            return "Set-Cookie", f"sid={sid}; Path=/; HttpOnly{cookie_marks}"

        def do_GET(self):
            path = urllib.parse.urlsplit(self.path).path
            sid, session = self.session(create=path == "/login")
            if path == "/login":
                backend = AppleIdAuth(SiteStrategy(session, {}, callback), redirect_uri=callback)
                return self.answer(302, "", [("Location", backend.auth_url()), self.cookie(sid)])
            if path == "/me":
                user = session.get("user")
                if user is None:
                    return self.answer(401, "<p>not signed in</p>")
                return self.answer(200, f"<p>signed in as {html.escape(user['uid'])} ({html.escape(str(user['email']))})</p>")
            self.answer(404, "<p>not found</p>")

        def do_POST(self):
            if urllib.parse.urlsplit(self.path).path != "/callback":
                return self.answer(404, "<p>not found</p>")
            form = self.form()
            _, session = self.session()
            try:
                user = AppleIdAuth(SiteStrategy(session, form, callback), redirect_uri=callback).auth_complete()
            except (SocialAuthBaseException, ValueError) as error:
                return self.answer(400, f"<p>sign-in refused: {html.escape(str(error))}</p>")
            fresh = secrets.token_urlsafe(16)
            with lock:
                sessions.pop(self.cookies().get("sid", ""), None)
                sessions[fresh] = {"user": {"uid": user.uid, "email": user.details.get("email")}}
            self.answer(303, "", [("Location", "/me"), self.cookie(fresh)])

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--apple", required=True)
    parser.add_argument("--cookie", choices=["lax", "none"], default="lax", help="the session cookie's SameSite (Django's default: Lax)")
    arguments = parser.parse_args()
    apple = arguments.apple.rstrip("/")
    AppleIdAuth.AUTHORIZATION_URL = f"{apple}/auth/authorize"
    AppleIdAuth.ACCESS_TOKEN_URL = f"{apple}/auth/token"
    AppleIdAuth.JWK_URL = f"{apple}/auth/keys"
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    port = server.server_address[1]
    marks = {"lax": "; SameSite=Lax", "none": "; SameSite=None; Secure"}[arguments.cookie]
    server.RequestHandlerClass = make_handler(f"http://127.0.0.1:{port}/callback", marks)
    print(f"ready {port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
