"""Each translation computed once for everyone who asks for it: a bounded cache of traces, shared read-only.

A class that opens the teacher's link asks the server thirty times at once for the same translation. The first
request runs the model; the others wait for it (they do not start a run of their own) and get the same Trace
object, as does every later visitor while it stays in the cache. A trace is found by what makes it: the model (the
loaded Translator itself, not its menu name, which a test or a reload may give to another model), the sentence, every
decoding option, the tokens forced at the start (a branch) and the length limit. Sampling is cached only with a
seed, which makes it repeatable; without one (`seed=None`, fresh randomness each time) every request runs the model.

Shared traces are never changed: the arrays of a cached trace are made read-only (a write into one raises instead
of changing what other visitors see), and what a visitor adds to their trace (the attribution, the training
replay) goes into a copy (dataclasses.replace) in their own session. The cache holds at most `max_bytes` of traces
(size_of: every array's buffer and every Python object a trace holds, each counted once), the least recently asked
for going first; a trace larger than that alone is handed out and not kept.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future

import numpy as np

from ..decoding import DecodeOptions
from ..trace import Trace
from ..translator import Translator

TRACE_CACHE_BYTES = 256 * 2**20  # about 230 traces of a ten-word sentence with the bundled d256 models (1.1 MB each)


def size_of(value, seen: set[int] | None = None) -> int:
    """The bytes `value` holds: a numpy array's whole buffer (of the array it is a view of, where it is one) and
    sys.getsizeof of every other object, followed through containers and objects' fields, each object counted once."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        root = value
        while isinstance(root.base, np.ndarray):
            root = root.base
        if root is not value:  # a view: its header, and the buffer it keeps alive (counted once)
            return sys.getsizeof(value) + size_of(root, seen)
        return sys.getsizeof(value) + (0 if value.flags.owndata else value.nbytes)  # data held by another (a tensor)
    held = sys.getsizeof(value)
    if isinstance(value, dict):
        return held + sum(size_of(k, seen) + size_of(v, seen) for k, v in value.items())
    if isinstance(value, list | tuple | set | frozenset):
        return held + sum(size_of(item, seen) for item in value)
    if hasattr(value, "__dict__"):
        return held + size_of(vars(value), seen)
    return held


def read_only(value) -> None:
    """Every numpy array in `value` (a trace's fields, followed through dicts, lists and tuples) made read-only."""
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, dict):
        for item in value.values():
            read_only(item)
    elif isinstance(value, list | tuple):
        for item in value:
            read_only(item)
    elif dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            read_only(getattr(value, f.name))


def trace_key(translator: Translator, text: str, options: DecodeOptions, forced_prefix=(), max_new_tokens=None):
    """What a trace is found by, or None for one that must not be shared (sampling without a seed)."""
    if options.strategy == "sample" and options.seed is None:
        return None
    limit = options.max_new_tokens if max_new_tokens is None else max_new_tokens
    return id(translator), text, dataclasses.astuple(options), tuple(int(i) for i in forced_prefix or ()), int(limit)


class TraceCache:
    """Traces by key, computed once each (a request for one being computed waits for it), at most `max_bytes`."""

    def __init__(self, max_bytes: int = TRACE_CACHE_BYTES):
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        # key → (trace, its size, the translator it came from: its id in the key stays its own while kept)
        self._entries: OrderedDict[tuple, tuple[Trace, int, Translator]] = OrderedDict()
        self._running: dict[tuple, Future] = {}
        self.bytes = 0
        self.counts = dict(computed=0, found=0, waited=0)  # requests that ran the model, found it, waited for it

    def get(self, key: tuple | None, translator: Translator, compute: Callable[[], Trace]) -> Trace:
        """The trace of `key`: kept, being computed by another request (waited for), or computed by `compute` now.

        A key of None is never shared: `compute` runs. An error raised by `compute` reaches every request that waited
        for it, and nothing is kept.
        """
        if key is None:
            return compute()
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                self.counts["found"] += 1
                return self._entries[key][0]
            running = self._running.get(key)
            if running is None:
                running = self._running[key] = Future()
                self.counts["computed"] += 1
                mine = True
            else:
                self.counts["waited"] += 1
                mine = False
        if not mine:
            return running.result()
        try:
            trace = compute()
            read_only(trace)
        except BaseException as err:
            with self._lock:
                del self._running[key]
            running.set_exception(err)
            raise
        with self._lock:
            del self._running[key]
            self._keep(key, trace, translator)
        running.set_result(trace)
        return trace

    def _keep(self, key: tuple, trace: Trace, translator: Translator) -> None:
        """Keep `trace` under `key`, the least recently asked for going while the cache holds more than max_bytes."""
        size = size_of(trace)
        if size > self.max_bytes:
            return
        self._entries[key] = (trace, size, translator)
        self.bytes += size
        while self.bytes > self.max_bytes:
            _, (_, gone, _) = self._entries.popitem(last=False)
            self.bytes -= gone

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = 0


TRACES = TraceCache()  # the server's: every visitor's translations and branches


def shared_trace(
    translator: Translator, text: str, options: DecodeOptions, forced_prefix=(), max_new_tokens=None
) -> Trace:
    """translator.trace(text, options, forced_prefix, max_new_tokens) from TRACES: computed once, shared read-only."""
    key = trace_key(translator, text, options, forced_prefix, max_new_tokens)

    def compute() -> Trace:
        return translator.trace(
            text, options=options, forced_prefix=list(forced_prefix) or None, max_new_tokens=max_new_tokens
        )

    return TRACES.get(key, translator, compute)
