"""The trace offered as a download: one JSON file per translation, swept after an hour."""

from __future__ import annotations

import functools
import tempfile
import time
import uuid
from pathlib import Path

import gradio as gr

from ..trace import Trace

TRACE_FILE_AGE_S = 3600  # a download link older than this may be gone; Gradio keeps its own copy as long


@functools.cache
def trace_folder() -> Path:
    """One folder per server process for the traces offered as downloads."""
    return Path(tempfile.mkdtemp(prefix="transformer-viz-traces-"))


def trace_file(trace: Trace, max_age_s: float = TRACE_FILE_AGE_S) -> Path:
    """Write `trace` as JSON for the download button; delete this process's trace files older than `max_age_s`.

    Every translation writes one (~0.1–0.5 MB): without the sweep a public server's disk would only fill.
    """
    folder = trace_folder()
    cutoff = time.time() - max_age_s
    for old in folder.glob("trace-*.json"):
        try:
            if old.stat().st_mtime < cutoff:
                old.unlink()
        except FileNotFoundError:  # another request swept it first
            pass
    path = folder / f"trace-{uuid.uuid4().hex}.json"
    path.write_text(trace.to_json(), encoding="utf-8")
    return path


def offered(sess):
    """The trace download button: the session's trace written and offered (no change without a session)."""
    if sess is None:
        return gr.skip()
    return gr.update(value=str(trace_file(sess.trace)), interactive=True)
