"""`mock-appleid audit` against sample relying parties (audit_rp.py): a correct one scores no FAIL and no WARN,
each deliberately broken one FAILs exactly the cases of the check it leaves out, and bad relying parties or
bad input stop the audit with a clear message and exit status 2; social-core's AppleIdAuth, hosted as a site,
is audited too. The expected table of every sample is asserted whole, and the audit's cookie rules are held
against Chromium's."""
import concurrent.futures
import contextlib
import json
import pathlib
import socket
import subprocess
import sys
import tempfile
import urllib.request

import pytest

from audit_samples import FRONT_CHANNEL, FRONT_CHANNEL_USE, LIBRARIES, NATIVE, SAMPLES, WITHOUT_BACKENDS
from server_process import ROOT, binary, serving
from test_browser import browser  # noqa: F401 (a fixture)

RP = pathlib.Path(__file__).with_name("audit_rp.py")
SOCIAL_CORE_SITE = pathlib.Path(__file__).with_name("social_core_web_rp.py")
SOCIAL_CORE = "social-core"
THROUGH_SERVER = "through-a-running-server"
KEY = ROOT / "Keys" / "AuthKey_MOCKKEY001.p8"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def port_is_free(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def write_scenario(folder: str, origin: str) -> pathlib.Path:
    """The built-in scenario with `origin`'s callback among the web client's return URLs."""
    scenario = (ROOT / "Scenarios/default.yaml").read_text().replace("../Keys/", f"{ROOT}/Keys/")
    registered = "              - http://127.0.0.1:8000/auth/apple/callback\n"
    assert registered in scenario
    path = pathlib.Path(folder) / "audit.yaml"
    path.write_text(scenario.replace(registered, registered + f"              - {origin}/callback\n", 1))
    return path


@contextlib.contextmanager
def started(command: list, host: str = "127.0.0.1", scheme: str = "http"):
    """A relying party's process, which prints "ready PORT" once it listens; yields its origin, and kills it."""
    process = subprocess.Popen([sys.executable, *command], stdout=subprocess.PIPE, text=True)
    try:
        ready = process.stdout.readline().split()
        assert ready[:1] == ["ready"], f"the relying party did not start: {ready}"
        yield f"{scheme}://{host}:{ready[1]}"
    finally:
        process.kill()
        process.wait()


def sample_process(apple: str, *options: str, host: str = "127.0.0.1", port: int = 0):
    """The sample relying party configured with the server at `apple` (over https when `options` has `--tls`)."""
    return started([str(RP), "--apple", apple, "--key", str(KEY), "--host", host, "--port", str(port), *options], host=host,
                   scheme="https" if "--tls" in options else "http")


@contextlib.contextmanager
def relying_party(server_port: int, *options: str, script: pathlib.Path | None = None):
    """A relying party (the sample, or `script` with `options`) configured with the server on `server_port`, and a
    scenario listing its callback."""
    apple = f"http://127.0.0.1:{server_port}"
    process = started([str(script), "--apple", apple, *options]) if script else sample_process(apple, *options)
    with process as origin, tempfile.TemporaryDirectory() as folder:
        yield origin, write_scenario(folder, origin)


def audit(origin: str, scenario: pathlib.Path, server_port: int, *arguments: str, signed_in: str | None = None, timeout: float = 300):
    return subprocess.run([binary(), "audit", "--start", f"{origin}/login", "--signed-in", signed_in or f"{origin}/me",
                           "--scenario", str(scenario), "--port", str(server_port), *arguments],
                          capture_output=True, text=True, timeout=timeout)


def on_a_free_port(run):
    """`run()`'s audit, made again (at most twice more, each time on another free port) when the port it chose was taken
    by another process between being chosen and being bound: the fixture runs many audits at once."""
    for _ in range(3):
        outcome = run()
        if "the port is in use" not in outcome[0].stderr:
            return outcome
    return outcome


def audit_sample(name: str):
    return on_a_free_port(lambda: audit_sample_once(name))


def audit_sample_once(name: str):
    options, _ = SAMPLES[name]
    port = free_port()
    with relying_party(port, *options) as (origin, scenario), tempfile.TemporaryDirectory() as folder:
        backends = [] if name == WITHOUT_BACKENDS else ["--native", f"{origin}/native", "--notifications", f"{origin}/notifications"]
        result = audit(origin, scenario, port, "--format", "json", *report_files(folder), *backends)
        return result, read_reports(folder), port


def report_files(folder: str) -> list[str]:
    """The options that write the JSON, JUnit and HTML reports into `folder`."""
    return ["--json", str(pathlib.Path(folder) / "audit.json"), "--junit", str(pathlib.Path(folder) / "audit.xml"),
            "--html", str(pathlib.Path(folder) / "audit.html")]


def read_reports(folder: str) -> dict:
    """The reports `report_files` asked for, by kind (None for one not written)."""
    files = {"json": pathlib.Path(folder) / "audit.json", "junit": pathlib.Path(folder) / "audit.xml",
             "html": pathlib.Path(folder) / "audit.html"}
    return {kind: path.read_text() if path.exists() else None for kind, path in files.items()}


def audit_social_core():
    return on_a_free_port(audit_social_core_once)


def audit_social_core_once():
    port = free_port()
    with relying_party(port, "--cookie", "none", script=SOCIAL_CORE_SITE) as (origin, scenario):
        return audit(origin, scenario, port, "--format", "json"), {}, port


def audit_through_server():
    """The correct sample audited through a running server (`--server`), which keeps running afterwards."""
    port = free_port()
    with relying_party(port) as (origin, scenario), serving("--scenario", str(scenario), "--port", str(port)) as server, \
            tempfile.TemporaryDirectory() as folder:
        result = through(server, origin, "--format", "json", *report_files(folder),
                         "--native", f"{origin}/native", "--notifications", f"{origin}/notifications")
        assert json.loads(urllib.request.urlopen(f"{server}/__admin/health").read())["status"] == "ok"
        return result, read_reports(folder), port


def through(server: str, origin: str, *arguments: str):
    """`audit --server` against the relying party at `origin`."""
    return subprocess.run([binary(), "audit", "--server", server, "--start", f"{origin}/login", "--signed-in", f"{origin}/me", *arguments],
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def audits():
    """Every sample, social-core's site, and the correct sample through a running server, audited at once (each audit
    waits on its relying party, not on the CPU)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(SAMPLES) + 2) as pool:
        futures = {name: pool.submit(audit_sample, name) for name in SAMPLES}
        futures[SOCIAL_CORE] = pool.submit(audit_social_core)
        futures[THROUGH_SERVER] = pool.submit(audit_through_server)
        return {name: future.result() for name, future in futures.items()}


def listed_cases() -> list[str]:
    listing = subprocess.run([binary(), "audit", "--list-cases"], capture_output=True, text=True, check=True).stdout
    return [line.split("`")[1] for line in listing.splitlines() if line.startswith("| `")]


@pytest.mark.parametrize("name", SAMPLES)
def test_each_sample_relying_party_scores_exactly_its_expected_table(audits, name):
    result, reports, port = audits[name]
    junit = reports["junit"]
    _, not_passing = SAMPLES[name]
    assert result.returncode == (1 if {"FAIL", "INCONCLUSIVE"} & set(not_passing.values()) else 0), result.stderr
    report = json.loads(result.stdout)
    assert reports["json"] == result.stdout  # --json writes what --format json prints
    seen = [(case["id"], case["verdict"]) for case in report["cases"]]
    assert seen == [(case, not_passing.get(case, "PASS")) for case in listed_cases()]
    assert {"version", "start", "signedIn", "totals", "seconds", "findings", "gate", "learned", "cases"} == set(report)
    assert report["totals"] == {verdict: sum(case["verdict"] == verdict for case in report["cases"])
                                for verdict in ("PASS", "FAIL", "WARN", "SKIP", "INCONCLUSIVE")}
    for case in report["cases"]:
        assert set(case) == {"id", "verdict", "severity", "reference", "seconds", "appleSide", "expected", "seen", "evidence"}
    # Each finding is the cases of one root cause that did not PASS or SKIP.
    assert sorted(sum((finding["cases"] for finding in report["findings"]), [])) == sorted(
        case for case, verdict in not_passing.items() if verdict != "SKIP")
    # The JUnit report says the same: one test case per audit case, failures exactly the FAILs.
    assert junit.count("<testcase ") == len(seen)
    assert junit.count("<failure ") == sum(verdict == "FAIL" for _, verdict in seen)
    assert junit.count("<skipped ") == sum(verdict == "SKIP" for _, verdict in seen)
    assert junit.count('<error type="INCONCLUSIVE"') == sum(verdict == "INCONCLUSIVE" for _, verdict in seen)
    assert reports["html"].count('<details class="case" ') == len(seen)
    assert port_is_free(port), "the audit's server still listens after it exited"


def test_the_html_report_shows_in_chromium_what_the_json_report_says(audits, browser):  # noqa: F811 (the fixture)
    """`--html`: opened in Chromium, the page has the JSON report's totals, gate and every case with its verdict, the
    cases that did not PASS or SKIP unfolded with their evidence; an audit that could not run leaves a page saying why."""
    from selenium.webdriver.common.by import By
    result, reports, _ = audits["stops-at-a-sign-up-page"]
    report = json.loads(result.stdout)
    with tempfile.TemporaryDirectory() as folder:
        page = pathlib.Path(folder) / "audit.html"
        page.write_text(reports["html"])
        browser.get(page.as_uri())
        totals = report["totals"]
        assert browser.title == (f"mock-appleid audit: {totals['PASS']} PASS, {totals['FAIL']} FAIL, {totals['WARN']} WARN, "
                                 f"{totals['SKIP']} SKIP, {totals['INCONCLUSIVE']} INCONCLUSIVE")
        assert browser.find_element(By.ID, "gate").text == "the audit fails (exit status 1): " + ", ".join(report["gate"]["failing"])
        shown = {span.get_attribute("data-verdict"): span.text for span in browser.find_elements(By.CSS_SELECTOR, "#totals span")}
        assert shown == {verdict: f"{count} {verdict}" for verdict, count in totals.items()}
        for case in report["cases"]:
            element = browser.find_element(By.ID, f"case-{case['id']}")
            assert element.get_attribute("data-verdict") == case["verdict"]
            unfolded = case["verdict"] in ("FAIL", "WARN", "INCONCLUSIVE")
            assert (element.get_attribute("open") is not None) == unfolded, case["id"]
            if unfolded:
                assert case["seen"] in element.text and all(line in element.text for line in case["evidence"])
        linked = [link.text for link in browser.find_elements(By.CSS_SELECTOR, "#findings a")]
        assert linked == [case for finding in report["findings"] for case in finding["cases"]]

        port = free_port()
        with relying_party(port) as (origin, scenario):
            failed = audit(origin, scenario, port, "--html", str(page), signed_in="http://elsewhere.invalid/me")
        assert failed.returncode == 2
        browser.get(page.as_uri())
        assert browser.title == "mock-appleid audit: could not run"
        assert "--signed-in must be on the relying party's host" in browser.find_element(By.ID, "failure").text


def test_an_audit_through_a_running_server_scores_as_one_with_a_server_of_its_own(audits):
    """`--server`: the server plays Apple's side with its own world, streams the audit back, and keeps running."""
    result, reports, _ = audits[THROUGH_SERVER]
    junit = reports["junit"]
    assert result.returncode == 0, result.stderr
    seen = [(case["id"], case["verdict"]) for case in json.loads(result.stdout)["cases"]]
    assert seen == [(case, "PASS") for case in listed_cases()]
    assert junit.count("<testcase ") == len(seen) and "<failure " not in junit


def test_a_backend_whose_app_hashes_the_nonce_is_audited_with_native_nonce_sha256():
    """`--native-nonce-sha256`: the token carries the SHA-256 of the nonce the app posts; without it, the honest native
    sign-in of such a backend fails and the audit says so."""
    port = free_port()
    with relying_party(port, "--native-nonce", "sha256") as (origin, scenario):
        hashed = audit(origin, scenario, port, "--format", "json", "--cases", "native.*", "--native", f"{origin}/native",
                       "--native-nonce-sha256")
        raw = audit(origin, scenario, port, "--cases", "native.*", "--native", f"{origin}/native")
    assert hashed.returncode == 0, hashed.stderr
    assert [(case["id"], case["verdict"]) for case in json.loads(hashed.stdout)["cases"]] == [(case, "PASS") for case in NATIVE]
    assert raw.returncode == 2 and "the iOS backend refused an honest identity token" in raw.stderr, raw.stderr


def test_the_cases_include_every_documented_id():
    cases = listed_cases()
    assert len(cases) == len(set(cases))
    # Every case judged through the front-channel id_token, the lists the tables are built from (from
    # audit_samples.py, which Tests/PythonPackage reads too).
    assert FRONT_CHANNEL == [case for case in cases if case.startswith("id_token.") and case not in FRONT_CHANNEL_USE]
    for case in ("callback.state_other_session", "callback.replay", "callback.cancel", "cookies.slow_person", "token.slow",
                 "keys.rotation", "keys.unreachable", "token_id_token.aud"):
        assert case in cases


def test_a_state_cookie_marked_lax_stops_the_audit_with_the_reason():
    """Exit status 2, the reason on standard error; with --format json one object saying why (--json writes it), and with
    --junit a file with one failing test saying why, so that a CI job that reads either still learns it."""
    port = free_port()
    with relying_party(port, "--cookie", "lax") as (origin, scenario), tempfile.TemporaryDirectory() as folder:
        result = audit(origin, scenario, port)
        junit, json_file = pathlib.Path(folder) / "audit.xml", pathlib.Path(folder) / "audit.json"
        as_json = audit(origin, scenario, port, "--format", "json", "--junit", str(junit), "--json", str(json_file))
        written, json_written = junit.read_text(), json_file.read_text()
    assert result.returncode == 2
    assert "the honest sign-in did not succeed" in result.stderr
    assert "withheld the relying party's cookie rp_auth (SameSite=Lax)" in result.stderr
    assert result.stdout == ""
    assert as_json.returncode == 2
    why = json.loads(as_json.stdout)
    assert json_written == as_json.stdout
    assert "withheld the relying party's cookie rp_auth (SameSite=Lax)" in why["error"] and why["start"] == f"{origin}/login"
    assert 'tests="1" failures="1"' in written and "withheld the relying party's cookie rp_auth (SameSite=Lax)" in written


@pytest.mark.parametrize("cooldown, played_again", [("30", True), ("0", False)])
def test_a_rotation_is_played_again_after_the_refetch_pause_only_for_a_relying_party_that_did_not_take_it_at_once(cooldown, played_again):
    """PyJWT fetches the keys for an unknown kid at most once per cooldown: with its default 30 s the new key is refused
    at once and taken after the pause; with none it is taken at once, and the audit does not wait."""
    port = free_port()
    with relying_party(port, "--keys-cooldown", cooldown) as (origin, scenario):
        result = audit(origin, scenario, port, "--cases", "keys.rotation", "--format", "json")
    assert result.returncode == 0, result.stderr
    [case] = json.loads(result.stdout)["cases"]
    assert case["verdict"] == "PASS"
    assert any("played again" in line for line in case["evidence"]) == played_again, case["evidence"]


def test_the_readmes_worked_example_is_what_the_audit_prints():
    port = free_port()
    with relying_party(port, "--broken", "nonce") as (origin, scenario):
        result = audit(origin, scenario, port, "--cases", "id_token.nonce,callback.state_wrong")
    assert result.returncode == 1, result.stderr
    verdicts = result.stdout[result.stdout.index("VERDICT"):]
    assert f"```text\n{verdicts}```" in (ROOT / "README.md").read_text()


def test_cases_are_selected_by_id_and_prefix():
    port = free_port()
    with relying_party(port, "--broken", "state") as (origin, scenario):
        result = audit(origin, scenario, port, "--cases", "callback.state_*,token.invalid_grant", "--format", "json")
    assert result.returncode == 1, result.stderr
    verdicts = [(case["id"], case["verdict"]) for case in json.loads(result.stdout)["cases"]]
    assert verdicts == [("callback.state_missing", "FAIL"), ("callback.state_wrong", "FAIL"),
                        ("callback.state_other_session", "PASS"), ("token.invalid_grant", "PASS")]


@pytest.mark.parametrize("misbehaviour, message", [
    ("garbage", "the start URL never reached Apple's authorize endpoint"),
    ("error", "the start URL never reached Apple's authorize endpoint"),
    ("loop", "more than 20 redirects"),
    ("offsite", "led to http://elsewhere.invalid/login, which is neither the relying party nor this server"),
    ("callback-error", "the return URL answered 500"),
    ("foreign-return-url", "asks Apple to answer at \"https://app.example.com/auth/apple/callback\", which is not on its own host"),
])
def test_a_relying_party_that_answers_badly_stops_the_audit(misbehaviour, message):
    port = free_port()
    with relying_party(port, "--misbehave", misbehaviour) as (origin, scenario):
        result = audit(origin, scenario, port)
    assert result.returncode == 2
    assert message in result.stderr
    assert port_is_free(port)


@pytest.mark.parametrize("arguments, message", [
    (["--cases", "id_token.nothing"], "no case matches id_token.nothing"),
    (["--persona", "nobody"], "the scenario has no persona \"nobody\""),
])
def test_bad_input_stops_the_audit_before_it_starts(arguments, message):
    port = free_port()
    with relying_party(port) as (origin, scenario):
        result = audit(origin, scenario, port, *arguments)
    assert result.returncode == 2
    assert message in result.stderr


def test_a_signed_in_page_on_another_host_is_refused():
    port = free_port()
    with relying_party(port) as (origin, scenario):
        result = audit(origin, scenario, port, signed_in="http://elsewhere.invalid/me")
    assert result.returncode == 2
    assert "--signed-in must be on the relying party's host" in result.stderr


def test_a_taken_port_is_reported():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with relying_party(port) as (origin, scenario):
            result = audit(origin, scenario, port)
    assert result.returncode == 2
    assert f"could not start the mock server on 127.0.0.1:{port}" in result.stderr


def test_social_core_hosted_with_a_cross_site_session_cookie(audits):
    result, _, port = audits[SOCIAL_CORE]
    assert result.returncode == 1, result.stderr
    assert port_is_free(port)
    verdicts = {case["id"]: case["verdict"] for case in json.loads(result.stdout)["cases"] if case["verdict"] != "PASS"}
    assert verdicts == LIBRARIES[SOCIAL_CORE][1]


def test_social_core_hosted_with_djangos_default_lax_session_cookie_never_gets_its_state_back():
    port = free_port()
    with relying_party(port, "--cookie", "lax", script=SOCIAL_CORE_SITE) as (origin, scenario):
        result = audit(origin, scenario, port)
    assert result.returncode == 2
    assert "withheld the relying party's cookie sid (SameSite=Lax)" in result.stderr
