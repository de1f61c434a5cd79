"""`mock-appleid` on the PATH of a virtual environment: runs the binary the wheel carries."""
import os
import sys

from .binary import find_binary


def main() -> None:
    binary = find_binary()
    os.execv(binary, [binary, *sys.argv[1:]])
