"""The run folder's records: the names of its files, and the learning curve's rows kept on resuming.

Below the state (state.py reads them when it resumes) and the checkpointer (checkpointer.py writes them).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from ..hub.files import replace_file

log = logging.getLogger(__package__ + ".train")  # every training module logs as the loop does
STATE_NAME = "train_state.pt"  # optimizer + progress, for --resume (not shipped)
METRICS_NAME = "metrics.jsonl"  # one line per validation: the learning curve
TRAINING_NAME = "training.json"  # how the checkpoint was made


def forget_metrics_after(path: Path, step: int) -> None:
    """Drop the learning-curve rows after `step`: a run killed between writing its row and its state repeats
    those steps when resumed, and would log them twice."""
    if not path.is_file():
        return
    lines = path.read_text().splitlines()
    kept = [line for line in lines if json.loads(line)["step"] <= step]
    if len(kept) < len(lines):
        replace_file(path, lambda tmp: tmp.write_text("".join(line + "\n" for line in kept)))
        log.info("dropped %d learning-curve rows after step %d, which this run repeats", len(lines) - len(kept), step)
