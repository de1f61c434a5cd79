"""The audit's row: a full audit of the repository's correct sample relying party (Tests/Conformance/audit_rp.py, with
its iOS backend and notification endpoint), and where its time goes: the waits its cases are made of against the
rest."""
import json
import pathlib
import subprocess
import sys
import tempfile

from measure import free_port

ROOT = pathlib.Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "Tests" / "Conformance" / "audit_rp.py"


def audit_rows(binary: str) -> list[tuple]:
    """The sample as it is (PyJWT's key client, which fetches the keys for an unknown kid at most every 30 s), and with
    no such cooldown (then `keys.rotation` takes the new key at once and nothing waits for the pause)."""
    return [full_audit(binary, "30", "the correct sample RP", "the cooldown + 2 s (the RP takes no new key sooner)"),
            full_audit(binary, "0", "the correct sample RP, no key-refetch cooldown", "≤ 15 s")]


def full_audit(binary: str, cooldown: str, name: str, target: str) -> tuple:
    port = free_port()
    sample = subprocess.Popen([sys.executable, str(SAMPLE), "--apple", f"http://127.0.0.1:{port}", "--key",
                               str(ROOT / "Keys" / "AuthKey_MOCKKEY001.p8"), "--keys-cooldown", cooldown], stdout=subprocess.PIPE, text=True)
    try:
        origin = f"http://127.0.0.1:{sample.stdout.readline().split()[1]}"
        with tempfile.TemporaryDirectory() as folder:
            registered = "              - http://127.0.0.1:8000/auth/apple/callback\n"
            scenario = (ROOT / "Scenarios/default.yaml").read_text().replace("../Keys/", f"{ROOT}/Keys/")
            path = pathlib.Path(folder) / "audit.yaml"
            path.write_text(scenario.replace(registered, registered + f"              - {origin}/callback\n", 1))
            ran = subprocess.run([binary, "audit", "--start", f"{origin}/login", "--signed-in", f"{origin}/me", "--scenario", str(path),
                                  "--port", str(port), "--format", "json", "--native", f"{origin}/native",
                                  "--notifications", f"{origin}/notifications"], capture_output=True, text=True, timeout=600)
    finally:
        sample.kill()
        sample.wait()
    if ran.returncode != 0:
        raise RuntimeError(f"the audit of {name} exited {ran.returncode}: {ran.stderr[-2000:]}")
    report = json.loads(ran.stdout)
    seconds = {case["id"]: case["seconds"] for case in report["cases"]}
    passed = sum(case["verdict"] == "PASS" for case in report["cases"])
    rotation, slow = seconds["keys.rotation"], seconds["token.slow"]
    rest = sum(seconds.values()) - rotation - slow
    learning = report["seconds"] - sum(seconds.values())
    return (f"a full audit of {name} ({len(seconds)} cases, {passed} PASS)", f"{report['seconds']:.1f} s",
            f"keys.rotation {rotation:.1f} s (the RP's key-refetch cooldown: {cooldown} s), token.slow {slow:.1f} s (Apple's side answers "
            f"after 10 s); the learning step {learning:.1f} s and the other {len(seconds) - 2} cases {rest:.1f} s", target)
