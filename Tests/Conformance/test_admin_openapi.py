"""The admin API against its own OpenAPI document (/__admin/openapi.yaml): schemathesis generates requests
for every operation (the document's examples, then boundary and invalid values, then random ones) and checks
every answer: no 5xx, a documented status and content type, a body matching the schema, within 1 s."""
import pathlib
import sys

import subprocess

import requests

from server_process import serving

CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
# Setting an app's notification URL makes the server post notifications there: random https hosts,
# which a test must not reach out to. The operation is covered by the Swift and notification tests.
LEFT_OUT = "setNotificationURL"


def test_every_admin_answer_matches_the_openapi_document():
    with serving() as base_url:
        document = requests.get(f"{base_url}/__admin/openapi.yaml", timeout=10)
        assert document.status_code == 200 and document.headers["Content-Type"] == "application/yaml"
        result = subprocess.run(
            [str(pathlib.Path(sys.executable).with_name("schemathesis")), "run", f"{base_url}/__admin/openapi.yaml",
             "--checks", CHECKS, "--max-response-time", "1", "--phases", "examples,coverage,fuzzing",
             "--max-examples", "25", "--seed", "1", "--workers", "1", "--exclude-operation-id", LEFT_OUT,
             "--suppress-health-check", "all", "--no-color"],
            capture_output=True, text=True, timeout=900)
        print(result.stdout[-6000:])
        assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
        assert requests.get(f"{base_url}/__admin/health", timeout=10).json()["status"] == "ok"
