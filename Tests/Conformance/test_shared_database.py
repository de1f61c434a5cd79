"""`serve --database-url`: several servers share one world in PostgreSQL, as replicas behind a load balancer
do. A code issued by one redeems at another exactly once, a revocation at one is seen by the other at once,
the clock and the keys are shared, every acknowledged change outlives a replica killed with SIGKILL, and a
notification is sent once, by the other replica when the one sending it dies.

The tests start their own PostgreSQL server (Debian's `postgresql`, which the test command installs) and
skip with the reason where it is not installed."""
import contextlib
import itertools
import json
import os
import socket
import threading
import time

import jwt
import pytest
import requests

from appleid import WEB_CLIENT, authorize_url, exchange, server_now, sign_in
from native_rp import queue_fault
from postgres_server import PostgresUnavailable, postgres_server
from server_process import ROOT, run_cli, serving
from test_notifications import deliveries, receiving, register, wait_for
from test_state_file import Burst, refresh, revoke

PARALLEL_REDEEMS = 12
database_numbers = itertools.count()


@pytest.fixture(scope="module")
def postgres():
    try:
        with postgres_server() as server:
            yield server
    except PostgresUnavailable as reason:
        if os.environ.get("MOCK_APPLEID_REQUIRE_POSTGRES"):
            raise
        pytest.skip(str(reason))


@pytest.fixture
def database_url(postgres):
    """A new, empty database for one test."""
    return postgres.database(f"world{next(database_numbers)}")


def leader_of(*servers):
    """The replica whose log says it sends the notifications (waits until one does)."""
    found = []
    wait_for(lambda: found.extend(s for s in servers if "sending notifications for" in s.log_path.read_text()) or found,
             "a replica to lead")
    return found[0]


def test_two_replicas_serve_one_world(database_url):
    with serving("--database-url", database_url) as a, serving("--database-url", database_url) as b:
        assert "(new; the scenario's start saved in it;" in a.banner
        assert "(joined the world it holds;" in b.banner

        # A persona made at A signs in at B; B's code redeems at A.
        created = requests.post(f"{a}/__admin/personas", timeout=10, json={
            "id": "kim", "firstName": "Kim", "lastName": "Lee", "email": "kim@example.com"})
        assert created.status_code == 201, created.text
        assert exchange(a, sign_in(b, authorize_url(b), "kim")["code"]).status_code == 200

        # Parallel redeems of one code across both: exactly one succeeds.
        for _ in range(3):
            code = sign_in(a, authorize_url(a), "jane")["code"]
            start = threading.Barrier(PARALLEL_REDEEMS)
            answers = []

            def redeem(server):
                start.wait()
                answers.append(exchange(server, code))

            threads = [threading.Thread(target=redeem, args=((a, b)[n % 2],)) for n in range(PARALLEL_REDEEMS)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=60)
            assert sorted(r.status_code for r in answers) == [200] + [400] * (PARALLEL_REDEEMS - 1)
            assert all(r.json()["error"] == "invalid_grant" for r in answers if r.status_code == 400)

        # Revoke at A, then refresh at B.
        token = exchange(a, sign_in(a, authorize_url(a), "jane")["code"]).json()["refresh_token"]
        assert refresh(b, token).status_code == 200
        assert revoke(a, token).status_code == 200
        refused = refresh(b, token)
        assert refused.status_code == 400 and refused.json()["error"] == "invalid_grant"

        # One clock, one key set.
        before = server_now(b)
        assert requests.post(f"{a}/__admin/clock", json={"advance": 86400}, timeout=10).status_code == 200
        assert server_now(b) - before >= 86400
        assert requests.post(f"{b}/__admin/keys/mRS1a8XkPq/activate", json={}, timeout=10).status_code == 200
        assert requests.get(f"{a}/__admin/keys", timeout=10).json()["active"] == "mRS1a8XkPq"
        assert "user" not in sign_in(a, authorize_url(a), "kim")  # kim's consent, given at B, is known at A


def test_every_acknowledged_change_survives_a_replica_killed_in_the_middle_of_a_burst(database_url):
    with serving("--database-url", database_url) as survivor:
        with serving("--database-url", database_url, killed_by_test=True) as victim:
            bursts = [Burst(victim, prefix="victim"), Burst(survivor, prefix="survivor")]
            threads = [burst.run_until_acknowledged(60, workers=2) for burst in bursts]
            victim.process.kill()
            victim.process.wait()
            for burst, workers in zip(bursts, threads):
                burst.finish(workers)
        for burst in bursts:
            burst.check(survivor, min_personas=5)
        # A restarted replica joins the world the survivor goes on serving.
        with serving("--database-url", database_url) as restarted:
            personas = [requests.get(f"{server}/__admin/personas", timeout=10).json() for server in (survivor, restarted)]
            assert personas[0] == personas[1]


def test_a_notification_is_sent_once_and_taken_over_when_its_sender_dies(database_url):
    with serving("--database-url", database_url, killed_by_test=True) as a, \
            serving("--database-url", database_url, killed_by_test=True) as b:
        leader = leader_of(a, b)
        other = b if leader is a else a
        with receiving(hang_seconds=30) as receiver:
            register(other, receiver.url)
            sign_in(other, authorize_url(other), "jane")
            revoked = requests.post(f"{other}/__admin/personas/jane/revoke-consent", json={"client": WEB_CLIENT}, timeout=10)
            assert revoked.status_code == 200, revoked.text
            # The leader takes the event another replica queued, and its answer stalls: it dies mid-delivery.
            wait_for(lambda: receiver.bodies, "the leader's attempt")
            leader.process.kill()
            leader.process.wait()
            wait_for(lambda: receiver.accepted, "the other replica's delivery")
            # The same event, signed again by the replica that took over: the same jti and events.
            first, second = (jwt.decode(body["payload"], options={"verify_signature": False}) for body in receiver.bodies[:2])
            assert first["jti"] == second["jti"] and first["events"] == second["events"]
            wait_for(lambda: deliveries(other)[0]["status"] == "delivered", "the delivered status")
            [delivery] = deliveries(other)
            assert [attempt["outcome"] for attempt in delivery["attempts"]] == ["HTTP 200"]
            assert len(receiver.bodies) == 2
            assert "sending notifications for" in other.log_path.read_text()
        other.process.kill()
        other.process.wait()


def test_the_sending_replica_waits_for_writes_rather_than_looking(postgres, database_url):
    """Idle, the sending replica holds the world no more (it listens for the NOTIFY a write of deliveries or of
    the clock sends); a notification the other replica queues wakes it at once."""
    name = database_url.rsplit("/", 1)[-1]
    holds = "SELECT pid || ' ' || state_change FROM pg_stat_activity WHERE datname = '%s' AND query = 'COMMIT' ORDER BY pid" % name
    with serving("--database-url", database_url) as a, serving("--database-url", database_url) as b:
        leader = leader_of(a, b)
        other = b if leader is a else a
        with receiving() as receiver:
            register(other, receiver.url)
            sign_in(other, authorize_url(other), "jane")
            wait_for(lambda: postgres.sql(name, holds), "the replicas' holds")
            before = postgres.sql(name, holds)
            time.sleep(1.5)  # a window in which nothing may happen (the replica looked four times a second)
            assert postgres.sql(name, holds) == before
            revoked = requests.post(f"{other}/__admin/personas/jane/revoke-consent", json={"client": WEB_CLIENT}, timeout=10)
            assert revoked.status_code == 200, revoked.text
            started = time.monotonic()
            wait_for(lambda: receiver.accepted, "the sending replica's delivery")
            assert time.monotonic() - started < 5


def test_replicas_follow_the_tenants_by_listening_rather_than_looking(postgres, database_url):
    """Idle, no replica connects to look for tenants made or removed elsewhere (each listens for the NOTIFY
    that making or removing one sends at its commit); one made or removed at a replica reaches the other
    without a request for it."""
    database = database_url.rsplit("/", 1)[-1]
    # Read from another database, so that reading them opens no session in this one (`sessions`: PostgreSQL 14).
    sessions = f"SELECT sessions FROM pg_stat_database WHERE datname = '{database}'"
    connections = f"SELECT count(*) FROM pg_stat_activity WHERE datname = '{database}'"
    with serving("--database-url", database_url) as a, serving("--database-url", database_url) as b:
        def listed(server):
            return [tenant["name"] for tenant in requests.get(f"{server}/__admin/tenants", timeout=10).json()["tenants"]]

        assert requests.post(f"{a}/__admin/tenants", json={"name": "job-c"}, timeout=10).status_code == 201
        wait_for(lambda: listed(b) == ["job-c"], "B to serve the tenant made at A")
        # Each replica then holds two connections per world (its own and job-c's) and listens on one for tenants.
        wait_for(lambda: postgres.sql("postgres", connections) == "10", "the replicas' ten connections")
        before = postgres.sql("postgres", sessions)
        time.sleep(2.5)  # a window in which no replica may connect (each connected once a second to look)
        assert postgres.sql("postgres", sessions) == before
        assert requests.delete(f"{b}/__admin/tenants/job-c", timeout=10).status_code == 200
        wait_for(lambda: listed(a) == [], "A to drop the tenant removed at B")


def test_a_delayed_token_answer_does_not_hold_the_world_for_the_other_replica(database_url):
    with serving("--database-url", database_url) as a, serving("--database-url", database_url) as b:
        queue_fault(a, "token-delay", seconds=6)
        code = sign_in(a, authorize_url(a), "jane")["code"]
        slow = threading.Thread(target=lambda: answers.append((exchange(a, code), time.monotonic())))
        answers = []
        started = time.monotonic()
        slow.start()
        wait_for(lambda: not requests.get(f"{b}/__admin/faults", timeout=10).json()["faults"], "A to take the fault")
        # B signs in while A's answer is still being delayed.
        assert exchange(b, sign_in(b, authorize_url(b), "john")["code"]).status_code == 200
        b_done = time.monotonic()
        slow.join(timeout=30)
        [(answer, a_done)] = answers
        assert answer.status_code == 200 and a_done - started >= 6
        # Had A held the world while its answer was delayed, B would have ended just after A's answer.
        assert b_done + 2 < a_done, f"B ended {a_done - b_done:.2f} s before A's delayed answer"


def test_a_database_that_cannot_be_used_stops_serve_with_one_line_naming_it(database_url, postgres):
    unused_port = postgres.port + 1 if postgres.port < 65535 else postgres.port - 1
    for arguments, message in (
        (["--database-url", "mysql://nobody@127.0.0.1/world"], "--database-url: the database URL must look like postgres://"),
        (["--database-url", f"postgres://postgres@127.0.0.1:{unused_port}/world"],
         f"--database-url: postgres://postgres@127.0.0.1:{unused_port}/world: cannot be reached"),
        (["--database-url", f"{database_url}?sslmode=verify-all"], "a parameter this server does not know: sslmode"),
        (["--database-url", database_url, "--state", "world.sqlite"], "--state and --database-url cannot be used together"),
    ):
        result = run_cli("serve", "--port", "0", *arguments)
        assert result.returncode != 0 and message in result.stderr, result.stderr
        assert "Fatal error" not in result.stderr
    with serving("--database-url", database_url):
        pass
    result = run_cli("serve", "--port", "0", "--database-url", database_url, "--scenario", str(ROOT / "Scenarios/catalogue/account-deleted.yaml"))
    assert result.returncode != 0
    assert 'holds the world of scenario "default", not "account-deleted"' in result.stderr, result.stderr


def test_tables_of_an_earlier_format_are_moved_up_and_those_of_a_newer_one_refused(database_url, postgres):
    name = database_url.rsplit("/", 1)[1]
    with serving("--database-url", database_url):
        pass
    assert postgres.sql(name, "SELECT format FROM mock_appleid_format").split() == ["2"]
    postgres.sql(name, "UPDATE mock_appleid_format SET format = 1")
    with serving("--database-url", database_url):
        pass
    assert postgres.sql(name, "SELECT format FROM mock_appleid_format").split() == ["2"]
    postgres.sql(name, "UPDATE mock_appleid_format SET format = 3")
    result = run_cli("serve", "--port", "0", "--database-url", database_url)
    assert result.returncode != 0, result.stderr
    assert "holds tables of a newer version of mock-appleid (format 3); use that version" in result.stderr, result.stderr


def test_a_tenant_made_at_one_replica_is_served_by_every_replica_until_removed(database_url):
    with serving("--database-url", database_url) as a, serving("--database-url", database_url) as b:
        assert requests.post(f"{a}/__admin/tenants", json={"name": "job-a"}, timeout=10).status_code == 201
        job_at_a, job_at_b = f"{a}/t/job-a", f"{b}/t/job-a"
        # B serves it at once, sharing its world with A's copy, isolated from the servers' own world.
        discovery = requests.get(f"{job_at_b}/.well-known/openid-configuration", timeout=10).json()
        assert discovery["token_endpoint"] == f"{job_at_b}/auth/token"
        code = sign_in(job_at_b, authorize_url(job_at_b), "jane")["code"]
        assert exchange(b, code).json()["error"] == "invalid_grant"  # unknown to the servers' own world
        assert exchange(job_at_a, code).status_code == 200
        # The name is taken at every replica, including one that has not served it yet.
        with serving("--database-url", database_url) as c:
            assert requests.post(f"{c}/__admin/tenants", json={"name": "job-a"}, timeout=10).status_code == 409
            assert exchange(f"{c}/t/job-a", code).json()["error"] == "invalid_grant"  # redeemed already, and not removed
        assert "user" in sign_in(a, authorize_url(a), "jane")  # the servers' own world has no consent of jane's
        assert requests.post(f"{job_at_a}/__admin/clock", json={"advance": 86400}, timeout=10).status_code == 200
        assert server_now(job_at_b) - server_now(b) > 86000

        with serving("--database-url", database_url) as d:
            assert f"  tenants:     {d}/t/job-a" in d.banner
        assert requests.delete(f"{b}/__admin/tenants/job-a", timeout=10).status_code == 200
        assert requests.get(f"{job_at_b}/auth/keys", timeout=10).status_code == 404
        wait_for(lambda: requests.get(f"{job_at_a}/auth/keys", timeout=10).status_code == 404, "A to drop the removed tenant")
        assert requests.get(f"{a}/__admin/tenants", timeout=10).json()["tenants"] == []


def test_a_tenant_removed_and_made_again_starts_from_its_scenario_at_every_replica(database_url):
    with serving("--database-url", database_url) as a, serving("--database-url", database_url) as b:
        assert requests.post(f"{a}/__admin/tenants", json={"name": "job-b"}, timeout=10).status_code == 201
        # Made at A a moment ago: B refuses the name whether or not it serves the tenant yet.
        assert requests.post(f"{b}/__admin/tenants", json={"name": "job-b"}, timeout=10).status_code == 409
        job_at_b = f"{b}/t/job-b"
        assert "user" in sign_in(job_at_b, authorize_url(job_at_b), "jane")
        assert "user" not in sign_in(job_at_b, authorize_url(job_at_b), "jane")
        # Removed and made again at A before B follows: B's next request sees the new, empty world.
        assert requests.delete(f"{a}/__admin/tenants/job-b", timeout=10).status_code == 200
        assert requests.post(f"{a}/__admin/tenants", json={"name": "job-b"}, timeout=10).status_code == 201
        assert "user" in sign_in(job_at_b, authorize_url(job_at_b), "jane")


@contextlib.contextmanager
def counting_listener(port: int):
    """A listener on `port` that accepts each connection and closes it at once, counting them: every
    attempt a server makes to reach a database that is down (its port taken by this)."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(256)
    listener.settimeout(0.05)
    accepted, stop = [0], threading.Event()

    def accept():
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:  # a timeout, or a client that gave up before it was accepted
                continue
            accepted[0] += 1
            connection.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield accepted
    finally:
        stop.set()
        thread.join(timeout=10)
        listener.close()


OUTAGE_SECONDS = 3
ADMIN_TOKEN = "outage-admin-token-0123456789"


def test_while_the_database_is_down_requests_are_refused_at_once_in_apples_shape_and_reconnects_back_off(postgres):
    database_url = postgres.database(f"world{next(database_numbers)}")
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    with serving("--database-url", database_url, "--admin-token", ADMIN_TOKEN) as server:
        assert requests.get(f"{server}/auth/keys", timeout=10).status_code == 200
        postgres.stop()
        answers, slowest = [], [0.0]

        def hammer(path, method="GET", **kwargs):
            deadline = time.monotonic() + OUTAGE_SECONDS
            with requests.Session() as session:  # one keep-alive connection per client, as an RP's HTTP client keeps
                while time.monotonic() < deadline:
                    started = time.monotonic()
                    answer = session.request(method, f"{server}{path}", timeout=10, **kwargs)
                    slowest[0] = max(slowest[0], time.monotonic() - started)
                    answers.append((path, answer.status_code, answer.content, dict(answer.headers)))

        with counting_listener(postgres.port) as attempts:
            workers = [threading.Thread(target=hammer, args=args, kwargs=kwargs) for args, kwargs in (
                (("/auth/keys",), {}), (("/.well-known/openid-configuration",), {}),
                (("/auth/token", "POST"), {"data": {"client_id": WEB_CLIENT, "grant_type": "authorization_code", "code": "c"}}),
                (("/auth/revoke", "POST"), {"data": {"client_id": WEB_CLIENT, "token": "t"}}))]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join(timeout=60)
            connections = attempts[0]
        # Answered at once, far more often than the database was tried (one try per request before).
        assert len(answers) >= 200 and slowest[0] < 1.0, (len(answers), slowest[0])
        assert connections <= 12, f"{connections} connection attempts for {len(answers)} requests in {OUTAGE_SECONDS} s"
        # Apple's shape: the status alone, nothing of the database.
        for path, status, content, headers in answers:
            assert status == 503 and content == b"" and headers["Server"] == "Apple", (path, status, content)
            assert str(postgres.port) not in str(headers), headers
        # The admin API: its guard first (no token, no detail), then the reason for those it admits.
        assert requests.get(f"{server}/__admin/health", timeout=10).status_code == 401
        health = requests.get(f"{server}/__admin/health", headers=admin, timeout=10)
        assert health.status_code == 503 and health.json()["error"] == "state_not_saved"
        assert "cannot be reached" in health.json()["message"]
        postgres.start()
        wait_for(lambda: requests.get(f"{server}/auth/keys", timeout=10).status_code == 200, "the server to reach the database again")
        journal = requests.get(f"{server}/__admin/journal", headers=admin, timeout=10).json()["entries"]
        refused = [entry for entry in journal if entry["status"] == 503]
        assert {entry["endpoint"] for entry in refused} >= {"/auth/keys", "/auth/token", "/auth/revoke"}
        assert all("the world's store cannot be used" in entry["reason"] for entry in refused)
        assert "reachable again" in server.log_path.read_text()


FREEZE_SECONDS = 8
# A hold's statements, and a connection tried again, each get 3 s (docs/deployment.md); a request may meet one.
LONGEST_WAIT_SECONDS = 4.5


def test_a_database_that_stops_answering_holds_no_request_longer_than_a_statements_deadline(postgres):
    """The database frozen with SIGSTOP (a host lost, a partition): a statement that gets no answer ends its hold
    within 3 s, and the server then backs off, refusing requests at once (Apple's endpoints 503, the admin API's
    health 503 with the reason) while it tries the database again, each try within 3 s. Thawed, it serves again."""
    database_url = postgres.database(f"world{next(database_numbers)}")
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    with serving("--database-url", database_url, "--admin-token", ADMIN_TOKEN) as server:
        assert requests.get(f"{server}/auth/keys", timeout=10).status_code == 200
        answers, health, lock = [], [], threading.Lock()

        def timed(session, method, path, **kwargs):
            started = time.monotonic()
            try:
                answer = session.request(method, f"{server}{path}", timeout=30, **kwargs)
                outcome = (answer.status_code, answer.content)
            except requests.RequestException as error:
                outcome = (0, str(error).encode())
            return time.monotonic() - started, *outcome

        def hammer(path, method="GET", **kwargs):
            deadline = time.monotonic() + FREEZE_SECONDS
            with requests.Session() as session:
                while time.monotonic() < deadline:
                    answer = timed(session, method, path, **kwargs)
                    with lock:
                        answers.append((path, *answer))

        def ask_health():
            deadline = time.monotonic() + FREEZE_SECONDS
            with requests.Session() as session:
                while time.monotonic() < deadline:
                    health.append(("/__admin/health", *timed(session, "GET", "/__admin/health", headers=admin)))
                    time.sleep(0.1)

        postgres.freeze()
        try:
            workers = [threading.Thread(target=hammer, args=args, kwargs=kwargs) for args, kwargs in (
                (("/auth/keys",), {}), (("/auth/keys",), {}),
                (("/auth/token", "POST"), {"data": {"client_id": WEB_CLIENT, "grant_type": "authorization_code", "code": "c"}}))]
            workers.append(threading.Thread(target=ask_health))
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join(timeout=60)
        finally:
            postgres.thaw()
        slowest = max(answers + health, key=lambda answer: answer[1])
        print(f"frozen database: {len(answers) + len(health)} requests, the slowest {slowest[1]:.2f} s ({slowest[0]})")
        assert slowest[1] < LONGEST_WAIT_SECONDS, f"a request waited {slowest[1]:.1f} s: {slowest}"
        refused = [answer for answer in answers if answer[2] == 503]
        assert len(refused) >= 20 and all(content == b"" for _, _, _, content in refused), len(refused)
        unavailable = [(took, json.loads(content)) for _, took, status, content in health if status == 503]
        assert unavailable and all(body["error"] == "state_not_saved" for _, body in unavailable), health
        assert any(took < 1.0 and "cannot be reached" in body["message"] for took, body in unavailable), unavailable
        wait_for(lambda: requests.get(f"{server}/auth/keys", timeout=10).status_code == 200, "the server to reach the database again")
        assert requests.get(f"{server}/__admin/health", headers=admin, timeout=10).json()["status"] == "ok"
        log = server.log_path.read_text()
        assert "did not answer within 3 s" in log and "reachable again" in log


def test_relay_addresses_in_a_database_written_before_their_domains_were_recorded_keep_privaterelay(database_url, postgres):
    with serving("--database-url", database_url) as server:
        code = sign_in(server, authorize_url(server, response_type="code id_token"), "john", email_choice="hide")
        address = jwt.decode(code["id_token"], options={"verify_signature": False})["email"]
        assert address.endswith("@private.icloud.com")
    database = database_url.rsplit("/", 1)[1]
    assert postgres.sql(database, "DELETE FROM mock_appleid_rows WHERE section = 'relayAddressDomains' RETURNING key") != ""
    with serving("--database-url", database_url) as server:
        [kept] = requests.get(f"{server}/__admin/relay/addresses", timeout=10).json()["addresses"]
        assert kept["address"] == address.replace("private.icloud.com", "privaterelay.appleid.com")
    # Recorded at that start: the rows are back, so the address keeps its domain whatever a later scenario names.
    assert "privaterelay.appleid.com" in postgres.sql(database, "SELECT value FROM mock_appleid_rows WHERE section = 'relayAddressDomains'")
