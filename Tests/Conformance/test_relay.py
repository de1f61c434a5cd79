"""The private email relay over real SMTP: Python's smtplib (as an RP's mail code sends) and raw
sockets against `serve --smtp-port 0`, and forwarding to a local SMTP sink (aiosmtpd)."""
import contextlib
import email.message
import re
import smtplib
import socket
import time

import jwt
import pytest
import requests
from aiosmtpd.controller import Controller

import relay_load
from appleid import authorize_url, sign_in
from server_process import run_cli, serving

SMALL_RELAY = """
base: default
name: small-relay
relay:
  maxMessageSize: 4096
  dailyLimit: 3
"""
DEADLINE_SECONDS = 15


@pytest.fixture(scope="module")
def relay(tmp_path_factory):
    """A server with the SMTP listener, on a scenario with a 4 KB message limit and 3 messages a day."""
    scenario = tmp_path_factory.mktemp("relay") / "small-relay.yaml"
    scenario.write_text(SMALL_RELAY)
    with serving("--scenario", str(scenario), "--smtp-port", "0") as base_url:
        yield base_url, smtp_port(base_url)


@pytest.fixture(autouse=True)
def reset_relay(request):
    if "relay" in request.fixturenames:
        base_url, _ = request.getfixturevalue("relay")
        assert requests.post(f"{base_url}/__admin/reset", json={}, timeout=10).status_code == 200


def smtp_port(server) -> int:
    return int(re.search(r"SMTP relay:\s+127\.0\.0\.1:(\d+)", server.banner).group(1))


def relay_address(base_url, persona="john") -> str:
    """Signs `persona` in (john hides his email) and returns the relay address the id_token carries."""
    token = sign_in(base_url, authorize_url(base_url, response_type="code id_token"), persona)["id_token"]
    claims = jwt.decode(token, options={"verify_signature": False})
    assert claims["is_private_email"] is True
    return claims["email"]


def message(sender="news@example.com", to="x@privaterelay.appleid.com", subject="Welcome", body="Hello from the shop.\n"):
    mail = email.message.EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = f"Shop <{sender}>", to, subject
    mail.set_content(body)
    return mail


def inbox(base_url, **query) -> list:
    return requests.get(f"{base_url}/__admin/relay/messages", params=query, timeout=10).json()["messages"]


def test_registered_sender_reaches_the_inbox(relay):
    base_url, port = relay
    address = relay_address(base_url)
    assert re.fullmatch(r"[a-z0-9]{10}@private\.icloud\.com", address)
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
        code, features = smtp.ehlo("shop.example.com")
        assert code == 250 and b"SIZE 4096" in features and b"8BITMIME" in features
        assert smtp.send_message(message(to=address)) == {}
    [received] = inbox(base_url, persona="john")
    assert received["relayAddress"] == address and received["envelopeFrom"] == "news@example.com"
    assert received["subject"] == "Welcome" and received["from"] == "Shop <news@example.com>"
    assert received["body"].strip() == "Hello from the shop." and received["forwardTo"] == "john.hidden@example.com"
    assert {"name": "Subject", "value": "Welcome"} in received["headers"]
    assert requests.get(f"{base_url}/__admin/relay/addresses", timeout=10).json()["addresses"] == [
        {"address": address, "personaID": "john", "teamID": "MOCKTEAM01", "forwarding": True, "appGroups": ["com.example.app"]}]
    page = requests.get(f"{base_url}/__admin/relay/inbox", params={"persona": "john"}, timeout=10)
    assert page.status_code == 200 and "Welcome" in page.text and address in page.text


def refused(port, sender, recipient) -> tuple[int, bytes]:
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
        with pytest.raises(smtplib.SMTPRecipientsRefused) as refusal:
            smtp.send_message(message(sender=sender, to=recipient))
    return refusal.value.recipients[recipient]


def test_unregistered_sender_unknown_address_and_forwarding_off_get_550(relay):
    base_url, port = relay
    address = relay_address(base_url)
    assert refused(port, "news@unregistered.example.net", address) == (550, f"5.1.1 <{address}>: unauthorized sender".encode())
    assert refused(port, "news@sub.example.com", address)[0] == 550  # a subdomain is registered on its own
    unknown = "zzzzzzzzzz@privaterelay.appleid.com"
    assert refused(port, "news@example.com", unknown) == (550, f"5.1.1 <{unknown}>: user not found".encode())
    off = requests.patch(f"{base_url}/__admin/personas/john", json={"relayForwarding": False}, timeout=10)
    assert off.status_code == 200, off.text
    assert refused(port, "news@example.com", address) == (550, f"5.1.1 <{address}>: user not found".encode())
    assert requests.patch(f"{base_url}/__admin/personas/john", json={"relayForwarding": True}, timeout=10).status_code == 200
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
        assert smtp.send_message(message(to=address)) == {}
    assert len(inbox(base_url)) == 1


def test_a_from_header_outside_the_sources_is_refused_after_data(relay):
    base_url, port = relay
    address = relay_address(base_url)
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
        with pytest.raises(smtplib.SMTPDataError) as refusal:
            smtp.sendmail("bounces@example.com", [address], message(sender="ceo@elsewhere.example.net", to=address).as_bytes())
    assert refusal.value.smtp_code == 550 and b"unauthorized sender" in refusal.value.smtp_error
    assert inbox(base_url) == []


def test_email_sources_registered_through_the_admin_api(relay):
    base_url, port = relay
    address = relay_address(base_url)
    put = requests.put(f"{base_url}/__admin/teams/MOCKTEAM01/email-sources",
                       json={"sources": ["Mailer.Example.NET", "alerts@example.org"]}, timeout=10)
    assert put.json() == {"team": "MOCKTEAM01", "sources": ["mailer.example.net", "alerts@example.org"]}
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
        assert smtp.send_message(message(sender="x@mailer.example.net", to=address)) == {}
        assert smtp.send_message(message(sender="alerts@example.org", to=address)) == {}
    assert refused(port, "other@example.org", address)[0] == 550
    assert refused(port, "news@example.com", address)[0] == 550  # the old sources were replaced
    for bad, status in [({"sources": ["not a domain"]}, 400), ({"sources": "example.com"}, 400), ({"list": []}, 400)]:
        assert requests.put(f"{base_url}/__admin/teams/MOCKTEAM01/email-sources", json=bad, timeout=10).status_code == status
    assert requests.put(f"{base_url}/__admin/teams/NOSUCHTEAM/email-sources", json={"sources": []}, timeout=10).status_code == 404


def test_size_limit_is_advertised_and_enforced(relay):
    base_url, port = relay
    address = relay_address(base_url)
    big = message(to=address, body="x" * 70 + "\n" * 1 + ("y" * 70 + "\n") * 80)
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
        with pytest.raises(smtplib.SMTPSenderRefused) as refusal:  # smtplib sends SIZE=, refused at MAIL FROM
            smtp.send_message(big)
        assert refusal.value.smtp_code == 552
    with conversation(port) as talk:  # no SIZE= parameter: refused at the end of DATA
        talk("EHLO shop.example.com", "250")
        talk("MAIL FROM:<news@example.com>", "250")
        talk(f"RCPT TO:<{address}>", "250")
        talk("DATA", "354")
        talk(("z" * 1000 + "\r\n") * 5 + ".", "552 5.3.4")
        talk("NOOP", "250")
    assert inbox(base_url) == []


def test_daily_limit_counts_on_the_mock_clock(relay):
    base_url, port = relay
    address = relay_address(base_url)
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
        for _ in range(3):
            assert smtp.send_message(message(to=address)) == {}
    assert refused(port, "news@example.com", address) == (550, f"5.7.1 <{address}>: daily limit of 3 messages reached".encode())
    assert requests.post(f"{base_url}/__admin/clock", json={"advance": 86400}, timeout=10).status_code == 200
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
        assert smtp.send_message(message(to=address)) == {}
    assert len(inbox(base_url)) == 4


@contextlib.contextmanager
def conversation(port):
    """A raw SMTP connection: `talk(line, expected_reply_prefix)` sends a line and checks the last reply line."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    reader = sock.makefile("rb")
    assert reader.readline().startswith(b"220 ")

    def talk(line, expected):
        sock.sendall(line.encode() + b"\r\n")
        while True:
            reply = reader.readline().decode()
            assert reply, f"connection closed after {line[:40]!r}"
            if reply[3:4] != "-":
                break
        assert reply.startswith(expected), f"{line[:40]!r} → {reply!r}, expected {expected}"
        return reply

    try:
        yield talk
    finally:
        sock.close()


def test_bad_commands_and_sequences_get_clean_5xx(relay):
    _, port = relay
    with conversation(port) as talk:
        talk("MAIL FROM:<news@example.com>", "503 5.5.1")
        talk("HELO", "501")
        talk("HELO shop.example.com", "250")
        talk("RCPT TO:<a@privaterelay.appleid.com>", "503 5.5.1")
        talk("DATA", "503 5.5.1")
        talk("MAIL FROM news@example.com", "501 5.5.4")
        talk("MAIL FROM:<news@example.com> SIZE=abc", "501")
        talk("MAIL FROM:<news@example.com> AUTH=<>", "555")
        talk("MAIL FROM:<news@example.com>", "250")
        talk("MAIL FROM:<news@example.com>", "503 5.5.1")
        talk("DATA", "554")
        talk("RCPT TO:a@b", "501")
        talk("RSET", "250")
        talk("STARTTLS", "502")
        talk("X" * 600, "500 5.5.2")
        talk("NOOP", "250")
        talk("QUIT", "221")


def test_an_endless_line_is_dropped_without_buffering(relay):
    _, port = relay
    with conversation(port) as talk:
        talk("EHLO shop.example.com", "250")
        talk("A" * 200_000, "500 5.5.2 Line too long")  # far beyond the 8 KB line limit
        talk("NOOP", "250")


def test_too_many_errors_end_the_conversation(relay):
    _, port = relay
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    reader = sock.makefile("rb")
    reader.readline()
    sock.sendall(b"BOGUS\r\n" * 25)
    replies = [reader.readline() for _ in range(20)]
    assert replies[-1].startswith(b"421 4.7.0") and all(r.startswith(b"502") for r in replies[:-1])
    assert reader.readline() == b""  # closed by the relay
    sock.close()


class Sink:
    def __init__(self):
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(envelope)
        return "250 OK sink"


@contextlib.contextmanager
def forwarding_relay():
    """A server whose relay forwards what it takes to a local SMTP sink (aiosmtpd): yields both."""
    sink = Sink()
    with socket.socket() as probe:  # aiosmtpd's controller needs a fixed port: take a free one
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        upstream = f"127.0.0.1:{port}"
        with serving("--smtp-port", "0", "--relay-forward", upstream) as base_url:
            assert f"forwarding:  every relayed message to {upstream}" in base_url.banner
            yield base_url, sink
    finally:
        controller.stop()


def wait_until_forwarded(base_url):
    """Polls the inbox until its first message has a forwarding outcome."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not (inbox(base_url) and inbox(base_url)[0].get("forwarded")):
        assert time.monotonic() < deadline, "the forwarding outcome"
        time.sleep(0.02)


def test_delivered_mail_is_forwarded_upstream():
    with forwarding_relay() as (base_url, sink):
        address = relay_address(base_url)
        with smtplib.SMTP("127.0.0.1", smtp_port(base_url), timeout=10) as smtp:
            assert smtp.send_message(message(to=address, subject="Your order", body=".\nMAIL FROM:<x@y>\n.leading dot\n")) == {}
        wait_until_forwarded(base_url)
        [received] = inbox(base_url)
        assert received["forwarded"].startswith("accepted by upstream: 250")
        [forwarded] = sink.messages
        assert forwarded.rcpt_tos == ["john.hidden@example.com"] and forwarded.mail_from == "news@example.com"
        assert b"Subject: Your order" in forwarded.content
        assert forwarded.content.endswith(b"\r\n\r\n.\r\nMAIL FROM:<x@y>\r\n.leading dot\r\n") or \
            forwarded.content.endswith(b"\n\n.\nMAIL FROM:<x@y>\n.leading dot\n"), forwarded.content  # dots kept, body not run as commands
        # an idle SMTP connection left open does not keep the server from stopping cleanly
        idle = socket.create_connection(("127.0.0.1", smtp_port(base_url)), timeout=10)
    idle.close()


def test_the_cli_lists_addresses_and_messages_and_sets_sources(relay):
    base_url, port = relay
    address = relay_address(base_url)
    listed = run_cli("relay", "addresses", "--url", base_url)
    assert listed.returncode == 0 and listed.stdout.strip() == f"{address}  john  MOCKTEAM01  forwarding on  com.example.app"
    sources = run_cli("relay", "sources", "MOCKTEAM01", "example.com", "shop.example.org", "--url", base_url)
    assert sources.returncode == 0 and '"shop.example.org"' in sources.stdout
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
        assert smtp.send_message(message(sender="x@shop.example.org", to=address, subject="Via CLI")) == {}
    messages = run_cli("relay", "messages", "--persona", "john", "--url", base_url)
    assert messages.returncode == 0 and f"x@shop.example.org → {address} (john): Via CLI" in messages.stdout
    assert run_cli("relay", "messages", "--persona", "jane", "--url", base_url).stdout == ""
    bad = run_cli("relay", "sources", "MOCKTEAM01", "not a domain", "--url", base_url)
    assert bad.returncode != 0 and "is not a domain or an email address" in bad.stderr


def smuggle(port, address, end_of_data: bytes) -> list[bytes]:
    """One DATA body that hides a second message behind `end_of_data` (a bare-LF or bare-CR "end" as the 2023
    SMTP smuggling attacks used) and ends properly with <CRLF>.<CRLF>: every reply the relay sent for it."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    reader = sock.makefile("rb")
    try:
        assert reader.readline().startswith(b"220 ")
        for line, expected in ((b"HELO shop.example.com", b"250"), (b"MAIL FROM:<news@example.com>", b"250"),
                               (f"RCPT TO:<{address}>".encode(), b"250"), (b"DATA", b"354")):
            sock.sendall(line + b"\r\n")
            assert reader.readline().startswith(expected)
        sock.sendall(b"From: news@example.com\r\nSubject: outer\r\n\r\nouter" + end_of_data +
                     b"MAIL FROM:<news@example.com>\r\nRCPT TO:<" + address.encode() + b">\r\nDATA\r\n"
                     b"From: news@example.com\r\nSubject: SMUGGLED\r\n\r\nsmuggled\r\n.\r\nQUIT\r\n")
        return reader.readlines()
    finally:
        sock.close()


@pytest.mark.parametrize("end_of_data, refusal", [
    (b"\n.\n", None), (b"\r\n.\n", None), (b"\n.\r\n", None),
    (b"\r.\r", b"550 5.5.2 Bare <CR> in the message"), (b"\r\n.\r", b"550 5.5.2 Bare <CR> in the message"),
    (b"A" * 9000 + b"\n.\r\n", b"500 5.5.2 Line too long"),  # an over-long line ending in a bare LF
])
def test_a_bare_lf_or_cr_end_of_data_smuggles_no_second_message(end_of_data, refusal):
    with forwarding_relay() as (base_url, sink):
        address = relay_address(base_url)
        replies = smuggle(smtp_port(base_url), address, end_of_data)
        # One reply to the one message, then QUIT's: nothing after the bare-LF or bare-CR "end" was a command.
        assert [reply[:9] for reply in replies][-1:] == [b"221 2.0.0"] and len(replies) == 2, replies
        if refusal:
            # Refused whole (and nothing passed on to a server that might take a bare CR for a line end).
            assert replies[0].startswith(refusal), replies
            assert inbox(base_url) == [] and sink.messages == []
            return
        # A bare LF: one message, the would-be second one its text, as Postfix's smtpd_forbid_bare_newline = normalize reads it.
        assert replies[0].startswith(b"250 2.0.0 OK"), replies
        [received] = inbox(base_url)
        assert received["subject"] == "outer" and "Subject: SMUGGLED" in received["body"]
        wait_until_forwarded(base_url)
        [forwarded] = sink.messages
        assert forwarded.content.count(b"Subject: ") == 2 and forwarded.content.startswith(b"From: news@example.com")


def test_an_address_with_a_nul_or_a_cr_is_a_syntax_error(relay):
    _, port = relay
    with conversation(port) as talk:
        talk("HELO shop.example.com", "250")
        talk("MAIL FROM:<news\x00@example.com>", "501 5.5.4")
        talk("MAIL FROM:<news\r@example.com>", "501 5.5.4")
        talk("MAIL FROM:<news@example.com>", "250")
        talk("RCPT TO:<x\x00@privaterelay.appleid.com>", "501 5.5.4")


@pytest.mark.parametrize("make, lines, says", [
    (lambda to, lines: relay_load.empty_lines(to), None, "552 5.3.4 Message has more than 1000000 lines"),
    (relay_load.boundary_lines, 999_000, "250 "),
    (relay_load.soft_breaks, 999_000, "250 "),
])
def test_a_line_dense_message_costs_little_and_apples_endpoints_do_not_wait(make, lines, says):
    """A message within the size limit made of millions of short lines (empty ones; MIME boundaries; quoted-printable
    soft breaks) is read as bytes, not line by line, and decoded once off the event loop: the relay answers within
    seconds and `/auth/keys` is not held up meanwhile. Over a million lines, it is refused at its end."""
    with serving("--smtp-port", "0", "--auto-approve", "john:hide") as base_url:
        message = make(relay_load.relay_address(base_url), lines)
        taken = relay_load.take(base_url, smtp_port(base_url), base_url.process.pid, message, idle_seconds=0.5)
    assert taken["reply"].startswith(says), taken
    # Minutes before (386 s for the five million empty lines, in this debug build). The bound leaves room for CI, where
    # the debug server shares two cores with the portable binary's release build: 999,000 boundary lines took 10 s there.
    assert taken["seconds"] < 30 and taken["cpu"] < 20, taken
    assert taken["max_ms"] < 1000, taken


def test_a_message_sent_before_the_354_is_read_as_lines_and_the_commands_after_it_are_answered():
    """A client that does not wait for the `354` (its message in the same write as DATA) has its message read line by
    line, as before, and the next transaction's commands are commands, not message text."""
    with serving("--smtp-port", "0") as base_url:
        address = relay_address(base_url)
        sock = socket.create_connection(("127.0.0.1", smtp_port(base_url)), timeout=10)
        reader = sock.makefile("rb")
        try:
            assert reader.readline().startswith(b"220 ")
            for line in (b"HELO shop.example.com", b"MAIL FROM:<news@example.com>", f"RCPT TO:<{address}>".encode()):
                sock.sendall(line + b"\r\n")
                assert reader.readline().startswith(b"250")
            sock.sendall(b"DATA\r\nFrom: news@example.com\r\nSubject: early\r\n\r\nhello\r\n.\r\n")
            assert reader.readline().startswith(b"354") and reader.readline().startswith(b"250 2.0.0 OK")
            for line, expected in ((b"MAIL FROM:<news@example.com>", b"250"), (f"RCPT TO:<{address}>".encode(), b"250"),
                                   (b"DATA", b"354")):
                sock.sendall(line + b"\r\n")
                assert reader.readline().startswith(expected), line
            sock.sendall(b"From: news@example.com\r\nSubject: later\r\n\r\n" + b"..dotted\r\n" * 3 + b".\r\nQUIT\r\n")
            assert reader.readline().startswith(b"250 2.0.0 OK") and reader.readline().startswith(b"221")
        finally:
            sock.close()
        assert [message["subject"] for message in inbox(base_url)] == ["early", "later"]
        assert inbox(base_url)[1]["text"] == ".dotted\n" * 3
