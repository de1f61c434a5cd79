"""The images of the sample relying parties the Compose files run beside mock-appleid (rp/sign_in.py, and the
audit's sample RP): this machine's Python interpreter, its standard library and the libraries they link, FROM scratch (no
registry is reachable to pull a Python base image)."""
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
REPOSITORY = HERE.parents[1]
#: Parts of the standard library the sign-in does not use (and the static libpython, the largest file).
LEFT_OUT = {"test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3", "pydoc_data", "__pycache__",
            "venv", "unittest", "distutils", "site-packages", "dist-packages"}


def _linked_libraries(files):
    libraries = set()
    for file in files:
        listing = subprocess.run(["ldd", str(file)], capture_output=True, text=True).stdout
        for line in listing.splitlines():
            assert "not found" not in line, f"{file} links a library this machine lacks: {line.strip()}"
            path = next((part for part in line.split() if part.startswith("/")), None)
            if path and os.path.exists(path):
                libraries.add(path)
    return libraries


def _build(engine, tag: str, files: dict, packages: list, entrypoint: list, healthcheck: list | None = None) -> str:
    """Builds an image as `tag` with `engine` (a DockerEngine): this machine's Python, its standard library,
    `files` (path in the image: file here) and the installed `packages` (importable names, with the libraries
    their extensions link) under /rp/packages; runs `entrypoint`."""
    interpreter = pathlib.Path(os.path.realpath(sys.base_prefix + "/bin/python3"))
    standard_library = pathlib.Path(sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_prefix})["stdlib"])
    with tempfile.TemporaryDirectory() as context:
        root = pathlib.Path(context) / "rootfs"
        (root / "usr/bin").mkdir(parents=True)
        shutil.copy2(interpreter, root / "usr/bin/python3")
        copied_library = root / standard_library.relative_to("/")
        shutil.copytree(standard_library, copied_library, ignore_dangling_symlinks=True,
                        ignore=lambda folder, names: [name for name in names
                                                      if name in LEFT_OUT or name.startswith("config-")])
        extensions = list((copied_library / "lib-dynload").glob("*.so"))
        for name in packages:
            found = importlib.util.find_spec(name)
            assert found is not None, f"{name} is not installed for {sys.executable}"
            assert found.origin, f"{name} is a namespace package, which this image builder does not copy"
            source = pathlib.Path(found.origin)
            if found.submodule_search_locations:
                target = root / "rp/packages" / name
                shutil.copytree(source.parent, target, ignore=shutil.ignore_patterns("__pycache__"))
                extensions += list(target.rglob("*.so"))
            else:
                (root / "rp/packages").mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, root / "rp/packages" / source.name)
                extensions += [source] if source.suffix == ".so" else []
        for library in _linked_libraries([interpreter, *extensions]):
            target = root / library.lstrip("/")
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(os.path.realpath(library), target)
        for path, source in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, root / path)
        health = f"HEALTHCHECK --interval=1s --timeout=5s --retries=30 CMD {json.dumps(healthcheck)}\n" if healthcheck else ""
        (pathlib.Path(context) / "Dockerfile").write_text(
            "FROM scratch\nCOPY rootfs/ /\nUSER 10002:10002\nENV PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=/rp/packages\n"
            f"{health}ENTRYPOINT {json.dumps(entrypoint)}\n")
        engine.docker("build", "--quiet", "--tag", tag, context, timeout=600)
    return tag


def build(engine, tag: str) -> str:
    """The sign-in script (rp/sign_in.py), standard library only, as `tag`."""
    return _build(engine, tag, {"rp/sign_in.py": HERE / "rp" / "sign_in.py"}, [], ["/usr/bin/python3", "/rp/sign_in.py"])


def build_audited(engine, tag: str) -> str:
    """The audit's correct sample relying party (Tests/Conformance/audit_rp.py) as `tag`: a web RP on port 8000 of
    every interface, known in its own URLs as rp.localhost, with Apple's base URL from $ISSUER_URL, the built-in
    developer key, and no pause between fetches of Apple's keys (so that the audit's key rotation is judged at
    once). Healthy once it listens."""
    return _build(engine, tag, {"rp/audit_rp.py": REPOSITORY / "Tests" / "Conformance" / "audit_rp.py",
                                "rp/AuthKey_MOCKKEY001.p8": REPOSITORY / "Keys" / "AuthKey_MOCKKEY001.p8"},
                  ["jwt", "requests", "urllib3", "idna", "certifi", "charset_normalizer", "cryptography", "cffi",
                   "_cffi_backend", "pycparser"],
                  ["/usr/bin/python3", "/rp/audit_rp.py", "--key", "/rp/AuthKey_MOCKKEY001.p8", "--host", "rp.localhost",
                   "--listen", "0.0.0.0", "--port", "8000", "--keys-cooldown", "0"],
                  ["/usr/bin/python3", "-c", "import socket; socket.create_connection(('127.0.0.1', 8000), 2).close()"])
