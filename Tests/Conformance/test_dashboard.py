"""The dashboard in headless Chromium: it shows the world, is usable with the keyboard, its actions are
same-origin JSON calls to the admin API (checked here through that API), and it follows the event stream
so that what happens elsewhere appears without a reload. Screenshots go to test-artifacts/browser/."""
import requests

import pytest

from appleid import authorize_url, exchange, sign_in
from server_process import serving
from test_browser import ARTIFACTS, browser, tab_to  # noqa: F401 (the browser fixture)
from test_notifications import register, wait_for


@pytest.fixture(scope="module")
def server():
    with serving() as base_url:
        yield base_url


def events(base_url, kind) -> list:
    return [e["event"][kind] for e in requests.get(f"{base_url}/__admin/events", timeout=10).json()["events"] if kind in e["event"]]


CLICK = """
var rowText = arguments[0], buttonText = arguments[1], fields = arguments[2];
var buttons = document.querySelectorAll("form.action button");
for (var i = 0; i < buttons.length; i++) {
  var row = buttons[i].closest("tr, article, section");
  if (buttons[i].textContent !== buttonText || !row || row.textContent.indexOf(rowText) < 0) { continue; }
  Object.keys(fields).forEach(function (name) { buttons[i].form.elements[name].value = fields[name]; });
  buttons[i].click();
  return true;
}
return false;
"""


def act(driver, row_text, button_text, **fields):
    """Clicks the button named `button_text` in the table row, app or section that holds `row_text` (after
    filling its form's `fields`), in one step of the page's own (its sections are refreshed as events arrive),
    and returns the page's report of the outcome once the call has answered."""
    wait_for(lambda: driver.execute_script(CLICK, row_text, button_text, fields), f"the {button_text} button by {row_text}")
    return wait_for(lambda: (lambda text: text if not text.endswith("…") else None)(driver.find_element("id", "outcome").text),
                    f"the outcome of {button_text}")


def test_the_dashboard_shows_the_world_and_is_usable_with_the_keyboard(browser, server):  # noqa: F811
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    sign_in(server, authorize_url(server), "jane")
    browser.get(f"{server}/__admin")
    assert "jane" in browser.find_element("id", "personas").find_element("xpath", "..").text
    assert browser.find_elements("css selector", "ol.journal li"), "the latest requests are listed"
    browser.save_screenshot(str(ARTIFACTS / "dashboard.png"))
    tab_to(browser, lambda element: element.text == "Relay inboxes", "the relay inboxes link")
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    wait_for(lambda: browser.current_url.endswith("/__admin/relay/inbox"), "the relay inbox page")


def test_the_dashboard_acts_through_the_admin_api_and_follows_the_world(browser, server):  # noqa: F811
    assert requests.post(f"{server}/__admin/reset", json={}, timeout=10).status_code == 200
    register(server, "http://127.0.0.1:9/apple/notifications")  # refuses connections: deliveries wait for a retry
    exchange(server, sign_in(server, authorize_url(server), "jane")["code"])
    sign_in(server, authorize_url(server), "john")
    browser.get(f"{server}/__admin")
    browser.execute_script("window.notReloaded = true;")

    assert act(browser, "jane", "Revoke consent") == "Revoke consent: done"
    assert events(server, "consentRevoked")[-1] == {"personaID": "jane", "groupID": "com.example.app", "cause": "userRevoked"}

    assert act(browser, "private.icloud.com", "Turn forwarding off") == "Turn forwarding off: done"
    [john] = requests.get(f"{server}/__admin/relay/addresses", timeout=10).json()["addresses"]
    assert john["personaID"] == "john" and john["forwarding"] is False
    wait_for(lambda: browser.execute_script(
        "return Array.prototype.some.call(document.querySelectorAll('form.action button'), function (b) { return b.textContent === 'Turn forwarding on'; });"),
        "the page to show forwarding off (refreshed from the event stream)")

    before = requests.get(f"{server}/__admin/clock", timeout=10).json()["epochSeconds"]
    assert act(browser, "The clock is", "Advance the clock", advance="3600") == "Advance the clock: done"
    assert requests.get(f"{server}/__admin/clock", timeout=10).json()["epochSeconds"] - before >= 3600

    assert act(browser, "com.example.app", "Send a notification").endswith(": done")  # consent-revoked about jane, the first choices
    wait_for(lambda: any(d["notification"]["type"] == "email-disabled" for d in requests.get(f"{server}/__admin/notifications", timeout=10).json()["deliveries"]),
             "the email-disabled delivery")
    assert act(browser, "Notifications not yet delivered", "Retry them now") == "Retry them now: done"
    assert events(server, "notificationsRetried")

    # What happens elsewhere appears without a reload: a sign-in by a relying party.
    sign_in(server, authorize_url(server, client_id="com.example.web.staging"), "jane")
    wait_for(lambda: "com.example.web.staging" in browser.execute_script("return document.querySelector('ol.journal li').textContent;"),
             "the new request at the top of the list")
    assert browser.execute_script("return window.notReloaded === true;")

    assert act(browser, "com.example.app", "Transfer the app") == "Transfer the app: done"
    assert requests.get(f"{server}/__admin/transfers", timeout=10).json()["transfers"][0]["toTeam"] == "OTHERTEAM1"
    assert act(browser, "john", "Delete account") == "Delete account: done"
    assert events(server, "accountDeleted") == [{"personaID": "john"}]
    browser.save_screenshot(str(ARTIFACTS / "dashboard-actions.png"))

    # A refused call shows the admin API's message in place.
    requests.post(f"{server}/__admin/personas/jane/delete-account", json={}, timeout=10)
    assert "already deleted" in act(browser, "jane", "Delete account")

    assert act(browser, "The clock is", "Reset the world") == "Reset the world: done"
    assert requests.get(f"{server}/__admin/transfers", timeout=10).json()["transfers"] == []
