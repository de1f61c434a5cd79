"""The RP audit from Python: `mock-appleid audit` run against a relying party, its report returned.

    from mock_appleid import audit

    report = audit("http://127.0.0.1:8000/login", "http://127.0.0.1:8000/me", port=8080)
    assert report.verdicts["id_token.nonce"] == "PASS"

The audit starts its own server on `port`, which the relying party must be configured with (see the
repository's docs/audit.md); with `server`, it runs through a server already running instead (as
`MockAppleIDClient.audit` does). Run it only against relying parties you own or are allowed to test.
"""
import dataclasses
import json
import os
import subprocess
import tempfile
from typing import Dict, List, Optional, Sequence, Union

from .binary import find_binary
from .errors import MockAppleIDError


class AuditError(MockAppleIDError):
    """The audit could not run (exit status 2): bad input, a port in use, or a relying party whose honest
    sign-in fails; the message says why."""


@dataclasses.dataclass(frozen=True)
class AuditCase:
    """One case's outcome: `verdict` is PASS, FAIL, WARN, SKIP or INCONCLUSIVE."""
    id: str
    verdict: str
    apple_side: str
    expected: str
    seen: str
    evidence: List[str]
    severity: Optional[str] = None
    """How much a miss weighs for this relying party: "must" or "should"."""
    reference: Optional[str] = None
    seconds: Optional[float] = None


@dataclasses.dataclass(frozen=True)
class AuditReport:
    """What the audit found: the learning step's lines and one result per case, in the audit's order; `totals`
    counts the cases of each verdict, `version` is mock-appleid's."""
    learned: List[str]
    cases: List[AuditCase]
    junit: str
    totals: Dict[str, int] = dataclasses.field(default_factory=dict)
    version: Optional[str] = None

    @property
    def verdicts(self) -> Dict[str, str]:
        """Each case's verdict by id."""
        return {case.id: case.verdict for case in self.cases}

    @property
    def failures(self) -> List[AuditCase]:
        """The cases the relying party FAILed."""
        return [case for case in self.cases if case.verdict == "FAIL"]


def audit(start: str, signed_in: str, *, port: int = 8080, host: str = "127.0.0.1",
          scenario: Union[str, os.PathLike, None] = None, persona: str = "jane", cases: Optional[Sequence[str]] = None,
          native: Optional[str] = None, native_body: Optional[str] = None, native_nonce_sha256: bool = False,
          bundle_id: Optional[str] = None, notifications: Optional[str] = None, binary: Optional[str] = None,
          server: Optional[str] = None, admin_token: Optional[str] = None, apple_url: Optional[str] = None,
          ca: Union[str, os.PathLike, None] = None, timeout: float = 600) -> AuditReport:
    """Audits the relying party whose sign-in starts at `start`, judging by its `signed_in` page (2xx only to
    a signed-in session). `cases` takes ids and prefixes ending in `*`; all cases when None. `native` (with
    `native_body`, `native_nonce_sha256`, `bundle_id`) and `notifications` are its iOS backend and notification
    endpoint, when it has them. With `server` (a running server's base URL, and its `admin_token` if it has one),
    that server plays Apple's side, and `port`, `host` and `scenario` are unused; `apple_url` is its base URL as
    the relying party uses it when that is another (https://appleid.apple.com for one led to it by Apple's host
    names, as `MockAppleIDClient.as_apple()` does); `ca` is a PEM file of certificate authorities to trust for a
    relying party served over https with a certificate of its own.
    Raises AuditError when the audit could not run."""
    arguments = [find_binary(binary), "audit", "--start", start, "--signed-in", signed_in, "--persona", persona, "--format", "json"]
    if server is not None:
        arguments += ["--server", server]
        if apple_url is not None:
            arguments += ["--apple-url", apple_url]
    else:
        arguments += ["--port", str(port), "--host", host]
        if scenario is not None:
            arguments += ["--scenario", os.fspath(scenario)]
    if cases is not None:
        arguments += ["--cases", ",".join(cases)]
    for option, value in (("--native", native), ("--native-body", native_body), ("--bundle-id", bundle_id),
                          ("--notifications", notifications)):
        if value is not None:
            arguments += [option, value]
    if native_nonce_sha256:
        arguments.append("--native-nonce-sha256")
    if ca is not None:
        arguments += ["--ca", os.fspath(ca)]
    with tempfile.TemporaryDirectory(prefix="mock-appleid-audit-") as folder:
        junit_path = os.path.join(folder, "audit.xml")
        try:
            # The token goes through the environment, where other users' `ps` does not show it.
            environment = {**os.environ, "MOCK_APPLEID_ADMIN_TOKEN": admin_token} if admin_token is not None else None
            ran = subprocess.run(arguments + ["--junit", junit_path], capture_output=True, text=True, timeout=timeout, env=environment)
        except subprocess.TimeoutExpired as error:
            raise AuditError(f"the audit did not finish within {timeout} s") from error
        if ran.returncode not in (0, 1):
            raise AuditError(_why_not_run(ran))
        with open(junit_path, encoding="utf-8") as junit:
            report_junit = junit.read()
    document = json.loads(ran.stdout)
    return AuditReport(
        learned=document["learned"], junit=report_junit, totals=document.get("totals") or {}, version=document.get("version"),
        cases=[AuditCase(id=case["id"], verdict=case["verdict"], apple_side=case["appleSide"], expected=case["expected"],
                         seen=case["seen"], evidence=case["evidence"], severity=case.get("severity"), reference=case.get("reference"),
                         seconds=case.get("seconds")) for case in document["cases"]])


def _why_not_run(ran: subprocess.CompletedProcess) -> str:
    """Why the audit could not run: the `error` of the JSON object it printed, else its last error line."""
    try:
        return json.loads(ran.stdout)["error"]
    except (ValueError, KeyError, TypeError):
        errors = [line.removeprefix("Error: ") for line in ran.stderr.splitlines() if line.startswith("Error: ")]
        return errors[-1] if errors else f"the audit exited with status {ran.returncode}"
