"""Server-to-server notifications, received by a real HTTP receiver on loopback and verified with PyJWT
against /auth/keys, as a relying party's endpoint verifies Apple's."""
import contextlib
import http.server
import json
import socket
import threading
import time

import jwt
import requests

from appleid import APPLE_ISSUER, authorize_url, sign_in
from native_rp import jwks_client
from server_process import ROOT, run_cli, serving

GROUP = "com.example.app"
DEADLINE_SECONDS = 15


class Receiver:
    """An RP's notification endpoint: records every POST body, answers with `statuses` in turn (then
    200), and can stall its first answer for `hang_seconds`: the status line and headers are sent, the
    promised body never is, and the connection closes after the stall."""

    def __init__(self, statuses=(), hang_seconds=0.0, port=0):
        self.statuses = list(statuses)
        self.hang_seconds = hang_seconds
        self.bodies: list[dict] = []
        self.accepted: list[dict] = []
        lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with lock:
                    hang, receiver.hang_seconds = receiver.hang_seconds, 0
                    status = receiver.statuses.pop(0) if receiver.statuses else 200
                    receiver.bodies.append(body)
                if hang:  # the head of a 200, then nothing: the sender must give up on its own
                    self.send_response(200)
                    self.send_header("Content-Length", "10")
                    self.end_headers()
                    self.wfile.flush()
                    time.sleep(hang)
                    self.close_connection = True
                    return
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()
                if status == 200:
                    with lock:
                        receiver.accepted.append(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/apple/notifications"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@contextlib.contextmanager
def receiving(**options):
    receiver = Receiver(**options)
    try:
        yield receiver
    finally:
        receiver.close()


def wait_for(condition, what: str):
    """Polls `condition` until it returns something true, and returns that; fails after DEADLINE_SECONDS."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not (value := condition()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)
    return value


def register(base_url, url, app=GROUP):
    response = requests.put(f"{base_url}/__admin/apps/{app}/notification-url", json={"url": url}, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def deliveries(base_url) -> list:
    return requests.get(f"{base_url}/__admin/notifications", timeout=10).json()["deliveries"]


def freeze_clock(base_url):
    """Stops the shared server's running clock, so retries fire only when a test advances it."""
    assert requests.post(f"{base_url}/__admin/clock", json={"frozen": True}, timeout=10).status_code == 200


def advance(base_url, seconds):
    assert requests.post(f"{base_url}/__admin/clock", json={"advance": seconds}, timeout=10).status_code == 200


def notify(base_url, type_, persona="jane", app=GROUP) -> dict:
    response = requests.post(f"{base_url}/__admin/notifications", json={"type": type_, "persona": persona, "app": app}, timeout=10)
    assert response.status_code == 201, response.text
    return response.json()


def verified(base_url, body: dict, audience=GROUP, leeway=0) -> tuple[dict, dict]:
    """PyJWT: the payload's key by kid from /auth/keys, RS256, iss, aud, exp, iat; and the decoded events.
    `leeway`: for payloads signed after a test moved the mock clock ahead of real time."""
    token = body["payload"]
    key = jwks_client(base_url).get_signing_key_from_jwt(token)
    claims = jwt.decode(token, key.key, algorithms=["RS256"], audience=audience, issuer=APPLE_ISSUER, leeway=leeway,
                        options={"require": ["iss", "aud", "iat", "exp", "jti", "events"]})
    events = claims["events"]
    return claims, json.loads(events) if isinstance(events, str) else events


def id_token_claims(base_url, persona) -> dict:
    """The claims of the persona's identity token after a web sign-in (read unverified: only to compare)."""
    token = sign_in(base_url, authorize_url(base_url, response_type="code id_token"), persona)["id_token"]
    return jwt.decode(token, options={"verify_signature": False})


def test_consent_revoked_is_posted_signed_and_verifies(base_url):
    with receiving() as receiver:
        assert register(base_url, receiver.url) == {"app": GROUP, "notificationURL": receiver.url}
        subject = id_token_claims(base_url, "jane")["sub"]
        revoked = requests.post(f"{base_url}/__admin/personas/jane/revoke-consent", json={"client": "com.example.web"}, timeout=10)
        assert revoked.status_code == 200, revoked.text
        wait_for(lambda: receiver.accepted, "the notification")
        claims, events = verified(base_url, receiver.accepted[0])
        assert isinstance(claims["events"], str)  # a JSON-encoded string, as Apple sends it
        assert events["type"] == "consent-revoked" and events["sub"] == subject
        # event_time in milliseconds, iat in seconds: signed at or after the event, within a minute.
        assert events["event_time"] // 1000 <= claims["iat"] <= events["event_time"] // 1000 + 60
        assert claims["exp"] - claims["iat"] == 86400 and len(claims["jti"]) == 22
        wait_for(lambda: deliveries(base_url)[0]["status"] == "delivered", "the delivered status")
        [delivery] = deliveries(base_url)
        assert delivery["id"] == claims["jti"] and [a["outcome"] for a in delivery["attempts"]] == ["HTTP 200"]


def test_account_deletion_and_forwarding_events_carry_what_apple_sends(base_url):
    with receiving() as receiver:
        register(base_url, receiver.url)
        relay = id_token_claims(base_url, "john")["email"]  # john hides his email
        patched = requests.patch(f"{base_url}/__admin/personas/john", json={"relayForwarding": False}, timeout=10)
        assert patched.status_code == 200 and patched.json()["relayForwarding"] is False
        assert requests.post(f"{base_url}/__admin/personas/john/delete-account", json={}, timeout=10).status_code == 200
        wait_for(lambda: len(receiver.accepted) == 2, "two notifications")
        events = sorted((verified(base_url, body)[1] for body in receiver.accepted), key=lambda e: e["type"])
        assert [e["type"] for e in events] == ["account-delete", "email-disabled"]
        assert events[1]["email"] == relay and events[1]["is_private_email"] == "true"
        assert "email" not in events[0]


def test_a_receiver_that_refuses_for_a_while_gets_every_event(base_url):
    freeze_clock(base_url)
    with receiving(statuses=[503] * 6) as receiver:
        register(base_url, receiver.url)
        sent = [notify(base_url, kind)["id"] for kind in ("consent-revoked", "email-disabled", "account-delete")]
        wait_for(lambda: len(receiver.bodies) == 3, "the first attempts")
        wait_for(lambda: all(d["status"] == "pending" and d["attempts"] for d in deliveries(base_url)), "the failures recorded")
        assert not receiver.accepted
        advance(base_url, 5)  # the schedule's first wait, on the mock clock: retried at once
        wait_for(lambda: len(receiver.bodies) == 6, "the second attempts")
        wait_for(lambda: all(len(d["attempts"]) == 2 for d in deliveries(base_url)), "the second failures recorded")
        advance(base_url, 30)
        wait_for(lambda: len(receiver.accepted) == 3, "every event delivered")
        received = [verified(base_url, body, leeway=60)[0]["jti"] for body in receiver.accepted]
        assert sorted(received) == sorted(sent)
        for delivery in deliveries(base_url):
            assert delivery["status"] == "delivered"
            assert [a["outcome"] for a in delivery["attempts"]] == ["HTTP 503", "HTTP 503", "HTTP 200"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_refused_connections_keep_the_event_until_an_admin_retry(base_url):
    freeze_clock(base_url)
    port = free_port()
    register(base_url, f"http://127.0.0.1:{port}/apple/notifications")
    sent = notify(base_url, "consent-revoked")["id"]
    wait_for(lambda: deliveries(base_url)[0]["attempts"], "the refused attempt")
    [delivery] = deliveries(base_url)
    assert delivery["status"] == "pending" and not delivery["attempts"][0]["succeeded"]
    with receiving(port=port) as receiver:
        retried = requests.post(f"{base_url}/__admin/notifications/retry", json={}, timeout=10)
        assert retried.json() == {"retried": 1}
        wait_for(lambda: receiver.accepted, "the retried delivery")
        assert verified(base_url, receiver.accepted[0])[0]["jti"] == sent


def test_scenario_knobs_shape_the_payload_and_a_stalled_answer_times_out(tmp_path):
    with receiving(hang_seconds=3) as receiver:
        scenario = tmp_path / "notifications.yaml"
        scenario.write_text(f"""base: default
name: notifications
notifications: {{accountDeletedType: account-deleted, events: object, eventTime: seconds, attemptTimeout: 1, retrySchedule: [60]}}
teams:
  - id: MOCKTEAM01
    keys: [{{kid: MOCKKEY001, file: {ROOT}/Keys/AuthKey_MOCKKEY001.p8}}]
    apps:
      - primaryAppID: com.example.app
        notificationURL: {receiver.url}
        servicesIDs: [{{id: com.example.web, returnURLs: ["http://localhost:3000/auth/apple/callback"]}}]
""")
        with serving("--scenario", str(scenario)) as base_url:
            notify(base_url, "account-delete")
            wait_for(lambda: deliveries(base_url)[0]["attempts"], "the timed-out attempt")
            attempt = deliveries(base_url)[0]["attempts"][0]
            assert not attempt["succeeded"] and "timed out" in attempt["outcome"]
            advance(base_url, 60)
            wait_for(lambda: receiver.accepted, "the retry")
            claims, events = verified(base_url, receiver.accepted[-1], leeway=120)
            assert isinstance(claims["events"], dict)
            assert events["type"] == "account-deleted"
            assert abs(events["event_time"] - (claims["iat"] - 60)) <= 5  # seconds, from before the clock moved


def test_admin_refuses_bad_notification_calls(base_url):
    for body, status, message in (
            ({"type": "consent-revoked", "persona": "jane", "app": GROUP}, 409, "no notification URL"),
            ({"type": "user-left", "persona": "jane", "app": GROUP}, 400, "type must be one of"),
            ({"type": "consent-revoked", "persona": "ghost", "app": GROUP}, 404, 'persona "ghost" does not exist'),
            ({"type": "consent-revoked", "persona": "jane", "app": "com.nowhere"}, 404, "no app group"),
            ({"type": "consent-revoked", "persona": "jane", "app": GROUP, "extra": 1}, 400, "unknown field")):
        response = requests.post(f"{base_url}/__admin/notifications", json=body, timeout=10)
        assert response.status_code == status and message in response.json()["message"], (body, response.text)
    for url, message in (("ftp://example.com/x", "must use https"), ("http://example.com/hook", "must use https"), (7, "url must be text")):
        response = requests.put(f"{base_url}/__admin/apps/{GROUP}/notification-url", json={"url": url}, timeout=10)
        assert response.status_code == 400 and message in response.json()["message"], (url, response.text)
    assert register(base_url, None) == {"app": GROUP, "notificationURL": None}


def test_cli_sends_lists_and_retries_notifications(base_url):
    freeze_clock(base_url)
    with receiving(statuses=[500]) as receiver:
        assert run_cli("notifications", "url", GROUP, receiver.url, "--url", base_url).returncode == 0
        sent = run_cli("notifications", "send", "consent-revoked", "--persona", "jane", "--app", "com.example.web", "--url", base_url)
        assert sent.returncode == 0 and "queued" in sent.stdout, sent.stderr
        wait_for(lambda: receiver.bodies, "the refused attempt")
        wait_for(lambda: deliveries(base_url)[0]["attempts"], "the failure recorded")
        listed = run_cli("notifications", "list", "--url", base_url)
        assert listed.returncode == 0 and "consent-revoked" in listed.stdout and "HTTP 500" in listed.stdout
        assert run_cli("notifications", "retry", "--url", base_url).stdout.strip() == "1 notification(s) due again now"
        wait_for(lambda: receiver.accepted, "the retried delivery")
    bad = run_cli("notifications", "send", "nope", "--persona", "jane", "--app", GROUP, "--url", base_url)
    assert bad.returncode == 1 and "type must be one of" in bad.stderr
