"""Container/audit-scenario.yaml, the scenario Container/compose.audit.yaml serves, is the built-in scenario's
teams with the public halves of their developer keys and one return URL more: a change to the built-in teams that
it does not follow fails here."""
import pathlib

import yaml
from cryptography.hazmat.primitives import serialization

ROOT = pathlib.Path(__file__).resolve().parents[2]
ADDED_RETURN_URL = "http://rp.localhost:8000/callback"


def public_pem(pem: str) -> bytes:
    """The SubjectPublicKeyInfo of a private (.p8) or public key's PEM."""
    text = pem.encode()
    try:
        key = serialization.load_pem_private_key(text, password=None).public_key()
    except ValueError:
        key = serialization.load_pem_public_key(text)
    return key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def teams(path: pathlib.Path) -> list:
    """The scenario's teams, each key as its kid and public key, with the compose file's return URL left out."""
    listed = yaml.safe_load(path.read_text())["teams"]
    for team in listed:
        team["keys"] = [(key["kid"], public_pem(key.get("pem") or (path.parent / key["file"]).read_text())) for key in team["keys"]]
        for app in team["apps"]:
            for services_id in app.get("servicesIDs", []):
                services_id["returnURLs"] = [url for url in services_id["returnURLs"] if url != ADDED_RETURN_URL]
    return listed


def test_the_compose_audit_scenario_is_the_built_in_one_with_the_relying_partys_return_url():
    scenario = yaml.safe_load((ROOT / "Container" / "audit-scenario.yaml").read_text())
    assert scenario["base"] == "default" and set(scenario) == {"name", "base", "teams"}
    web = scenario["teams"][0]["apps"][0]["servicesIDs"][0]
    assert web["id"] == "com.example.web" and ADDED_RETURN_URL in web["returnURLs"]
    assert teams(ROOT / "Container" / "audit-scenario.yaml") == teams(ROOT / "Scenarios" / "default.yaml")
