"""mock-appleid for Python: start a local stand-in for Sign in with Apple's servers and drive it.

    from mock_appleid import MockAppleID

    with MockAppleID() as appleid:            # the built-in scenario, on free loopback ports
        signed_in = appleid.sign_in(persona="jane")
        print(signed_in.claims["sub"], signed_in.user)

Under pytest, the `mock_appleid` fixture hands each test such a client (see mock_appleid.pytest_plugin).
"""
from .audit import AuditCase, AuditError, AuditReport, audit
from .client import DEFAULT_CLIENT_ID, DEFAULT_REDIRECT_URI, MockAppleIDClient
from .developer_key import DeveloperKey, built_in_developer_key
from .errors import MockAppleIDError, ServerStartError
from .server import MockAppleID
from .sign_in import SignIn

__all__ = ["MockAppleID", "MockAppleIDClient", "SignIn", "MockAppleIDError", "ServerStartError", "DeveloperKey",
           "built_in_developer_key", "DEFAULT_CLIENT_ID", "DEFAULT_REDIRECT_URI", "audit", "AuditReport", "AuditCase",
           "AuditError"]
