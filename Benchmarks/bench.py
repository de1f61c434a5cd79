"""mock-appleid's benchmarks: every figure printed next to a reference measured in the same run, and written
into docs/performance.md (between its `benchmark-figures` marks), so the document's figures are this run's.

Run through `Benchmarks/run`, which builds the release binaries and passes their paths. Never a test:
these machines are shared and noisy, so only the ratios mean something.
"""
import argparse
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import tempfile
import time

import requests

from audit_bench import audit_rows
from measure import (CLIENT, REDIRECT, Client, Server, code_from, cpu_per_flow, flow, cpu_per_request, first_answer_rss, free_port,
                     median_start_ups, parallel_flows, process_cpu_seconds, publish, rss_mb, run_parallel, table, wrk,
                     client_secret)
from postgres_server import PostgresUnavailable, postgres_server
from relay_load import empty_lines, relay_address, take

ROOT = pathlib.Path(__file__).resolve().parents[1]


class Peer:
    """oidc-provider-mock (PyPI), another provider test double, on a free port, stopped on exit: its
    authorize step takes the subject in one POST (as mock-appleid's auto-approve takes a GET), then the
    code is exchanged at its token endpoint for tokens with an RS256 ID token, like a flow here."""

    def __init__(self, executable: str):
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen([executable, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"{self.url}/.well-known/openid-configuration", timeout=2).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.process.kill()
                raise RuntimeError("oidc-provider-mock did not start")
            time.sleep(0.05)

    def cpu_seconds(self) -> float:
        return process_cpu_seconds(self.process.pid)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.process.terminate()
        self.process.wait(timeout=30)


def peer_flow(client: Client, _secret: str, _response_type: str) -> None:
    """One sign-in at oidc-provider-mock: authorize as subject jane, then exchange the code."""
    parameters = {"client_id": CLIENT, "redirect_uri": REDIRECT, "response_type": "code", "scope": "openid", "state": "s"}
    code = code_from(client.post("/oauth2/authorize", {"sub": "jane"}, parameters))
    token = client.post("/oauth2/token", {
        "client_id": CLIENT, "client_secret": "secret", "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT})
    if token.status != 200 or b"id_token" not in token.body:
        raise RuntimeError(f"oidc-provider-mock token exchange failed: {token.status} {token.body!r}")


def peer_rows(executable: str | None, flows: int, seconds: float, clients: int, code: float, rate: float) -> list[tuple]:
    """oidc-provider-mock's CPU per flow and parallel flows/s, beside mock-appleid's from this run."""
    if executable is None:
        print("oidc-provider-mock is not installed (Benchmarks/run installs it with Python 3.12 or later); its rows are left out")
        return []
    with Peer(executable) as peer, Client(peer.url) as client:
        for _ in range(100):
            peer_flow(client, "", "code")
        before = peer.cpu_seconds()
        for _ in range(flows):
            peer_flow(client, "", "code")
        peer_code = (peer.cpu_seconds() - before) * 1000 / flows
        peer_rate, peer_cores = run_parallel([peer], clients, seconds, peer_flow)
    return [
        ("server CPU per `code` flow, oidc-provider-mock (peer)", f"{peer_code:.3f} ms",
         f"mock-appleid: {peer_code / code:.1f} × less ({code:.3f} ms)", ""),
        (f"parallel `code` flows/s, {clients} client processes, oidc-provider-mock (peer)", f"{peer_rate:.0f}/s",
         f"mock-appleid: {rate / peer_rate:.1f} × more ({rate:.0f}/s); the peer kept {peer_cores:.2f} cores busy", "≥ 5 × the faster peer"),
    ]


def database_rows(binary: str, secret: str, flows: int, seconds: float, code: float, rate: float, clients: int) -> list[tuple]:
    """The `code` flow with the world in PostgreSQL (a throwaway local server, fsync off): one replica's
    CPU and the database's, and flows/s with one and two replicas."""
    try:
        with postgres_server() as database:
            cpu, database_cpu = cpu_per_flow(binary, secret, "code", flows, "--database-url", database.database("cpu"),
                                             database_pid=database.pid)
            one, _ = parallel_flows(binary, secret, clients, seconds, "--database-url", database.database("one"))
            two, _ = parallel_flows(binary, secret, clients, seconds, "--database-url", database.database("two"), replicas=2)
    except PostgresUnavailable as reason:
        return [("PostgreSQL (`--database-url`)", "not measured", str(reason), "")]
    return [
        ("server CPU per `code` flow, PostgreSQL (`--database-url`)", f"{cpu:.3f} ms",
         f"{cpu / code:.2f} × in memory ({code:.3f} ms); PostgreSQL's own CPU {database_cpu:.3f} ms", ""),
        (f"parallel `code` flows/s, {clients} client processes, PostgreSQL, 1 replica", f"{one:.0f}/s",
         f"{one / rate:.2f} × in memory ({rate:.0f}/s)", ""),
        (f"parallel `code` flows/s, {clients} client processes, PostgreSQL, 2 replicas", f"{two:.0f}/s",
         f"{two / rate:.2f} × in memory ({rate:.0f}/s)", ""),
    ]


def auto_signer(binary: str, secret: str) -> tuple[str, float | None, float | None]:
    """What `--rsa-signer auto` chose in a server, as its log says once its first sign-in signed: the library kept,
    and libcrypto's and swift-crypto's milliseconds a signature when it timed them (not when libcrypto is missing or
    refused the key)."""
    with Server(binary, "--auto-approve", "jane") as server:
        with Client(server.url) as client:
            flow(client, secret, "code")
        said = server.wait_for_log(r"RS256: timed at ([\d.]+) ms a signature with libcrypto and ([\d.]+) ms with swift-crypto: (\S+) signs"
                                   r"|RS256: no OpenSSL 3 libcrypto|libcrypto \(.*\) could not use RSA key")
    if said is None:
        raise RuntimeError("the server did not say which library `--rsa-signer auto` signs with")
    if said.group(3) is None:
        return "swift-crypto", None, None
    return said.group(3), float(said.group(1)), float(said.group(2))


def per_request_rows(binary: str, options, keys_file: str, secret: str, signer: float) -> tuple[list[tuple], float]:
    """What one request costs mock-appleid and the references, one client on one kept-alive connection, and
    what that makes the least a `code` flow (two routed requests and one signature) could cost on this stack, against
    a `code` flow measured in the same rounds; and that flow's server CPU (the median of the rounds), in ms."""
    count, rounds = options.flows * 2, 3
    servers = (
        (lambda p: [binary, "serve", "--port", str(p)], "/auth/keys?through=router"),
        (lambda p: [binary, "serve", "--port", str(p)], "/auth/keys"),
        (lambda p: [options.stack_floor, "--port", str(p), "--file", keys_file], "/auth/keys"),
        (lambda p: [options.bare_responder, str(p), keys_file], "/auth/keys"),
    )
    # Medians of rounds taken in turn, so that the machine's drift reaches each alike.
    samples = [[cpu_per_request(command, path, count) for command, path in servers] + [cpu_per_flow(binary, secret, "code", options.flows)]
               for _ in range(rounds)]
    routed, plain, floor, bare, code = (statistics.median(taken) for taken in zip(*samples))
    rows = [
        (f"server CPU per request, one kept-alive connection, median of {rounds}: `GET /auth/keys?through=router`", f"{routed:.0f} µs",
         f"{routed / floor:.2f} × the stack floor's routed answer ({floor:.0f} µs); bare responder {bare:.0f} µs", ""),
        ("  the same, a plain `GET /auth/keys` (answered on the event loop)", f"{plain:.0f} µs",
         f"{plain / bare:.2f} × bare responder ({bare:.0f} µs)", ""),
    ]
    least = (2 * floor) / 1000 + signer
    rows.append(("  a `code` flow's least on this stack: the floor's two routed answers and one RS256 by `auto`'s library",
                 f"{least:.3f} ms", f"{least / signer:.2f} × that RS256; the `code` flow above, measured in the same rounds, "
                 f"takes {code / least:.2f} × this",
                 "flow ≤ 1.5 × this"))
    return rows, code


def relay_rows(binary: str) -> list[tuple]:
    """`/auth/keys` while the relay takes a 10 MB message of empty lines (over its line cap: refused after it is read)."""
    with Server(binary, "--smtp-port", "0", "--auto-approve", "john:hide") as server:
        taken = take(server.url, server.listeners["smtp"]["port"], server.process.pid, empty_lines(relay_address(server.url)))
    return [(f"GET /auth/keys while the relay takes a 10 MB message of {taken['lines'] / 1e6:.1f} M empty lines: median / max",
             f"{taken['median_ms']:.2f} / {taken['max_ms']:.1f} ms",
             f"idle median {taken['idle_median_ms']:.2f} ms; the relay answered `{taken['reply'][:3]}` in {taken['seconds']:.2f} s, "
             f"{taken['cpu']:.2f} s of server CPU", "max ≤ 10 × idle")]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--bare-responder", required=True)
    parser.add_argument("--stack-floor", required=True)
    parser.add_argument("--signing-rate", required=True)
    parser.add_argument("--flows", type=int, default=2000)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--start-up-runs", type=int, default=20)
    parser.add_argument("--command", default="Benchmarks/run", help="how the run was asked for, named in the document")
    parser.add_argument("--oidc-provider-mock", help="the peer's executable (left out when not given)")
    parser.add_argument("--soak-requests", type=int, default=1_000_000, help="the memory soak's requests (0 leaves it out)")
    parser.add_argument("--soak-flows", type=int, default=100_000, help="how many of the soak's requests are sign-ins (two each)")
    options = parser.parse_args()
    binary = options.binary
    secret = client_secret(binary)

    rates = subprocess.run([options.signing_rate, str(ROOT / "Keys/signing-mRS2bT4nWz.pem"), str(ROOT / "Keys/signing-mES1dQ2vHr.pem")],
                           check=True, capture_output=True, text=True).stdout
    rs256 = float(re.search(r"rs256_ms ([\d.]+)", rates).group(1))
    es256 = float(re.search(r"es256_ms ([\d.]+)", rates).group(1))
    system = re.search(r"rs256_libcrypto_ms ([\d.]+)", rates)
    reference_line = (f"References: one RS256 signature {rs256:.3f} ms, one ES256 signature {es256:.3f} ms (swift-crypto, "
                      "one core, in process)")
    if system:
        reference_line += (f"; one RS256 signature through `SigningKey` with libcrypto {float(system.group(1)):.3f} ms "
                           f"({rs256 / float(system.group(1)):.2f} × swift-crypto's rate)")
    chosen, libcrypto_ms, swift_crypto_ms = auto_signer(binary, secret)
    reference_line += f". `--rsa-signer auto` (the default) keeps {chosen} here"
    if libcrypto_ms is not None:
        reference_line += (f": a server's log says it timed one signature at {libcrypto_ms:.3f} ms with libcrypto and "
                           f"{swift_crypto_ms:.3f} ms with swift-crypto")
    reference_line += ".\n"
    print(reference_line)

    # The default signer is the faster of the two: each ratio is given against its signature too.
    signer = float(system.group(1)) if system and chosen == "libcrypto" else rs256

    def against(milliseconds: float, signatures: int) -> str:
        ratio = f"{milliseconds / (signatures * rs256):.2f} × {'one' if signatures == 1 else 'two'} RS256"
        return ratio + (f" ({milliseconds / (signatures * signer):.2f} × libcrypto's)" if chosen == "libcrypto" else "")

    with Server(binary) as server:
        keys_body = requests.get(f"{server.url}/auth/keys", timeout=10).content
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as body_file:
        body_file.write(keys_body)
    # The `code` flow is measured in rounds taken in turn with the references it is compared with (its median).
    per_request, code = per_request_rows(binary, options, body_file.name, secret, signer)
    rows = [("server CPU per `code` flow (1 RS256), median of 3 rounds", f"{code:.3f} ms", against(code, 1), "")]
    hybrid = cpu_per_flow(binary, secret, "code id_token", options.flows)
    rows.append(("server CPU per `code id_token` flow (2 RS256)", f"{hybrid:.3f} ms", against(hybrid, 2), ""))
    if system:  # each library named: the default, which keeps the faster, should cost no more than the cheaper
        for response_type, default in (("code", code), ("code id_token", hybrid)):
            for library in ("swift-crypto", "libcrypto"):
                named = cpu_per_flow(binary, secret, response_type, options.flows, "--rsa-signer", library)
                rows.append((f"server CPU per `{response_type}` flow, `--rsa-signer {library}`", f"{named:.3f} ms",
                             f"`auto` (the default, {chosen}) uses {default / named:.2f} × this", "≤ 1.05 × the cheaper"))
    es = cpu_per_flow(binary, secret, "code", options.flows, "--scenario", str(ROOT / "Benchmarks/scenarios/es256.yaml"))
    rows.append(("server CPU per `code` flow, ES256 scenario", f"{es:.3f} ms", f"{es / rs256:.2f} × one RS256 ({es / es256:.1f} × one ES256)", "HTTP path only"))
    rows += per_request

    clients = max(2, os.cpu_count() or 2) * 2
    rate, cores = parallel_flows(binary, secret, clients, options.seconds)
    rows.append((f"parallel `code` flows/s, {clients} client processes", f"{rate:.0f}/s",
                 f"{rate * rs256 / 1000:.2f} of one core's RS256 rate; the server kept {cores:.2f} of {os.cpu_count()} cores busy", ""))
    rows += peer_rows(options.oidc_provider_mock, options.flows, options.seconds, clients, code, rate)

    with tempfile.TemporaryDirectory() as folder:
        state = cpu_per_flow(binary, secret, "code", options.flows, "--state", f"{folder}/cpu.sqlite")
        state_rate, _ = parallel_flows(binary, secret, clients, options.seconds, "--state", f"{folder}/parallel.sqlite")
    rows.append(("server CPU per `code` flow, state file (`--state`)", f"{state:.3f} ms",
                 f"{state / code:.2f} × in memory ({code:.3f} ms)", "≤ 2 × in memory"))
    rows.append((f"parallel `code` flows/s, {clients} client processes, state file", f"{state_rate:.0f}/s",
                 f"{state_rate / rate:.2f} × in memory ({rate:.0f}/s)", ""))

    rows += database_rows(binary, secret, options.flows, options.seconds, code, rate, clients)

    with Server(binary) as server:
        requests.get(f"{server.url}/auth/keys", timeout=10).raise_for_status()
        idle_rss = rss_mb(server.process.pid)
        keys_rate = wrk(f"{server.url}/auth/keys", options.seconds)
        # A query takes the keys through the router, as every other answer goes: the reference for the button.
        routed_keys_rate = wrk(f"{server.url}/auth/keys?through=router", options.seconds)
        button = f"{server.url}/appleid/button?width=200&height=44&scale=2&border=true&color=white"
        requests.get(button, timeout=10).raise_for_status()  # rendered once; wrk measures the cached image
        button_rate = wrk(button, options.seconds)
    port = free_port()
    bare = subprocess.Popen([options.bare_responder, str(port), body_file.name], stdout=subprocess.PIPE, text=True)
    bare.stdout.readline()
    try:
        requests.get(f"http://127.0.0.1:{port}/auth/keys", timeout=10).raise_for_status()
        bare_rss = rss_mb(bare.pid)
        bare_rate = wrk(f"http://127.0.0.1:{port}/auth/keys", options.seconds)
    finally:
        bare.kill()
        bare.wait()
    rows.append(("GET /auth/keys, wrk 1 thread 16 connections, default log level", f"{keys_rate / 1000:.1f} k/s",
                 f"{keys_rate / bare_rate:.2f} × bare responder ({bare_rate / 1000:.1f} k/s)", "≥ 0.8 ×"))
    rows.append(("GET /appleid/button (cached, 400×88 px), wrk 1 thread 16 connections", f"{button_rate / 1000:.1f} k/s",
                 f"{button_rate / routed_keys_rate:.2f} × /auth/keys through the router ({routed_keys_rate / 1000:.1f} k/s)",
                 "about 1 ×"))
    rows += relay_rows(binary)
    rows += audit_rows(binary)

    floor_command = lambda p: [options.stack_floor, "--port", str(p), "--file", body_file.name]  # noqa: E731
    try:
        floor_rss = first_answer_rss(floor_command)
        (ours, our_cpu, our_settled_cpu), (theirs, their_cpu, their_settled_cpu), (floor, *_) = median_start_ups(
            options.start_up_runs,
            lambda p: [binary, "serve", "--port", str(p), "--log-level", "error"],
            lambda p: [options.bare_responder, str(p), body_file.name],
            floor_command)
    finally:
        os.unlink(body_file.name)
    rows.append((f"start → first /auth/keys answer, median of {options.start_up_runs}", f"{ours:.1f} ms",
                 f"{ours / theirs:.2f} × bare responder ({theirs:.1f} ms)", "≤ 1.5 ×"))
    rows.append(("  the stack floor (Hummingbird router, argument parser, the same libraries linked), the same",
                 f"{floor:.1f} ms", f"{floor / theirs:.2f} × bare responder; mock-appleid takes {ours / floor:.2f} × the floor's",
                 "mock-appleid ≤ 1.15 × the floor's"))
    rows.append(("  server CPU from exec to that answer, all threads, median", f"{our_cpu:.1f} ms",
                 f"{our_cpu / their_cpu:.2f} × bare responder ({their_cpu:.1f} ms)", ""))
    rows.append(("  server CPU from exec to one second after that answer, median", f"{our_settled_cpu:.1f} ms",
                 f"{our_settled_cpu / their_settled_cpu:.2f} × bare responder ({their_settled_cpu:.1f} ms)", ""))
    rows.append(("RSS idle (after one /auth/keys)", f"{idle_rss['VmRSS']:.1f} MB",
                 f"bare responder {bare_rss['VmRSS']:.1f} MB", "< 40 MB"))
    rows.append(("  of which private (heap, stacks: `RssAnon`)", f"{idle_rss['private']:.1f} MB",
                 f"bare responder {bare_rss['private']:.1f} MB", ""))
    rows.append(("  of which the program's and libraries' files mapped (`RssFile`) and shared memory (`RssShmem`)",
                 f"{idle_rss['shared']:.1f} MB", f"bare responder {bare_rss['shared']:.1f} MB", ""))
    rows.append(("  the stack floor, after its first answer", f"{floor_rss['VmRSS']:.1f} MB",
                 f"mock-appleid holds {idle_rss['VmRSS'] - floor_rss['VmRSS']:.1f} MB more (private "
                 f"{idle_rss['private'] - floor_rss['private']:.1f}, files {idle_rss['shared'] - floor_rss['shared']:.1f})", ""))
    if options.soak_requests:
        from soak import soak_rows
        rows += soak_rows(binary, secret, options.soak_requests, options.soak_flows, clients)

    header = ("measure", "mock-appleid", "ratio to the reference in this run", "target")
    publish("benchmark-figures", options.command, reference_line + "\n" + table(header, rows))

if __name__ == "__main__":
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing; Benchmarks/run installs it")
    main()
