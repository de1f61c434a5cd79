"""The image of the sample relying party (rp/sign_in.py) that the Compose files run beside mock-appleid:
this machine's Python interpreter, its standard library and the libraries they link, FROM scratch (no
registry is reachable to pull a Python base image)."""
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
#: Parts of the standard library the sign-in does not use (and the static libpython, the largest file).
LEFT_OUT = {"test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3", "pydoc_data", "__pycache__",
            "venv", "unittest", "distutils", "site-packages", "dist-packages"}


def _linked_libraries(files):
    libraries = set()
    for file in files:
        listing = subprocess.run(["ldd", str(file)], capture_output=True, text=True).stdout
        for line in listing.splitlines():
            path = next((part for part in line.split() if part.startswith("/")), None)
            if path and os.path.exists(path):
                libraries.add(path)
    return libraries


def build(engine, tag: str) -> str:
    """Builds the image as `tag` with `engine` (a DockerEngine) and returns the tag."""
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
        for library in _linked_libraries([interpreter, *extensions]):
            target = root / library.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(os.path.realpath(library), target)
        (root / "rp").mkdir()
        shutil.copy2(HERE / "rp" / "sign_in.py", root / "rp" / "sign_in.py")
        (pathlib.Path(context) / "Dockerfile").write_text(
            "FROM scratch\nCOPY rootfs/ /\nUSER 10002:10002\nENV PYTHONDONTWRITEBYTECODE=1\n"
            'ENTRYPOINT ["/usr/bin/python3", "/rp/sign_in.py"]\n')
        engine.docker("build", "--quiet", "--tag", tag, context, timeout=600)
    return tag
