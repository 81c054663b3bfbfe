"""The downloads: the trace (one JSON file per translation) and, on demand, the lesson file (one HTML page that
steps through the translation with no server); both swept after an hour."""

from __future__ import annotations

import functools
import tempfile
import time
import uuid
from pathlib import Path

import gradio as gr

from ..figures.lesson import lesson
from ..trace import Trace

TRACE_FILE_AGE_S = 3600  # a download link older than this may be gone; Gradio keeps its own copy as long


@functools.cache
def trace_folder() -> Path:
    """One folder per server process for the traces offered as downloads."""
    return Path(tempfile.mkdtemp(prefix="transformer-viz-traces-"))


def new_file(kind: str, extension: str, max_age_s: float = TRACE_FILE_AGE_S) -> Path:
    """A new file's path in trace_folder() ("trace-….json"); this process's downloads older than `max_age_s`, every
    file of the folder, are deleted first.

    Every translation writes a trace (~0.1–0.5 MB), every lesson asked for ~5 MB: without the sweep a public
    server's disk would only fill.
    """
    folder = trace_folder()
    cutoff = time.time() - max_age_s
    for old in folder.iterdir():
        try:
            if old.stat().st_mtime < cutoff:
                old.unlink()
        except FileNotFoundError:  # another request swept it first
            pass
    return folder / f"{kind}-{uuid.uuid4().hex}.{extension}"


def trace_file(trace: Trace, max_age_s: float = TRACE_FILE_AGE_S) -> Path:
    """Write `trace` as JSON for the download button."""
    path = new_file("trace", "json", max_age_s)
    path.write_text(trace.to_json(), encoding="utf-8")
    return path


def offered(sess):
    """The trace download button: the session's trace written and offered (no change without a session)."""
    if sess is None:
        return gr.skip()
    return gr.update(value=str(trace_file(sess.trace)), interactive=True)


def lesson_ready(sess):
    """The lesson download button: pressable once there is a translation (no change without one)."""
    return gr.skip() if sess is None else gr.update(interactive=True)


def lesson_download(sess, lang, layer, head):
    """The session's lesson file, opening on the layer and head shown, in the visitor's language (or no change)."""
    if sess is None:
        return gr.skip()
    path = new_file("lesson", "html")
    lesson(sess.trace, path, lang=lang, layer=int(layer), head=str(head))
    return gr.update(value=str(path), visible=True)
