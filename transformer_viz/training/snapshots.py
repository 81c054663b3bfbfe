"""Weight snapshots along a run (`train --snapshots N`), to replay how attention forms as the model learns.

N snapshots at log-spaced steps from the first validation to the run's last step: training changes
the weights fastest at the start, so most snapshots fall early. Each is model.safetensors in fp16,
named by its step, with its step and validation loss in the file's metadata and in
snapshots/index.json. The checkpoint loader never reads snapshots/; `load_snapshots` does.
"""

from __future__ import annotations

import json
import logging
import math
import operator
import re
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_model as load_safetensors_into
from safetensors.torch import save_file

from ..hub.files import replace_file
from ..hub.hub import SNAPSHOTS_DIR, CheckpointError, check_weights_fit, load_config
from ..model.transformer import Transformer

log = logging.getLogger(__package__ + ".train")
INDEX_NAME = "index.json"  # in snapshots/: [{step, valid_loss, file}], by step
FILE_NAME = re.compile(r"step-\d{7,}\.safetensors")
MAX_INDEX_BYTES = 1 << 20  # a few dozen lines; anything huge is not an index
by_step = operator.attrgetter("step")


@dataclass(frozen=True)
class Snapshot:
    """The weights after `step` steps, which scored `valid_loss` on the validation pairs, in `path`."""

    step: int
    valid_loss: float
    path: Path


def snapshot_steps(count: int, valid_every: int, max_steps: int) -> list[int]:
    """`count` steps log-spaced from the first validation to the last: round(first · (last/first)^(i/(count-1))).

    A function of the options alone, so that a resumed run takes the ones after its step where the run
    never stopped would have; where rounding makes two steps equal, the later ones move up by one.
    """
    last = max_steps
    first = min(valid_every, last)
    if count <= 0 or last < 1:
        return []
    if count == 1 or first == last:
        return [last]
    if count >= last - first + 1:
        return list(range(first, last + 1))
    steps: list[int] = []
    for i in range(count):
        step = round(first * (last / first) ** (i / (count - 1)))
        step = max(step, steps[-1] + 1) if steps else step
        steps.append(min(step, last - (count - 1 - i)))  # room for the ones still to come
    return steps


def half_weights(model: Transformer) -> dict[str, torch.Tensor]:
    """The state dict in fp16 on the CPU, each tied tensor once under the first of its names (as model.safetensors)."""
    state = model.state_dict()
    kept: dict[tuple, str] = {}
    for name in sorted(state):
        tensor = state[name]
        kept.setdefault((tensor.untyped_storage().data_ptr(), tensor.storage_offset(), tuple(tensor.shape)), name)
    return {name: fp16(state[name]) for name in kept.values()}


def fp16(tensor: torch.Tensor) -> torch.Tensor:
    """A floating-point tensor in half precision on the CPU (half the bytes of fp32; others as they are)."""
    tensor = tensor.detach().to("cpu")
    return (tensor.half() if tensor.is_floating_point() else tensor).contiguous()


def save_snapshot(folder: str | Path, model: Transformer, step: int, valid_loss: float) -> Snapshot:
    """Write the weights at `step` into folder/snapshots/ and list them in its index (replacing one of that step)."""
    where = Path(folder) / SNAPSHOTS_DIR
    where.mkdir(parents=True, exist_ok=True)
    snapshot = Snapshot(step, round(valid_loss, 4), where / f"step-{step:07d}.safetensors")
    metadata = {"format": "pt", "step": str(step), "valid_loss": str(snapshot.valid_loss)}
    weights = half_weights(model)
    replace_file(snapshot.path, lambda tmp: save_file(weights, str(tmp), metadata=metadata))
    write_index(where, [s for s in list_snapshots(folder) if s.step != step] + [snapshot])
    log.info("step %d: snapshot %s (valid loss %.3f)", step, snapshot.path.name, valid_loss)
    return snapshot


def write_index(where: Path, snapshots: list[Snapshot]) -> None:
    entries = [dict(step=s.step, valid_loss=s.valid_loss, file=s.path.name) for s in sorted(snapshots, key=by_step)]
    text = json.dumps(dict(dtype="float16", snapshots=entries), indent=1) + "\n"
    replace_file(where / INDEX_NAME, lambda tmp: tmp.write_text(text))


def forget_snapshots_after(folder: str | Path, step: int) -> None:
    """Drop the snapshots after `step` (and any file the index lacks): a resumed run takes those steps again."""
    where = Path(folder) / SNAPSHOTS_DIR
    if not where.is_dir():
        return
    listed = list_snapshots(folder)
    kept = [s for s in listed if s.step <= step]
    stale = [p for p in where.iterdir() if FILE_NAME.fullmatch(p.name) and p not in {s.path for s in kept}]
    for path in stale:
        path.unlink()
    if len(kept) < len(listed):
        write_index(where, kept)
    if stale:
        log.info("dropped %d weight snapshots after step %d, which this run takes again", len(stale), step)


def thin_snapshots(folder: str | Path, count: int) -> list[Snapshot]:
    """Keep `count` snapshots: the first, the last, and between them those whose log gaps are the most even.

    A run continued past its first --max-steps takes its new schedule's later steps beside the old ones; this
    keeps the folder at N snapshots in all. Within one schedule it drops none (that holds N at most).
    """
    where = Path(folder) / SNAPSHOTS_DIR
    listed = list_snapshots(folder)
    kept = [listed[i] for i in most_even(listed, count)] if len(listed) > count else listed
    dropped = [s for s in listed if s not in kept]
    if dropped:
        write_index(where, kept)  # the index first: a kill between the two leaves files the index lacks, not gaps
        for snapshot in dropped:
            snapshot.path.unlink(missing_ok=True)
        steps = ", ".join(str(s.step) for s in dropped)
        log.info("dropped the snapshots of step %s to keep %d, log-spaced", steps, count)
    return kept


def most_even(snapshots: list[Snapshot], count: int) -> list[int]:
    """The indices of `count` snapshots, the first and last among them, least in Σ log(next step / previous step)².

    The log gaps sum to log(last / first) whichever are kept, so the least sum of squares is the evenest spread
    (dynamic programming over (how many kept, last one kept)); with one to keep, the latest.
    """
    n = len(snapshots)
    if count <= 1:
        return list(range(n - max(count, 0), n))
    gap = [[math.log(b.step / a.step) ** 2 for b in snapshots] for a in snapshots]  # gap[i][j], i < j
    cost = {(1, 0): (0.0, -1)}  # (kept, last index) -> (least cost, the index kept before it)
    for kept in range(2, count + 1):
        for j in range(kept - 1, n):
            options = [(cost[kept - 1, i][0] + gap[i][j], i) for i in range(j) if (kept - 1, i) in cost]
            if options:
                cost[kept, j] = min(options)
    chosen, j = [n - 1], n - 1
    for kept in range(count, 1, -1):
        j = cost[kept, j][1]
        chosen.append(j)
    return chosen[::-1]


def list_snapshots(folder: str | Path) -> list[Snapshot]:
    """The snapshots a checkpoint folder holds, by step (none when it has no snapshots/index.json)."""
    where = Path(folder) / SNAPSHOTS_DIR
    path = where / INDEX_NAME
    if not path.is_file():
        return []
    if path.stat().st_size > MAX_INDEX_BYTES:
        raise CheckpointError(f"{path} is {path.stat().st_size:,} bytes, not a snapshot index")
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))["snapshots"]
        snapshots = [Snapshot(int(e["step"]), float(e["valid_loss"]), where / str(e["file"])) for e in entries]
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, KeyError, TypeError, ValueError) as err:
        raise CheckpointError(f"{path} is not a snapshot index: {str(err)[:200]}") from None
    for snapshot in snapshots:
        if not FILE_NAME.fullmatch(snapshot.path.name) or snapshot.path.parent != where:  # no path outside snapshots/
            raise CheckpointError(f"{path} lists {snapshot.path.name!r}, not a snapshot file name like step-0000100")
    return sorted(snapshots, key=by_step)


def load_snapshot(folder: str | Path, snapshot: Snapshot, device: str | torch.device = "cpu") -> Transformer:
    """The checkpoint's model (its config.json) with a snapshot's weights, in fp32, ready for inference."""
    config = load_config(folder)
    if not snapshot.path.is_file():
        raise CheckpointError(f"{folder} lists the snapshot {snapshot.path.name} but has no such file")
    check_weights_fit(config, snapshot.path)  # names, shapes and dtypes from the header first
    model = Transformer(config)
    try:
        missing, unexpected = load_safetensors_into(model, str(snapshot.path), strict=False, device=str(device))
    except (SafetensorError, RuntimeError, OSError) as err:
        raise CheckpointError(f"{snapshot.path} does not fit: {str(err).splitlines()[0][:400]}") from None
    if missing or unexpected:
        raise CheckpointError(f"{snapshot.path} does not fit: missing {sorted(missing)[:5]}, unexpected {unexpected}")
    return model.to(device).eval()


def load_snapshots(folder: str | Path, device: str | torch.device = "cpu") -> list[tuple[int, float, Transformer]]:
    """(step, validation loss, model) for every snapshot of a checkpoint folder, by step."""
    return [(s.step, s.valid_loss, load_snapshot(folder, s, device)) for s in list_snapshots(folder)]
