"""Training throughput (target tokens/s) of our Transformer against torch.nn.Transformer of the same size.

    taskset -c 1 python benchmarks/bench_train.py --threads 1
    python benchmarks/bench_train.py --token-batches 3000,12000,24000,48000 --device cuda --precision bf16

With --token-batches, where a training step's time goes instead, for the shipped d256 model on batches of
those many tokens: the host's batch building (the per-example loop `collate`, against `PackedExamples.batch`,
the baseline measured in turns in the same run, on one core) and the device's step (forward, label-smoothed
loss, backward, clipping, Adam; timed to the device's end), as target tokens a second.

Both models: the seed000 architecture (pre-LN, final LayerNorm, D 128, 4 heads, 3 + 3 layers, FFN 512,
dropout 0.1, a 6,000-piece vocabulary, sinusoidal positions, √D-scaled embeddings, an output
projection), trained with Adam on the same random batches (B sentences of S source and T target
tokens), with padding and causal masks. One step is forward + cross-entropy + backward + Adam.
The baseline is torch.nn.Transformer (which uses the fused scaled_dot_product_attention) with the
same embeddings and output layer, measured in turns with ours in the same run.
"""

from __future__ import annotations

import json
import math
import warnings

import torch
from common import interleaved, parser, set_threads
from torch import nn

from transformer_viz import Transformer, TransformerConfig

D, H, L, FF, V = 128, 4, 3, 512, 6000


class Reference(nn.Module):
    """torch.nn.Transformer with token embeddings × √D, the sinusoidal table and an output projection."""

    def __init__(self, max_len: int = 128):
        super().__init__()
        self.src_embed, self.tgt_embed = nn.Embedding(V, D, padding_idx=0), nn.Embedding(V, D, padding_idx=0)
        self.core = nn.Transformer(D, H, L, L, FF, dropout=0.1, batch_first=True, norm_first=True)
        self.generator = nn.Linear(D, V)
        pos = torch.arange(max_len)[:, None] / 10000 ** (torch.arange(0, D, 2) / D)  # (max_len, D/2)
        table = torch.zeros(max_len, D)
        table[:, 0::2], table[:, 1::2] = pos.sin(), pos.cos()
        self.register_buffer("table", table)

    def forward(self, src, tgt):
        S, T = src.shape[1], tgt.shape[1]
        x = self.src_embed(src) * math.sqrt(D) + self.table[:S]
        y = self.tgt_embed(tgt) * math.sqrt(D) + self.table[:T]
        causal = nn.Transformer.generate_square_subsequent_mask(T, dtype=torch.bool)  # True = masked here
        out = self.core(
            x,
            y,
            tgt_mask=causal,
            src_key_padding_mask=src == 0,
            tgt_key_padding_mask=tgt == 0,
            memory_key_padding_mask=src == 0,
            tgt_is_causal=True,
        )
        return self.generator(out)  # (B, T, V)


def batch(B: int, S: int, T: int, generator: torch.Generator):
    """Random ids with ragged lengths (padding 0), decoder input starting with <s> and its shifted target."""
    src = torch.randint(4, V, (B, S), generator=generator)
    tgt = torch.randint(4, V, (B, T + 1), generator=generator)
    for b in range(B):
        src[b, S - b % 5 :] = 0
        tgt[b, T + 1 - b % 4 :] = 0
    tgt[:, 0] = 2
    return src, tgt[:, :-1], tgt[:, 1:]


def examples(n: int, generator: torch.Generator) -> list[tuple[list[int], list[int]]]:
    """n random pairs of sentence lengths like the corpus's (3 to 40 pieces, </s> last)."""
    lengths = torch.randint(3, 41, (n, 2), generator=generator).tolist()
    ids = lambda k: torch.randint(4, V, (k - 1,), generator=generator).tolist() + [3]  # noqa: E731
    return [(ids(s), ids(t)) for s, t in lengths]


def token_batch_report(args) -> dict:
    """Host batch building and the device step for each batch size of --token-batches."""
    from transformer_viz.model.transformer import resolve_device
    from transformer_viz.training.batches import PackedExamples, token_batches
    from transformer_viz.training.retrain import SHIPPED

    device = resolve_device(args.device)
    pairs = examples(20_000, torch.Generator().manual_seed(0))
    packed = PackedExamples.pack(pairs)
    sizes = {k: SHIPPED[k] for k in ("d_model", "n_heads", "n_layers", "d_ff")}
    config = TransformerConfig.preset("seed000", src_vocab_size=V, tgt_vocab_size=V, max_len=128, **sizes)
    model = Transformer(config).to(device).train()
    fused = True if device.type == "cuda" else None
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.98), fused=fused)
    report = {}
    for size in (int(x) for x in args.token_batches.split(",")):
        batch = token_batches([(len(s), len(t)) for s, t in pairs], size, shuffle=True, seed=1)[0]
        report[size] = one_size(args, device, model, optimizer, pairs, packed, batch)
    slowest = min(r["packed_tokens_per_s"] for r in report.values())
    collated = min(r["collate_tokens_per_s"] for r in report.values())
    print(f"batch building: {slowest:,} target tokens/s on one core (collate: {collated:,})")
    return dict(device=str(device), precision=args.precision, torch_threads=torch.get_num_threads(), sizes=report)


def one_size(args, device, model, optimizer, pairs, packed, batch) -> dict:
    """One batch: collate and PackedExamples.batch timed in turns, then the device's training step on it."""
    from transformer_viz.training.batches import batch_loss, collate

    target_tokens = packed.target_tokens(batch)
    host = interleaved(
        {"collate": lambda: collate([pairs[i] for i in batch], 0, 2), "packed": lambda: packed.batch(batch, 0, 2)},
        args.repeat,
    )
    src, tgt_in, labels = (x.to(device) for x in packed.batch(batch, 0, 2))

    def step():
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=args.precision == "bf16"):
            loss, _ = batch_loss(model, src, tgt_in, labels, 0, 0.1, count=False)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if device.type == "cuda":
            torch.cuda.synchronize()  # the step's time is the device's, not the launches'

    step_ms = interleaved({"step": step}, args.repeat)["step"]
    return dict(
        target_tokens=target_tokens,
        collate_tokens_per_s=round(target_tokens / host["collate"] * 1000),
        packed_tokens_per_s=round(target_tokens / host["packed"] * 1000),
        packed_vs_collate=round(host["collate"] / host["packed"], 1),
        device_step_ms=round(step_ms, 1),
        device_tokens_per_s=round(target_tokens / step_ms * 1000),
    )


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--src-len", type=int, default=20)
    p.add_argument("--tgt-len", type=int, default=22)
    p.add_argument("--token-batches", default="", help="comma-separated batch sizes in tokens: where a step goes")
    p.add_argument("--device", default="cpu", help="with --token-batches: cpu, cuda, auto")
    p.add_argument("--precision", default="fp32", choices=("fp32", "bf16"), help="with --token-batches")
    args = p.parse_args()
    threads = set_threads(args.threads)
    if args.token_batches:
        print(json.dumps(token_batch_report(args), indent=2))
        return
    warnings.filterwarnings("ignore", message="enable_nested_tensor")  # nn.Transformer's note about pre-LN
    torch.manual_seed(0)
    ours = Transformer(
        TransformerConfig.preset(
            "seed000",
            src_vocab_size=V,
            tgt_vocab_size=V,
            d_model=D,
            n_heads=H,
            n_layers=L,
            d_ff=FF,
            dropout=0.1,
            max_len=128,
        )
    ).train()
    reference = Reference().train()
    data = [batch(args.batch, args.src_len, args.tgt_len, torch.Generator().manual_seed(i)) for i in range(4)]
    tokens = [int((out != 0).sum()) for _, _, out in data]

    def trainer(model):
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.98))
        state = {"i": 0}

        def step():
            src, tgt_in, tgt_out = data[state["i"] % len(data)]
            state["i"] += 1
            logits = model(src, tgt_in)
            loss = nn.functional.cross_entropy(
                logits.reshape(-1, V), tgt_out.reshape(-1), ignore_index=0, label_smoothing=0.1
            )
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()

        return step

    ms = interleaved({"ours": trainer(ours), "torch.nn.Transformer": trainer(reference)}, args.repeat)
    per_step = sum(tokens) / len(tokens)
    rate = {name: per_step / (t / 1000) for name, t in ms.items()}
    print(
        json.dumps(
            dict(
                torch_threads=threads,
                batch=[args.batch, args.src_len, args.tgt_len],
                target_tokens_per_step=per_step,
                parameters={
                    "ours": ours.num_parameters(),
                    "torch.nn.Transformer": sum(p.numel() for p in reference.parameters()),
                },
                step_ms={k: round(v, 1) for k, v in ms.items()},
                tokens_per_s={k: round(v) for k, v in rate.items()},
                ours_vs_reference=round(rate["ours"] / rate["torch.nn.Transformer"], 3),
                goal="ours within 15% of torch.nn.Transformer (ratio >= 0.85)",
            ),
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
