"""Where the mock-appleid binary is: given, named by MOCK_APPLEID_BINARY, or the one this package carries."""
import os
import pathlib
from typing import Optional

from .errors import ServerStartError

PACKAGE = pathlib.Path(__file__).resolve().parent


def find_binary(explicit: Optional[str] = None) -> str:
    """The binary to run: `explicit`, else $MOCK_APPLEID_BINARY, else the wheel's own."""
    candidate = explicit or os.environ.get("MOCK_APPLEID_BINARY") or str(PACKAGE / "bin" / "mock-appleid")
    if not os.path.isfile(candidate) or not os.access(candidate, os.X_OK):
        raise ServerStartError(f"no executable mock-appleid binary at {candidate} "
                               "(install the platform wheel, or set MOCK_APPLEID_BINARY)")
    return candidate
