"""`mock-appleid audit --server` and `POST /__admin/audit`: an audit through a running server, which plays Apple's
side with its own world: one audit at a time per world, a client that goes away or a server that shuts down ends
it, an admin token and a tenant are honoured, and the world is left as the audit found it, so one server can be
audited again and again."""
import json
import signal
import tempfile
import time
import urllib.error
import urllib.request

import pytest

from server_process import serving
from test_audit import free_port, relying_party, sample_process, through, write_scenario


def test_an_audit_through_a_running_server_explains_why_it_cannot_run():
    port = free_port()
    with relying_party(port, "--cookie", "lax") as (origin, scenario), serving("--scenario", str(scenario), "--port", str(port)) as server:
        lax = through(server, origin)
        bad_case = through(server, origin, "--cases", "id_token.nothing")
        own_scenario = through(server, origin, "--scenario", str(scenario))
    assert lax.returncode == 2 and "withheld the relying party's cookie rp_auth (SameSite=Lax)" in lax.stderr, lax.stderr
    assert bad_case.returncode == 2 and "no case matches id_token.nothing" in bad_case.stderr
    assert own_scenario.returncode == 2 and "leave out --scenario, --host and --port" in own_scenario.stderr
    unreachable = through(f"http://127.0.0.1:{free_port()}", "http://127.0.0.1:9")
    assert unreachable.returncode == 2 and "cannot reach mock-appleid at" in unreachable.stderr


def post_audit(server: str, body: dict, headers: dict | None = None):
    """`POST /__admin/audit` with `body`; the streamed answer (urllib raises HTTPError for a refusal)."""
    request = urllib.request.Request(f"{server}/__admin/audit", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
    return urllib.request.urlopen(request, timeout=60)


def streamed(answer) -> list[dict]:
    """The JSON objects of a streamed audit answer, read to its end (the empty keep-alive lines skipped)."""
    return [json.loads(line) for line in answer.read().splitlines() if line.strip()]


def test_one_audit_at_a_time_runs_against_a_world():
    """While an audit streams its progress, a second one is refused with 409; the admin API checks the body first."""
    port = free_port()
    with relying_party(port) as (origin, scenario), serving("--scenario", str(scenario), "--port", str(port)) as server:
        pages = {"start": f"{origin}/login", "signedIn": f"{origin}/me"}
        for wrong, message in [({**pages, "case": ["callback.replay"]}, 'unknown field "case"'),
                               ({**pages, "persona": "nobody"}, 'the scenario has no persona "nobody"'),
                               ({**pages, "signedIn": "http://elsewhere.invalid/me"}, "--signed-in must be on the relying party's host"),
                               ({**pages, "server": "not a url"}, "server must be this server's base URL")]:
            with pytest.raises(urllib.error.HTTPError) as refused:
                post_audit(server, wrong)
            assert refused.value.code == 400 and message in json.loads(refused.value.read())["message"]
        body = {**pages, "cases": ["callback.replay"]}
        with post_audit(server, body) as running:
            assert running.headers["Content-Type"] == "application/x-ndjson"
            assert "progress" in json.loads(running.readline())
            with pytest.raises(urllib.error.HTTPError) as busy:
                post_audit(server, body)
            assert busy.value.code == 409 and json.loads(busy.value.read())["error"] == "audit_running"
            lines = streamed(running)
        assert [case["verdict"] for case in lines[-1]["report"]["cases"]] == ["PASS"]


def test_a_client_that_goes_away_stops_its_audit():
    """A whole audit (more than 30 s) abandoned after its first line frees the world within about 5 s, as documented."""
    port = free_port()
    with relying_party(port) as (origin, scenario), serving("--scenario", str(scenario), "--port", str(port)) as server:
        body = {"start": f"{origin}/login", "signedIn": f"{origin}/me"}
        with post_audit(server, body) as abandoned:
            assert "progress" in json.loads(abandoned.readline())
        deadline = time.monotonic() + 6
        while True:
            try:
                with post_audit(server, {**body, "cases": ["callback.replay"]}) as again:
                    lines = streamed(again)
                break
            except urllib.error.HTTPError as error:
                assert error.code == 409 and time.monotonic() < deadline, "the abandoned audit still holds the world"
                time.sleep(0.2)
        assert lines[-1]["report"]["cases"][0]["id"] == "callback.replay"


def test_a_server_that_shuts_down_ends_its_audit_with_a_failure_line():
    port = free_port()
    with relying_party(port) as (origin, scenario), serving("--scenario", str(scenario), "--port", str(port)) as server:
        with post_audit(server, {"start": f"{origin}/login", "signedIn": f"{origin}/me"}) as running:
            assert "progress" in json.loads(running.readline())
            server.process.send_signal(signal.SIGINT)
            lines = streamed(running)
        assert lines[-1] == {"failure": "the server is shutting down; the audit stopped"}
        assert server.process.wait(timeout=30) == 0


def test_an_audit_through_a_server_with_an_admin_token_and_through_a_tenant():
    port = free_port()
    with relying_party(port) as (origin, scenario), \
            serving("--scenario", str(scenario), "--port", str(port), "--admin-token", "audit-admin-token-0123") as server:
        refused = through(server, origin, "--cases", "callback.state_*")
        allowed = through(server, origin, "--cases", "callback.state_*", "--admin-token", "audit-admin-token-0123", "--format", "json")
    assert refused.returncode == 2 and "401" in refused.stderr and "--admin-token" in refused.stderr, refused.stderr
    assert allowed.returncode == 0, allowed.stderr
    assert {case["verdict"] for case in json.loads(allowed.stdout)["cases"]} == {"PASS"}

    port = free_port()
    apple = f"http://127.0.0.1:{port}/t/job-a"
    with sample_process(apple) as origin, tempfile.TemporaryDirectory() as folder, \
            serving("--scenario", str(write_scenario(folder, origin)), "--port", str(port)) as server:
        request = urllib.request.Request(f"{server}/__admin/tenants", data=json.dumps({"name": "job-a"}).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        assert urllib.request.urlopen(request, timeout=10).status == 201
        tenant = through(apple, origin, "--cases", "callback.state_*", "--format", "json")
    assert tenant.returncode == 0, tenant.stderr
    assert {case["verdict"] for case in json.loads(tenant.stdout)["cases"]} == {"PASS"}


def test_one_server_is_audited_twenty_times_in_a_row():
    """Each audit rotates the signing key for its key cases; it retires the keys it published and gives the app back its
    notification URL when it ends, so a server that CI audits on every push never fills its 16 keys."""
    port = free_port()
    with relying_party(port) as (origin, scenario), serving("--scenario", str(scenario), "--port", str(port)) as server:
        admin = f"{server}/__admin"
        notifications = urllib.request.Request(f"{admin}/apps/com.example.web/notification-url", method="PUT",
                                               data=json.dumps({"url": "https://app.example.com/apple/notifications"}).encode(),
                                               headers={"Content-Type": "application/json"})
        assert urllib.request.urlopen(notifications, timeout=10).status == 200
        keys = json.loads(urllib.request.urlopen(f"{admin}/keys", timeout=10).read())
        for attempt in range(20):
            result = through(server, origin, "--cases", "keys.unreachable", "--format", "json")
            assert result.returncode == 0, (attempt, result.stderr)
            report = json.loads(result.stdout)
            assert [case["verdict"] for case in report["cases"]] == ["PASS"]
            # Each audit found the URL the one before took away for its time.
            assert any("notification URL https://app.example.com/apple/notifications gets no notification" in line
                       for line in report["learned"]), (attempt, report["learned"])
        assert json.loads(urllib.request.urlopen(f"{admin}/keys", timeout=10).read()) == keys
