"""The commands that drive a running server through its admin API: scenario run --url, native-sign-in, keys."""
import json

import requests

from native_rp import NATIVE_CLIENT, admin_keys, exchange_native, unverified, verify
from server_process import ROOT, run_cli, serving

CATALOGUE = ROOT / "Scenarios" / "catalogue"


def cli_json(*arguments, **options) -> dict:
    result = run_cli(*arguments, **options)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_scenario_run_drives_the_server_serving_that_scenario():
    scenario = CATALOGUE / "first-login-with-name.yaml"
    with serving("--scenario", str(scenario)) as base_url:
        first = run_cli("scenario", "run", str(scenario), "--url", base_url)
        assert first.returncode == 0, first.stdout + first.stderr
        assert f"driving {base_url}" in first.stdout and "first-login-with-name: all steps passed" in first.stdout
        assert "note:" not in first.stdout
        # The world remembers the first run: jane is now a returning user, so `user: present` fails.
        again = run_cli("scenario", "run", str(scenario), "--url", base_url)
        assert again.returncode == 1
        assert "FAIL 1." in again.stdout and "1 step(s) failed" in again.stdout
        reset = run_cli("scenario", "run", str(scenario), "--url", base_url, "--reset")
        assert reset.returncode == 0, reset.stdout
        entries = requests.get(f"{base_url}/__admin/journal", timeout=10).json()["entries"]
        assert entries and {entry["via"] for entry in entries} == {"timeline"}


def test_scenario_run_sends_the_key_files_the_file_names(base_url, tmp_path):
    generated = run_cli("keys", "generate", "--type", "rsa", "--kid", "cliRemote1", "-o", str(tmp_path / "keys"))
    assert generated.returncode == 0, generated.stderr
    scenario = tmp_path / "rotate.yaml"
    scenario.write_text("""base: default
name: default
timeline:
  - do: addKey
    kid: cliRemote1
    file: keys/signing-cliRemote1.pem
  - do: activateKey
    kid: cliRemote1
  - do: nativeSignIn
    persona: jane
    expect: {signedBy: cliRemote1, verifies: true}
""")
    result = run_cli("scenario", "run", str(scenario), "--url", base_url)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "default: all steps passed" in result.stdout
    assert f"[{scenario}:9]" in result.stdout  # steps keep the file's name and lines
    assert admin_keys(base_url)["active"] == "cliRemote1"


def test_scenario_run_fails_steps_naming_what_the_running_server_lacks(base_url, tmp_path):
    scenario = tmp_path / "own-persona.yaml"
    scenario.write_text("""base: default
name: own-persona
personas: [{id: zed, email: zed@example.com}]
timeline:
  - do: signIn
    persona: zed
""")
    result = run_cli("scenario", "run", str(scenario), "--url", base_url)
    assert result.returncode == 1
    assert "note: the server runs scenario default, not own-persona" in result.stdout
    assert f"FAIL 1. web sign-in of zed to com.example.web  [{scenario}:5]" in result.stdout
    assert 'persona "zed" does not exist' in result.stdout


def test_scenario_run_refuses_port_with_url_and_reset_without_url():
    file = str(CATALOGUE / "nonce.yaml")
    for arguments in (["--url", "http://127.0.0.1:1", "--port", "0"], ["--reset"]):
        result = run_cli("scenario", "run", file, *arguments)
        assert result.returncode == 64 and "--" in result.stderr, arguments


def test_native_sign_in_command_mints_what_the_app_receives(base_url):
    credential = cli_json("native-sign-in", "--url", base_url, "--persona", "jane", "--bundle-id", NATIVE_CLIENT,
                          "--nonce", "cli-nonce", "--real-user-status", "likelyReal", "--email", "hide")
    claims = verify(base_url, credential["identityToken"])
    assert claims["aud"] == NATIVE_CLIENT and claims["nonce"] == "cli-nonce" and claims["real_user_status"] == 2
    assert credential["realUserStatus"] == 2 and credential["firstAuthorization"] is True
    assert credential["email"] == claims["email"] and claims["email"].endswith("@private.icloud.com")
    assert credential["fullName"] == {"firstName": "Jane", "lastName": "Appleseed"}
    exchanged = exchange_native(base_url, credential["authorizationCode"])
    assert exchanged.status_code == 200, exchanged.text
    assert verify(base_url, exchanged.json()["id_token"])["sub"] == credential["user"]
    again = cli_json("native-sign-in", "--persona", "jane", "--bundle-id", NATIVE_CLIENT, "--scopes", "",
                     env={"MOCK_APPLEID_URL": base_url})
    assert again["firstAuthorization"] is False and "email" not in again and "fullName" not in again
    assert "real_user_status" not in verify(base_url, again["identityToken"])


def test_native_sign_in_command_reports_apple_errors(base_url):
    for arguments, message in (
            (["--persona", "ghost", "--bundle-id", NATIVE_CLIENT], 'persona "ghost" does not exist'),
            (["--persona", "jane", "--bundle-id", "com.example.web"], "is not a registered bundle id"),
            (["--persona", "jane", "--bundle-id", NATIVE_CLIENT, "--real-user-status", "3"], "realUserStatus must be")):
        result = run_cli("native-sign-in", "--url", base_url, *arguments)
        assert result.returncode == 1 and "answered 400" in result.stderr and message in result.stderr, result.stderr


def test_keys_commands_rotate_the_signer(base_url):
    before = admin_keys(base_url)
    listed = run_cli("keys", "list", "--url", base_url)
    assert listed.returncode == 0 and f"signing with {before['active']}" in listed.stdout
    added = run_cli("keys", "add", "--url", base_url, "--kid", "cliKey01", "--activate")
    assert added.returncode == 0, added.stderr
    assert admin_keys(base_url)["active"] == "cliKey01"
    signed = cli_json("native-sign-in", "--url", base_url, "--persona", "jane", "--bundle-id", NATIVE_CLIENT)["identityToken"]
    assert unverified(signed)[0]["kid"] == "cliKey01" and verify(base_url, signed)["aud"] == NATIVE_CLIENT
    retire_active = run_cli("keys", "retire", "cliKey01", "--url", base_url)
    assert retire_active.returncode == 1 and "answered 409" in retire_active.stderr
    assert run_cli("keys", "retire", before["active"], "--url", base_url).returncode == 0
    assert before["active"] not in admin_keys(base_url)["published"]
    assert run_cli("keys", "shuffle", "on", "--url", base_url).returncode == 0 and admin_keys(base_url)["shuffled"]


def test_keys_activate_at_a_clock_time_happens_when_the_clock_gets_there(base_url):
    other = next(kid for kid in admin_keys(base_url)["published"] if kid != admin_keys(base_url)["active"])
    now = requests.get(f"{base_url}/__admin/clock", timeout=10).json()["epochSeconds"]
    scheduled = run_cli("keys", "activate", other, "--at", str(int(now) + 3600), "--url", base_url)
    assert scheduled.returncode == 0 and "scheduled on the mock clock" in scheduled.stdout, scheduled.stderr
    assert admin_keys(base_url)["active"] != other
    assert requests.post(f"{base_url}/__admin/clock", json={"advance": 3601}, timeout=10).status_code == 200
    assert admin_keys(base_url)["active"] == other


def test_keys_activate_at_a_time_the_clock_has_reached_happens_now(base_url):
    other = next(kid for kid in admin_keys(base_url)["published"] if kid != admin_keys(base_url)["active"])
    now = requests.get(f"{base_url}/__admin/clock", timeout=10).json()["epochSeconds"]
    done = run_cli("keys", "activate", other, "--at", str(int(now) - 60), "--url", base_url)
    assert done.returncode == 0 and "scheduled" not in done.stdout and f"signing with {other}" in done.stdout, done.stderr
    assert admin_keys(base_url)["active"] == other


def test_keys_add_from_a_pem_file_and_bad_input(base_url, tmp_path):
    assert run_cli("keys", "generate", "--type", "ec", "--kid", "cliEc0001", "-o", str(tmp_path)).returncode == 0
    added = run_cli("keys", "add", "--url", base_url, "--kid", "cliEc0001", "--alg", "ES256",
                    "--file", str(tmp_path / "signing-cliEc0001.pem"))
    assert added.returncode == 0 and "cliEc0001" in added.stdout, added.stderr
    missing = run_cli("keys", "add", "--url", base_url, "--kid", "x1", "--file", str(tmp_path / "none.pem"))
    assert missing.returncode == 1 and "cannot read" in missing.stderr
    wrong_alg = run_cli("keys", "add", "--url", base_url, "--kid", "x2", "--alg", "HS256")
    assert wrong_alg.returncode == 1 and "alg must be RS256 or ES256" in wrong_alg.stderr
    bad_kid = run_cli("keys", "activate", "a/b", "--url", base_url)
    assert bad_kid.returncode == 64 and "key id" in bad_kid.stderr
    unknown = run_cli("keys", "retire", "nope", "--url", base_url)
    assert unknown.returncode == 1 and "answered 404" in unknown.stderr


def test_remote_commands_say_when_no_server_answers():
    for arguments in (["keys", "list"], ["native-sign-in", "--persona", "jane", "--bundle-id", NATIVE_CLIENT],
                      ["scenario", "run", str(CATALOGUE / "nonce.yaml")]):
        result = run_cli(*arguments, "--url", "http://127.0.0.1:1")
        assert result.returncode == 1 and "cannot reach mock-appleid at http://127.0.0.1:1" in result.stderr, arguments
    not_a_url = run_cli("keys", "list", "--url", "ftp://example.com")
    assert not_a_url.returncode == 1 and "--url must be the server's base URL" in not_a_url.stderr
