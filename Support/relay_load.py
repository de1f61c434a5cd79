"""The private relay taking a line-dense message, and Apple's endpoints meanwhile: a message as large as the relay
takes made of empty lines (10 MB, about five million), or of MIME boundary lines or quoted-printable soft line
breaks, sent over SMTP while a client asks `GET /auth/keys` on a kept-alive connection without pause. What it
reports: the relay's answer, how long it took and the server's CPU for it, and `/auth/keys`'s latency before the
message (idle) and while the relay took it. Used by the benchmark (a row of docs/performance.md) and by the
conformance suite (loose bounds)."""
import base64
import json
import os
import pathlib
import socket
import statistics
import threading
import time
import urllib.parse

import requests

SENDER = "news@example.com"  # a registered email source of the built-in scenario's first team
MESSAGE_BYTES = 10 * 1024 * 1024  # the relay's default limit


def relay_address(base_url: str) -> str:
    """john's relay address, from the id_token of a headless sign-in (the server auto-approves john:hide)."""
    query = urllib.parse.urlencode({"client_id": "com.example.web", "redirect_uri": "http://localhost:3000/auth/apple/callback",
                                    "response_type": "code id_token", "response_mode": "form_post", "scope": "name email",
                                    "state": "s"})
    page = requests.get(f"{base_url}/auth/authorize?{query}", timeout=30).text
    token = page.split('name="id_token" value="', 1)[1].split('"', 1)[0]
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["email"]


def empty_lines(to: str, size: int = MESSAGE_BYTES) -> bytes:
    """A message of empty lines that fills `size` bytes as the relay counts them (each line with its CRLF)."""
    header = f"From: {SENDER}\r\nTo: {to}\r\nSubject: empty lines\r\n\r\n".encode()
    return header + b"\r\n" * ((size - len(header)) // 2)


def boundary_lines(to: str, lines: int) -> bytes:
    """A multipart message whose body is `lines` delimiter lines (each an empty part)."""
    header = f'From: {SENDER}\r\nTo: {to}\r\nSubject: parts\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n'.encode()
    return header + b"--b\r\n" * lines + b"--b--\r\n"


def soft_breaks(to: str, lines: int) -> bytes:
    """A quoted-printable message of `lines` soft line breaks."""
    header = f"From: {SENDER}\r\nTo: {to}\r\nSubject: soft\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n".encode()
    return header + b"a=\r\n" * lines


def _cpu_seconds(pid: int) -> float:
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _reply(connection: socket.socket, buffered: bytearray) -> str:
    """The next SMTP reply (its last line), reading what it needs."""
    while True:
        while b"\r\n" not in buffered:
            chunk = connection.recv(65536)
            if not chunk:
                raise RuntimeError("the relay closed the connection")
            buffered += chunk
        line, _, rest = bytes(buffered).partition(b"\r\n")
        buffered[:] = rest
        if line[3:4] != b"-":
            return line.decode(errors="replace")


class KeysWatch:
    """Asks `GET /auth/keys` without pause on one kept-alive connection, noting when each request began and
    how long it took."""

    def __init__(self, base_url: str):
        self.base_url = base_url
        self.samples: list[tuple[float, float]] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self):
        with requests.Session() as session:
            while not self.stop.is_set():
                started = time.monotonic()
                session.get(f"{self.base_url}/auth/keys", timeout=120).raise_for_status()
                self.samples.append((started, time.monotonic() - started))

    def between(self, start: float, end: float) -> list[float]:
        """The latencies, in ms, of the requests under way at some point between `start` and `end`."""
        return [latency * 1000 for began, latency in self.samples if began < end and began + latency > start]

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *_):
        self.stop.set()
        self.thread.join(timeout=180)


def take(base_url: str, smtp_port: int, pid: int, message: bytes, idle_seconds: float = 1.0) -> dict:
    """Sends `message` (to a relay address, from `SENDER`) to the relay at `smtp_port` of the server `pid` serving
    `base_url`, watching `/auth/keys` from `idle_seconds` before it until the relay answers."""
    address = message.split(b"\r\nTo: ", 1)[1].split(b"\r\n", 1)[0].decode()
    with KeysWatch(base_url) as keys, socket.create_connection(("127.0.0.1", smtp_port), timeout=600) as smtp:
        buffered = bytearray()
        _reply(smtp, buffered)
        for command in ("EHLO bench.example", f"MAIL FROM:<{SENDER}>", f"RCPT TO:<{address}>", "DATA"):
            smtp.sendall(command.encode() + b"\r\n")
            answer = _reply(smtp, buffered)
        if not answer.startswith("354"):
            raise RuntimeError(f"DATA was answered {answer}")
        time.sleep(idle_seconds)  # /auth/keys, idle
        cpu_before, started = _cpu_seconds(pid), time.monotonic()
        smtp.sendall(message + b".\r\n")
        answer = _reply(smtp, buffered)
        ended, cpu = time.monotonic(), _cpu_seconds(pid) - cpu_before
        smtp.sendall(b"QUIT\r\n")
    idle, during = keys.between(started - idle_seconds, started), keys.between(started, ended)
    return {"reply": answer, "lines": message.count(b"\n"), "seconds": ended - started, "cpu": cpu,
            "idle_median_ms": statistics.median(idle), "median_ms": statistics.median(during or [0.0]),
            "max_ms": max(during or [0.0]), "requests": len(during)}
