"""`mock-appleid` on the PATH of a virtual environment: runs the binary the wheel carries."""
import os
import sys

from .binary import find_binary
from .errors import ServerStartError


def main() -> None:
    try:
        binary = find_binary()
    except ServerStartError as error:
        sys.exit(f"mock-appleid: {error}")
    os.execv(binary, [binary, *sys.argv[1:]])
