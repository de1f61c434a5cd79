"""Makes this Python process reach the server when it asks for https://appleid.apple.com: Apple's host
names resolve to the HTTPS listener on 127.0.0.1, and the server's local CA is trusted (by `ssl`'s
default context, requests and urllib3), so a relying-party library with Apple's URLs built in signs in
against the server with nothing but its settings changed."""
import contextlib
import os
import socket
from typing import Iterator

APPLE_HOSTS = ("appleid.apple.com", "appleid.cdn-apple.com")
_TRUST_VARIABLES = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")


@contextlib.contextmanager
def apple_hosts_at(https_port: int, ca_bundle: str) -> Iterator[None]:
    """Inside the block, Apple's hosts on port 443 mean 127.0.0.1:`https_port`, and `ca_bundle`
    (the system roots plus the server's CA) is the trust store."""
    original = socket.getaddrinfo

    def resolve(host, port, *arguments, **keywords):
        if isinstance(host, bytes):
            host = host.decode()
        if host in APPLE_HOSTS:
            mapped = https_port if port in (443, "443", "https", None) else port
            return original("127.0.0.1", mapped, *arguments, **keywords)
        return original(host, port, *arguments, **keywords)

    saved = {name: os.environ.get(name) for name in _TRUST_VARIABLES}
    socket.getaddrinfo = resolve
    os.environ.update({name: ca_bundle for name in _TRUST_VARIABLES})
    try:
        yield
    finally:
        socket.getaddrinfo = original
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
