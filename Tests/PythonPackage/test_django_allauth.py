"""A Django site using django-allauth's Apple provider signs in through the plugin. allauth has Apple's
URLs built in, so the test reaches the server as https://appleid.apple.com (the `apple_hosts` fixture);
the site's only change is its settings: the scenario's Team ID, Key ID and developer key. Served over a
real socket, the same site is audited through a running server (`MockAppleIDClient.audit`)."""
import pytest

import mock_appleid as package
from test_audit_authlib import served
from audit_samples import ALLAUTH_NOT_PASSING  # (on the path test_audit_authlib adds)

pytestmark = pytest.mark.mock_appleid(scenario="scenarios/sample-rps.yaml")


@pytest.fixture(scope="module")
def django_site(tmp_path_factory):
    key = package.built_in_developer_key()
    # A database file rather than memory: the audit's site answers from several threads.
    database = tmp_path_factory.mktemp("django") / "site.sqlite3"
    with pytest.MonkeyPatch.context() as environment:
        for name, value in {"DJANGO_SETTINGS_MODULE": "django_rp.settings", "APPLE_CLIENT_ID": "com.example.web",
                            "APPLE_TEAM_ID": key.team_id, "APPLE_KEY_ID": key.key_id, "APPLE_PRIVATE_KEY": key.pem,
                            "DJANGO_DATABASE": str(database)}.items():
            environment.setenv(name, value)
        import django
        from django.core.management import call_command
        from django.test.utils import setup_test_environment, teardown_test_environment

        django.setup()
        setup_test_environment()
        call_command("migrate", verbosity=0, interactive=False)
        yield
        teardown_test_environment()


@pytest.fixture
def browser(django_site):
    from django.test import Client

    return Client(HTTP_HOST="localhost:8000")


def sign_in_through_allauth(browser, appleid, persona):
    """What a browser does: the site sends it to Apple, Apple form-posts back, allauth finishes."""
    login = browser.get("/accounts/apple/login/")
    assert login.status_code == 302 and login["Location"].startswith("https://appleid.apple.com/auth/authorize?")
    delivered = appleid.authorize(login["Location"], persona=persona)
    posted = browser.post("/accounts/apple/login/callback/", data=delivered)
    assert posted.status_code == 302 and "/accounts/apple/login/callback/finish/" in posted["Location"]
    finished = browser.get(posted["Location"])
    assert finished.status_code == 302 and finished["Location"] == "/me/", finished.content[:2000]
    return delivered, browser.get("/me/").json()


def test_allauth_signs_in_a_new_user_with_the_name_from_the_user_field(apple_hosts, browser):
    delivered, me = sign_in_through_allauth(browser, apple_hosts, "jane")
    assert "user" in delivered and "id_token" in delivered
    assert me["signedIn"] and (me["email"], me["firstName"], me["lastName"]) == ("jane.appleseed@example.com", "Jane", "Appleseed")
    assert me["appleSub"].count(".") == 2
    token_calls = [entry for entry in apple_hosts.journal() if entry["endpoint"] == "/auth/token"]
    assert [(entry["status"], entry["clientID"]) for entry in token_calls] == [(200, "com.example.web")]


def test_allauth_finds_the_same_account_when_the_user_returns(apple_hosts, browser, django_site):
    from django.contrib.auth import get_user_model

    _, first = sign_in_through_allauth(browser, apple_hosts, "john")
    browser.logout()
    delivered, again = sign_in_through_allauth(browser, apple_hosts, "john")
    assert "user" not in delivered
    assert again == first and first["email"].endswith("@private.icloud.com")
    assert get_user_model().objects.filter(email=first["email"]).count() == 1


def test_allauth_refuses_when_the_user_cancels(apple_hosts, browser):
    login = browser.get("/accounts/apple/login/")
    delivered = apple_hosts.authorize(login["Location"], cancel=True)
    assert delivered["error"] == "user_cancelled_authorize"
    posted = browser.post("/accounts/apple/login/callback/", data=delivered)
    finished = browser.get(posted["Location"])
    assert finished.status_code == 401 and b"Third-Party Login Failure" in finished.content, finished.content[:2000]
    assert browser.get("/me/").status_code == 401
    assert [entry["endpoint"] for entry in apple_hosts.journal() if entry["endpoint"] == "/auth/token"] == []


@pytest.fixture
def served_site(django_site):
    """The Django site on localhost and a free port, with a scenario that lists its callback."""
    from django.core.wsgi import get_wsgi_application

    callback = "/accounts/apple/login/callback/"
    with served(get_wsgi_application(), "localhost", "http://localhost:8000" + callback, callback) as site:
        yield site


def test_the_audit_of_django_allauth(served_site):
    """allauth, led to the server by Apple's host names, audited through that running server (which has an admin
    token, so the audit's command must be given it)."""
    origin, scenario = served_site
    with package.MockAppleID(scenario, admin_token="allauth-audit-admin-token") as appleid, appleid.as_apple():
        report = appleid.audit(f"{origin}/accounts/apple/login/", f"{origin}/me/", apple_url="https://appleid.apple.com")
    not_passing = {case.id: case.verdict for case in report.cases if case.verdict != "PASS"}
    assert not_passing == ALLAUTH_NOT_PASSING, [(case.id, case.verdict, case.seen, case.evidence) for case in report.cases
                                                if case.verdict != "PASS"]
    assert any("client_id=com.example.web" in line for line in report.learned), report.learned
