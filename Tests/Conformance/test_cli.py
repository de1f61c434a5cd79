"""The command line: serve flags, keys generate, scenario check, client-secret."""
import re
import pathlib
import sys
import time

import jwt
import requests
from cryptography.hazmat.primitives import serialization

from appleid import REDIRECT_URI, WEB_CLIENT, authorize_url, exchange, form_fields, sign_in, verify_with_pyjwt
from server_process import ROOT, run_cli, serving


def test_serve_prints_where_it_listens_the_apps_personas_and_developer_key():
    with serving("--host", "127.0.0.1") as base_url:
        assert base_url.startswith("http://127.0.0.1:") and not base_url.endswith(":0")
        for expected in (f"discovery:   {base_url}/.well-known/openid-configuration",
                         "client_id com.example.web (web), return URLs:", "      http://localhost:3000/auth/apple/callback",
                         f"team MOCKTEAM01 key MOCKKEY001: {ROOT / 'Keys' / 'AuthKey_MOCKKEY001.p8'}",
                         "jane: Jane Appleseed <jane.appleseed@example.com, shares email>", "pat: Pat Managed"):
            assert expected in base_url.banner, expected
        assert requests.get(f"{base_url}/__admin/health", timeout=10).json()["status"] == "ok"


def test_serve_auto_approve_answers_authorize_at_once():
    with serving("--auto-approve", "john:share") as base_url:
        response = requests.get(authorize_url(base_url), timeout=10)
        action, fields = form_fields(response.text)
        assert action == REDIRECT_URI
        assert '"email":"john.hidden@example.com"' in fields["user"]
        assert requests.get(f"{base_url}/__admin/auto-approve", timeout=10).json() == {
            "autoApprove": {"persona": "john", "emailChoice": "share"}}


def test_serve_refuses_bad_flags():
    for arguments in (["--auto-approve", "ghost"], ["--log-level", "loud"], ["--scenario", "/nonexistent.yaml"]):
        result = run_cli("serve", "--port", "0", *arguments)
        assert result.returncode != 0, arguments
        assert result.stderr.strip(), arguments


def test_keys_generate_writes_usable_keys(tmp_path):
    for kind, kid in (("rsa", "gen1rsa000"), ("ec", "gen1ec0000"), ("p8", "GENKEY0001")):
        result = run_cli("keys", "generate", "--type", kind, "--kid", kid, "-o", str(tmp_path))
        assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["AuthKey_GENKEY0001.p8", "signing-gen1ec0000.pem", "signing-gen1rsa000.pem"]
    scenario = tmp_path / "generated.yaml"
    scenario.write_text("""
signingKeys:
  - {kid: gen1rsa000, alg: RS256, file: signing-gen1rsa000.pem, signing: true}
  - {kid: gen1ec0000, alg: ES256, file: signing-gen1ec0000.pem}
teams:
  - id: GENTEAM001
    keys: [{kid: GENKEY0001, file: AuthKey_GENKEY0001.p8}]
    apps:
      - primaryAppID: com.generated.app
        servicesIDs: [{id: com.generated.web, returnURLs: ["https://generated.example.com/cb"]}]
personas: [{id: p, email: p@example.com}]
""")
    check = run_cli("scenario", "check", str(scenario))
    assert check.returncode == 0 and ": ok (" in check.stdout, check.stdout + check.stderr
    again = run_cli("keys", "generate", "--type", "p8", "--kid", "GENKEY0001", "-o", str(tmp_path))
    assert again.returncode != 0 and "exists" in again.stderr


def test_scenario_check_reports_file_line_and_key_path(tmp_path):
    assert run_cli("scenario", "check", str(ROOT / "Scenarios" / "default.yaml")).returncode == 0
    broken = tmp_path / "broken.yaml"
    text = (ROOT / "Scenarios" / "default.yaml").read_text().replace("- https://app.example.com/auth/apple/callback",
                                                                    "- http://app.example.com/auth/apple/callback")
    broken.write_text(text.replace("file: ../Keys/", f"file: {ROOT}/Keys/"))
    result = run_cli("scenario", "check", str(broken))
    assert result.returncode == 1
    line = next(i for i, l in enumerate(text.splitlines(), 1) if "http://app.example.com" in l)
    assert result.stdout.startswith(f"{broken}:{line}:")
    assert "teams[0].apps[0].servicesIDs[0].returnURLs[0]: " in result.stdout and "must use https" in result.stdout


def test_client_secret_is_a_valid_es256_secret():
    result = run_cli("client-secret", "--client-id", WEB_CLIENT, "--lifetime", "600")
    assert result.returncode == 0
    secret = result.stdout.strip()
    private = serialization.load_pem_private_key((ROOT / "Keys" / "AuthKey_MOCKKEY001.p8").read_bytes(), password=None)
    claims = jwt.decode(secret, private.public_key(), algorithms=["ES256"], audience="https://appleid.apple.com")
    assert jwt.get_unverified_header(secret) == {"alg": "ES256", "kid": "MOCKKEY001"}
    assert claims["iss"] == "MOCKTEAM01" and claims["sub"] == WEB_CLIENT and claims["exp"] - claims["iat"] == 600


def test_client_secret_refuses_a_file_that_is_not_a_key(tmp_path):
    not_a_key = tmp_path / "key.p8"
    not_a_key.write_text("hello")
    result = run_cli("client-secret", "--key", str(not_a_key))
    assert result.returncode != 0 and "P-256" in result.stderr


def test_serve_signs_rs256_with_the_library_it_is_asked_for():
    """By default the faster of libcrypto and swift-crypto signs: libcrypto is looked for on Linux only, loaded when
    a key first signs, timed against swift-crypto then, and the log names both and the one kept; either library on
    request. PyJWT verifies the tokens of each."""
    signers = [("swift-crypto", "swift-crypto", None)]
    if sys.platform.startswith("linux"):
        signers += [("auto", "the faster of libcrypto and swift-crypto, timed when an RS256 key first signs",
                     re.compile(r"RS256: libcrypto \(OpenSSL 3.*RS256: timed at [\d.]+ ms a signature with libcrypto and [\d.]+ ms "
                                r"with swift-crypto: (libcrypto|swift-crypto) signs", re.DOTALL)),
                    ("libcrypto", "libcrypto (OpenSSL 3", None)]
    else:
        signers += [("auto", "swift-crypto", None)]
        refused = run_cli("serve", "--port", "0", "--rsa-signer", "libcrypto")
        assert refused.returncode != 0 and "no OpenSSL 3 libcrypto" in refused.stderr
    for signer, named, logged in signers:
        with serving("--rsa-signer", signer) as base_url:
            assert f"RS256 by:    {named}" in base_url.banner, signer
            assert "RS256: " not in base_url.log_path.read_text(), "libcrypto looked for before anything signed"
            if signer == "auto" and sys.platform.startswith("linux"):
                maps = pathlib.Path(f"/proc/{base_url.process.pid}/maps").read_text()
                assert "libcrypto.so.3" not in maps, "libcrypto loaded before anything signed"
            code = sign_in(base_url, authorize_url(base_url))["code"]
            tokens = exchange(base_url, code).json()
            assert verify_with_pyjwt(base_url, tokens["id_token"])["sub"], signer
            if logged:
                deadline = time.monotonic() + 30
                while not logged.search(base_url.log_path.read_text()):
                    assert time.monotonic() < deadline, base_url.log_path.read_text()
                    time.sleep(0.02)
    result = run_cli("serve", "--port", "0", "--rsa-signer", "openssl")
    assert result.returncode != 0 and "--rsa-signer must be auto, libcrypto or swift-crypto" in result.stderr


def test_version_is_the_python_packages():
    """`mock-appleid --version` (also in each audit's report) names the version the Python package carries."""
    packaged = next(line.split('"')[1] for line in (ROOT / "Python" / "pyproject.toml").read_text().splitlines()
                    if line.startswith("version = "))
    assert run_cli("--version").stdout.strip() == packaged
