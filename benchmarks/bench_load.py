"""Load test: N concurrent gradio_client clients call /translate with normal and bad sentences.

    taskset -c 1 python benchmarks/bench_load.py --clients 8 --seconds 60 --threads 1

The app (app.py) runs in a subprocess on 127.0.0.1, as the test suite starts it, serving the
bundled checkpoints. Each client cycles through INPUTS from its own starting point for a bounded
time. Bad sentences must come back as the app's clear error (gradio_client raises AppError with
the message) and count as expected; anything else raised is unexpected. Every answer is also
compared with the first answer seen for the same input: a visitor must never get another's
translation. Reports requests served, expected and unexpected errors, mismatches, p50/p95
latency and the server's peak resident memory (VmHWM).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (label, text, expected error message or None)
INPUTS = [
    ("short", "Where is the station?", None),
    ("sentence", "I get up early every morning and drink a cup of coffee.", None),
    ("emoji", "I am hungry 😀🍕!", None),
    ("html", "<img src=x onerror=alert(1)> <script>alert(1)</script>", None),
    ("rtl", "שלום مرحبا I see the house.", None),
    ("control", "I see\x00 the\u200b house\u202e.", None),
    (
        "long",
        "The children are playing in the garden. " * 125,
        "too long",
    ),  # 5,000 characters: the API never cuts silently
    ("empty", "", "empty"),
    ("blank", "  \n\t ", "empty"),
    ("zero-width", "\u200b\u200d\ufeff", "empty"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(checkpoints: Path | None, port: int, log_path: Path, threads: int = 1) -> subprocess.Popen:
    """app.py on 127.0.0.1:port (the bundled checkpoints unless `checkpoints` names another folder)."""
    env = {
        **os.environ,
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_SERVER_PORT": str(port),
        "GRADIO_ANALYTICS_ENABLED": "False",
        "HF_HUB_OFFLINE": "1",
        "OMP_NUM_THREADS": str(threads),
    }
    if checkpoints is not None:
        env["TRANSFORMER_VIZ_CHECKPOINTS"] = str(checkpoints)
    env.pop("TRANSFORMER_VIZ_HUB_MODEL", None)
    with open(log_path, "wb") as log:
        return subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)


def wait_for_page(url: str, proc: subprocess.Popen, timeout: float = 180) -> float:
    """Seconds until the page answers 200; raises if the process exits or the time runs out."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"app.py exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return time.monotonic() - start
        except OSError:
            pass
        time.sleep(0.1)
    raise TimeoutError(f"app.py did not answer on {url} within {timeout:.0f} s")


def peak_rss_mb(pid: int) -> float | None:
    """The process's peak resident set size (VmHWM) in MB, from /proc (Linux only)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def run_load(
    url: str, clients: int, seconds: float, model: str | None = None, inputs=INPUTS, min_each: int = 0
) -> dict:
    """Drive the app with `clients` concurrent gradio_client clients for `seconds` (and at least `min_each`
    requests each); a JSON-ready report. Client i starts at input i·len(inputs)/clients."""
    from gradio_client import Client
    from gradio_client.exceptions import AppError

    lock = threading.Lock()
    latencies: list[float] = []
    answers: dict[str, set] = {}
    counts = dict(served=0, expected_errors=0, unexpected_errors=0)
    problems: list[str] = []
    connected = [Client(url, verbose=False, download_files=False) for _ in range(clients)]
    barrier = threading.Barrier(clients)
    deadline = [0.0]

    def visitor(index: int) -> None:
        client = connected[index]
        if barrier.wait() == 0:
            deadline[0] = time.monotonic() + seconds
        barrier.wait()
        i = first = index * len(inputs) // clients
        while time.monotonic() < deadline[0] or i - first < min_each:
            label, text, error = inputs[i % len(inputs)]
            i += 1
            sent = time.perf_counter()
            try:
                out = client.predict(text, model, api_name="/translate")
                outcome = "ok" if error is None and isinstance(out, str) else f"unexpected answer {out!r:.80}"
            except AppError as err:
                outcome = "expected" if error is not None and error in str(err) else f"AppError {str(err)[:120]}"
                out = None
            except Exception as err:  # noqa: BLE001 - counted, reported, never fatal to the run
                outcome, out = f"{type(err).__name__}: {str(err)[:120]}", None
            elapsed = time.perf_counter() - sent
            with lock:
                latencies.append(elapsed)
                counts["served"] += 1
                if outcome == "ok":
                    answers.setdefault(label, set()).add(out)
                elif outcome == "expected":
                    counts["expected_errors"] += 1
                else:
                    counts["unexpected_errors"] += 1
                    problems.append(f"{label}: {outcome}")

    threads = [threading.Thread(target=visitor, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for client in connected:
        client.close()
    duration = time.monotonic() - deadline[0] + seconds
    ordered = sorted(latencies)
    mismatched = sorted(label for label, outs in answers.items() if len(outs) > 1)
    return dict(
        clients=clients,
        seconds=seconds,
        **counts,
        mismatched_inputs=mismatched,
        problems=problems[:10],
        answers={label: sorted(outs) for label, outs in answers.items()},
        p50_ms=round(1000 * statistics.median(ordered), 1) if ordered else None,
        p95_ms=round(1000 * ordered[int(0.95 * (len(ordered) - 1))], 1) if ordered else None,
        requests_per_s=round(counts["served"] / duration, 2),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--model", default=None, help="model name sent with each request (default: the app's first)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads in the server (OMP_NUM_THREADS)")
    args = parser.parse_args()
    port = free_port()
    log_path = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench_load_app_{port}.log"
    proc = start_app(None, port, log_path, args.threads)
    try:
        startup = wait_for_page(f"http://127.0.0.1:{port}/", proc)
        report = run_load(f"http://127.0.0.1:{port}/", args.clients, args.seconds, args.model)
        report.pop("answers")
        report.update(
            server_startup_s=round(startup, 1),
            server_peak_rss_mb=peak_rss_mb(proc.pid),
            server_alive=proc.poll() is None,
            server_torch_threads=args.threads,
        )
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
