"""The memory soak: a long mixed load against one server, its RSS read after every tenth of it.

Flows (authorize with auto-approve, then the code exchange, each minting grants) run from client processes
beside wrk, which sends the rest of the requests round-robin from `soak.lua`: the keys, discovery, a button,
and requests Apple refuses (a bad code, a bad client secret, an unknown client, a wrong method). Once
grants reach their cap or expire, RSS must stay flat: the figure is the largest RSS of the last nine tenths
over the smallest. Refresh tokens are capped per persona and client; codes (5 minutes) and access tokens
(an hour) expire, so after each tenth the soak moves the server's clock on by an hour and five minutes, as
if that much time had passed: what the tenths before issued can then be purged.
"""
import multiprocessing
import pathlib
import re
import subprocess
import time

import requests

from measure import Client, Server, flow

SCRIPT = pathlib.Path(__file__).with_name("soak.lua")
CLOCK_STEP = 3900  # seconds: longer than a code's and an access token's life


def _flows(arguments):
    """Signs in `count` times; returns the slowest sign-in's milliseconds."""
    url, secret, count = arguments
    slowest = 0.0
    with Client(url) as client:
        for _ in range(count):
            started = time.perf_counter()
            flow(client, secret, "code")
            slowest = max(slowest, (time.perf_counter() - started) * 1000)
    return slowest


def _wrk_requests(url: str, count: int, connections: int = 16) -> tuple[int, int, int, float]:
    """Sends about `count` requests from soak.lua; returns those answered, the 5xx answers, the socket errors
    (connect, read, write, and answers slower than wrk's 2 s timeout) and the slowest answer's milliseconds.
    wrk runs for a time, so the time comes from a short first measurement."""
    sent = fives = errors = 0
    slowest = 0.0
    seconds = 2
    while sent < count:
        output = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "2s", "--latency",
                                 "-s", str(SCRIPT), url], check=True, capture_output=True, text=True).stdout
        done = int(re.search(r"(\d+) requests in", output).group(1))
        sent += done
        fives += int(re.search(r"^5xx (\d+)$", output, re.M).group(1))
        socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
        errors += sum(int(n) for n in socket_errors.groups()) if socket_errors else 0
        slowest = max(slowest, _milliseconds(re.search(r"Latency\s+\S+\s+\S+\s+(\S+)", output).group(1)))
        rate = done / seconds
        seconds = max(1, min(30, round((count - sent) / rate))) if rate else 2
    return sent, fives, errors, slowest


def _milliseconds(text: str) -> float:
    value, unit = re.match(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit]


def soak_rows(binary: str, secret: str, total: int, flows: int, clients: int) -> list[tuple]:
    """`total` requests, `flows` of them sign-ins of two requests each, in ten rounds."""
    others = max(0, total - 2 * flows)
    rss = []
    sent = fives = errors = 0
    slowest = slowest_flow = 0.0
    with Server(binary, "--auto-approve", "jane") as server:
        requests.get(f"{server.url}/auth/keys", timeout=10).raise_for_status()
        idle = server.rss_mb()
        with multiprocessing.Pool(clients) as pool:
            for _ in range(10):
                share = flows // 10
                pending = pool.map_async(_flows, [(server.url, secret, share // clients + (n < share % clients)) for n in range(clients)])
                done, round_fives, round_errors, round_slowest = _wrk_requests(server.url, others // 10)
                slowest_flow = max([slowest_flow, *pending.get()])
                sent += done + 2 * share
                fives += round_fives
                errors += round_errors
                slowest = max(slowest, round_slowest)
                rss.append(server.rss_mb())
                moved = requests.post(f"{server.url}/__admin/clock", json={"advance": CLOCK_STEP}, timeout=10)
                moved.raise_for_status()
        assert requests.get(f"{server.url}/auth/keys", timeout=10).status_code == 200
    settled = rss[1:]
    return [
        (f"memory soak: {sent:,} requests, {flows:,} of them in flows; RSS after each tenth",
         " ".join(f"{value:.0f}" for value in rss) + " MB",
         f"last nine tenths within {(max(settled) / min(settled) - 1) * 100:.1f} % (idle {idle:.1f} MB)", "flat within 10 %"),
        ("memory soak: 5xx answers, socket errors and timeouts, slowest answer, slowest sign-in",
         f"{fives}, {errors}, {slowest:.0f} ms, {slowest_flow:.0f} ms", "", "0, 0, < 1 s, < 1 s"),
    ]
