"""Several processes under torchrun: joining the group, agreeing to stop, every rank's random state."""

from __future__ import annotations

import os

import torch
import torch.distributed as dist


def setup_distributed(device: torch.device) -> tuple[int, int, torch.device]:
    """(rank, world size, device); joins the process group when started by torchrun, each rank on its own GPU."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world > 1 and device.type == "cuda" and device.index is None:
        device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
        torch.cuda.set_device(device)
    if world > 1 and not dist.is_initialized():
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    return (dist.get_rank(), world, device) if world > 1 else (0, 1, device)


def all_ranks_agree(flag: bool, device: torch.device) -> bool:
    """True on every rank if it is True on any: ranks that stop at different steps would wait forever in DDP."""
    if not dist.is_initialized():
        return flag
    flags = torch.tensor([float(flag)], device=device)
    dist.all_reduce(flags, op=dist.ReduceOp.MAX)
    return bool(flags.item())


def barrier() -> None:
    """Wait for every rank (a no-op in one process)."""
    if dist.is_initialized():
        dist.barrier()


def rng_states(rank: int, world: int, device: torch.device) -> dict:
    """Every rank's random state (rank 0 receives them all), so that --resume draws the dropout masks an
    uninterrupted run would have drawn: {"rng": [per rank], "cuda_rng": [per rank] on CUDA}."""
    mine = {"rng": torch.get_rng_state()}
    if device.type == "cuda":
        mine["cuda_rng"] = torch.cuda.get_rng_state(device)
    every = [mine]
    if dist.is_initialized():
        every = [None] * world if rank == 0 else None
        dist.gather_object(mine, every, dst=0)
    return {} if rank else {key: [state[key] for state in every] for key in mine}


def restore_rng(state: dict, rank: int, device: torch.device) -> None:
    """Set this rank's random state from a train_state (a list per rank; older states hold rank 0's alone)."""
    for key, setter in (
        ("rng", torch.set_rng_state),
        ("cuda_rng", lambda s: torch.cuda.set_rng_state(s, device) if device.type == "cuda" else None),
    ):
        saved = state.get(key)
        if isinstance(saved, torch.Tensor):
            saved = [saved]
        if saved and rank < len(saved):
            setter(saved[rank].cpu())
