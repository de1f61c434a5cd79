"""The admin API against its own OpenAPI document (/__admin/openapi.yaml): schemathesis generates requests
for every operation (the document's examples, then boundary and invalid values, then random ones) and checks
every answer: no 5xx, a documented status and content type, a body matching the schema, within 1 s."""
import pathlib
import sys

import subprocess

import requests
import yaml

from server_process import serving

CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
# Setting an app's notification URL makes the server post notifications there: random https hosts,
# which a test must not reach out to. The operation is covered by the Swift and notification tests.
# The event stream does not end, so each request would wait out schemathesis's timeout; its answer is
# checked by Tests/Conformance/test_account_lifecycle.py. An audit sends requests to the URLs its body names
# and runs for seconds to minutes; Tests/Conformance/test_audit.py drives it.
LEFT_OUT = ("setNotificationURL", "streamEvents", "audit")


def schemathesis(document_url: str, folder: pathlib.Path) -> None:
    """Runs schemathesis on the document at `document_url` (its cache goes to `folder`); fails with its report."""
    result = subprocess.run(
        [str(pathlib.Path(sys.executable).with_name("schemathesis")), "run", document_url,
         "--checks", CHECKS, "--max-response-time", "1", "--phases", "examples,coverage,fuzzing",
         "--max-examples", "25", "--seed", "1", "--workers", "1", *(f"--exclude-operation-id={name}" for name in LEFT_OUT),
         "--suppress-health-check", "all", "--no-color"],
        capture_output=True, text=True, timeout=900, cwd=folder)
    print(result.stdout[-6000:])
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]


def test_every_admin_answer_matches_the_openapi_document(tmp_path):
    with serving() as base_url:
        document = requests.get(f"{base_url}/__admin/openapi.yaml", timeout=10)
        assert document.status_code == 200 and document.headers["Content-Type"] == "application/yaml"
        schemathesis(f"{base_url}/__admin/openapi.yaml", tmp_path)
        assert requests.get(f"{base_url}/__admin/health", timeout=10).json()["status"] == "ok"


def test_a_tenants_admin_api_matches_its_own_document(tmp_path):
    """A tenant's document names the tenant's base and leaves out the tenants' routes, which it has not."""
    with serving() as base_url:
        assert requests.post(f"{base_url}/__admin/tenants", json={"name": "job-a"}, timeout=10).status_code == 201
        document = requests.get(f"{base_url}/t/job-a/__admin/openapi.yaml", timeout=10).text
        parsed = yaml.safe_load(document)
        assert parsed["servers"] == [{"url": "/t/job-a"}] and "/__admin/tenants" not in document
        schemathesis(f"{base_url}/t/job-a/__admin/openapi.yaml", tmp_path)
        assert [t["name"] for t in requests.get(f"{base_url}/__admin/tenants", timeout=10).json()["tenants"]] == ["job-a"]
