"""Incremental decoding with the key/value cache against recomputing the whole prefix at every step.

    taskset -c 1 python benchmarks/bench_cache.py --model seed000 --threads 1

All are `generate()` with greedy decoding. The baseline is `use_cache=False`, which runs the
decoder teacher-forced over <s> y1..yt at every step and keeps the last position's logits. The
Annotated Transformer's greedy_decode does the same but applies the output projection (D → V) to the
last position only; the second baseline does that too, with an intervention at decoder.hook_output
that keeps only the last position (a no-op for the cached path, which feeds one position per step).
To compare at a fixed length, every run suppresses </s> with the same intervention (its logit set
to -1e4 at decoder.hook_logits) so that exactly N tokens are generated; the token sequences are
checked to be identical. Encoding the source is included in all.

`--widths 8 512` also times untrained models of the checkpoint's architecture at those widths D
(d_ff = 4 D; same heads, layers and vocabulary): speed depends on the shapes, not on what the weights
learned. A width of 8 leaves almost no arithmetic, so its step time is the per-operation cost of
eager PyTorch that both paths pay at every step; a wider model shows how the cache's advantage grows
once arithmetic outweighs that cost.
"""

from __future__ import annotations

import dataclasses
import json

import torch
from common import interleaved, parser, set_threads

from transformer_viz import intervene, load_model
from transformer_viz.decoding import DecodeOptions, generate
from transformer_viz.model.transformer import Transformer


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--model", default="seed000")
    p.add_argument("--lengths", type=int, nargs="+", default=[16, 64, 128])
    p.add_argument("--widths", type=int, nargs="*", default=[], help="also time untrained models of these widths D")
    p.add_argument("--sentence", default="I get up early every morning and drink a cup of coffee.")
    args = p.parse_args()
    threads = set_threads(args.threads)
    translator = load_model(args.model)
    src, _ = translator.encode_sources([args.sentence])
    models = {f"{args.model} (D={translator.config.d_model})": translator.model}
    for width in args.widths:
        config = dataclasses.replace(translator.config, d_model=width, d_ff=4 * width)
        models[f"{args.model} architecture, D={width}, untrained"] = Transformer(config).eval()
    results = {name: measure(model, src, args.lengths, args.repeat) for name, model in models.items()}
    print(
        json.dumps(
            dict(
                torch_threads=threads,
                source_tokens=src.shape[1],
                goal="cached >= 3 x faster at 128 tokens",
                models=results,
            ),
            indent=2,
        )
    )


def measure(model: Transformer, src: torch.Tensor, lengths: list[int], repeat: int) -> list[dict]:
    """Cached vs recomputed greedy decoding of `src` to exactly each length; one row per length."""
    eos, max_len = model.config.eos_id, model.config.max_len

    def no_eos(logits, hook):
        logits = logits.clone()
        logits[..., eos] = -1e4
        return logits

    def last_position(x, hook):  # (B, T, D) → (B, 1, D): project only the position being predicted
        return x[:, -1:]

    rows = []
    with intervene(model, {"decoder.hook_logits": no_eos, "decoder.hook_output": last_position}):
        for n in lengths:
            cached, recomputed = DecodeOptions(max_new_tokens=n), DecodeOptions(max_new_tokens=n, use_cache=False)
            a, b = generate(model, src, cached)[0], generate(model, src, recomputed)[0]
            assert a.ids == b.ids and len(a.ids) == min(n, max_len), "the paths must agree"
            runs = max(5, repeat * 16 // n)  # fewer runs for the long ones, but enough for a steady median
            ms = interleaved(
                {
                    "cached": lambda o=cached: generate(model, src, o),
                    "recompute_last": lambda o=recomputed: generate(model, src, o),
                },
                runs,
            )
            rows.append(
                dict(
                    tokens=len(a.ids),
                    runs=runs,
                    cached_ms=round(ms["cached"], 1),
                    recompute_last_ms=round(ms["recompute_last"], 1),
                )
            )
    with intervene(model, {"decoder.hook_logits": no_eos}):  # the full teacher-forced pass: logits at every position
        for row in rows:
            n = row["tokens"]
            cached, recomputed = DecodeOptions(max_new_tokens=n), DecodeOptions(max_new_tokens=n, use_cache=False)
            ms = interleaved(
                {
                    "cached": lambda o=cached: generate(model, src, o),
                    "recompute": lambda o=recomputed: generate(model, src, o),
                },
                row["runs"],
            )
            row.update(
                cached_again_ms=round(ms["cached"], 1),
                recompute_ms=round(ms["recompute"], 1),
                cached_ms_per_step=round(ms["cached"] / n, 2),
                speedup_vs_recompute=round(ms["recompute"] / ms["cached"], 2),
                speedup_vs_recompute_last=round(row["recompute_last_ms"] / row["cached_ms"], 2),
            )
    return rows


if __name__ == "__main__":
    torch.manual_seed(0)
    main()
