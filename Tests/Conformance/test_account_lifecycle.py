"""The account lifecycle as a test harness drives it over real sockets: relay forwarding set per app, its
notifications, mail as a mail client shows it, email sources added and removed one at a time, the relay
domain, where every listener is (`/__admin/health`, `serve --ready-file`), and loopback notification URLs
on a setting of their own."""
import email.message
import json
import pathlib
import re
import shutil
import smtplib

import jwt
import pytest
import requests

from appleid import REDIRECT_URI, authorize_url, sign_in
from server_process import run_cli, serving
from test_notifications import deliveries, receiving, register, wait_for
from test_relay import inbox, smtp_port

SCENARIO = """
base: default
name: lifecycle
teams:
  - id: MOCKTEAM01
    emailSources: [example.com]
    keys: [{{kid: MOCKKEY001, file: {keys}/AuthKey_MOCKKEY001.p8}}]
    apps:
      - primaryAppID: com.example.app
        servicesIDs: [{{id: com.example.web, returnURLs: ["{redirect}"]}}]
  - id: OTHERTEAM1
    emailSources: [other.example.org]
    keys: [{{kid: OTHERKEY01, file: {keys}/AuthKey_OTHERKEY01.p8}}]
    apps:
      - primaryAppID: org.other.app
        servicesIDs: [{{id: org.other.web, returnURLs: ["{redirect}"]}}]
"""


@pytest.fixture(scope="module")
def lifecycle(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lifecycle")
    scenario = folder / "lifecycle.yaml"
    scenario.write_text(SCENARIO.format(keys=pathlib.Path(__file__).resolve().parents[2] / "Keys", redirect=REDIRECT_URI))
    with serving("--scenario", str(scenario), "--smtp-port", "0") as base_url:
        yield base_url


@pytest.fixture(autouse=True)
def reset_lifecycle(request):
    if "lifecycle" in request.fixturenames:
        assert requests.post(f"{request.getfixturevalue('lifecycle')}/__admin/reset", json={}, timeout=10).status_code == 200


def relay_address_for(base_url, client):
    token = sign_in(base_url, authorize_url(base_url, client_id=client, response_type="code id_token"), "john", email_choice="hide")["id_token"]
    return jwt.decode(token, options={"verify_signature": False})["email"]


def send(base_url, sender, to, subject="Hello", body="Hi.\n"):
    mail = email.message.EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = sender, to, subject
    mail.set_content(body)
    with smtplib.SMTP("127.0.0.1", smtp_port(base_url), timeout=10) as smtp:
        return smtp.send_message(mail)


def test_forwarding_is_set_per_app_and_only_that_apps_team_is_told(lifecycle):
    with receiving() as mine, receiving() as theirs:
        register(lifecycle, mine.url, app="com.example.app")
        register(lifecycle, theirs.url, app="org.other.app")
        ours, other = relay_address_for(lifecycle, "com.example.web"), relay_address_for(lifecycle, "org.other.web")
        answer = requests.put(f"{lifecycle}/__admin/personas/john/relay-forwarding", timeout=10,
                              json={"forwarding": False, "app": "com.example.web"})
        assert answer.status_code == 200, answer.text
        assert {a["address"]: (a["forwarding"], a["appGroups"]) for a in answer.json()["addresses"]} == {
            ours: (False, ["com.example.app"]), other: (True, ["org.other.app"])}
        with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
            send(lifecycle, "news@example.com", ours)
        assert refused.value.recipients[ours][0] == 550
        assert send(lifecycle, "news@other.example.org", other) == {}  # the other developer's address still forwards
        wait_for(lambda: mine.accepted, "email-disabled at the app whose address changed")
        [event] = [json.loads(jwt.decode(body["payload"], options={"verify_signature": False})["events"]) for body in mine.accepted]
        assert event["type"] == "email-disabled" and event["email"] == ours
        assert theirs.bodies == [] and [d["notification"]["groupID"] for d in deliveries(lifecycle)] == ["com.example.app"]
        # The CLI does the same, and the persona's own switch turns every address off.
        cli = run_cli("relay", "forwarding", "john", "on", "--app", "com.example.app", "--url", lifecycle)
        assert cli.returncode == 0 and f"{ours}  MOCKTEAM01  forwarding on  com.example.app" in cli.stdout, cli.stderr
        assert requests.patch(f"{lifecycle}/__admin/personas/john", json={"relayForwarding": False}, timeout=10).status_code == 200
        assert all(not a["forwarding"] for a in requests.get(f"{lifecycle}/__admin/relay/addresses", timeout=10).json()["addresses"])
        wait_for(lambda: theirs.accepted, "email-disabled at the other team's app too")


def test_relay_messages_are_shown_as_a_mail_client_shows_them(lifecycle):
    address = relay_address_for(lifecycle, "com.example.web")
    mail = email.message.EmailMessage()
    mail["From"] = "Café Crème <news@example.com>"
    mail["To"], mail["Subject"] = address, "Bienvenue à bord ✓"
    mail.set_content("Merci d'être là.\n" + "é" * 100 + "\n")
    mail.add_alternative("<p>Merci d’être là.</p>", subtype="html")
    with smtplib.SMTP("127.0.0.1", smtp_port(lifecycle), timeout=10) as smtp:
        assert smtp.send_message(mail) == {}
    [received] = inbox(lifecycle)
    assert received["subject"] == "Bienvenue à bord ✓" and received["from"] == "Café Crème <news@example.com>"
    assert received["to"] == address
    assert received["text"] == "Merci d'être là.\n" + "é" * 100 + "\n"
    assert received["html"].strip() == "<p>Merci d’être là.</p>"
    raw_subject = next(h["value"] for h in received["headers"] if h["name"] == "Subject")
    assert "=?utf-8?" in raw_subject and "multipart/alternative" in str(received["headers"])  # the message as sent is kept


def test_email_sources_are_added_and_removed_one_at_a_time(lifecycle):
    address = relay_address_for(lifecycle, "com.example.web")
    sources = f"{lifecycle}/__admin/teams/MOCKTEAM01/email-sources"
    added = requests.post(sources, json={"source": "Mailer.Example.NET"}, timeout=10)
    assert added.status_code == 200 and added.json() == {"team": "MOCKTEAM01", "sources": ["example.com", "mailer.example.net"]}
    assert requests.post(sources, json={"source": "mailer.example.net"}, timeout=10).json()["sources"] == ["example.com", "mailer.example.net"]
    assert send(lifecycle, "news@mailer.example.net", address) == {}
    removed = requests.delete(f"{sources}/example.com", timeout=10)
    assert removed.status_code == 200 and removed.json()["sources"] == ["mailer.example.net"]
    with pytest.raises(smtplib.SMTPRecipientsRefused):
        send(lifecycle, "news@example.com", address)
    missing = requests.delete(f"{sources}/example.com", timeout=10)
    assert missing.status_code == 404 and "is not an email source" in missing.json()["message"]
    assert requests.post(sources, json={"source": "not a domain"}, timeout=10).status_code == 400
    assert requests.post(sources, json={"sources": ["x.example"]}, timeout=10).status_code == 400
    cli = run_cli("relay", "sources", "MOCKTEAM01", "a.example.com", "b.example.com", "--add", "--url", lifecycle)
    assert cli.returncode == 0 and '"a.example.com","b.example.com"' in cli.stdout.replace(" ", ""), cli.stderr
    cli = run_cli("relay", "sources", "MOCKTEAM01", "a.example.com", "--remove", "--url", lifecycle)
    assert cli.returncode == 0 and "a.example.com" not in cli.stdout
    both = run_cli("relay", "sources", "MOCKTEAM01", "x.example", "--add", "--remove", "--url", lifecycle)
    assert both.returncode != 0 and "not both" in both.stderr


def relay_addresses(base_url) -> set:
    return {(entry["address"], entry["teamID"]) for entry in requests.get(f"{base_url}/__admin/relay/addresses", timeout=10).json()["addresses"]}


@pytest.mark.parametrize("named, domain", [(None, "private.icloud.com"), ("privaterelay.appleid.com", "privaterelay.appleid.com")])
def test_the_relay_domain_of_new_addresses_and_mail_at_either_domain(tmp_path, named, domain):
    scenario = tmp_path / "relay.yaml"
    scenario.write_text("base: default\nname: relay-domain\n" + (f"relay: {{addressDomain: {named}}}\n" if named else ""))
    with serving("--scenario", str(scenario), "--smtp-port", "0") as base_url:
        address = relay_address_for(base_url, "com.example.web")
        assert re.fullmatch(rf"[a-z0-9]{{10}}@{re.escape(domain)}", address)
        assert relay_addresses(base_url) == {(address, "MOCKTEAM01")}
        local = address.split("@")[0]
        for either in ("private.icloud.com", "privaterelay.appleid.com"):
            assert send(base_url, "news@example.com", f"{local}@{either}") == {}
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            send(base_url, "news@example.com", f"{local}@icloud.com")
        assert [message["relayAddress"] for message in inbox(base_url)] == [address, address]


STATE_BEFORE_DOMAINS = pathlib.Path(__file__).parent / "fixtures" / "state-with-a-privaterelay-address.sqlite"


def test_an_address_given_out_before_private_icloud_keeps_its_domain_after_an_upgrade(tmp_path):
    """The fixture is a state file an earlier version wrote on the built-in scenario after john hid his email
    from com.example.web: it holds his consent and no domain for his address."""
    state = tmp_path / "world.sqlite"
    shutil.copyfile(STATE_BEFORE_DOMAINS, state)
    old = ("a2gta7s1jn@privaterelay.appleid.com", "MOCKTEAM01")
    with serving("--state", str(state), "--smtp-port", "0") as base_url:
        assert relay_addresses(base_url) == {old}
        assert relay_address_for(base_url, "com.example.web") == old[0]
        new = relay_address_for(base_url, "org.other.web")
        assert new.endswith("@private.icloud.com")
        assert relay_addresses(base_url) == {old, (new, "OTHERTEAM1")}
        assert send(base_url, "news@example.com", old[0]) == {}
        assert send(base_url, "news@example.com", old[0].replace("privaterelay.appleid.com", "private.icloud.com")) == {}
        assert send(base_url, "news@other.example.org", new) == {}
        assert [message["relayAddress"] for message in inbox(base_url)] == [old[0], old[0], new]
    # Recorded in the file at the upgrade: a scenario that names the new domain later moves no address.
    renamed = tmp_path / "named.yaml"
    renamed.write_text("base: default\nname: default\nrelay: {addressDomain: private.icloud.com}\n")
    with serving("--state", str(state), "--scenario", str(renamed)) as base_url:
        assert relay_addresses(base_url) == {old, (new, "OTHERTEAM1")}


def test_health_and_the_ready_file_say_where_every_listener_is(tmp_path):
    ready = tmp_path / "ready.json"
    with serving("--smtp-port", "0", "--https-port", "0", "--tls-dir", str(tmp_path / "tls"), "--ready-file", str(ready)) as base_url:
        health = requests.get(f"{base_url}/__admin/health", timeout=10).json()
        listeners = health["listeners"]
        assert listeners["http"] == {"url": base_url, "host": "127.0.0.1", "port": int(base_url.rsplit(":", 1)[1])}
        assert listeners["smtp"]["port"] == smtp_port(base_url) and listeners["smtp"]["url"] == f"smtp://127.0.0.1:{smtp_port(base_url)}"
        https_port = int(re.search(r"https://localhost:(\d+)", base_url.banner).group(1))
        assert listeners["https"] == {"url": f"https://localhost:{https_port}", "host": "127.0.0.1", "port": https_port}
        written = json.loads(ready.read_text())
        assert {name: written.pop(name) for name in ("status", "scenario", "listeners")} == health
        # What the banner tells a relying party about the scenario: each client's team, each developer key's .p8.
        assert written["clients"]["com.example.web"] == "MOCKTEAM01" and written["clients"]["org.other.web"] == "OTHERTEAM1"
        key = next(key for key in written["developerKeys"] if key["kid"] == "MOCKKEY001")
        assert key["team"] == "MOCKTEAM01" and not key["revoked"] and pathlib.Path(key["file"]).is_file()
        assert key["file"] in base_url.banner
        with smtplib.SMTP(listeners["smtp"]["host"], listeners["smtp"]["port"], timeout=10) as smtp:
            assert smtp.noop()[0] == 250
        assert requests.post(f"{base_url}/__admin/tenants", json={"name": "job-1"}, timeout=10).status_code == 201
        tenant = requests.get(f"{base_url}/t/job-1/__admin/health", timeout=10).json()["listeners"]
        assert tenant == {"http": {**listeners["http"], "url": f"{base_url}/t/job-1"},
                          "https": {**listeners["https"], "url": f"https://localhost:{https_port}/t/job-1"}}
    assert not ready.exists(), "the ready file is removed when the server stops"


def test_loopback_notification_urls_have_their_own_setting(tmp_path):
    scenario = tmp_path / "strict.yaml"
    scenario.write_text("base: default\nname: strict\nsettings: {allowLoopbackReturnURLs: false, allowLoopbackNotificationURLs: true}\n"
                        "teams:\n  - id: MOCKTEAM01\n    keys: [{kid: MOCKKEY001, file: "
                        f"{pathlib.Path(__file__).resolve().parents[2]}/Keys/AuthKey_MOCKKEY001.p8}}]\n"
                        "    apps: [{primaryAppID: com.example.app, servicesIDs: [{id: com.example.web, returnURLs: [https://app.example.com/cb]}]}]\n")
    with serving("--scenario", str(scenario)) as base_url:
        assert register(base_url, "http://127.0.0.1:9/notifications")["notificationURL"] == "http://127.0.0.1:9/notifications"
    scenario.write_text(scenario.read_text().replace("returnURLs: [https://app.example.com/cb]", "returnURLs: [http://localhost:3000/cb]"))
    refused = run_cli("scenario", "check", str(scenario))
    assert refused.returncode != 0 and "settings.allowLoopbackReturnURLs: true" in refused.stdout + refused.stderr


def document_block(document: str, marker: str, fence: str) -> str:
    """The text of the first ```fence block in a document after `marker`."""
    text = (pathlib.Path(__file__).resolve().parents[2] / document).read_text()
    rest = text[text.index(marker):]
    block = rest[rest.index("```" + fence) + 3 + len(fence):]
    return block[:block.index("```")]


def test_the_docs_show_the_answers_as_the_server_gives_them(lifecycle):
    native = requests.post(f"{lifecycle}/__admin/native-sign-in", timeout=10,
                           json={"persona": "john", "bundleID": "com.example.app", "nonce": "n-1", "scopes": ["name", "email"]}).json()
    answer = "".join(line[1:].strip() for line in document_block("docs/sign-in.md", "takes `scopes` as a list", "sh").splitlines() if line.startswith("#"))
    documented = json.loads(answer.replace("…", ""))
    assert set(documented) == set(native) and documented["fullName"].keys() == native["fullName"].keys()
    address = relay_address_for(lifecycle, "com.example.web")
    send(lifecycle, "news@example.com", address)
    [message] = inbox(lifecycle)
    [example] = json.loads(document_block("docs/account-lifecycle.md", "each message both as a mail client shows it", "json").replace('"…"', "{}"))["messages"]
    assert set(example) <= set(message) and set(message) - set(example) <= {"html", "forwarded"}


def test_the_event_stream_follows_the_world_and_resumes_after_the_last_event_id(lifecycle):
    def read_events(lines, count):
        events, event = [], {}
        for line in lines:
            if line.startswith(":"):
                continue
            if not line:
                if event:
                    events.append(event)
                    event = {}
                if len(events) == count:
                    return events
                continue
            name, _, value = line.partition(": ")
            event[name] = value
        return events

    with requests.get(f"{lifecycle}/__admin/events/stream", stream=True, timeout=10) as stream:
        assert stream.headers["Content-Type"] == "text/event-stream" and stream.headers["Cache-Control"] == "no-store"
        lines = stream.iter_lines(chunk_size=1, decode_unicode=True)  # one reader, as each byte arrives
        [reset] = read_events(lines, 1)  # what the log held: the reset before this test
        assert json.loads(reset["data"])["event"] == {"worldReset": {}}
        requests.post(f"{lifecycle}/__admin/clock", json={"advance": 60}, timeout=10)
        [moved] = read_events(lines, 1)
        data = json.loads(moved["data"])
        assert int(moved["id"]) == data["sequence"] == int(reset["id"]) + 1 and "clockChanged" in data["event"]
    requests.post(f"{lifecycle}/__admin/clock", json={"advance": 60}, timeout=10)
    with requests.get(f"{lifecycle}/__admin/events/stream", headers={"Last-Event-ID": moved["id"]}, stream=True, timeout=10) as resumed:
        [missed] = read_events(resumed.iter_lines(chunk_size=1, decode_unicode=True), 1)
        assert int(missed["id"]) == int(moved["id"]) + 1
    assert requests.get(f"{lifecycle}/__admin/events/stream", headers={"Last-Event-ID": "x"}, timeout=10).status_code == 400
