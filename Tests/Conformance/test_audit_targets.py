"""`POST /__admin/audit` reaches only its targets: link-local and cloud-metadata addresses never, and nothing outside
`serve --audit-targets` (loopback and private addresses by default). Every refusal comes before anything is sent."""
import json
import time
import urllib.error

import pytest

from server_process import run_cli, serving
from test_audit_through_server import post_audit


def test_the_audit_endpoint_refuses_addresses_outside_its_targets_before_sending_anything():
    """Link-local and cloud-metadata addresses are refused always (also written as one number, which resolves to
    169.254.169.254), and an address outside `--audit-targets` (loopback and private by default) too: a 400
    naming the input and the address, answered before any connection is tried. Nothing here leaves the machine."""
    with serving() as server:
        for start, native, says in [
            ("http://169.254.169.254/login", None, "--start: 169.254.169.254 is a link-local address"),
            ("http://2852039166/login", None, "--start: 2852039166 (169.254.169.254) is a link-local address"),
            ("http://[fd00:ec2::254]/login", None, "is a cloud metadata address"),
            ("http://[::ffff:169.254.169.254]/login", None, "is a link-local address"),
            ("http://198.51.100.7/login", None, "--start: 198.51.100.7 is outside the audit targets (loopback,private)"),
            ("http://127.0.0.1:9/login", "http://169.254.169.254/apple", "--native: 169.254.169.254 is a link-local address"),
        ]:
            body = {"start": start, "signedIn": start.replace("/login", "/me")} | ({"native": native} if native else {})
            started = time.monotonic()
            with pytest.raises(urllib.error.HTTPError) as refused:
                post_audit(server, body)
            message = json.loads(refused.value.read())["message"]
            assert refused.value.code == 400 and says in message, message
            assert time.monotonic() - started < 2
    with serving("--audit-targets", "10.9.0.0/16") as server:
        with pytest.raises(urllib.error.HTTPError) as refused:
            post_audit(server, {"start": "http://127.0.0.1:9/login", "signedIn": "http://127.0.0.1:9/me"})
        assert "127.0.0.1 is outside the audit targets (10.9.0.0/16)" in json.loads(refused.value.read())["message"]
    for wrong in ("everywhere", "10.0.0.0/33", ""):
        result = run_cli("serve", "--port", "0", "--audit-targets", wrong)
        assert result.returncode != 0 and "--audit-targets" in result.stderr, result.stderr
