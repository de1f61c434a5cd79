"""The audit's cookie jar against Chromium's: the same relying party, its state cookie marked each way, signs in in
the audit exactly when it signs in in Chromium."""
import shutil
import tempfile

import pytest

from server_process import serving
from test_audit import audit, free_port, sample_process, write_scenario
from test_browser import approve_with_keyboard, require_browser
from test_notifications import wait_for


@pytest.mark.parametrize("cookie, signs_in", [("none", True), ("lax", False), ("unset", True)])
def test_the_audits_cookie_rules_agree_with_chromium(cookie, signs_in):
    """For each way the sample marks its state cookie, the honest sign-in succeeds in the audit exactly when it
    succeeds in Chromium (the relying party on localhost, the server on 127.0.0.1: a cross-site form_post)."""
    require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    rp_port = free_port()
    origin = f"http://localhost:{rp_port}"
    with tempfile.TemporaryDirectory() as folder:
        scenario = write_scenario(folder, origin)
        with serving("--scenario", str(scenario)) as server:
            server_port = int(server.rsplit(":", 1)[1])
            with sample_process(server, "--cookie", cookie, host="localhost", port=rp_port):
                options = webdriver.ChromeOptions()
                options.binary_location = shutil.which("chromium")
                for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
                    options.add_argument(argument)
                driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
                try:
                    driver.set_page_load_timeout(30)
                    driver.get(f"{origin}/login")
                    approve_with_keyboard(driver)
                    page = wait_for(lambda: ("signed in as" in driver.page_source or "refused" in driver.page_source)
                                    and driver.page_source, "the relying party's answer")
                finally:
                    driver.quit()
        in_chromium = "signed in as" in page
        # The same relying party, now audited against a server of the audit's own on the same port.
        with sample_process(f"http://127.0.0.1:{server_port}", "--cookie", cookie, host="localhost", port=rp_port):
            result = audit(origin, scenario, server_port, "--cases", "callback.cancel")
    in_audit = result.returncode != 2
    assert (in_chromium, in_audit) == (signs_in, signs_in), result.stderr
