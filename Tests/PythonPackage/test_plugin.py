"""The pytest plugin, as a user's test suite meets it: fixtures, the marker, options, reset between tests."""
import pytest
import requests

from conftest import SAMPLE_SCENARIO


def sample_scenario_with_absolute_keys() -> str:
    """The sample scenario, its key files named by absolute path so that it works from any folder."""
    return SAMPLE_SCENARIO.read_text().replace("../../../Keys/", str(SAMPLE_SCENARIO.parents[3] / "Keys") + "/")


def test_the_fixture_hands_a_running_server_on_the_built_in_scenario(mock_appleid):
    health = mock_appleid.health()
    assert (health["status"], health["scenario"]) == ("ok", "default")
    assert health["listeners"]["http"]["url"] == mock_appleid.base_url
    assert requests.get(mock_appleid.discovery_url, timeout=10).json()["jwks_uri"] == mock_appleid.jwks_url
    assert mock_appleid.sign_in(persona="jane").claims["aud"] == "com.example.web"


def test_the_session_fixture_is_the_same_server(mock_appleid, mock_appleid_session):
    assert mock_appleid.base_url == mock_appleid_session.base_url


@pytest.mark.mock_appleid(scenario="scenarios/sample-rps.yaml")
def test_the_marker_picks_a_scenario_file_relative_to_the_test(mock_appleid, mock_appleid_session):
    assert mock_appleid.health()["scenario"] == "sample-rps"
    assert mock_appleid.base_url != mock_appleid_session.base_url
    assert {persona["id"] for persona in mock_appleid.personas()} == {"jane", "john"}


@pytest.mark.mock_appleid(isolated=True)
def test_an_isolated_test_gets_a_server_of_its_own(mock_appleid, mock_appleid_session):
    assert mock_appleid.base_url != mock_appleid_session.base_url
    assert mock_appleid.health()["status"] == "ok"


def test_apple_hosts_fixture_maps_apples_address(apple_hosts):
    keys = requests.get("https://appleid.apple.com/auth/keys", timeout=10).json()
    assert keys == requests.get(apple_hosts.jwks_url, timeout=10).json() and keys["keys"]


def test_state_does_not_leak_between_tests_and_the_session_server_is_shared(pytester):
    pytester.makepyfile("""
        import time

        seen = []

        def test_first(mock_appleid):
            seen.append(mock_appleid.base_url)
            mock_appleid.create_persona("leaky", first_name="Leaky")
            mock_appleid.advance_clock(86400 * 400)
            mock_appleid.sign_in(persona="jane")

        def test_second(mock_appleid):
            seen.append(mock_appleid.base_url)
            assert "leaky" not in [persona["id"] for persona in mock_appleid.personas()]
            assert mock_appleid.journal() == []
            assert abs(mock_appleid.now() - time.time()) < 600
            assert seen[0] == seen[1]
    """)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_the_scenario_option_sets_the_default_scenario(pytester):
    pytester.makepyfile("""
        def test_scenario(mock_appleid):
            assert mock_appleid.health()["scenario"] == "sample-rps"
    """)
    pytester.runpytest("--mock-appleid-scenario", str(SAMPLE_SCENARIO)).assert_outcomes(passed=1)


def test_the_ini_option_sets_the_default_scenario_relative_to_the_root(pytester):
    (pytester.path / "scenarios").mkdir()
    (pytester.path / "scenarios" / "rp.yaml").write_text(sample_scenario_with_absolute_keys())
    pytester.makeini("[pytest]\nmock_appleid_scenario = scenarios/rp.yaml\n")
    pytester.makepyfile("""
        def test_scenario(mock_appleid):
            assert mock_appleid.health()["scenario"] == "sample-rps"
    """)
    pytester.runpytest().assert_outcomes(passed=1)


def assert_fixture_error(pytester, marker: str, expected_output: str) -> None:
    """A test marked with `marker` errors in the mock_appleid fixture, saying `expected_output`."""
    pytester.makepyfile(f"""
        import pytest

        @pytest.mark.{marker}
        def test_marked(mock_appleid):
            pass
    """)
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([expected_output])


def test_a_wrong_marker_argument_is_a_usage_error(pytester):
    assert_fixture_error(pytester, 'mock_appleid(scenery="x.yaml")', "*takes scenario= and isolated= only*scenery*")


def test_a_missing_scenario_file_fails_the_test_with_the_servers_reason(pytester):
    assert_fixture_error(pytester, 'mock_appleid(scenario="missing.yaml")', "*ServerStartError*missing.yaml*")


def test_a_module_marker_scenario_holds_for_a_test_marked_isolated(pytester):
    (pytester.path / "rp.yaml").write_text(sample_scenario_with_absolute_keys())
    pytester.makepyfile("""
        import pytest

        pytestmark = pytest.mark.mock_appleid(scenario="rp.yaml")

        @pytest.mark.mock_appleid(isolated=True)
        def test_isolated(mock_appleid, mock_appleid_session):
            assert mock_appleid.health()["scenario"] == "sample-rps"
            assert mock_appleid.base_url != mock_appleid_session.base_url
    """)
    pytester.runpytest().assert_outcomes(passed=1)
