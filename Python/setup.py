"""Builds a platform wheel that carries the portable mock-appleid binary.

The binary is not in the source tree: Scripts/build-wheel builds it (Scripts/build-portable) and names it
in MOCK_APPLEID_PORTABLE_BINARY, with the wheel's platform tag in MOCK_APPLEID_WHEEL_PLATFORM.
"""
import os
import pathlib
import shutil

from setuptools import Distribution, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py

HERE = pathlib.Path(__file__).resolve().parent
KEYS = HERE.parent / "Keys"


class BuildWithBinary(build_py):
    """Copies the portable binary and the built-in scenario's developer keys (.p8) into the package."""

    def run(self):
        super().run()
        binary = os.environ.get("MOCK_APPLEID_PORTABLE_BINARY")
        if not binary or not pathlib.Path(binary).is_file():
            raise SystemExit("MOCK_APPLEID_PORTABLE_BINARY must name the portable binary (Scripts/build-wheel sets it)")
        package = pathlib.Path(self.build_lib) / "mock_appleid"
        (package / "bin").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(binary, package / "bin" / "mock-appleid")
        os.chmod(package / "bin" / "mock-appleid", 0o755)
        (package / "keys").mkdir(exist_ok=True)
        for key in KEYS.glob("AuthKey_*.p8"):
            shutil.copyfile(key, package / "keys" / key.name)


class PlatformWheel(bdist_wheel):
    """One wheel for every Python 3 on the binary's platform: py3-none-<platform>."""

    def finalize_options(self):
        platform = os.environ.get("MOCK_APPLEID_WHEEL_PLATFORM")
        if platform:
            self.plat_name = platform
        super().finalize_options()

    def get_tag(self):
        return "py3", "none", super().get_tag()[2]


class BinaryDistribution(Distribution):
    """The package carries a native program, so its wheel is platform-specific."""

    def has_ext_modules(self):
        return True


setup(distclass=BinaryDistribution, cmdclass={"build_py": BuildWithBinary, "bdist_wheel": PlatformWheel})
