"""A relying party served over https with a certificate of its own is audited with `--ca`, one with a certificate from
the local CA (`tls issue`) without it, and one that marks its state cookie by scheme (`SameSite=None; Secure` over https only, as some libraries do) is told apart: audited over http it
FAILs `cookies.slow_person` and the verdict says that the scheme may be why; audited over https it PASSes."""
import datetime
import json
import pathlib
import subprocess
import tempfile

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from server_process import binary, serving
from test_audit import audit, free_port, sample_process, through, write_scenario


def certificate_authority(folder: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path, pathlib.Path]:
    """A certificate authority of the relying party's own and a certificate it issued for localhost: the CA's PEM
    file, the certificate's and its key's."""
    now = datetime.datetime.now(datetime.timezone.utc)
    validity = (now - datetime.timedelta(hours=1), now + datetime.timedelta(days=1))

    def issued(subject: str, key, issuer: str, issuer_key, extensions) -> x509.Certificate:
        builder = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
                   .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)])).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(validity[0]).not_valid_after(validity[1]))
        for extension, critical in extensions:
            builder = builder.add_extension(extension, critical=critical)
        return builder.sign(issuer_key, hashes.SHA256())

    ca_key, site_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = issued("audit test CA", ca_key, "audit test CA", ca_key, [(x509.BasicConstraints(ca=True, path_length=0), True)])
    site = issued("localhost", site_key, "audit test CA", ca_key, [(x509.SubjectAlternativeName([x509.DNSName("localhost")]), False),
                                                                   (x509.BasicConstraints(ca=False, path_length=None), True)])
    paths = folder / "ca.pem", folder / "site.pem", folder / "site-key.pem"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(site.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(site_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                serialization.NoEncryption()))
    return paths


def verdicts(result) -> dict:
    return {case["id"]: (case["verdict"], case["seen"]) for case in json.loads(result.stdout)["cases"]}


def test_a_relying_party_over_https_is_audited_with_its_own_ca_and_a_cookie_marked_by_scheme_is_told_apart():
    port = free_port()
    apple = f"http://127.0.0.1:{port}"
    cases = ["--cases", "cookies.slow_person,callback.state_wrong", "--format", "json"]
    with tempfile.TemporaryDirectory() as folder:
        ca, certificate, key = certificate_authority(pathlib.Path(folder))
        with sample_process(apple, "--cookie", "by-scheme", "--tls", str(certificate), str(key), host="localhost") as origin:
            scenario = write_scenario(folder, origin)
            over_https = audit(origin, scenario, port, *cases, "--ca", str(ca))
            untrusted = audit(origin, scenario, port, *cases)
        with sample_process(apple, "--cookie", "by-scheme") as origin:
            over_http = audit(origin, write_scenario(folder, origin), port, *cases)
        not_pem = pathlib.Path(folder) / "not.pem"
        not_pem.write_text("not a certificate\n")
        bad_ca = audit("https://localhost:9", scenario, port, *cases, "--ca", str(not_pem))
    assert over_https.returncode == 0, over_https.stderr
    assert {case: verdict for case, (verdict, _) in verdicts(over_https).items()} == {"cookies.slow_person": "PASS", "callback.state_wrong": "PASS"}
    assert untrusted.returncode == 2, untrusted.stderr
    assert "its certificate is not one the audit trusts (give its certificate authority with --ca, or give the relying party one from `mock-appleid tls issue`)" in untrusted.stderr
    assert json.loads(untrusted.stdout)["error"] == untrusted.stderr.strip().splitlines()[-1].removeprefix("Error: ")
    verdict, seen = verdicts(over_http)["cookies.slow_person"]
    assert over_http.returncode == 1 and verdict == "FAIL"
    assert "audited over http, and some libraries mark their cookies SameSite=None; Secure only over https" in seen
    assert bad_ca.returncode == 2 and "--ca holds no PEM certificate" in bad_ca.stderr, bad_ca.stderr


def issue(folder: pathlib.Path, *names: str) -> subprocess.CompletedProcess:
    """`tls issue` from the local CA in `folder`: site.pem and site-key.pem beside it."""
    return subprocess.run([binary(), "tls", "issue", "--dir", str(folder / "ca"), "--cert", str(folder / "site.pem"),
                           "--key", str(folder / "site-key.pem"), *[argument for name in names for argument in ("--name", name)]],
                          capture_output=True, text=True, timeout=60)


def test_a_relying_party_with_a_certificate_from_the_local_ca_is_audited_without_ca(monkeypatch):
    """The audit trusts the local CA of this machine (`$MOCK_APPLEID_TLS_DIR`), and a server auditing over `--server`
    trusts the CA its HTTPS listener uses; the CA vouches for nothing but localhost and Apple's host names."""
    cases = ["--cases", "cookies.slow_person,callback.state_wrong", "--format", "json"]
    with tempfile.TemporaryDirectory() as name:
        folder = pathlib.Path(name)
        refused = issue(folder, "localhost", "rp.example.com")
        under = issue(folder, "rp.localhost")
        issued = issue(folder)
        assert (folder / "site-key.pem").stat().st_mode & 0o777 == 0o600
        port = free_port()
        with sample_process(f"http://127.0.0.1:{port}", "--cookie", "by-scheme", "--tls", str(folder / "site.pem"),
                            str(folder / "site-key.pem"), host="localhost") as origin:
            scenario = write_scenario(name, origin)
            monkeypatch.setenv("MOCK_APPLEID_TLS_DIR", str(folder / "elsewhere"))
            untrusted = audit(origin, scenario, port, *cases)
            # Another CA put where the local one is kept is not trusted: it could vouch for any name.
            foreign = folder / "foreign"
            foreign.mkdir()
            certificate_authority(foreign)  # writes foreign/ca.pem, a CA with no name constraints
            monkeypatch.setenv("MOCK_APPLEID_TLS_DIR", str(foreign))
            not_ours = audit(origin, scenario, port, *cases)
            monkeypatch.setenv("MOCK_APPLEID_TLS_DIR", str(folder / "ca"))
            trusted = audit(origin, scenario, port, *cases)
            monkeypatch.delenv("MOCK_APPLEID_TLS_DIR")
            with serving("--scenario", str(scenario), "--port", str(port), "--https-port", "0", "--tls-dir", str(folder / "ca")) as server:
                through_server = through(server, origin, *cases)
    assert refused.returncode != 0 and "may vouch only for appleid.apple.com, appleid.cdn-apple.com, localhost and names under them" in refused.stderr, refused.stderr
    assert "not rp.example.com" in refused.stderr
    assert under.returncode == 0 and "issued a certificate for rp.localhost" in under.stdout, under.stderr
    assert issued.returncode == 0 and "issued a certificate for localhost" in issued.stdout, issued.stderr
    assert untrusted.returncode == 2 and "its certificate is not one the audit trusts" in untrusted.stderr, untrusted.stderr
    assert not_ours.returncode == 2 and "is not a mock-appleid local certificate authority" in not_ours.stderr, not_ours.stderr
    for result in (trusted, through_server):
        assert result.returncode == 0, result.stderr
        assert {case: verdict for case, (verdict, _) in verdicts(result).items()} == {"cookies.slow_person": "PASS", "callback.state_wrong": "PASS"}
