"""What every benchmark shares: the import path, the thread count, and a median timer."""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def parser(doc: str) -> argparse.ArgumentParser:
    """An argument parser with the options every benchmark takes (--threads, --repeat)."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--threads", type=int, default=1, help="torch threads (the numbers in BENCHMARKS.md use 1)")
    p.add_argument("--repeat", type=int, default=10, help="timed runs per measurement (the median is reported)")
    return p


def set_threads(threads: int) -> int:
    import torch

    if threads:
        torch.set_num_threads(threads)
    return torch.get_num_threads()


def timed(fn, repeat: int) -> float:
    """Median wall time of `fn()` in milliseconds over `repeat` runs (after one warm-up)."""
    fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def interleaved(fns: dict, repeat: int) -> dict[str, float]:
    """Median milliseconds of each function, run in turns (a, b, a, b, …) so that a busy machine slows all alike."""
    for fn in fns.values():
        fn()
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            samples[name].append((time.perf_counter() - start) * 1000)
    return {name: statistics.median(s) for name, s in samples.items()}
