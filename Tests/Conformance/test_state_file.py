"""`serve --state FILE`: the world outlives the process. A server killed with SIGKILL in the middle of a
burst of sign-ins and revocations comes back with every change it acknowledged and nothing it never made;
tenants (`/t/<name>/`) are isolated from each other and come back with their worlds."""
import itertools
import threading
import time

import requests

from appleid import WEB_CLIENT, authorize_url, client_secret, exchange, server_now, sign_in, verify_with_pyjwt
from server_process import run_cli, serving

BURST_WORKERS = 4
ACKNOWLEDGED_BEFORE_KILL = 200


def refresh(base_url, token):
    return requests.post(f"{base_url}/auth/token", timeout=10, data={
        "client_id": WEB_CLIENT, "client_secret": client_secret(base_url), "grant_type": "refresh_token",
        "refresh_token": token})


def revoke(base_url, token):
    return requests.post(f"{base_url}/auth/revoke", timeout=10, data={
        "client_id": WEB_CLIENT, "client_secret": client_secret(base_url), "token": token,
        "token_type_hint": "refresh_token"})


class Burst:
    """Workers that each repeat: create a persona, sign in as it (a code), and by turns stop there, exchange
    the code (a refresh token), or exchange and revoke. Each persona has its own consent, so what one
    step did is known from its own answers. Every step is written down before it is sent and again
    when it is acknowledged."""

    def __init__(self, base_url, prefix="burst"):
        self.base_url = base_url
        self.prefix = prefix
        self.lock = threading.Lock()
        self.numbers = itertools.count()
        self.attempted: dict[str, set] = {"persona": set(), "exchange": set(), "revoke": set()}
        self.acknowledged: dict[str, dict] = {"persona": {}, "code": {}, "token": {}, "revoke": {}}
        self.stop = threading.Event()

    def note(self, kind, persona, value=None, *, acknowledged):
        with self.lock:
            if acknowledged:
                self.acknowledged[kind][persona] = value
            else:
                self.attempted[kind].add(persona)

    @property
    def acknowledged_count(self):
        with self.lock:
            return sum(len(entries) for entries in self.acknowledged.values())

    def work(self):
        while not self.stop.is_set():
            number = next(self.numbers)
            persona = f"{self.prefix}{number}"
            try:
                self.note("persona", persona, acknowledged=False)
                created = requests.post(f"{self.base_url}/__admin/personas", timeout=10, json={
                    "id": persona, "firstName": "Burst", "lastName": str(number), "email": f"{persona}@example.com"})
                assert created.status_code == 201, created.text
                self.note("persona", persona, acknowledged=True)
                code = sign_in(self.base_url, authorize_url(self.base_url), persona)["code"]
                self.note("code", persona, code, acknowledged=True)
                if number % 3 == 0:
                    continue
                self.note("exchange", persona, acknowledged=False)
                tokens = exchange(self.base_url, code)
                assert tokens.status_code == 200, tokens.text
                self.note("token", persona, tokens.json()["refresh_token"], acknowledged=True)
                if number % 3 == 1:
                    continue
                self.note("revoke", persona, acknowledged=False)
                assert revoke(self.base_url, tokens.json()["refresh_token"]).status_code == 200
                self.note("revoke", persona, acknowledged=True)
            except (requests.ConnectionError, requests.Timeout):
                return

    def run_until_acknowledged(self, count, workers=BURST_WORKERS):
        """Starts the workers and returns them once `count` steps are acknowledged."""
        threads = [threading.Thread(target=self.work) for _ in range(workers)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 120
        while self.acknowledged_count < count:
            assert time.monotonic() < deadline, "the burst made too little progress"
            assert all(thread.is_alive() for thread in threads), "a worker stopped before the kill"
            time.sleep(0.01)
        return threads

    def finish(self, threads):
        self.stop.set()
        for thread in threads:
            thread.join(timeout=30)

    def check(self, base_url, min_personas=20):
        """Every acknowledged change is in the world `base_url` serves, and no change that was never
        attempted: acknowledged personas, codes, refresh tokens and revocations."""
        acknowledged, attempted = self.acknowledged, self.attempted
        assert len(acknowledged["persona"]) >= min_personas and acknowledged["code"] and acknowledged["token"] and acknowledged["revoke"]
        personas = {p["id"] for p in requests.get(f"{base_url}/__admin/personas", timeout=10).json()}
        burst_personas = {p for p in personas if p.startswith(self.prefix)}
        # Every acknowledged persona is there; any other one was being created when the process died.
        assert set(acknowledged["persona"]) <= burst_personas <= attempted["persona"]
        for persona, code in acknowledged["code"].items():
            if persona in attempted["exchange"]:
                continue
            answer = exchange(base_url, code)
            assert answer.status_code == 200, f"{persona}'s acknowledged code was lost: {answer.text}"
        for persona, token in acknowledged["token"].items():
            response = refresh(base_url, token)
            if persona in acknowledged["revoke"]:
                assert response.status_code == 400 and response.json()["error"] == "invalid_grant", \
                    f"{persona}'s acknowledged revocation was lost"
            elif persona not in attempted["revoke"]:
                assert response.status_code == 200, f"{persona}'s acknowledged refresh token was lost: {response.text}"


def test_every_acknowledged_change_survives_sigkill_in_the_middle_of_a_burst(tmp_path):
    state = tmp_path / "world.sqlite"
    with serving("--state", str(state), killed_by_test=True) as base_url:
        assert f"state file:  {state} (new;" in base_url.banner
        burst = Burst(base_url)
        workers = burst.run_until_acknowledged(ACKNOWLEDGED_BEFORE_KILL)
        base_url.process.kill()
        base_url.process.wait()
        burst.finish(workers)

    with serving("--state", str(state)) as base_url:
        assert f"state file:  {state} (world restored from it;" in base_url.banner
        burst.check(base_url)


def test_a_graceful_restart_keeps_the_clock_keys_faults_and_auto_approve(tmp_path):
    state = tmp_path / "world.sqlite"
    with serving("--state", str(state)) as base_url:
        assert requests.post(f"{base_url}/__admin/clock", timeout=10,
                             json={"set": "2031-05-01T12:00:00Z", "frozen": True}).status_code == 200
        assert requests.post(f"{base_url}/__admin/keys/mRS1a8XkPq/activate", json={}, timeout=10).status_code == 200
        assert requests.post(f"{base_url}/__admin/faults", json={"fault": "token-server-error"}, timeout=10).ok
        assert requests.put(f"{base_url}/__admin/auto-approve", json={"persona": "john"}, timeout=10).status_code == 200
    with serving("--state", str(state)) as base_url:
        clock = requests.get(f"{base_url}/__admin/clock", timeout=10).json()
        assert clock["now"] == "2031-05-01T12:00:00Z" and clock["frozen"] is True
        assert requests.get(f"{base_url}/__admin/keys", timeout=10).json()["active"] == "mRS1a8XkPq"
        assert len(requests.get(f"{base_url}/__admin/faults", timeout=10).json()["faults"]) == 1
        assert requests.get(f"{base_url}/__admin/auto-approve", timeout=10).json()["autoApprove"]["persona"] == "john"
        assert requests.post(f"{base_url}/__admin/reset", json={}, timeout=10).status_code == 200
    with serving("--state", str(state)) as base_url:
        assert requests.get(f"{base_url}/__admin/faults", timeout=10).json()["faults"] == []
        assert requests.get(f"{base_url}/__admin/auto-approve", timeout=10).json()["autoApprove"] is None


def test_a_state_file_that_cannot_be_used_stops_serve_with_one_line_naming_it(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n" * 100)
    missing = tmp_path / "missing" / "world.sqlite"
    for path, message in ((text, "cannot be opened: not a state file"), (missing, "does not exist")):
        result = run_cli("serve", "--port", "0", "--state", str(path))
        assert result.returncode != 0
        assert f"--state: {path}: " in result.stderr and message in result.stderr, result.stderr
        assert "Fatal error" not in result.stderr


def test_a_second_server_on_the_same_state_file_is_refused(tmp_path):
    state = tmp_path / "world.sqlite"
    with serving("--state", str(state)):
        result = run_cli("serve", "--port", "0", "--state", str(state))
        assert result.returncode != 0 and f"--state: {state}: is in use by another process" in result.stderr, result.stderr


def test_tenants_are_isolated_and_come_back_with_their_worlds_after_a_restart(tmp_path):
    state = tmp_path / "world.sqlite"
    with serving("--state", str(state)) as base_url:
        for name in ("job-a", "job-b"):
            assert requests.post(f"{base_url}/__admin/tenants", json={"name": name}, timeout=10).status_code == 201
        job_a, job_b = f"{base_url}/t/job-a", f"{base_url}/t/job-b"
        discovery = requests.get(f"{job_a}/.well-known/openid-configuration", timeout=10).json()
        assert discovery["token_endpoint"] == f"{job_a}/auth/token" and discovery["jwks_uri"] == f"{job_a}/auth/keys"
        tokens = exchange(job_a, sign_in(job_a, authorize_url(job_a), "jane")["code"]).json()
        claims = verify_with_pyjwt(job_a, tokens["id_token"])
        assert claims["iss"] == "https://appleid.apple.com" and claims["aud"] == WEB_CLIENT
        # job-b has no consent of jane's: its first sign-in sends `user`, and job-a's token means nothing there.
        assert "user" in sign_in(job_b, authorize_url(job_b), "jane")
        assert refresh(job_b, tokens["refresh_token"]).json()["error"] == "invalid_grant"
        assert requests.post(f"{job_b}/__admin/clock", json={"advance": 86400}, timeout=10).status_code == 200
        assert abs(server_now(base_url) - server_now(job_a)) < 5
    with serving("--state", str(state)) as base_url:
        job_a, job_b = f"{base_url}/t/job-a", f"{base_url}/t/job-b"
        assert f"  tenants:     {job_a}, {job_b}" in base_url.banner
        assert [t["name"] for t in requests.get(f"{base_url}/__admin/tenants", timeout=10).json()["tenants"]] == ["job-a", "job-b"]
        assert refresh(job_a, tokens["refresh_token"]).status_code == 200
        assert server_now(job_b) - server_now(job_a) > 86000
        assert requests.delete(f"{base_url}/__admin/tenants/job-a", timeout=10).status_code == 200
        assert requests.get(f"{job_a}/auth/keys", timeout=10).status_code == 404
    with serving("--state", str(state)) as base_url:
        assert [t["name"] for t in requests.get(f"{base_url}/__admin/tenants", timeout=10).json()["tenants"]] == ["job-b"]
