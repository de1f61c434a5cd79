"""The HTTPS drop-in: clients that trust only the exported CA reach the fake as appleid.apple.com, and
refuse it without the CA; an unmodified social-core AppleIdAuth signs a person in. Apple's host names
are mapped to 127.0.0.1 inside this test process only (or with each client's own resolver flag),
never in the machine's /etc/hosts."""
import contextlib
import datetime
import ipaddress
import json
import os
import pathlib
import re
import shutil
import socket
import ssl
import stat
import subprocess
import sys
import tempfile

import certifi
import pytest
import requests
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID

from appleid import REDIRECT_URI, WEB_CLIENT, sign_in
from server_process import run_cli, serving
from test_hardening import _non_loopback_address, _read_until_closed

APPLE_HOSTS = ("appleid.apple.com", "appleid.cdn-apple.com")
TIMEOUT = 10


@pytest.fixture(scope="module")
def tls_dir():
    directory = tempfile.mkdtemp(prefix="mock-appleid-tls-")
    yield pathlib.Path(directory) / "tls"  # made by the server, with its own mode
    shutil.rmtree(directory, ignore_errors=True)


def https_port(banner: str) -> int:
    """The HTTPS port a `serve` banner names."""
    return int(re.search(r"https://localhost:(\d+)", banner).group(1))


class HTTPSServer:
    def __init__(self, server, tls_dir: pathlib.Path):
        self.http = server
        self.banner = server.banner
        self.port = https_port(server.banner)
        self.ca = tls_dir / "ca.pem"
        self.bundle = tls_dir / "ca-bundle.pem"
        self.key = tls_dir / "ca-key.pem"


@pytest.fixture(scope="module")
def https(tls_dir):
    with serving("--https-port", "0", "--tls-dir", str(tls_dir)) as server:
        yield HTTPSServer(server, tls_dir)


@contextlib.contextmanager
def apple_hosts_at(port: int):
    """Resolves Apple's host names (port 443) to 127.0.0.1:`port` for this process only."""
    original = socket.getaddrinfo

    def resolve(host, service, *args, **kwargs):
        if host in APPLE_HOSTS:
            return original("127.0.0.1", port if service in (443, "443", "https") else service, *args, **kwargs)
        return original(host, service, *args, **kwargs)

    socket.getaddrinfo = resolve
    try:
        yield
    finally:
        socket.getaddrinfo = original


def leaf_certificate(port: int) -> x509.Certificate:
    """The certificate the server presents for appleid.apple.com, read without verifying it."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as raw:
        with context.wrap_socket(raw, server_hostname="appleid.apple.com") as tls:
            return x509.load_der_x509_certificate(tls.getpeercert(binary_form=True))


# Certificate facts


def test_ca_is_a_name_constrained_p256_root_valid_for_years_with_a_private_key_file(https):
    ca = x509.load_pem_x509_certificate(https.ca.read_bytes())
    assert isinstance(ca.public_key(), ec.EllipticCurvePublicKey) and ca.public_key().curve.name == "secp256r1"
    assert ca.issuer == ca.subject
    ca.verify_directly_issued_by(ca)
    basic = ca.extensions.get_extension_for_class(x509.BasicConstraints)
    assert basic.critical and basic.value.ca and basic.value.path_length == 0
    usage = ca.extensions.get_extension_for_class(x509.KeyUsage)
    assert usage.critical and usage.value.key_cert_sign and usage.value.crl_sign and not usage.value.digital_signature
    constraints = ca.extensions.get_extension_for_class(x509.NameConstraints)
    assert constraints.critical and constraints.value.excluded_subtrees is None
    permitted = constraints.value.permitted_subtrees
    assert {name.value for name in permitted if isinstance(name, x509.DNSName)} == {*APPLE_HOSTS, "localhost"}
    assert {name.value for name in permitted if isinstance(name, x509.IPAddress)} == {
        ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128")}
    lifetime = ca.not_valid_after_utc - ca.not_valid_before_utc
    assert datetime.timedelta(days=9 * 365) < lifetime < datetime.timedelta(days=11 * 366)
    assert stat.S_IMODE(os.stat(https.key).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(https.key.parent).st_mode) == 0o700
    assert "PRIVATE KEY" not in https.banner


def test_server_certificate_names_apple_hosts_for_server_auth_for_at_most_397_days(https):
    ca = x509.load_pem_x509_certificate(https.ca.read_bytes())
    leaf = leaf_certificate(https.port)
    leaf.verify_directly_issued_by(ca)
    names = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert set(names.get_values_for_type(x509.DNSName)) == {*APPLE_HOSTS, "localhost"}
    assert names.get_values_for_type(x509.IPAddress) == []
    assert list(leaf.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value) == [ExtendedKeyUsageOID.SERVER_AUTH]
    basic = leaf.extensions.get_extension_for_class(x509.BasicConstraints)
    assert basic.critical and not basic.value.ca
    usage = leaf.extensions.get_extension_for_class(x509.KeyUsage)
    assert usage.critical and usage.value.digital_signature and not usage.value.key_cert_sign
    assert leaf.not_valid_after_utc - leaf.not_valid_before_utc <= datetime.timedelta(days=397)
    assert leaf.not_valid_before_utc <= datetime.datetime.now(datetime.timezone.utc) < leaf.not_valid_after_utc


def test_the_ca_is_kept_across_restarts_and_the_server_certificate_is_issued_anew(https, tls_dir):
    fingerprint = re.search(r"SHA-256:\s+(\S+)", https.banner).group(1)
    first_leaf = leaf_certificate(https.port)
    with serving("--https-port", "0", "--tls-dir", str(tls_dir)) as again:
        assert re.search(r"SHA-256:\s+(\S+)", again.banner).group(1) == fingerprint
        port = https_port(again.banner)
        assert leaf_certificate(port).serial_number != first_leaf.serial_number
    kept = run_cli("tls", "init", "--dir", str(tls_dir))
    assert kept.returncode == 0, kept.stderr
    assert kept.stdout.startswith(f"kept the certificate authority in {tls_dir}")
    assert fingerprint in kept.stdout and "PRIVATE KEY" not in kept.stdout


def test_tls_init_makes_a_ca_and_prints_how_to_trust_it():
    with tempfile.TemporaryDirectory() as parent:
        directory = pathlib.Path(parent) / "tls"
        made = run_cli("tls", "init", "--dir", str(directory))
        assert made.returncode == 0, made.stderr
        assert made.stdout.startswith(f"made a new certificate authority in {directory}")
        for line in ("REQUESTS_CA_BUNDLE=", "SSL_CERT_FILE=", "NODE_EXTRA_CA_CERTS=", "keytool -importcert", "certutil -d sql:",
                     "127.0.0.1 appleid.apple.com appleid.cdn-apple.com", "aliases: [appleid.apple.com, appleid.cdn-apple.com]"):
            assert line in made.stdout
        assert "PRIVATE KEY" not in made.stdout
        assert stat.S_IMODE(os.stat(directory / "ca-key.pem").st_mode) == 0o600


# Clients that trust only the exported CA


def test_requests_trusts_the_fake_with_requests_ca_bundle_and_refuses_it_without(https, monkeypatch):
    with apple_hosts_at(https.port):
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(https.ca))
        for host in APPLE_HOSTS:
            assert requests.get(f"https://{host}/auth/keys", timeout=TIMEOUT).json()["keys"]
        monkeypatch.delenv("REQUESTS_CA_BUNDLE")
        with pytest.raises(requests.exceptions.SSLError):
            requests.get("https://appleid.apple.com/auth/keys", timeout=TIMEOUT)


def test_discovery_over_https_advertises_https_endpoints_on_apple_host(https, monkeypatch):
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(https.bundle))
    with apple_hosts_at(https.port):
        document = requests.get("https://appleid.apple.com/.well-known/openid-configuration", timeout=TIMEOUT).json()
        health = requests.get("https://appleid.apple.com/__admin/health", timeout=TIMEOUT)
    assert document["issuer"] == "https://appleid.apple.com"
    for field, path in (("authorization_endpoint", "/auth/authorize"), ("token_endpoint", "/auth/token"),
                        ("revocation_endpoint", "/auth/revoke"), ("jwks_uri", "/auth/keys")):
        assert document[field] == "https://appleid.apple.com" + path
    assert health.status_code == 200


SSL_CLIENT = """
import socket, ssl, sys
context = ssl.create_default_context()
with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10) as raw:
    with context.wrap_socket(raw, server_hostname="appleid.apple.com") as tls:
        tls.sendall(b"GET /auth/keys HTTP/1.1\\r\\nHost: appleid.apple.com\\r\\nConnection: close\\r\\n\\r\\n")
        print(tls.recv(64).decode().split("\\r\\n")[0])
"""


def test_python_ssl_trusts_the_fake_with_ssl_cert_file_and_refuses_it_without(https):
    def run(cert_file):
        return subprocess.run([sys.executable, "-c", SSL_CLIENT, str(https.port)], capture_output=True, text=True,
                              timeout=30, env={**os.environ, "SSL_CERT_FILE": str(cert_file), "SSL_CERT_DIR": "/nonexistent"})
    for trusted in (https.ca, https.bundle):
        result = run(trusted)
        assert result.returncode == 0 and result.stdout.strip() == "HTTP/1.1 200 OK", result.stderr
    refused = run(certifi.where())
    assert refused.returncode != 0 and "CERTIFICATE_VERIFY_FAILED" in refused.stderr


def require_tools(*tools):
    """Fails (where Scripts/test installs them, MOCK_APPLEID_REQUIRE_CLIENT_TOOLS) or skips when a client program is missing."""
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        reason = f"{', '.join(missing)} not installed (Scripts/test installs curl, chromium and libnss3-tools on Debian)"
        (pytest.fail if os.environ.get("MOCK_APPLEID_REQUIRE_CLIENT_TOOLS") else pytest.skip)(reason)


def curl(https, *arguments):
    require_tools("curl")
    return subprocess.run(["curl", "-sS", "--resolve", f"appleid.apple.com:{https.port}:127.0.0.1", *arguments],
                          capture_output=True, text=True, timeout=30)


def test_curl_trusts_the_fake_with_cacert_over_http2_and_http1_and_refuses_it_without(https):
    url = f"https://appleid.apple.com:{https.port}/auth/keys"
    http2 = curl(https, "--cacert", str(https.ca), "-o", "/dev/null", "-w", "%{http_version} %{http_code}", url)
    assert http2.stdout == "2 200", http2.stderr
    http1 = curl(https, "--http1.1", "--cacert", str(https.ca), "-o", "/dev/null", "-w", "%{http_version} %{http_code}", url)
    assert http1.stdout == "1.1 200", http1.stderr
    refused = curl(https, "--cacert", certifi.where(), url)
    assert refused.returncode == 60, refused.stderr


def chromium_dump(https, home: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--host-resolver-rules=MAP appleid.apple.com 127.0.0.1",
         "--dump-dom", f"https://appleid.apple.com:{https.port}/auth/keys"],
        capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": str(home)})


def test_chromium_trusts_the_fake_with_the_ca_in_its_nss_database_and_refuses_it_without(https):
    require_tools("chromium", "certutil")
    with tempfile.TemporaryDirectory() as trusting, tempfile.TemporaryDirectory() as untrusting:
        database = pathlib.Path(trusting) / ".pki" / "nssdb"
        database.mkdir(parents=True)
        subprocess.run(["certutil", "-d", f"sql:{database}", "-N", "--empty-password"], check=True, timeout=30)
        subprocess.run(["certutil", "-d", f"sql:{database}", "-A", "-t", "C,,", "-n", "mock-appleid", "-i", str(https.ca)],
                       check=True, timeout=30)
        trusted = chromium_dump(https, pathlib.Path(trusting))
        assert '{"keys":[' in trusted.stdout, trusted.stderr[-2000:]
        refused = chromium_dump(https, pathlib.Path(untrusting))
        assert '{"keys":[' not in refused.stdout
        assert "ERR_CERT_AUTHORITY_INVALID" in refused.stderr


def test_the_admin_api_refuses_other_hosts_over_http2_even_with_a_spoofed_peer_header(tls_dir):
    require_tools("curl")
    address = _non_loopback_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address to reach the server from")
    with serving("--host", "0.0.0.0", "--https-port", "0", "--tls-dir", str(tls_dir)) as server:
        port = https_port(server.banner)
        ca = str(tls_dir / "ca.pem")

        def get(host_address, path, *headers):
            result = subprocess.run(
                ["curl", "-sS", "--http2", "--cacert", ca, "--resolve", f"localhost:{port}:{host_address}",
                 "-w", "\n%{http_version} %{http_code}", *[part for header in headers for part in ("-H", header)],
                 f"https://localhost:{port}{path}"], capture_output=True, text=True, timeout=30)
            assert result.returncode == 0, result.stderr
            return result.stdout.rsplit("\n", 1)

        body, status = get(address, "/__admin/health")
        assert status == "2 403" and json.loads(body)["error"] == "not_loopback"
        assert get(address, "/__admin/health", "X-Mock-AppleID-Peer: loopback")[1] == "2 403"
        assert get(address, "/auth/keys")[1] == "2 200"
        assert get("127.0.0.1", "/__admin/health")[1] == "2 200"


# An unmodified relying-party library


def test_unmodified_social_core_signs_in_with_trust_and_host_mapping_only(https, monkeypatch):
    from social_core.backends.apple import AppleIdAuth

    import social_core_rp

    assert (AppleIdAuth.AUTHORIZATION_URL, AppleIdAuth.ACCESS_TOKEN_URL, AppleIdAuth.JWK_URL, AppleIdAuth.ID_TOKEN_ISSUER) == (
        "https://appleid.apple.com/auth/authorize", "https://appleid.apple.com/auth/token",
        "https://appleid.apple.com/auth/keys", "https://appleid.apple.com")
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(https.bundle))
    assert requests.post(f"{https.http}/__admin/reset", json={}, timeout=TIMEOUT).status_code == 200
    strategy = social_core_rp.RelyingPartyStrategy()
    backend = AppleIdAuth(strategy, redirect_uri=REDIRECT_URI)
    with apple_hosts_at(https.port):
        url = backend.auth_url()
        assert url.startswith("https://appleid.apple.com/auth/authorize?")
        strategy.data = sign_in("https://appleid.apple.com", url, persona="jane")
        callback = AppleIdAuth(strategy, redirect_uri=REDIRECT_URI)  # the callback is a request of its own
        user = callback.auth_complete()
    assert isinstance(user, social_core_rp.SignedInUser)
    assert user.uid.count(".") == 2
    assert user.details["first_name"] == "Jane" and user.details["email"] == "jane.appleseed@example.com"
    journal = requests.get(f"{https.http}/__admin/journal", timeout=TIMEOUT).json()
    token_requests = [entry for entry in journal["entries"] if entry["endpoint"] == "/auth/token"]
    assert [(entry["status"], entry.get("clientID")) for entry in token_requests] == [(200, WEB_CLIENT)]


# Bad input and stalled clients


def test_a_client_that_stalls_in_the_tls_handshake_is_cut_by_the_header_timeout(tls_dir):
    with serving("--https-port", "0", "--tls-dir", str(tls_dir), "--header-timeout", "1", "--idle-timeout", "30") as server:
        port = https_port(server.banner)
        with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as connection:
            connection.sendall(b"\x16\x03\x01\x00\xc8\x01")  # the first bytes of a ClientHello, then nothing
            _, seconds = _read_until_closed(connection, 8)
        assert seconds < 5


def test_a_certificate_of_your_own_is_served(tmp_path):
    from cryptography.hazmat.primitives import hashes, serialization

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(x509.oid.NameOID.COMMON_NAME, "rp-own.test")])
    now = datetime.datetime.now(datetime.timezone.utc)
    own = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
           .serial_number(x509.random_serial_number()).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
           .add_extension(x509.SubjectAlternativeName([x509.DNSName("appleid.apple.com")]), critical=False)
           .sign(key, hashes.SHA256()))
    (tmp_path / "cert.pem").write_bytes(own.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
    with serving("--https-port", "0", "--tls-cert", str(tmp_path / "cert.pem"), "--tls-key", str(tmp_path / "key.pem")) as server:
        assert "certificate: from --tls-cert" in server.banner and "SHA-256" not in server.banner
        port = https_port(server.banner)
        assert leaf_certificate(port) == own
        with apple_hosts_at(port):
            assert requests.get("https://appleid.apple.com/auth/keys", verify=str(tmp_path / "cert.pem"), timeout=TIMEOUT).status_code == 200


@pytest.mark.parametrize("arguments, message", [
    (["--tls-dir", "/tmp/x"], "--tls-dir, --tls-cert, --tls-key, --tls-export-dir and --tls-min-version need --https-port"),
    (["--https-port", "0", "--tls-cert", "a.pem"], "--tls-cert and --tls-key go together"),
    (["--https-port", "70000"], "--https-port must be 0...65535"),
    (["--https-port", "0", "--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/key.pem"],
     "/nonexistent/cert.pem: cannot read the certificate chain"),
])
def test_bad_https_flags_are_refused_with_a_reason(arguments, message):
    result = run_cli("serve", "--port", "0", *arguments)
    assert result.returncode != 0
    assert message in result.stderr


def test_a_damaged_ca_folder_is_refused_naming_the_file(tmp_path):
    directory = tmp_path / "tls"
    assert run_cli("tls", "init", "--dir", str(directory)).returncode == 0
    (directory / "ca.pem").write_text("garbage")
    result = run_cli("serve", "--port", "0", "--https-port", "0", "--tls-dir", str(directory))
    assert result.returncode != 0
    assert f"{directory / 'ca.pem'}: not a PEM certificate" in result.stderr
    assert (directory / "ca.pem").read_text() == "garbage"


def keys_over(port: int, version: ssl.TLSVersion) -> str:
    """`/auth/keys` over a TLS connection of exactly `version` (OpenSSL's security level lowered so that the
    client may offer 1.0 and 1.1 at all): the status line, or the handshake's failure."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    context.set_ciphers("DEFAULT:@SECLEVEL=0")
    context.minimum_version = context.maximum_version = version
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as raw, \
                context.wrap_socket(raw, server_hostname="localhost") as tls:
            tls.sendall(b"GET /auth/keys HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            return tls.recv(64).decode().split("\r\n")[0]
    except (ssl.SSLError, ConnectionResetError) as error:
        return f"refused: {error}"


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # ssl.TLSVersion.TLSv1 and TLSv1_1 are deprecated names
def test_tls_1_0_and_1_1_are_refused_unless_the_floor_is_lowered(https, tls_dir):
    assert keys_over(https.port, ssl.TLSVersion.TLSv1).startswith("refused")
    assert keys_over(https.port, ssl.TLSVersion.TLSv1_1).startswith("refused")
    assert keys_over(https.port, ssl.TLSVersion.TLSv1_2) == "HTTP/1.1 200 OK"
    assert "WARNING" not in https.banner
    with serving("--https-port", "0", "--tls-dir", str(tls_dir), "--tls-min-version", "1.0") as old:
        assert "WARNING: HTTPS accepts TLS 1.0 and later (--tls-min-version)" in old.banner
        assert keys_over(https_port(old.banner), ssl.TLSVersion.TLSv1) == "HTTP/1.1 200 OK"
    refused = run_cli("serve", "--port", "0", "--tls-min-version", "1.1")
    assert refused.returncode != 0 and "--tls-min-version need --https-port" in refused.stderr
