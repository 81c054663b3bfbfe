"""Tracing overhead: Translator.trace() against Translator.translate() of the same sentence.

    taskset -c 1 python benchmarks/bench_tracing.py --model seed000 --threads 1

trace() decodes exactly as translate() does, then runs one teacher-forced pass with the
tracer on and packs every attention pattern into a Trace. The baseline is translate()
(greedy, same options) in the same run; both are timed in turns and the medians compared.
to_dict() (the JSON the app downloads) is timed separately, since the app builds it only on demand.
"""

from __future__ import annotations

import json

from common import interleaved, parser, set_threads, timed

from transformer_viz import load_model

SENTENCES = [
    "I get up early every morning and drink a cup of coffee.",
    "Where is the station?",
    "My brother has bought a new car because the old one was broken.",
]


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--model", default="seed000")
    args = p.parse_args()
    threads = set_threads(args.threads)
    translator = load_model(args.model)
    rows = []
    for text in SENTENCES:
        ms = interleaved(
            {
                "translate": lambda s=text: translator.translate(s, max_new_tokens=64),
                "trace": lambda s=text: translator.trace(s, max_new_tokens=64),
            },
            args.repeat,
        )
        trace = translator.trace(text, max_new_tokens=64)
        to_dict_ms = timed(trace.to_dict, args.repeat)
        rows.append(
            dict(
                sentence=text,
                source_tokens=len(trace.source_ids),
                target_tokens=len(trace.target_ids),
                translate_ms=round(ms["translate"], 1),
                trace_ms=round(ms["trace"], 1),
                overhead_pct=round(100 * (ms["trace"] / ms["translate"] - 1), 1),
                to_dict_ms=round(to_dict_ms, 1),
            )
        )
    print(
        json.dumps(
            dict(model=args.model, torch_threads=threads, goal="trace() < 1.3 x translate()", rows=rows), indent=2
        )
    )


if __name__ == "__main__":
    main()
