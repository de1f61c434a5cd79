"""The exceptions the Python API raises."""
from typing import Optional


class MockAppleIDError(Exception):
    """A request the server refused.

    `status` is the HTTP status, `error` Apple's error code (or the admin API's), `endpoint` the path asked,
    and `reason` the server's own explanation: for Apple's endpoints, the request journal's reason, which
    names the real cause Apple's terse error hides (an expired client secret, a reused code, a wrong
    redirect URI); for the admin API, its message.
    """

    def __init__(self, message: str, *, status: Optional[int] = None, error: Optional[str] = None,
                 reason: Optional[str] = None, endpoint: Optional[str] = None):
        super().__init__(message)
        self.status = status
        self.error = error
        self.reason = reason
        self.endpoint = endpoint


class ServerStartError(MockAppleIDError):
    """The server did not start: a bad scenario file, a missing binary, a port in use. The message
    carries what the server printed."""
