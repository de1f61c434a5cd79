"""The package under test is the installed wheel, carrying its own binary."""
import os
import pathlib
import subprocess
import sys

import mock_appleid


def test_the_package_and_its_binary_come_from_the_installed_wheel():
    package = pathlib.Path(mock_appleid.__file__).resolve().parent
    assert "site-packages" in package.parts
    binary = package / "bin" / "mock-appleid"
    assert binary.is_file() and os.access(binary, os.X_OK)
    assert "MOCK_APPLEID_BINARY" not in os.environ


def test_the_console_script_runs_the_carried_binary():
    script = pathlib.Path(sys.executable).parent / "mock-appleid"
    finished = subprocess.run([str(script), "scenario", "check", str(pathlib.Path(__file__).parent / "scenarios" / "sample-rps.yaml")],
                              capture_output=True, text=True, timeout=60)
    assert finished.returncode == 0, finished.stderr
    assert "scenario sample-rps: 1 team(s), 2 client(s), 2 persona(s)" in finished.stdout



def test_the_console_script_says_in_one_line_when_no_binary_is_there(tmp_path):
    script = pathlib.Path(sys.executable).parent / "mock-appleid"
    finished = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60,
                              env={**os.environ, "MOCK_APPLEID_BINARY": str(tmp_path / "absent")})
    assert finished.returncode == 1
    assert finished.stderr.strip().splitlines() == [
        f"mock-appleid: no executable mock-appleid binary at {tmp_path / 'absent'} (install the platform wheel, or set MOCK_APPLEID_BINARY)"]
