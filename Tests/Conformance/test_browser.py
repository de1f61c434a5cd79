"""The web surface in a real browser: headless Chromium (Debian's chromium and chromium-driver, through
Selenium) drives a sample relying-party page that uses Sign in with Apple JS in redirect mode and in popup
mode, works the consent page with the keyboard only, and receives a genuinely cross-site form_post (the
page is on localhost, the server on 127.0.0.1, so a SameSite=Lax cookie is not sent with it). Screenshots
of the buttons and pages go to test-artifacts/browser/."""
import contextlib
import html
import http.server
import json
import os
import pathlib
import shutil
import tempfile
import threading
import urllib.parse

import pytest

from server_process import ROOT, serving
from test_notifications import wait_for

ARTIFACTS = ROOT / "test-artifacts" / "browser"
SCRIPT = "/appleauth/static/jsapi/appleid/1/en_US/appleid.auth.js"


def require_browser():
    """Fails (where Scripts/test installs them, MOCK_APPLEID_REQUIRE_CLIENT_TOOLS) or skips without Chromium and its driver."""
    missing = [tool for tool in ("chromium", "chromedriver") if shutil.which(tool) is None]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (pip)")
    if missing:
        reason = f"{', '.join(missing)} not installed (Scripts/test installs chromium and chromium-driver on Debian)"
        (pytest.fail if os.environ.get("MOCK_APPLEID_REQUIRE_CLIENT_TOOLS") else pytest.skip)(reason)


class RelyingParty:
    """A sample relying party on http://localhost:<port>: a redirect-mode page, a popup-mode page and the
    callback the form_post lands on, which shows what it received (and which cookies came with it)."""

    def __init__(self, port: int, server: str):
        self.port = port
        self.origin = f"http://localhost:{port}"
        self.callback = f"{self.origin}/auth/apple/callback"
        self.server = server

    BUTTONS = ("/appleid/button?width=240&height=48&scale=2",
               "/appleid/button?width=240&height=48&scale=2&color=white&border=true&type=continue",
               "/appleid/button/left?width=300&height=48&scale=2&logo-position=14&label-position=56&type=sign-up",
               "/appleid/button?width=240&height=48&scale=2&locale=ja_JP&border_radius=50",
               "/appleid/button/logo?size=48&scale=2&border_radius=50")

    def page(self, path: str) -> str:
        if path == "/buttons.html":
            images = "".join(f'<p><img src="{self.server}{button}"></p>' for button in self.BUTTONS)
            return f"<!DOCTYPE html><html><body style='background:#dde'>{images}</body></html>"
        # /tenant.html: the popup page with the script from a tenant's CDN prefix, in German.
        script = (f"{self.server}/t/browser/appleid.cdn-apple.com{SCRIPT.replace('en_US', 'de_DE')}"
                  if path == "/tenant.html" else f"{self.server}{SCRIPT}")
        popup = path in ("/popup.html", "/tenant.html", "/both.html")
        # /both.html: meta tags give the client, redirect URI and scope; init adds usePopup and the state.
        both = path == "/both.html"
        meta = "" if popup and not both else f"""
<meta name="appleid-signin-client-id" content="com.example.web">
<meta name="appleid-signin-scope" content="name email">
<meta name="appleid-signin-redirect-uri" content="{self.callback}">
<meta name="appleid-signin-state" content="redirect-state">
<meta name="appleid-signin-nonce" content="redirect-nonce">"""
        options = ('{state: "popup-state", usePopup: true}' if both else
                   f'{{clientId: "com.example.web", scope: "name email", redirectURI: "{self.callback}", '
                   'state: "popup-state", nonce: "popup-nonce", usePopup: true}')
        init = f"""
<script>
window.outcomes = [];
window.events = [];
window.messagesSeen = 0;
window.addEventListener("message", function () {{ window.messagesSeen += 1; }});
document.addEventListener("AppleIDSignInOnSuccess", function (event) {{
  window.events.push({{success: event.detail}});
  document.getElementById("event").textContent = JSON.stringify({{success: event.detail}});
}});
document.addEventListener("AppleIDSignInOnFailure", function (event) {{
  window.events.push({{failure: event.detail}});
  document.getElementById("event").textContent = JSON.stringify({{failure: event.detail}});
}});
AppleID.auth.init({options});
function start() {{
  AppleID.auth.signIn().then(
    function (response) {{ window.outcomes.push({{resolved: response}}); document.getElementById("result").textContent = JSON.stringify({{resolved: response}}); }},
    function (error) {{ window.outcomes.push({{rejected: error}}); document.getElementById("result").textContent = JSON.stringify({{rejected: error}}); }});
}}
</script>""" if popup else ""
        button = ('<div id="appleid-signin" data-color="black" data-border="true" data-type="sign-in" '
                  'data-width="220" data-height="44" style="width:220px;height:44px"></div>')
        return f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>Sample RP</title>{meta}
<script src="{script}"></script></head>
<body><h1>Sample relying party</h1>{button}
<button id="start" onclick="start()">Start with JS</button>
<pre id="result"></pre><pre id="event"></pre>{init}</body></html>"""

    def handler(self):
        relying_party = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *arguments):
                pass

            def reply(self, body: str, cookie: str | None = None):
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                if cookie:
                    self.send_header("Set-Cookie", cookie)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self.reply(relying_party.page(self.path), cookie="rp_session=lax; SameSite=Lax; Path=/")

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                fields = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
                fields["cookies_sent"] = self.headers.get("Cookie", "")
                self.reply(f'<!DOCTYPE html><html><body><pre id="callback">{html.escape(json.dumps(fields))}</pre></body></html>')

        return Handler


@contextlib.contextmanager
def relying_party_and_server():
    """The sample relying party and a server whose web client lists its callback as a return URL."""
    # Listening before the port is written into the scenario, so no other process can take it in between;
    # the handler, which needs the server's URL, is set once the server runs.
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    port = httpd.server_address[1]
    try:
        with tempfile.TemporaryDirectory() as folder:
            scenario = (ROOT / "Scenarios/default.yaml").read_text().replace("../Keys/", f"{ROOT}/Keys/")
            registered = "              - http://127.0.0.1:8000/auth/apple/callback\n"
            assert registered in scenario
            scenario = scenario.replace(registered, registered + f"              - http://localhost:{port}/auth/apple/callback\n", 1)
            path = pathlib.Path(folder) / "browser.yaml"
            path.write_text(scenario)
            with serving("--scenario", str(path)) as server:
                relying_party = RelyingParty(port, server)
                httpd.RequestHandlerClass = relying_party.handler()
                threading.Thread(target=httpd.serve_forever, daemon=True).start()
                try:
                    yield relying_party
                finally:
                    httpd.shutdown()
    finally:
        httpd.server_close()


@pytest.fixture(scope="module")
def browser():
    require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1000,800"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    driver.set_page_load_timeout(30)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def site():
    with relying_party_and_server() as relying_party:
        yield relying_party


def is_stale(element) -> bool:
    from selenium.common.exceptions import StaleElementReferenceException
    try:
        element.is_enabled()
        return False
    except StaleElementReferenceException:
        return True


def active(driver):
    return driver.switch_to.active_element


def tab_to(driver, matches, what: str, limit: int = 40):
    """Presses Tab until the focused element satisfies `matches`."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    for _ in range(limit):
        if matches(active(driver)):
            return
        ActionChains(driver).send_keys(Keys.TAB).perform()
    raise AssertionError(f"Tab never reached {what}")


def approve_with_keyboard(driver, persona_steps: int = 0):
    """On the consent page: Tab to the persona choice, arrow down `persona_steps` times, Tab to Continue, Enter."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    wait_for(lambda: "authorize" in driver.current_url and driver.find_elements("css selector", "form"), "the consent page")
    driver.save_screenshot(str(ARTIFACTS / "consent-page.png"))
    if persona_steps:
        tab_to(driver, lambda element: element.get_attribute("name") == "persona", "the persona choice")
        for _ in range(persona_steps):
            ActionChains(driver).send_keys(Keys.ARROW_DOWN).perform()
    tab_to(driver, lambda element: element.get_attribute("value") == "continue", "Continue")
    ActionChains(driver).send_keys(Keys.ENTER).perform()


def button_image(driver):
    image = wait_for(lambda: driver.find_elements("css selector", "#appleid-signin [role=button] img"), "the button")[0]
    wait_for(lambda: driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image), "the button image")
    return image


def press_button_for_popup(driver, page: str):
    """Opens `page`, waits for its button's image, presses the button; returns the opener's and the popup's handles."""
    driver.get(page)
    button_image(driver)
    opener = driver.current_window_handle
    driver.find_element("css selector", "#appleid-signin [role=button]").click()
    return opener, wait_for(lambda: [handle for handle in driver.window_handles if handle != opener], "the popup")[0]


def test_redirect_mode_signs_in_by_keyboard_and_lands_by_a_cross_site_form_post(browser, site):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    browser.get(f"{site.origin}/redirect.html")
    image = button_image(browser)
    assert browser.execute_script("return arguments[0].naturalWidth", image) >= 220
    assert "/appleid/button?" in image.get_attribute("src") and "border=true" in image.get_attribute("src")
    browser.find_element("id", "appleid-signin").screenshot(str(ARTIFACTS / "js-button.png"))
    # The button is reached and pressed with the keyboard.
    tab_to(browser, lambda element: element.get_attribute("role") == "button", "the Sign in with Apple button")
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    approve_with_keyboard(browser, persona_steps=1)
    callback = json.loads(wait_for(lambda: browser.find_elements("id", "callback"), "the callback")[0].text)
    browser.save_screenshot(str(ARTIFACTS / "form-post-callback.png"))
    assert callback["state"] == "redirect-state"
    assert callback["code"] and callback["id_token"].count(".") == 2
    assert json.loads(callback["user"])["name"]["firstName"]
    assert "rp_session" not in callback["cookies_sent"], "a SameSite=Lax cookie came with a cross-site form_post"


def test_popup_mode_resolves_with_the_authorization_and_fires_the_success_event(browser, site):
    opener, popup = press_button_for_popup(browser, f"{site.origin}/popup.html")
    # A message from anything but the popup (here the page itself) is not taken for the answer.
    browser.execute_script('window.postMessage({source: "mock-appleid", authorization: {code: "forged"}}, "*");')
    wait_for(lambda: browser.execute_script("return window.messagesSeen"), "the forged message to arrive")
    assert browser.execute_script("return window.outcomes") == []
    browser.switch_to.window(popup)
    assert "response_mode=web_message" in browser.current_url
    approve_with_keyboard(browser)
    wait_for(lambda: popup not in browser.window_handles, "the popup to close itself")
    browser.switch_to.window(opener)
    event = json.loads(wait_for(lambda: browser.find_element("id", "event").text, "the success event"))
    authorization = event["success"]["authorization"]
    assert authorization["state"] == "popup-state"
    assert authorization["code"] and authorization["code"] != "forged" and authorization["id_token"].count(".") == 2
    assert "user" in event["success"]
    assert event["success"]["data"] == {"authorization": authorization, "user": event["success"]["user"]}  # Apple's documented shape
    browser.save_screenshot(str(ARTIFACTS / "popup-signed-in.png"))


def test_popup_mode_rejects_when_cancelled_and_when_closed(browser, site):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    browser.get(f"{site.origin}/popup.html")
    button_image(browser)
    opener = browser.current_window_handle

    def open_popup():
        browser.find_element("id", "start").click()
        popup = wait_for(lambda: [handle for handle in browser.window_handles if handle != opener], "the popup")[0]
        browser.switch_to.window(popup)
        return popup

    def outcome():
        browser.switch_to.window(opener)
        result = json.loads(wait_for(lambda: browser.find_element("id", "result").text, "the promise to settle"))
        event = json.loads(browser.find_element("id", "event").text)
        browser.execute_script("document.getElementById('result').textContent = ''; document.getElementById('event').textContent = '';")
        return result, event

    popup = open_popup()
    wait_for(lambda: browser.find_elements("css selector", "form"), "the consent page")
    tab_to(browser, lambda element: element.get_attribute("value") == "cancel", "Cancel")
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    wait_for(lambda: popup not in browser.window_handles, "the popup to close itself")
    result, event = outcome()
    assert result == {"rejected": {"error": "user_cancelled_authorize"}}
    assert event == {"failure": {"error": "user_cancelled_authorize"}}

    open_popup()
    browser.close()
    result, event = outcome()
    assert result == {"rejected": {"error": "popup_closed_by_user"}}
    assert event == {"failure": {"error": "popup_closed_by_user"}}


def test_a_blocked_popup_rejects_and_a_second_sign_in_ends_the_first(browser, site):
    browser.get(f"{site.origin}/popup.html")
    button_image(browser)
    opener = browser.current_window_handle
    # A blocked popup: window.open answers null, as it does under a popup blocker (the driver turns Chromium's off).
    browser.execute_script("var open = window.open; window.open = function () { return null; }; start(); window.open = open;")
    outcomes = wait_for(lambda: browser.execute_script("return window.outcomes"), "the promise to settle")
    assert outcomes == [{"rejected": {"error": "popup_blocked_by_browser"}}]
    assert browser.execute_script("return window.events") == [{"failure": {"error": "popup_blocked_by_browser"}}]
    # Two clicks: the second sign-in ends the first.
    browser.find_element("id", "start").click()
    wait_for(lambda: len(browser.window_handles) == 2, "the popup")
    popup = [handle for handle in browser.window_handles if handle != opener][0]
    browser.switch_to.window(popup)
    first_page = wait_for(lambda: browser.find_elements("css selector", "form"), "the first consent page")[0]
    browser.switch_to.window(opener)
    browser.find_element("id", "start").click()
    outcomes = wait_for(lambda: browser.execute_script("return window.outcomes.length > 1 && window.outcomes"), "the first flow to end")
    assert outcomes[1] == {"rejected": {"error": "user_trigger_new_signin_flow"}}
    browser.switch_to.window(popup)
    wait_for(lambda: is_stale(first_page), "the popup to load the second sign-in")
    approve_with_keyboard(browser)
    wait_for(lambda: popup not in browser.window_handles, "the popup to close itself")
    browser.switch_to.window(opener)
    outcomes = wait_for(lambda: browser.execute_script("return window.outcomes.length > 2 && window.outcomes"), "the second flow to end")
    assert outcomes[2]["resolved"]["authorization"]["state"] == "popup-state"


@pytest.mark.parametrize("mode, path, size", [("left-align", "/appleid/button/left?", (300, 40)),
                                               ("logo-only", "/appleid/button/logo?", (40, 40)),
                                               ("center-align", "/appleid/button?", (300, 40))])
def test_render_button_follows_the_data_attributes(browser, site, mode, path, size):
    browser.get(f"{site.origin}/popup.html")
    button_image(browser)
    browser.execute_script("""
        var element = document.getElementById("appleid-signin");
        Object.assign(element.dataset, {mode: arguments[0], width: "300", height: "40", color: "white", border: "false",
                                        borderRadius: "50", type: "continue", logoSize: "large", logoPosition: "10", labelPosition: "60"});
        AppleID.auth.renderButton();""", mode)
    image = button_image(browser)
    source = urllib.parse.urlsplit(image.get_attribute("src"))
    assert source.path == urllib.parse.urlsplit(site.server + path).path
    query = dict(urllib.parse.parse_qsl(source.query))
    assert query["color"] == "white" and query["border"] == "false" and query["border_radius"] == "50"
    if mode == "left-align":
        assert (query["logo-size"], query["logo-position"], query["label-position"], query["type"]) == ("large", "10", "60", "continue")
    if mode == "logo-only":
        assert query["size"] == "40" and "type" not in query
    assert (int(image.get_attribute("width")), int(image.get_attribute("height"))) == size
    browser.find_element("id", "appleid-signin").screenshot(str(ARTIFACTS / f"js-button-{mode}.png"))


def test_the_script_from_a_tenants_cdn_prefix_signs_in_to_that_tenant_with_its_locales_button(browser, site):
    import requests
    assert requests.post(f"{site.server}/__admin/tenants", json={"name": "browser"}, timeout=10).status_code == 201
    opener, popup = press_button_for_popup(browser, f"{site.origin}/tenant.html")
    image = button_image(browser)
    assert image.get_attribute("src").startswith(f"{site.server}/t/browser/appleid.cdn-apple.com/appleid/button?")
    assert "locale=de_DE" in image.get_attribute("src")
    browser.switch_to.window(popup)
    assert browser.current_url.startswith(f"{site.server}/t/browser/auth/authorize?")
    approve_with_keyboard(browser)
    wait_for(lambda: popup not in browser.window_handles, "the popup to close itself")
    browser.switch_to.window(opener)
    event = wait_for(lambda: browser.execute_script("return window.events[0]"), "the success event")
    assert event["success"]["authorization"]["code"]
    journal = requests.get(f"{site.server}/t/browser/__admin/journal", timeout=10).json()["entries"]
    assert any(entry["endpoint"] == "/auth/authorize" and entry["status"] == 200 for entry in journal), "the tenant signed in"


def test_meta_tags_and_init_together(browser, site):
    opener, popup = press_button_for_popup(browser, f"{site.origin}/both.html")  # a popup: usePopup came from init
    browser.switch_to.window(popup)
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(browser.current_url).query))
    assert (query["client_id"], query["redirect_uri"], query["state"], query["nonce"]) == \
        ("com.example.web", site.callback, "popup-state", "redirect-nonce")
    browser.close()
    browser.switch_to.window(opener)


def test_button_images_as_a_browser_shows_them(browser, site):
    browser.get(f"{site.origin}/buttons.html")
    wait_for(lambda: browser.execute_script(
        "return Array.from(document.images).every(function (image) { return image.complete && image.naturalWidth > 0; })"),
        "every button image")
    widths = browser.execute_script("return Array.from(document.images).map(function (image) { return image.naturalWidth; })")
    assert widths == [480, 480, 600, 480, 96]
    browser.save_screenshot(str(ARTIFACTS / "buttons.png"))
