"""mock-appleid's benchmarks: every figure printed next to a reference measured in the same run.

Run through `Benchmarks/run`, which builds the release binaries and passes their paths. Never a test:
these machines are shared and noisy, so only the ratios mean something.
"""
import argparse
import contextlib
import http.client
import multiprocessing
import os
import pathlib
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse

import requests

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests/Conformance"))  # the throwaway PostgreSQL server the tests use too
from postgres_server import PostgresUnavailable, postgres_server  # noqa: E402
CLIENT = "com.example.web"
REDIRECT = "http://localhost:3000/auth/apple/callback"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class Server:
    """`mock-appleid serve` on a free port, stopped on exit."""

    def __init__(self, binary: str, *arguments: str):
        self.process = subprocess.Popen([binary, "serve", "--port", "0", *arguments], stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True)
        first = self.process.stdout.readline()
        match = re.match(r"mock-appleid listening on (http://\S+)", first)
        if not match:
            self.process.kill()
            raise RuntimeError(f"mock-appleid did not start: {first!r}")
        self.url = match.group(1)
        threading_drain(self.process.stdout)

    def cpu_seconds(self) -> float:
        return process_cpu_seconds(self.process.pid)

    def rss_mb(self) -> float:
        return rss_mb(self.process.pid)["VmRSS"]

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.process.terminate()
        self.process.wait(timeout=30)


def rss_mb(pid: int) -> dict[str, float]:
    """A process's resident memory in MB: `VmRSS`, and the parts it adds up from: private (`RssAnon`: heap,
    stacks) and shared (`RssFile`: the program's and libraries' code and data mapped from their files, shared
    with every other process that maps them; `RssShmem`: shared memory)."""
    status = pathlib.Path(f"/proc/{pid}/status").read_text()
    kb = {name: int(re.search(rf"{name}:\s+(\d+) kB", status).group(1)) for name in ("VmRSS", "RssAnon", "RssFile", "RssShmem")}
    return {"VmRSS": kb["VmRSS"] / 1024, "private": kb["RssAnon"] / 1024, "shared": (kb["RssFile"] + kb["RssShmem"]) / 1024}


def threading_drain(stream):
    import threading
    threading.Thread(target=lambda: [None for _ in stream], daemon=True).start()


def client_secret(binary: str) -> str:
    """A day's client secret: the memory soak moves the server's clock on by less than that."""
    return subprocess.run([binary, "client-secret", "--lifetime", "86400"], check=True, capture_output=True, text=True).stdout.strip()


class Client:
    """One kept-alive HTTP/1.1 connection to a server, through the standard library's `http.client`: the
    flow clients share the cores with the server they measure, so they spend as little CPU per request as
    a client can."""

    def __init__(self, url: str):
        parts = urllib.parse.urlsplit(url)
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)

    def get(self, path: str, parameters: dict) -> http.client.HTTPResponse:
        return self._send("GET", f"{path}?{urllib.parse.urlencode(parameters)}")

    def post(self, path: str, form: dict, parameters: dict | None = None) -> http.client.HTTPResponse:
        target = f"{path}?{urllib.parse.urlencode(parameters)}" if parameters else path
        return self._send("POST", target, urllib.parse.urlencode(form), {"Content-Type": "application/x-www-form-urlencoded"})

    def _send(self, method: str, target: str, body: str | None = None, headers: dict | None = None) -> http.client.HTTPResponse:
        try:
            self.connection.request(method, target, body, headers or {})
            response = self.connection.getresponse()
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
            # The server ended the kept-alive connection while it was idle: once more on a new one.
            self.connection.close()
            self.connection.request(method, target, body, headers or {})
            response = self.connection.getresponse()
        response.body = response.read()
        return response

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.connection.close()


def code_from(answer: http.client.HTTPResponse) -> str:
    """The code in a redirect's `Location` query."""
    if answer.status not in (302, 303) or answer.getheader("Location") is None:
        raise RuntimeError(f"authorization did not redirect: {answer.status} {answer.body[:200]!r}")
    return urllib.parse.parse_qs(urllib.parse.urlsplit(answer.getheader("Location")).query)["code"][0]


def flow(client: Client, secret: str, response_type: str) -> None:
    """One headless sign-in (the server auto-approves): authorize, then exchange the code."""
    parameters = {"client_id": CLIENT, "redirect_uri": REDIRECT, "response_type": response_type, "state": "s"}
    if response_type == "code":
        parameters["response_mode"] = "query"
        code = code_from(client.get("/auth/authorize", parameters))
    else:
        parameters["response_mode"] = "form_post"
        code = re.search(rb'name="code" value="([^"]+)"', client.get("/auth/authorize", parameters).body).group(1).decode()
    token = client.post("/auth/token", {
        "client_id": CLIENT, "client_secret": secret, "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT})
    if token.status != 200:
        raise RuntimeError(f"token exchange failed: {token.status} {token.body!r}")


def process_cpu_seconds(pid: int) -> float:
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime


def tree_cpu_seconds(pid: int) -> float:
    """CPU of a process and its live children (PostgreSQL's server and its backends)."""
    total = 0.0
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(entry.name) == pid or int(fields[1]) == pid:
                total += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def cpu_per_flow(binary: str, secret: str, response_type: str, flows: int, *arguments: str, database_pid: int | None = None):
    """Milliseconds of server CPU (user + system) per flow, read from the server's own accounting; with
    `database_pid`, returns the database's CPU per flow as well."""
    with Server(binary, "--auto-approve", "jane", *arguments) as server, Client(server.url) as client:
        for _ in range(200):
            flow(client, secret, response_type)
        before = server.cpu_seconds()
        database_before = tree_cpu_seconds(database_pid) if database_pid else 0.0
        for _ in range(flows):
            flow(client, secret, response_type)
        ours = (server.cpu_seconds() - before) * 1000 / flows
        if database_pid is None:
            return ours
        return ours, (tree_cpu_seconds(database_pid) - database_before) * 1000 / flows


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


def _flow_worker(arguments):
    url, secret, seconds, signs_in = arguments
    count = 0
    with Client(url) as client:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            signs_in(client, secret, "code")
            count += 1
    return count


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


def run_parallel(servers: list, clients: int, seconds: float, signs_in, secret: str = "") -> tuple[float, float]:
    """Flows per second from `clients` processes spread over `servers`, and how many cores the servers kept
    busy meanwhile (the client processes share the machine with them)."""
    with multiprocessing.Pool(clients) as pool:
        before = sum(server.cpu_seconds() for server in servers)
        started = time.monotonic()
        counts = pool.map(_flow_worker, [(servers[n % len(servers)].url, secret, seconds, signs_in) for n in range(clients)])
        cores = (sum(server.cpu_seconds() for server in servers) - before) / (time.monotonic() - started)
    return sum(counts) / seconds, cores


def parallel_flows(binary: str, secret: str, clients: int, seconds: float, *arguments: str, replicas: int = 1) -> tuple[float, float]:
    """``run_parallel`` over `replicas` servers started alike."""
    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(Server(binary, "--auto-approve", "jane", *arguments)) for _ in range(replicas)]
        return run_parallel(servers, clients, seconds, flow, secret)


def wrk(url: str, seconds: int) -> float:
    output = subprocess.run(["wrk", "-t1", "-c16", f"-d{seconds}s", url], check=True, capture_output=True, text=True).stdout
    return float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def process_cpu_ms(pid: int) -> float:
    """The CPU a running process has used, all its threads (those that ended too), in milliseconds to the
    nanosecond: Linux's per-process CPU clock (`/proc/PID/stat` counts in ticks of 10 ms, too coarse for a
    start-up)."""
    return time.clock_gettime_ns(((~pid) << 3) | 2) / 1e6  # CPUCLOCK_SCHED of process `pid`


def start_up_ms(command: list[str], port: int, path: str) -> tuple[float, float, float]:
    """Milliseconds from exec to the first 200 answer on `path`; the CPU the process had used by then, and
    one second later (work a server leaves until it listens, such as readying its signer, shows there)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode()
        while time.perf_counter() - started < 30:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
                    connection.sendall(request)
                    answered = connection.recv(12).startswith(b"HTTP/1.1 200")
            except OSError:
                continue
            if answered:
                wall, cpu = (time.perf_counter() - started) * 1000, process_cpu_ms(process.pid)
                time.sleep(1)
                return wall, cpu, process_cpu_ms(process.pid)
        raise RuntimeError(f"{command[0]} never answered")
    finally:
        process.kill()
        process.wait()


def first_answer_rss(make_command) -> dict[str, float]:
    """The resident memory (``rss_mb``) of a server made from a port, once it has answered `/auth/keys`."""
    port = free_port()
    process = subprocess.Popen(make_command(port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if requests.get(f"http://127.0.0.1:{port}/auth/keys", timeout=5).status_code == 200:
                    return rss_mb(process.pid)
            except requests.ConnectionError:
                time.sleep(0.01)
        raise RuntimeError(f"{make_command(port)[0]} never answered")
    finally:
        process.kill()
        process.wait()


def median_start_ups(runs: int, *make_commands) -> list[tuple[float, float, float]]:
    """For each command (made from a port), the medians of its start-up and of the CPU it used by its first
    answer and one second later (``start_up_ms``), `runs` of each taken in turn, so that the machine's drift
    during the measurement reaches every command alike."""
    samples = [[] for _ in make_commands]
    for _ in range(runs):
        for make_command, taken in zip(make_commands, samples):
            port = free_port()
            taken.append(start_up_ms(make_command(port), port, "/auth/keys"))
    return [tuple(statistics.median(sample[i] for sample in taken) for i in range(3)) for taken in samples]


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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--bare-responder", required=True)
    parser.add_argument("--stack-floor", required=True)
    parser.add_argument("--signing-rate", required=True)
    parser.add_argument("--flows", type=int, default=2000)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--start-up-runs", type=int, default=20)
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
    print(f"reference: one RS256 signature {rs256:.3f} ms, one ES256 signature {es256:.3f} ms (swift-crypto, one core, in process)")
    if system:
        print(f"           one RS256 signature through SigningKey with libcrypto {float(system.group(1)):.3f} ms "
              f"({rs256 / float(system.group(1)):.2f} × swift-crypto's rate)")

    # The default signer is libcrypto where it loads: each ratio is given against its signature too.
    signer = float(system.group(1)) if system else None

    def against(milliseconds: float, signatures: int) -> str:
        ratio = f"{milliseconds / (signatures * rs256):.2f} × {'one' if signatures == 1 else 'two'} RS256"
        return ratio + (f" ({milliseconds / (signatures * signer):.2f} × libcrypto's)" if signer else "")

    rows = []
    code = cpu_per_flow(binary, secret, "code", options.flows)
    rows.append(("server CPU per `code` flow (1 RS256)", f"{code:.3f} ms", against(code, 1), "≤ 1.25 ×"))
    hybrid = cpu_per_flow(binary, secret, "code id_token", options.flows)
    rows.append(("server CPU per `code id_token` flow (2 RS256)", f"{hybrid:.3f} ms", against(hybrid, 2), "≤ 1.25 ×"))
    if system:  # the default signs with libcrypto: the same flows signed by swift-crypto show what it gains
        for response_type, default in (("code", code), ("code id_token", hybrid)):
            built_in = cpu_per_flow(binary, secret, response_type, options.flows, "--rsa-signer", "swift-crypto")
            rows.append((f"server CPU per `{response_type}` flow, `--rsa-signer swift-crypto`", f"{built_in:.3f} ms",
                         f"libcrypto (the default) uses {default / built_in:.2f} × this", "libcrypto kept if < 1 ×"))
    es = cpu_per_flow(binary, secret, "code", options.flows, "--scenario", str(ROOT / "Benchmarks/scenarios/es256.yaml"))
    rows.append(("server CPU per `code` flow, ES256 scenario", f"{es:.3f} ms", f"{es / rs256:.2f} × one RS256 ({es / es256:.1f} × one ES256)", "HTTP path only"))

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
        keys_body = requests.get(f"{server.url}/auth/keys", timeout=10).content
        idle_rss = rss_mb(server.process.pid)
        keys_rate = wrk(f"{server.url}/auth/keys", options.seconds)
        # A query takes the keys through the router, as every other answer goes: the reference for the button.
        routed_keys_rate = wrk(f"{server.url}/auth/keys?through=router", options.seconds)
        button = f"{server.url}/appleid/button?width=200&height=44&scale=2&border=true&color=white"
        requests.get(button, timeout=10).raise_for_status()  # rendered once; wrk measures the cached image
        button_rate = wrk(button, options.seconds)
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as body_file:
        body_file.write(keys_body)
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
                 f"{floor:.1f} ms", f"{floor / theirs:.2f} × bare responder; mock-appleid takes {ours / floor:.2f} × the floor's", ""))
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

    width = [max(len(row[i]) for row in rows) for i in range(4)]
    header = ("measure", "mock-appleid", "ratio to the reference in this run", "target")
    width = [max(w, len(h)) for w, h in zip(width, header)]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, width)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in width) + "|")
    for row in rows:
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(row, width)) + " |")


if __name__ == "__main__":
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing; Benchmarks/run installs it")
    main()
