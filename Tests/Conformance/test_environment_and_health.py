"""serve's flags from MOCK_APPLEID_* variables (as containers are configured), --admin-token-file, and
`mock-appleid health`, a container's health check."""
import contextlib
import json
import os
import socket
import threading
import time

import requests

from server_process import run_cli, serving

TOKEN = "environment-test-token-0123456789"


def test_every_serve_flag_is_also_an_environment_variable_and_the_command_line_wins(tmp_path):
    ready = tmp_path / "ready.json"
    # The variables' port (1, which no test may bind) and log level (not a level at all) lose to the command
    # line's; the empty MOCK_APPLEID_STATE counts as unset.
    with serving("--log-level", "info",
                 env={"MOCK_APPLEID_READY_FILE": str(ready), "MOCK_APPLEID_AUTO_APPROVE": "john:hide",
                      "MOCK_APPLEID_ACCESS_LOG": "true", "MOCK_APPLEID_PORT": "1", "MOCK_APPLEID_LOG_LEVEL": "loud",
                      "MOCK_APPLEID_STATE": ""}) as base_url:
        assert json.loads(ready.read_text())["listeners"]["http"]["url"] == base_url
        assert requests.get(f"{base_url}/__admin/auto-approve", timeout=10).json() == {
            "autoApprove": {"persona": "john", "emailChoice": "hide"}}
        # --access-log, from the variable: the request is logged at info.
        requests.get(f"{base_url}/auth/keys", timeout=10)
        deadline = time.monotonic() + 10
        while "served the published keys" not in base_url.log_path.read_text():
            assert time.monotonic() < deadline, "the access log never showed the request"
            time.sleep(0.05)
    assert "state file:" not in base_url.banner


def test_a_bad_variable_stops_serve_with_a_message_naming_it():
    for env, says in (({"MOCK_APPLEID_PORT": "eighty"}, "MOCK_APPLEID_PORT as --port"),
                      ({"MOCK_APPLEID_LOG_LEVEL": "loud"}, "MOCK_APPLEID_LOG_LEVEL as --log-level"),
                      ({"MOCK_APPLEID_ACCESS_LOG": "sometimes"}, "MOCK_APPLEID_ACCESS_LOG=sometimes must be true or false")):
        result = run_cli("serve", env=env)
        assert result.returncode != 0, env
        assert says in result.stderr, result.stderr
    # The token's value is never repeated in an error.
    result = run_cli("serve", "--port", "0", env={"MOCK_APPLEID_ADMIN_TOKEN": "short-secret"})
    assert result.returncode != 0 and "MOCK_APPLEID_ADMIN_TOKEN as --admin-token" in result.stderr
    assert "short-secret" not in result.stderr + result.stdout


def test_an_admin_token_file_opens_the_admin_api_to_its_token(tmp_path):
    token_file = tmp_path / "admin-token"
    token_file.write_text(TOKEN + "\n")
    with serving("--admin-token-file", str(token_file)) as base_url:
        assert requests.get(f"{base_url}/__admin/health", timeout=10).status_code == 401
        assert requests.get(f"{base_url}/__admin/health", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10).ok
        assert "Bearer token required" in base_url.banner
        # health finds the server by --url and reads the token from the same file's variable.
        healthy = run_cli("health", "--url", base_url, env={"MOCK_APPLEID_ADMIN_TOKEN_FILE": str(token_file)})
        assert healthy.returncode == 0 and json.loads(healthy.stdout)["status"] == "ok", healthy.stderr
        refused = run_cli("health", "--url", base_url, env={"MOCK_APPLEID_ADMIN_TOKEN": None, "MOCK_APPLEID_ADMIN_TOKEN_FILE": None})
        assert refused.returncode != 0 and "401" in refused.stderr
    for bad, says in ((tmp_path / "missing", "cannot read the admin token file"), (tmp_path / "empty", "is empty")):
        if bad.name == "empty":
            bad.write_text("\n")
        result = run_cli("serve", "--port", "0", "--admin-token-file", str(bad))
        assert result.returncode != 0 and says in result.stderr, result.stderr
    both = run_cli("serve", "--port", "0", "--admin-token", TOKEN, "--admin-token-file", str(token_file))
    assert both.returncode != 0 and "cannot be used together" in both.stderr
    # A token that cannot be used stops serve before it makes its state file.
    short = run_cli("serve", "--port", "0", "--state", str(tmp_path / "world.sqlite"), "--admin-token", "short")
    assert short.returncode != 0 and "16 to 256" in short.stderr and not (tmp_path / "world.sqlite").exists()
    # A variable gives way to the command line's choice of the other flag of a pair that cannot go together.
    with serving("--admin-token-file", str(token_file), env={"MOCK_APPLEID_ADMIN_TOKEN": "from-the-environment-0123456789"}) as base_url:
        assert requests.get(f"{base_url}/__admin/health", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10).ok


def test_health_finds_the_server_by_mock_appleid_port_and_fails_when_nothing_answers():
    with serving() as base_url:
        port = base_url.rsplit(":", 1)[1]
        quiet = run_cli("health", "--quiet", env={"MOCK_APPLEID_URL": None, "MOCK_APPLEID_PORT": port})
        assert quiet.returncode == 0 and quiet.stdout == "", quiet.stderr
    gone = run_cli("health", "--url", base_url, env={"MOCK_APPLEID_ADMIN_TOKEN": None})
    assert gone.returncode != 0 and "cannot reach mock-appleid" in gone.stderr


def test_a_port_that_cannot_be_bound_is_named_with_its_listener():
    with serving() as base_url:
        port = base_url.rsplit(":", 1)[1]
        for flag, listener in (("--port", "HTTP"), ("--smtp-port", "the SMTP relay")):
            arguments = ["--port", port] if flag == "--port" else ["--port", "0", flag, port]
            result = run_cli("serve", *arguments)
            assert result.returncode != 0
            assert f"cannot listen for {listener} on 127.0.0.1:{port}: the port is in use" in result.stderr, result.stderr


def test_tls_export_dir_writes_the_cas_certificate_and_bundle_but_never_its_key(tmp_path):
    tls_dir, exported = tmp_path / "tls", tmp_path / "exported"
    with serving("--https-port", "0", "--tls-dir", str(tls_dir), env={"MOCK_APPLEID_TLS_EXPORT_DIR": str(exported)}):
        assert sorted(path.name for path in exported.iterdir()) == ["ca-bundle.pem", "ca.pem"]
        assert {oct(path.stat().st_mode & 0o777) for path in exported.iterdir()} == {"0o644"}
        assert (exported / "ca.pem").read_text() == (tls_dir / "ca.pem").read_text()
        assert (exported / "ca-bundle.pem").read_text().endswith((tls_dir / "ca.pem").read_text())
        assert "PRIVATE KEY" not in (exported / "ca.pem").read_text() + (exported / "ca-bundle.pem").read_text()
    for arguments, says in ((["--tls-export-dir", str(exported)], "need --https-port"),
                            (["--https-port", "0", "--tls-export-dir", str(exported), "--tls-cert", "c.pem", "--tls-key", "k.pem"],
                             "cannot go with --tls-cert")):
        result = run_cli("serve", "--port", "0", *arguments)
        assert result.returncode != 0 and says in result.stderr, result.stderr


def test_a_tls_variable_gives_way_only_to_the_other_side_of_its_pair(tmp_path):
    # The command line's --tls-dir (a local CA) wins over a certificate file named by the environment.
    with serving("--https-port", "0", "--tls-dir", str(tmp_path / "tls"),
                 env={"MOCK_APPLEID_TLS_CERT": str(tmp_path / "none.pem")}) as base_url:
        assert requests.get(f"{base_url}/__admin/health", timeout=10).ok
    # A key from the environment goes with the command line's certificate (the two go together): the files
    # are then read, and their absence is the error, not a missing half of the pair.
    result = run_cli("serve", "--port", "0", "--https-port", "0", "--tls-cert", str(tmp_path / "c.pem"),
                     env={"MOCK_APPLEID_TLS_KEY": str(tmp_path / "k.pem")})
    assert result.returncode != 0 and "go together" not in result.stderr and "c.pem" in result.stderr, result.stderr


def test_an_admin_token_file_that_is_not_a_regular_file_is_refused_at_once(tmp_path):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)  # opened for reading, a named pipe waits for a writer: serve would hang before saying anything
    for command in (["serve", "--port", "0", "--admin-token-file", str(pipe)], ["health", "--url", "http://127.0.0.1:9"]):
        result = run_cli(*command, env={"MOCK_APPLEID_ADMIN_TOKEN": None, "MOCK_APPLEID_ADMIN_TOKEN_FILE": str(pipe)}, timeout=20)
        assert result.returncode != 0 and f"the admin token file {pipe} is not a regular file" in result.stderr, result.stderr
    result = run_cli("serve", "--port", "0", "--admin-token-file", str(tmp_path), timeout=20)
    assert result.returncode != 0 and "is not a regular file" in result.stderr, result.stderr


def test_health_refuses_a_mock_appleid_port_that_is_not_a_port():
    for value in ("eighty", "0", "70000"):
        result = run_cli("health", env={"MOCK_APPLEID_URL": None, "MOCK_APPLEID_PORT": value}, timeout=20)
        assert result.returncode != 0 and f"MOCK_APPLEID_PORT={value} is not a port" in result.stderr, result.stderr
        assert "8080" not in result.stderr


@contextlib.contextmanager
def answering(body: bytes, drip_seconds: float = 0.0):
    """A server that answers every request 200 with `body`, a byte every `drip_seconds` when that is given;
    yields its base URL."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                continue
            with connection, contextlib.suppress(OSError):  # the client may give up and close first
                connection.recv(65536)
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body))
                for index in range(len(body)) if drip_seconds else ():
                    if stop.wait(drip_seconds):
                        break
                    connection.sendall(body[index:index + 1])
                if not drip_seconds:
                    connection.sendall(body)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        listener.close()


def test_health_gives_up_on_a_dripping_answer_and_writes_out_control_characters():
    with answering(b'{"status":"ok", "padding":"' + b"x" * 60 + b'"}', drip_seconds=1.0) as url:
        started = time.monotonic()
        result = run_cli("health", "--url", url, timeout=50)
        took = time.monotonic() - started
        assert result.returncode != 0 and "did not come whole within 30 s" in result.stderr, result.stderr
        assert took < 36, f"health took {took:.1f} s"
    with answering(b'{"status":"x\x1b]0;owned\x07\x1b[2J"}') as url:
        result = run_cli("health", "--url", url, timeout=20)
        assert result.returncode != 0 and "\x1b" not in result.stderr and "\x07" not in result.stderr
        assert "\\u{1b}]0;owned\\u{7}" in result.stderr, result.stderr
