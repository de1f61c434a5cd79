"""Figures for the portable binary (Benchmarks/portable): sizes and start-up medians, each beside a reference
measured in the same run."""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

import requests

from measure import Server, median_start_ups, publish, rss_mb, table


def stripped_size(path: str) -> int:
    with tempfile.TemporaryDirectory() as folder:
        copy = shutil.copy(path, os.path.join(folder, "binary"))
        subprocess.run(["strip", copy], check=True)
        return os.path.getsize(copy)


def icu_data_size(unstripped: str) -> int:
    """Bytes of ICU's data table (the `icudt…_dat` symbol) linked into a binary that still has its symbols."""
    symbols = subprocess.run(["nm", "-S", unstripped], check=True, capture_output=True, text=True).stdout
    sizes = [int(fields[1], 16) for fields in (line.split() for line in symbols.splitlines())
             if len(fields) == 4 and fields[3].startswith("icudt") and fields[3].endswith("_dat")]
    return sum(sizes)


def median_run_ms(command: list, runs: int) -> float:
    """Milliseconds from exec to exit, median of `runs`."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def idle_rss(binary: str) -> dict[str, float]:
    """`rss_mb` of `binary serve` after one /auth/keys."""
    with Server(binary, "--log-level", "error") as server:
        requests.get(f"{server.url}/auth/keys", timeout=10).raise_for_status()
        return rss_mb(server.process.pid)


def main():
    parser = argparse.ArgumentParser()
    for name in ("--portable", "--portable-unstripped", "--dynamic", "--bare-responder", "--foundation-probe", "--essentials-probe"):
        parser.add_argument(name, required=True)
    parser.add_argument("--start-up-runs", type=int, default=20)
    parser.add_argument("--command", default="Benchmarks/portable", help="how the run was asked for, named in the document")
    options = parser.parse_args()
    runs = options.start_up_runs

    serve = lambda binary: (lambda port: [binary, "serve", "--port", str(port), "--log-level", "error"])
    with tempfile.NamedTemporaryFile(suffix=".json") as body:
        body.write(b'{"keys":[]}')
        body.flush()
        (bare, *_), (portable, *_), (dynamic, *_) = median_start_ups(runs, lambda port: [options.bare_responder, str(port), body.name],
                                                                 serve(options.portable), serve(options.dynamic))
    portable_rss, dynamic_rss = idle_rss(options.portable), idle_rss(options.dynamic)
    portable_size, dynamic_size = os.path.getsize(options.portable), stripped_size(options.dynamic)
    foundation_size, essentials_size = stripped_size(options.foundation_probe), stripped_size(options.essentials_probe)
    foundation_run = median_run_ms([options.foundation_probe], runs)
    essentials_run = median_run_ms([options.essentials_probe], runs)

    rows = [
        ("portable binary, stripped", f"{portable_size / 1e6:.1f} MB",
         f"dynamic build stripped: {dynamic_size / 1e6:.1f} MB, plus the Swift runtime libraries it loads from the toolchain"),
        (f"portable: start → first /auth/keys, median of {runs}", f"{portable:.1f} ms",
         f"{portable / dynamic:.2f} × dynamic build ({dynamic:.1f} ms); {portable / bare:.2f} × bare responder ({bare:.1f} ms)"),
        ("portable: RSS idle (after one /auth/keys)", f"{portable_rss['VmRSS']:.1f} MB",
         f"dynamic build {dynamic_rss['VmRSS']:.1f} MB; private (`RssAnon`) {portable_rss['private']:.1f} MB against "
         f"{dynamic_rss['private']:.1f} MB"),
        ("ICU data linked into the portable binary", f"{icu_data_size(options.portable_unstripped) / 1e6:.1f} MB",
         "brought by Foundation's NSRegularExpression and DateFormatter, which the YAML parser (Yams) uses"),
        ("static probe using Foundation, stripped", f"{foundation_size / 1e6:.1f} MB",
         f"{(foundation_size - essentials_size) / 1e6:.1f} MB more than the FoundationEssentials probe ({essentials_size / 1e6:.1f} MB)"),
        (f"static probe using Foundation: exec → exit, median of {runs}", f"{foundation_run:.1f} ms",
         f"{foundation_run / essentials_run:.2f} × the FoundationEssentials probe ({essentials_run:.1f} ms)"),
    ]
    publish("portable-figures", options.command, table(("measure", "figure", "reference in this run"), rows))

if __name__ == "__main__":
    main()
