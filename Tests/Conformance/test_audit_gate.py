"""What a CI job gates on: --baseline accepts known findings while they get no worse and says which ones a later audit
no longer finds, --fail-on warn fails on a WARN too, and a line per case goes to standard error, terminal or not."""
import json
import pathlib
import tempfile

from test_audit import audit, free_port, relying_party


def test_a_baseline_accepts_known_findings_and_fail_on_warn_gates_on_warnings():
    """A team with known findings gates on regressions only: an earlier report as --baseline accepts its findings
    (exit 0), and says which of them now PASS; --fail-on warn fails on a WARN too."""
    port = free_port()
    cases = ["--cases", "callback.state_missing,callback.replay", "--format", "json"]
    with tempfile.TemporaryDirectory() as folder:
        baseline = pathlib.Path(folder) / "baseline.json"
        with relying_party(port, "--broken", "state") as (origin, scenario):
            first = audit(origin, scenario, port, *cases)
            baseline.write_text(first.stdout)
            found = [(case["id"], case["verdict"]) for case in json.loads(first.stdout)["cases"]]
            accepted = audit(origin, scenario, port, *cases, "--baseline", str(baseline), "--fail-on", "warn")
            failures_only = pathlib.Path(folder) / "failures-only.json"
            report = json.loads(first.stdout)
            report["cases"] = [case for case in report["cases"] if case["verdict"] == "FAIL"]
            failures_only.write_text(json.dumps(report))
            warned = audit(origin, scenario, port, *cases, "--baseline", str(failures_only), "--fail-on", "warn")
            plain = audit(origin, scenario, port, *cases, "--baseline", str(failures_only))
        with relying_party(port) as (origin, scenario):
            fixed = audit(origin, scenario, port, "--cases", "callback.state_missing,callback.replay", "--baseline", str(baseline))
            not_a_report = pathlib.Path(folder) / "not-a-report.txt"
            not_a_report.write_text("callback.replay: WARN\n")
            unreadable = audit(origin, scenario, port, "--baseline", str(not_a_report))
    assert first.returncode == 1, first.stderr
    assert found == [("callback.state_missing", "FAIL"), ("callback.replay", "WARN")]
    assert accepted.returncode == 0, accepted.stdout
    assert json.loads(accepted.stdout)["gate"] == {"failOn": "warn", "failing": [], "accepted": ["callback.state_missing", "callback.replay"],
                                                   "resolved": []}
    assert warned.returncode == 1 and json.loads(warned.stdout)["gate"]["failing"] == ["callback.replay"]
    assert plain.returncode == 0
    assert fixed.returncode == 0
    assert "now PASS, so the baseline can lose them: callback.state_missing (FAIL), callback.replay (WARN)" in fixed.stdout
    assert unreadable.returncode == 2 and "is not an audit's JSON report" in unreadable.stderr


def test_progress_goes_to_standard_error_without_a_terminal():
    """A line as each case starts and ends, so that a CI log is never silent for long."""
    port = free_port()
    with relying_party(port) as (origin, scenario):
        result = audit(origin, scenario, port, "--cases", "callback.state_*")
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == ["learning: an honest sign-in and a cancelled one"] + [
        line for index, case in enumerate(["callback.state_missing", "callback.state_wrong", "callback.state_other_session"], 1)
        for line in (f"[{index}/3] {case}", f"[{index}/3] {case}: PASS")]
