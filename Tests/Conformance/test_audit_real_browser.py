"""`audit --browser chromium`: the audit drives a real headless Chromium. The sample relying party is audited in it as a
link, as a sign-in that starts with a POST carrying a CSRF token (as Auth.js's does), and as a single-page app on Sign in
with Apple JS in popup mode; each correct, and each with one flaw (its backend decodes the id_token without verifying
it). Where the built-in browser can play a sample, Chromium gives the same verdict for every case; where it cannot, it
says why and stops."""
import concurrent.futures
import json
import pathlib
import signal
import subprocess
import tempfile
import time

import pytest

from audit_samples import SAMPLES
from server_process import binary
from test_audit import audit, free_port, listed_cases, on_a_free_port, read_reports, relying_party, report_files
from test_browser import browser, require_browser  # noqa: F401 (a fixture)

NO_SIGNATURE_CHECK = SAMPLES["no-signature-check"][1]
# In popup mode Apple's answer reaches the page once, by postMessage: a replayed delivery has no page waiting for it, and no
# other response mode applies; Sign in with Apple JS sends no PKCE challenge.
POPUP = {"callback.replay": "SKIP", "callback.response_mode_mismatch": "SKIP", "request.pkce": "WARN"}

# The cases of a sample audited in part (the rest are the correct sample's).
PARTIAL = {"link-unmarked-state-cookie": ["callback.state_other_session", "callback.replay", "cookies.slow_person"]}

# Each sample audited in Chromium: the relying party's options, what to click to begin, and the verdicts that are not
# PASS (those of the same sample in the built-in browser where it can play it).
REAL_BROWSER_SAMPLES = {
    "link": ([], None, SAMPLES["correct"][1]),
    "link-unmarked-state-cookie": (["--cookie", "unset"], None, SAMPLES["unmarked-state-cookie"][1]),  # its cookie cases only
    "post": (["--start", "post"], "#sign-in", {}),
    "post-no-signature-check": (["--start", "post", "--broken", "signature"], "#sign-in", NO_SIGNATURE_CHECK),
    "popup": (["--start", "popup"], "#sign-in", POPUP),
    "popup-no-signature-check": (["--start", "popup", "--broken", "signature"], "#sign-in", {**NO_SIGNATURE_CHECK, **POPUP}),
}


def our_browser_processes() -> list[str]:
    """The chromedriver and Chromium processes an audit started (by the arguments it gives them) still running two
    seconds after the audit ended (a process takes a moment to go once killed)."""
    deadline = time.monotonic() + 2
    while (found := browser_processes()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def browser_processes() -> list[str]:
    found = []
    for cmdline in pathlib.Path("/proc").glob("[0-9]*/cmdline"):
        try:
            arguments = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        text = b" ".join(arguments).decode(errors="replace")
        if ("chromedriver" in text and "--log-level=OFF" in text) or "MAP appleid.apple.test" in text:
            found.append(text[:200])
    return found


def audit_in_chromium_once(name: str):
    options, click, _ = REAL_BROWSER_SAMPLES[name]
    port = free_port()
    with relying_party(port, *options) as (origin, scenario), tempfile.TemporaryDirectory() as folder:
        clicking = ["--click", click] if click else []
        cases = ["--cases", ",".join(PARTIAL[name])] if name in PARTIAL else []
        result = audit(origin, scenario, port, "--format", "json", "--browser", "chromium", *clicking, *cases, *report_files(folder),
                       "--native", f"{origin}/native", "--notifications", f"{origin}/notifications", timeout=900)
        return result, read_reports(folder), port


@pytest.fixture(scope="module")
def chromium_audits():
    """Every real-browser sample audited at once (each waits on Chromium, its relying party and the cases' own waits)."""
    require_browser()
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(REAL_BROWSER_SAMPLES)) as pool:
        futures = {name: pool.submit(on_a_free_port, lambda name=name: audit_in_chromium_once(name)) for name in REAL_BROWSER_SAMPLES}
        return {name: future.result() for name, future in futures.items()}


@pytest.mark.parametrize("name", REAL_BROWSER_SAMPLES)
def test_each_sample_scores_its_table_in_chromium(chromium_audits, name):
    result, reports, _ = chromium_audits[name]
    _, _, not_passing = REAL_BROWSER_SAMPLES[name]
    assert result.returncode == (1 if {"FAIL", "INCONCLUSIVE"} & set(not_passing.values()) else 0), result.stderr
    report = json.loads(result.stdout)
    cases = PARTIAL.get(name, listed_cases())
    assert [(case["id"], case["verdict"]) for case in report["cases"]] == [(case, not_passing.get(case, "PASS")) for case in cases]
    assert reports["json"] == result.stdout
    assert reports["html"].count('<details class="case" ') == len(report["cases"])
    assert not our_browser_processes(), "the audit left Chromium or its driver running"


def test_the_slow_person_case_says_how_chromium_was_made_slow(chromium_audits):
    """Chromium's two-minute window is passed by putting the aged unmarked cookie in as Lax, which the evidence says, and
    the cookie withheld is named as the relying party set it (no SameSite)."""
    report = json.loads(chromium_audits["link-unmarked-state-cookie"][0].stdout)
    slow = next(case for case in report["cases"] if case["id"] == "cookies.slow_person")
    assert any(line.startswith("Chromium's clock cannot be moved") for line in slow["evidence"]), slow["evidence"]
    assert "withheld from the form_post after 180 s: rp_auth (no SameSite)" in slow["evidence"], slow["evidence"]


def test_what_the_real_browser_saw_is_in_the_learning_step(chromium_audits):
    """The POST start shows its two hops to Apple; the popup's answer reaches the backend by the page's fetch."""
    post = json.loads(chromium_audits["post"][0].stdout)["learned"]
    assert any(line.startswith("start: GET /login → 200, POST /login → 302, GET /auth/authorize → 200") for line in post), post
    popup = json.loads(chromium_audits["popup"][0].stdout)["learned"]
    assert any("response_mode=web_message" in line for line in popup), popup
    assert any(line.startswith("honest sign-in: POST /auth/apple → 200, GET /me → 200") for line in popup), popup
    assert any(line.startswith("cancelled sign-in: no request (the page stayed as it was); signed-in page 401") for line in popup), popup


@pytest.mark.parametrize("start", ["post", "popup"])
def test_the_builtin_browser_says_it_cannot_begin_a_sign_in_that_needs_a_click(start):
    port = free_port()
    with relying_party(port, "--start", start) as (origin, scenario):
        result = audit(origin, scenario, port, "--cases", "callback.cancel")
    assert result.returncode == 2
    assert "the start URL never reached Apple's authorize endpoint" in result.stderr
    assert "audit it with --browser chromium --click SELECTOR" in result.stderr


def run_chromium_audit(*arguments: str, options: tuple = ()):
    port = free_port()
    with relying_party(port, *options) as (origin, scenario):
        return audit(origin, scenario, port, "--cases", "callback.cancel", *arguments)


@pytest.mark.parametrize("arguments, options, reason", [
    (["--browser", "chromium", "--click", "#nowhere"], ["--start", "post"], "--click #nowhere matched nothing within 5 s on http://"),
    (["--browser", "chromium", "--click", "!!"], ["--start", "post"], "--click !! is not a CSS selector Chromium takes"),
    # A click that opens no popup and leads nowhere.
    (["--browser", "chromium", "--click", "body"], ["--start", "popup"], "no window reached Apple's authorize endpoint within 10 s"),
    (["--browser", "chromium", "--chromedriver", "/nonexistent/chromedriver"], [], "--chromedriver /nonexistent/chromedriver is not an executable file"),
    (["--browser", "chromium", "--chromium", "/nonexistent/chromium"], [], "--chromium /nonexistent/chromium is not an executable file"),
])
def test_a_real_browser_audit_that_cannot_begin_says_why_and_leaves_no_browser(arguments, options, reason):
    require_browser()
    result = run_chromium_audit(*arguments, options=tuple(options))
    assert result.returncode == 2, result.stderr
    assert reason in result.stderr
    assert not our_browser_processes(), "the audit left Chromium or its driver running"


def test_a_start_page_that_needs_a_click_reports_what_the_page_showed():
    """Without --click, a page whose sign-in is a script's: the failure names the windows, the page's text and the
    cookies it set."""
    require_browser()
    result = run_chromium_audit("--browser", "chromium", options=("--start", "popup"))
    assert result.returncode == 2
    assert "does its sign-in start with a click (--click)?" in result.stderr
    assert "it opened no other window; page http://" in result.stderr and "Sign in with Apple" in result.stderr
    assert "cookies set: rp_auth (SameSite=None; Secure)" in result.stderr
    assert not our_browser_processes(), "the audit left Chromium or its driver running"


@pytest.mark.parametrize("arguments, reason", [
    (["--click", "#sign-in"], "--click, --chromedriver and --chromium go with --browser chromium"),
    (["--browser", "firefox"], "firefox"),
])
def test_real_browser_options_without_the_real_browser_are_refused(arguments, reason):
    result = subprocess.run([binary(), "audit", "--start", "http://127.0.0.1:1/login", "--signed-in", "http://127.0.0.1:1/me", *arguments],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert reason in result.stderr


def test_the_real_browser_does_not_run_through_a_server():
    result = subprocess.run([binary(), "audit", "--server", "http://127.0.0.1:1", "--browser", "chromium", "--start", "http://127.0.0.1:2/login",
                             "--signed-in", "http://127.0.0.1:2/me"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "an audit through --server runs in the server: leave out --server" in result.stderr


def test_the_html_report_shows_each_played_cases_page_in_chromium(chromium_audits, browser):  # noqa: F811 (the fixture)
    """`--html` with --browser chromium: opened in Chromium, each case played through Apple's answer shows the page the
    relying party answered with (a JPEG that loads), the JSON report carries no image, and the built-in browser's none."""
    from selenium.webdriver.common.by import By
    result, reports, _ = chromium_audits["post-no-signature-check"]
    report = json.loads(result.stdout)
    assert all("screenshot" not in case for case in report["cases"])
    with tempfile.TemporaryDirectory() as folder:
        page = pathlib.Path(folder) / "audit.html"
        page.write_text(reports["html"])
        browser.get(page.as_uri())
        signature = browser.find_element(By.ID, "case-id_token.signature")
        image = signature.find_element(By.CSS_SELECTOR, "img.screenshot")
        assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image) > 0
        # The page it answered with: signed in, as the case says.
        assert report["cases"][[case["id"] for case in report["cases"]].index("id_token.signature")]["verdict"] == "FAIL"
        # A case that never reaches a browser (the iOS backend's) has none.
        assert not browser.find_element(By.ID, "case-native.signature").find_elements(By.CSS_SELECTOR, "img.screenshot")


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_an_audit_stopped_by_a_signal_ends_its_browser(number):
    """Ctrl-C or a CI job's SIGTERM in the middle of a Chromium audit: Chromium and its driver go with the audit."""
    require_browser()
    port = free_port()
    with relying_party(port) as (origin, scenario):
        process = subprocess.Popen([binary(), "audit", "--browser", "chromium", "--start", f"{origin}/login", "--signed-in", f"{origin}/me",
                                    "--scenario", str(scenario), "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 60
            while not browser_processes() and process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
            assert browser_processes(), "Chromium never started"
            process.send_signal(number)
            assert process.wait(timeout=30) == 128 + number
        finally:
            process.kill()
            process.wait()
    assert not our_browser_processes(), "the audit left Chromium or its driver running"
