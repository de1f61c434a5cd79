"""What the benchmarks measure with: a server started on a free port, a kept-alive client, one sign-in, a
process's CPU and memory, start-up times. A leaf: bench.py, soak.py and portable.py import it, it imports
none of them."""
import contextlib
import http.client
import json
import multiprocessing
import os
import pathlib
import re
import socket
import statistics
import subprocess
import tempfile
import time
import urllib.parse

import requests

CLIENT = "com.example.web"
REDIRECT = "http://localhost:3000/auth/apple/callback"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class Server:
    """`mock-appleid serve` on a free port, stopped on exit; its URL comes from the file `--ready-file` writes
    once every listener is bound."""

    def __init__(self, binary: str, *arguments: str):
        self.folder = tempfile.TemporaryDirectory()
        ready = pathlib.Path(self.folder.name) / "ready.json"
        self.log = pathlib.Path(self.folder.name) / "log.txt"
        with self.log.open("wb") as log:
            self.process = subprocess.Popen([binary, "serve", "--port", "0", "--ready-file", str(ready), *arguments],
                                            stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while not ready.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.process.kill()
                raise RuntimeError(f"mock-appleid did not start: {' '.join(arguments)}")
            time.sleep(0.005)
        self.listeners = json.loads(ready.read_text())["listeners"]
        self.url = self.listeners["http"]["url"]

    def wait_for_log(self, pattern: str, seconds: float = 30) -> re.Match | None:
        """The first match of `pattern` in the server's log, once written (None after `seconds`)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            found = re.search(pattern, self.log.read_text(errors="replace"))
            if found:
                return found
            time.sleep(0.05)
        return None

    def cpu_seconds(self) -> float:
        return process_cpu_seconds(self.process.pid)

    def rss_mb(self) -> float:
        return rss_mb(self.process.pid)["VmRSS"]

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.folder.cleanup()


def rss_mb(pid: int) -> dict[str, float]:
    """A process's resident memory in MB: `VmRSS`, and the parts it adds up from: private (`RssAnon`: heap,
    stacks) and shared (`RssFile`: the program's and libraries' code and data mapped from their files, shared
    with every other process that maps them; `RssShmem`: shared memory)."""
    status = pathlib.Path(f"/proc/{pid}/status").read_text()
    kb = {name: int(re.search(rf"{name}:\s+(\d+) kB", status).group(1)) for name in ("VmRSS", "RssAnon", "RssFile", "RssShmem")}
    return {"VmRSS": kb["VmRSS"] / 1024, "private": kb["RssAnon"] / 1024, "shared": (kb["RssFile"] + kb["RssShmem"]) / 1024}


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


def _flow_worker(arguments):
    url, secret, seconds, signs_in = arguments
    count = 0
    with Client(url) as client:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            signs_in(client, secret, "code")
            count += 1
    return count


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


def cpu_per_request(make_command, path: str, count: int) -> float:
    """Microseconds of CPU (all its threads) a server made from a port spends per `GET path` from one client
    on one kept-alive connection, after a warm-up: what a request costs the stack it runs on, its reads,
    writes and wake-ups included."""
    port = free_port()
    process = subprocess.Popen(make_command(port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                connection.request("GET", path)
                answer = connection.getresponse()
                answer.read()
                if answer.status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError(f"{make_command(port)[0]} never answered 200 to GET {path}")
            time.sleep(0.01)
        for _ in range(500):
            connection.request("GET", path)
            connection.getresponse().read()
        before = process_cpu_ms(process.pid)
        for _ in range(count):
            connection.request("GET", path)
            answer = connection.getresponse()
            answer.read()
        if answer.status != 200:
            raise RuntimeError(f"GET {path} answered {answer.status}")
        return (process_cpu_ms(process.pid) - before) * 1000 / count
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


def table(header: tuple, rows: list[tuple]) -> str:
    """Rows as a Markdown table, columns padded."""
    width = [max(len(cell) for cell in column) for column in zip(header, *rows)]
    lines = ["| " + " | ".join(cell.ljust(w) for cell, w in zip(header, width)) + " |",
             "|" + "|".join("-" * (w + 2) for w in width) + "|"]
    lines += ["| " + " | ".join(cell.ljust(w) for cell, w in zip(row, width)) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def publish(mark: str, command: str, text: str) -> None:
    """Prints a run's figures and writes them into docs/performance.md between its `mark` marks, under a line
    saying which run made them (the commit, the machine's cores, the command)."""
    root = pathlib.Path(__file__).resolve().parents[1]
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=root, capture_output=True, text=True).stdout.strip()
    made = (f"Written by `{command}` on {time.strftime('%Y-%m-%d', time.gmtime())} at commit {commit or 'unknown'}, "
            f"{os.cpu_count()} cores.\n\n")
    print(text, end="")
    document_path = root / "docs" / "performance.md"
    document = document_path.read_text()
    start = document.index("\n", document.index(f"<!-- {mark}:")) + 1
    end = document.index(f"<!-- /{mark} -->")
    document_path.write_text(document[:start] + made + text + document[end:])
    print(f"(written into {document_path.relative_to(root)})")
