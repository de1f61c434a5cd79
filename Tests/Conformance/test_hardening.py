"""What the server does with slow, stalled, oversized, cross-site and misdirected clients, over real sockets."""
import json
import signal
import socket
import time
import urllib.parse

import pytest
import requests

from appleid import WEB_CLIENT
from server_process import run_cli, serving

ADMIN_TOKEN = "hardening-test-token-0123456789"


def _address(url: str) -> tuple[str, int]:
    parsed = urllib.parse.urlsplit(url)
    return parsed.hostname, parsed.port


def _connect(url: str, timeout: float = 10.0) -> socket.socket:
    connection = socket.create_connection(_address(url))
    connection.settimeout(timeout)
    return connection


def _read_until_closed(connection: socket.socket, deadline_seconds: float) -> tuple[bytes, float]:
    """Reads until the server closes the connection; returns what it sent and how long that took.
    Fails when the connection is still open after `deadline_seconds`."""
    started = time.monotonic()
    received = b""
    while True:
        remaining = deadline_seconds - (time.monotonic() - started)
        assert remaining > 0, f"the server kept the connection open for {deadline_seconds} s; it sent {received[:200]!r}"
        connection.settimeout(remaining)
        try:
            chunk = connection.recv(65536)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            return received, time.monotonic() - started
        received += chunk


def _answer(connection: socket.socket) -> bytes:
    """One response's head and as much body as arrives with it."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        assert chunk, f"connection closed before an answer: {data!r}"
        data += chunk
    return data


@pytest.fixture(scope="module")
def strict_server():
    """A server with short header and body timeouts (and a long idle timeout, so that only they can fire)."""
    with serving("--idle-timeout", "60", "--header-timeout", "1", "--body-timeout", "1") as url:
        yield url


@pytest.fixture(scope="module")
def patient_server():
    """A server with long timeouts (so that no timer explains a closed connection) and a small connection cap."""
    with serving("--idle-timeout", "60", "--header-timeout", "60", "--body-timeout", "60", "--max-connections", "4") as url:
        yield url


def test_an_idle_connection_is_closed_after_the_idle_timeout():
    with serving("--idle-timeout", "2") as url, _connect(url) as connection:
        received, elapsed = _read_until_closed(connection, deadline_seconds=10)
    assert received == b""
    assert elapsed >= 1.5


def test_headers_sent_slowly_are_cut_off_by_the_header_timeout(strict_server):
    with _connect(strict_server) as connection:
        started = time.monotonic()
        connection.sendall(b"GET /auth/keys HTTP/1.1\r\nHost: x\r\n")
        closed = False
        while time.monotonic() - started < 10:  # a slowloris: a header byte every 0.2 s keeps the idle timer from firing
            try:
                connection.sendall(b"X")
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            connection.settimeout(0.2)
            try:
                if connection.recv(1024) == b"":
                    closed = True
                    break
            except ConnectionResetError:  # closed while our last bytes were unread: the kernel answers with a reset
                closed = True
                break
            except socket.timeout:
                continue
        assert closed, "a request whose headers never end was kept for 10 s"
        assert time.monotonic() - started < 5


def test_a_body_that_stalls_is_cut_off_by_the_body_timeout(strict_server):
    with _connect(strict_server) as connection:
        connection.sendall(b"POST /auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                           b"Content-Length: 100\r\n\r\ngrant_type=")
        received, elapsed = _read_until_closed(connection, deadline_seconds=10)
    assert received == b""
    assert elapsed < 30, "closed by the idle timeout, not the body timeout"


def test_expect_continue_is_answered_and_an_oversized_announcement_refused(strict_server):
    with _connect(strict_server) as connection:
        connection.sendall(b"POST /auth/token HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                           b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000000000\r\n\r\n")
        received, _ = _read_until_closed(connection, deadline_seconds=5)
    assert received.startswith(b"HTTP/1.1 413 ")
    with _connect(strict_server) as connection:
        body = b"grant_type=authorization_code"
        connection.sendall(b"POST /auth/token HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                           b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n" % len(body))
        assert _answer(connection).startswith(b"HTTP/1.1 100 Continue\r\n")
        connection.sendall(body)
        answer = _answer(connection)
    assert answer.startswith(b"HTTP/1.1 400 ") and b"invalid_client" in answer  # no client_id: Apple's answer, after the body


def test_an_endless_body_is_refused_without_being_read_to_its_end(patient_server):
    with _connect(patient_server) as connection:
        connection.sendall(b"POST /auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                           b"Transfer-Encoding: chunked\r\n\r\n")
        chunk = b"1000\r\n" + b"a" * 4096 + b"\r\n"
        sent = 0
        try:
            while sent < 512 * 1024 * 1024:
                connection.sendall(chunk)
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        assert sent < 512 * 1024 * 1024, "the server read half a gigabyte of a body over its limit"
    assert requests.get(f"{patient_server}/auth/keys", timeout=10).status_code == 200


def test_an_oversized_body_gets_apples_error_and_the_connection_ends(patient_server):
    with _connect(patient_server) as connection:
        connection.sendall(b"POST /auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                           b"Content-Length: 10000000\r\n\r\n" + b"a" * 200_000)
        received, _ = _read_until_closed(connection, deadline_seconds=10)
    assert received.startswith(b"HTTP/1.1 400 ") and b"Connection: close" in received and b'{"error":"invalid_request"}' in received


def test_connections_beyond_the_cap_wait_for_a_free_slot(patient_server):
    held = [_connect(patient_server) for _ in range(4)]
    try:
        for connection in held:  # answered, so accepted and counted before the fifth arrives (keep-alive holds them)
            connection.sendall(b"GET /auth/keys HTTP/1.1\r\nHost: x\r\n\r\n")
            assert _answer(connection).startswith(b"HTTP/1.1 200 ")
        waiting = _connect(patient_server, timeout=0.5)
        waiting.sendall(b"GET /auth/keys HTTP/1.1\r\nHost: x\r\n\r\n")
        with pytest.raises(socket.timeout):
            waiting.recv(100)
        held.pop().close()
        waiting.settimeout(10)
        assert _answer(waiting).startswith(b"HTTP/1.1 200 ")
        waiting.close()
    finally:
        for connection in held:
            connection.close()


def test_shutdown_finishes_while_a_client_holds_a_half_sent_body():
    with serving("--body-timeout", "600") as url:
        with _connect(url) as connection:
            connection.sendall(b"POST /auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                               b"Content-Length: 100\r\n\r\ngrant")
            assert requests.get(f"{url}/__admin/health", timeout=10).status_code == 200  # the request is in flight
            started = time.monotonic()
            url.process.send_signal(signal.SIGTERM)
            url.process.wait(timeout=30)
            assert time.monotonic() - started < 15, "shutdown waited for the stalled client"


def test_head_answers_like_get_without_a_body_and_wrong_methods_get_405(base_url):
    get = requests.get(f"{base_url}/auth/keys", timeout=10)
    head = requests.head(f"{base_url}/auth/keys", timeout=10)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["Content-Length"] == str(len(get.content))
    wrong = requests.get(f"{base_url}/auth/token", timeout=10)
    assert wrong.status_code == 405 and wrong.headers["Allow"] == "POST"
    admin = requests.delete(f"{base_url}/__admin/clock", timeout=10)
    assert admin.status_code == 405 and set(admin.headers["Allow"].split(", ")) == {"GET", "HEAD", "POST"}
    assert requests.get(f"{base_url}/auth/nothing-here", timeout=10).status_code == 404


def _responses(connection: socket.socket, count: int) -> list[tuple[int, dict, bytes]]:
    """`count` responses read off one connection, in order: each one's status, fields and body (by its length)."""
    data = b""
    answers = []
    while len(answers) < count:
        head_end = data.find(b"\r\n\r\n")
        if head_end >= 0:
            status_line, *lines = data[:head_end].decode("latin-1").split("\r\n")
            fields = {name.lower(): value.strip() for name, value in (line.split(":", 1) for line in lines)}
            end = head_end + 4 + int(fields["content-length"])
            if len(data) >= end:
                answers.append((int(status_line.split(" ")[1]), fields, data[head_end + 4:end]))
                data = data[end:]
                continue
        chunk = connection.recv(65536)
        assert chunk, f"connection closed after {len(answers)} of {count} answers: {data[:200]!r}"
        data += chunk
    return answers


def test_pipelined_requests_are_answered_in_order_with_key_fetches_among_them(base_url):
    """Key fetches are answered without the router when nothing else bears on them; sent behind a
    request the router is still answering, they wait their turn."""
    by_router = requests.get(f"{base_url}/auth/keys?from=router", timeout=10)
    form = f"client_id={WEB_CLIENT}&grant_type=authorization_code&code=nope&client_secret=nope".encode()
    token = (b"POST /auth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\n"
             b"Content-Length: %d\r\n\r\n" % len(form)) + form
    keys = b"GET /auth/keys HTTP/1.1\r\nHost: localhost\r\n\r\n"
    with _connect(base_url) as connection:
        connection.sendall(keys + token + keys + keys)
        answers = _responses(connection, 4)
        # Every answer read: the next fetch is answered without the router again.
        connection.sendall(keys + token + keys)
        answers += _responses(connection, 3)
    assert [status for status, _, _ in answers] == [200, 400, 200, 200, 200, 400, 200]
    for status, fields, body in answers:
        if status == 400:
            assert "error" in json.loads(body)
            continue
        assert body == by_router.content
        assert fields.keys() == {name.lower() for name in by_router.headers}
        assert all(fields[name] == by_router.headers[name] for name in fields if name != "date")
    entries = [(entry["endpoint"], entry["status"]) for entry in requests.get(f"{base_url}/__admin/journal", timeout=10).json()["entries"]]
    assert entries[-7:] == [("/auth/keys", 200), ("/auth/token", 400), ("/auth/keys", 200), ("/auth/keys", 200),
                            ("/auth/keys", 200), ("/auth/token", 400), ("/auth/keys", 200)]


def test_keys_and_discovery_may_be_fetched_cross_origin_and_the_admin_api_never(base_url):
    for path in ("/auth/keys", "/.well-known/openid-configuration"):
        fetched = requests.get(f"{base_url}{path}", headers={"Origin": "https://rp.example"}, timeout=10)
        assert fetched.headers["Access-Control-Allow-Origin"] == "*"
        preflight = requests.options(f"{base_url}{path}", headers={
            "Origin": "https://rp.example", "Access-Control-Request-Method": "GET"}, timeout=10)
        assert preflight.status_code == 204 and preflight.headers["Access-Control-Allow-Origin"] == "*"
    preflight = requests.options(f"{base_url}/__admin/reset", headers={
        "Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}, timeout=10)
    # The admin guard stands before routing: a cross-site preflight is refused as any cross-site request is.
    assert preflight.status_code == 403 and preflight.json()["error"] == "cross_site"
    assert "Access-Control-Allow-Origin" not in preflight.headers
    health = requests.get(f"{base_url}/__admin/health", timeout=10)
    assert "Access-Control-Allow-Origin" not in health.headers


def test_the_admin_api_refuses_host_names_other_than_its_own(base_url):
    # A DNS-rebinding page: its own name in Host and Origin, from the developer's (loopback) browser.
    port = _address(base_url)[1]
    rebound = requests.post(f"{base_url}/__admin/reset", json={}, timeout=10, headers={
        "Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}", "Sec-Fetch-Site": "same-origin"})
    assert rebound.status_code == 403 and rebound.json()["error"] == "bad_host"
    assert requests.get(f"http://localhost:{port}/__admin/health", timeout=10).status_code == 200


def test_a_cross_site_page_cannot_drive_the_admin_api(base_url):
    # What a page on another site can send without a preflight: a text/plain POST.
    simple = requests.post(f"{base_url}/__admin/clock", data='{"advance": 86400}', headers={"Content-Type": "text/plain"}, timeout=10)
    assert simple.status_code == 415 and simple.json()["error"] == "unsupported_media_type"
    empty = requests.post(f"{base_url}/__admin/reset", timeout=10)
    assert empty.status_code == 415
    foreign = requests.post(f"{base_url}/__admin/reset", json={}, headers={"Origin": "https://evil.example"}, timeout=10)
    assert foreign.status_code == 403 and foreign.json()["error"] == "cross_site"
    fetched = requests.post(f"{base_url}/__admin/reset", json={}, headers={"Sec-Fetch-Site": "cross-site"}, timeout=10)
    assert fetched.status_code == 403
    host = urllib.parse.urlsplit(base_url).netloc
    own = requests.post(f"{base_url}/__admin/reset", json={}, headers={"Origin": f"http://{host}"}, timeout=10)
    assert own.status_code == 200


def test_unknown_admin_fields_and_near_miss_content_types_are_refused(base_url):
    typo = requests.post(f"{base_url}/__admin/clock", json={"advnce": 60}, timeout=10)
    assert typo.status_code == 400 and "advnce" in typo.json()["message"]
    persona = requests.post(f"{base_url}/__admin/personas", json={"id": "kim", "firstName": "Kim", "nickname": "k"}, timeout=10)
    assert persona.status_code == 400 and "nickname" in persona.json()["message"]
    suffixed = requests.post(f"{base_url}/__admin/clock", data=json.dumps({"advance": 60}),
                             headers={"Content-Type": "application/jsonx"}, timeout=10)
    assert suffixed.status_code == 415
    with_charset = requests.post(f"{base_url}/__admin/clock", data=json.dumps({"advance": 60}),
                                 headers={"Content-Type": "application/json; charset=utf-8"}, timeout=10)
    assert with_charset.status_code == 200
    token = requests.post(f"{base_url}/auth/token", data="grant_type=authorization_code&client_id=x",
                          headers={"Content-Type": "application/x-www-form-urlencodedXYZ"}, timeout=10)
    assert token.status_code == 400 and token.json() == {"error": "invalid_request"}
    reason = requests.get(f"{base_url}/__admin/journal", timeout=10).json()["entries"][-1]["reason"]
    assert "application/x-www-form-urlencodedXYZ" in reason


def test_huge_and_deeply_nested_client_secrets_are_refused_before_any_work(base_url):
    nested = "[" * 20000 + "]" * 20000  # a 53 KB secret: within the body limit, over the JWS limit
    huge = ".".join([_b64(nested), _b64("{}"), "c2ln"])
    deep_header = ".".join([_b64('{"a":' * 40 + "1" + "}" * 40), _b64("{}"), "c2ln"])
    for secret, reason in ((huge, "bytes, more than the 8192 accepted"), (deep_header, "header is not a JSON object")):
        started = time.monotonic()
        answer = requests.post(f"{base_url}/auth/token", timeout=10, data={
            "grant_type": "authorization_code", "code": "c", "client_id": WEB_CLIENT, "client_secret": secret,
            "redirect_uri": "https://example.com/cb"})
        assert answer.status_code == 400 and answer.json() == {"error": "invalid_client"}
        assert time.monotonic() - started < 5
        assert reason in requests.get(f"{base_url}/__admin/journal", timeout=10).json()["entries"][-1]["reason"]


def test_journal_entries_stay_small_whatever_the_request_carries(base_url):
    long_client = "c" * 60_000
    for _ in range(20):
        requests.post(f"{base_url}/auth/token", data={"grant_type": "authorization_code", "client_id": long_client}, timeout=10)
    entries = requests.get(f"{base_url}/__admin/journal", timeout=10).json()["entries"]
    assert len(entries) >= 20
    for entry in entries[-20:]:
        assert len(entry["clientID"].encode()) <= 260 and entry["clientID"].endswith("…")
        assert len(entry["reason"].encode()) <= 2052
        assert len(json.dumps(entry)) < 3000


def test_requests_are_logged_only_when_asked(tmp_path):
    with serving("--log-level", "info") as quiet:
        requests.get(f"{quiet}/auth/keys", timeout=10)
        assert requests.get(f"{quiet}/__admin/health", timeout=10).status_code == 200
        assert "served the published keys" not in quiet.log_path.read_text()
    with serving("--log-level", "info", "--access-log") as logged:
        requests.get(f"{logged}/auth/keys", timeout=10)
        deadline = time.monotonic() + 10
        while "served the published keys" not in logged.log_path.read_text():
            assert time.monotonic() < deadline, "the access log never showed the request"
            time.sleep(0.05)


def _non_loopback_address() -> str | None:
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # no packet is sent; this only picks the outgoing interface
        address = probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") else address


def test_the_admin_api_answers_other_hosts_only_with_the_token():
    address = _non_loopback_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address to reach the server from")
    with serving("--host", "0.0.0.0") as url:
        port = _address(url)[1]
        assert "WARNING: listening on 0.0.0.0" in url.banner
        remote = f"http://{address}:{port}"
        refused = requests.get(f"{remote}/__admin/health", timeout=10)
        assert refused.status_code == 403 and refused.json()["error"] == "not_loopback"
        spoofed = requests.get(f"{remote}/__admin/health", headers={"X-Mock-AppleID-Peer": "loopback"}, timeout=10)
        assert spoofed.status_code == 403
        assert requests.get(f"{remote}/auth/keys", timeout=10).status_code == 200
        assert requests.get(f"http://127.0.0.1:{port}/__admin/health", timeout=10).status_code == 200
    with serving("--host", "0.0.0.0", "--admin-token", ADMIN_TOKEN) as url:
        remote = f"http://{address}:{_address(url)[1]}"
        assert requests.get(f"{remote}/__admin/health", timeout=10).status_code == 401
        wrong = requests.get(f"{remote}/__admin/health", headers={"Authorization": "Bearer nope"}, timeout=10)
        assert wrong.status_code == 401 and wrong.headers["WWW-Authenticate"].startswith("Bearer")
        right = requests.get(f"{remote}/__admin/health", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=10)
        assert right.status_code == 200


def test_with_a_token_even_loopback_clients_must_send_it():
    with serving("--admin-token", ADMIN_TOKEN) as url:
        assert requests.get(f"{url}/__admin/health", timeout=10).status_code == 401
        ok = requests.get(f"{url}/__admin/health", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=10)
        assert ok.status_code == 200


def _b64(text: str) -> str:
    import base64
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


@pytest.mark.parametrize("arguments, message", [
    (["--idle-timeout", "0"], "--idle-timeout must be 1...3600"),
    (["--header-timeout", "3601"], "--header-timeout must be 1...3600"),
    (["--body-timeout", "99999"], "--body-timeout must be 1...3600"),
    (["--max-connections", "0"], "--max-connections must be 1...100000"),
    (["--admin-token", "short"], "--admin-token must be 16 to 256"),
    (["--admin-token", "has spaces in it, sixteen+"], "--admin-token must be 16 to 256"),
    # Control characters no HTTP client can send in a header: the admin API would be locked.
    (["--admin-token", "sixteen-chars-\x1b[31m-ok"], "--admin-token must be 16 to 256"),
    (["--admin-token", "sixteen-chars-ok-\x7f"], "--admin-token must be 16 to 256"),
])
def test_serve_refuses_out_of_range_limits(arguments, message):
    result = run_cli("serve", "--port", "0", *arguments)
    assert result.returncode != 0 and message in result.stderr, result.stderr


def test_a_scenario_refuses_a_refresh_token_cap_out_of_range(tmp_path):
    for value in ("0", "100001", "ten"):
        scenario = tmp_path / f"cap-{value}.yaml"
        scenario.write_text(f"base: default\nname: cap\nsettings: {{refreshTokensPerClient: {value}}}\n")
        result = run_cli("scenario", "check", str(scenario))
        assert result.returncode != 0 and "refreshTokensPerClient" in result.stdout + result.stderr, result.stdout
