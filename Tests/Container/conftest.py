"""The container tests: the image Scripts/build-image makes, run with a Docker engine (the one that answers,
else a dockerd started for the session with the vfs storage driver and stopped by pid at the end). Where
no engine can run they skip with the reason, unless MOCK_APPLEID_REQUIRE_DOCKER is set (Scripts/test sets
it once Docker is installed), in which case they fail."""
import os
import pathlib
import platform
import shlex
import shutil
import subprocess
import time

import pytest

from docker_engine import DockerEngine, DockerUnavailable

import sample_rp_image

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
IMAGE = "mock-appleid:latest"


@pytest.fixture(scope="session")
def engine():
    try:
        with DockerEngine() as started:
            yield started
    except DockerUnavailable as reason:
        if os.environ.get("MOCK_APPLEID_REQUIRE_DOCKER"):
            pytest.fail(f"a Docker engine is required here: {reason}")
        pytest.skip(f"no Docker engine: {reason}")


@pytest.fixture(scope="session")
def portable_binary() -> pathlib.Path:
    binary = pathlib.Path(os.environ.get("MOCK_APPLEID_PORTABLE_BINARY") or
                          REPOSITORY / "dist" / f"mock-appleid-linux-{platform.machine()}")
    if not binary.is_file():
        pytest.fail(f"no portable binary at {binary}: Scripts/build-portable makes it")
    return binary


def long_ldconfig(folder: pathlib.Path) -> pathlib.Path:
    """A folder whose `ldconfig` is this machine's with 2,000 more entries after its own: a listing longer
    than a pipe holds, as on a machine with many libraries, where a reader of `ldconfig -p` that stops at
    the first match makes ldconfig die of SIGPIPE."""
    real = shutil.which("ldconfig") or shutil.which("ldconfig", path="/usr/sbin:/sbin")
    assert real, "no ldconfig on this machine"
    script = folder / "ldconfig"
    script.write_text(f"""#!/bin/sh
{shlex.quote(real)} "$@" || exit $?
[ "$1" = -p ] || exit 0
i=0
while [ $i -lt 2000 ]; do
    echo "\tlibpadding$i.so.1 (libc6,x86-64) => /nonexistent/libpadding$i.so.1"
    i=$((i + 1))
done
""")
    script.chmod(0o755)
    return folder


@pytest.fixture(scope="session")
def image(engine, portable_binary, tmp_path_factory) -> str:
    """The image, built from this tree by the documented command, where `ldconfig -p` lists more than a pipe
    holds (long_ldconfig)."""
    started = time.monotonic()
    environment = dict(engine.environment)
    environment["PATH"] = f"{long_ldconfig(tmp_path_factory.mktemp('ldconfig'))}{os.pathsep}{environment.get('PATH', '')}"
    built = subprocess.run([str(REPOSITORY / "Scripts" / "build-image"), "--binary", str(portable_binary)],
                           env=environment, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    assert "libcrypto" not in built.stderr, built.stderr  # found in the long listing, and copied in
    print(f"\n{built.stdout.strip()} in {time.monotonic() - started:.1f} s")
    return IMAGE


@pytest.fixture(scope="session")
def rp_image(engine) -> str:
    return sample_rp_image.build(engine, "mock-appleid-sample-rp:test")


@pytest.fixture(scope="session")
def client_secret(portable_binary) -> str:
    """A client secret for the built-in scenario's com.example.web, signed with its built-in developer key."""
    key = REPOSITORY / "Keys" / "AuthKey_MOCKKEY001.p8"
    minted = subprocess.run([str(portable_binary), "client-secret", "--client-id", "com.example.web",
                             "--team-id", "MOCKTEAM01", "--key-id", "MOCKKEY001", "--key", str(key)],
                            capture_output=True, text=True, timeout=30)
    assert minted.returncode == 0, minted.stderr
    return minted.stdout.strip()
