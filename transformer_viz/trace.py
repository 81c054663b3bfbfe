"""Trace: everything recorded while translating one sentence, and its JSON form.

Schema "transformer-viz/trace/2" (docs/trace-schema.md); a version-1 trace (no vectors, no residual) still loads:

    source:  {text, tokens[S], ids[S]}           tokens include the final </s>
    target:  {text, tokens[T], ids[T]}           generated tokens, ending with </s> when reached
    steps:   [{index, token, id, prob, entropy, top_k: [{token, id, prob}]}]   one per target token
    attention: {encoder_self[L][H][S][S], decoder_self[L][H][T][T], cross[L][H][T][S]}
    masks:   {encoder[S][S], decoder[T][T], cross[T][S]}   1 = may attend
    positional_encoding[S][D]                    the vectors added to the source embeddings
    model:   {name, config}
    options: the decoding options; forced_prefix: how many target tokens were forced; notices: [str]
    beam_tree: beam search's explored nodes; decoder_self_scores[L][H][T][T]: scores before the causal mask
    vectors: {kind: {q, k, v, z}}                q, z [L][H][queries][Dh]; k, v [L][H][keys][Dh]   (new in 2)
    residual[1 + 3L][T][D]                       the decoder's residual stream at RESIDUAL_POINTS    (new in 2)
    logit_lens: {top_ids, top_tokens, top_probs, chosen_probs, chosen_logits, contributions [1 + 3L][T],
                 constant[T], final_norm}        each residual point through the final norm and W_U  (new in 2)
    attribution: {integrated_gradients[T][S], gradient_x_input[T][S], log_probs[T], baseline_log_probs[T],
                  ig_steps, baseline}            log p(y_t)'s attribution to the source embeddings   (new in 2)
    sublayers: {kind: {input, output}}          [L][queries][D] each attention sublayer's input, what W_Q reads
                                                 (after its LayerNorm in pre-LN), and its output after W_O (new in 2)
    encoder_residual[1 + 2L][S][D]               the encoder's residual stream at encoder_residual_points (new in 2)
    replay:  {steps[N], probs[N][T]}             the translation teacher-forced through the run's N training
                                                 snapshots: p(token t) at each snapshot's step; null if not replayed
                                                                                                     (new in 2)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

SCHEMA = "transformer-viz/trace/2"
READABLE = ("transformer-viz/trace/1", SCHEMA)  # the schemas from_dict reads
ATTENTION_KINDS = ("encoder_self", "decoder_self", "cross")
VECTORS = ("q", "k", "v", "z")  # hook_q / hook_k / hook_v / hook_z of every head


def residual_points(n_layers: int) -> list[str]:
    """Where trace.residual reads the decoder's residual stream: its input, then after each sublayer of each layer."""
    return ["embed"] + [f"L{i}.{sub}" for i in range(n_layers) for sub in ("self", "cross", "ffn")]


def encoder_residual_points(n_layers: int) -> list[str]:
    """Where trace.encoder_residual reads the encoder's residual stream: its input, then after each sublayer."""
    return ["embed"] + [f"L{i}.{sub}" for i in range(n_layers) for sub in ("self", "ffn")]


DIGITS = 6  # decimals kept in JSON: rows still sum to 1 within 1e-5


@dataclass
class Trace:
    """One recorded translation. Arrays are numpy: attention[kind] is (L, H, queries, keys)."""

    source_text: str
    source_tokens: list[str]
    source_ids: list[int]
    target_text: str
    target_tokens: list[str]
    target_ids: list[int]
    steps: list[dict[str, Any]]
    attention: dict[str, np.ndarray]
    masks: dict[str, np.ndarray]
    positional_encoding: np.ndarray  # (S, D)
    model: dict[str, Any]
    # (L, H, T, T) Q Kᵀ / √Dh before the causal mask, from the recorded (hooked) Q and K: a hook on hook_scores
    # (the scale bugs) is not in it, so under one the softmax of these scores is not the pattern
    decoder_self_scores: np.ndarray | None = None
    options: dict[str, Any] = field(default_factory=dict)
    forced_prefix: int = 0
    notices: list[str] = field(default_factory=list)
    beam_tree: list[dict[str, Any]] = field(default_factory=list)
    # kind → {"q", "k", "v", "z"} → (L, H, queries or keys, Dh): the hooked vectors of every head (None: a v1 trace)
    vectors: dict[str, dict[str, np.ndarray]] | None = None
    residual: np.ndarray | None = None  # (1 + 3L, T, D) the decoder's residual stream at residual_points(L)
    # probes.lens.logit_lens: every residual point read through the final norm and the output projection
    logit_lens: dict[str, Any] | None = None
    # lab.attribution.attribute, computed on demand: log p(y_t)'s attribution to each source piece's embedding
    attribution: dict[str, Any] | None = None
    # kind → {"input", "output"} → (L, queries, D): the attention sublayer's input (what W_Q reads: after the
    # LayerNorm in pre-LN, the residual stream itself in post-LN) and its output after W_O, before the add
    sublayers: dict[str, dict[str, np.ndarray]] | None = None
    encoder_residual: np.ndarray | None = None  # (1 + 2L, S, D) at encoder_residual_points(L)
    # {"steps": (N,) training steps of the snapshots, "probs": (N, T) p(y_t) teacher-forced through each}: lab.replay
    replay: dict[str, np.ndarray] | None = None

    @property
    def n_layers(self) -> int:
        return self.attention["cross"].shape[0]

    @property
    def n_heads(self) -> int:
        return self.attention["cross"].shape[1]

    @property
    def decoder_input_tokens(self) -> list[str]:
        """The decoder's input at each step: <s>, y1..y(T-1) — the keys of decoder self-attention."""
        return ["<s>"] + self.target_tokens[:-1]

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form, schema "transformer-viz/trace/2"."""

        def rounded(a: np.ndarray) -> list:
            return np.round(a.astype(np.float64), DIGITS).tolist()

        return {
            "schema": SCHEMA,
            "source": {"text": self.source_text, "tokens": self.source_tokens, "ids": self.source_ids},
            "target": {"text": self.target_text, "tokens": self.target_tokens, "ids": self.target_ids},
            "steps": self.steps,
            "attention": {kind: rounded(self.attention[kind]) for kind in ATTENTION_KINDS},
            "masks": {kind: self.masks[kind].astype(int).tolist() for kind in ("encoder", "decoder", "cross")},
            "positional_encoding": rounded(self.positional_encoding),
            "model": self.model,
            "options": self.options,
            "forced_prefix": self.forced_prefix,
            "notices": self.notices,
            "beam_tree": self.beam_tree,
            "decoder_self_scores": None if self.decoder_self_scores is None else rounded(self.decoder_self_scores),
            "vectors": None
            if self.vectors is None
            else {kind: {name: rounded(a) for name, a in by_name.items()} for kind, by_name in self.vectors.items()},
            "residual": None if self.residual is None else rounded(self.residual),
            "logit_lens": arrays_to_json(self.logit_lens),
            "attribution": arrays_to_json(self.attribution),
            "sublayers": None if self.sublayers is None else nested(self.sublayers, rounded),
            "encoder_residual": None if self.encoder_residual is None else rounded(self.encoder_residual),
            "replay": None
            if self.replay is None
            else {"steps": [int(s) for s in self.replay["steps"]], "probs": rounded(np.asarray(self.replay["probs"]))},
        }

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trace:
        """Rebuild a Trace from its JSON form (e.g. a downloaded trace file)."""
        if data.get("schema") not in READABLE:
            raise ValueError(
                f"not a transformer-viz trace of schema {' or '.join(READABLE)} (schema={data.get('schema')!r})"
            )

        def array(value) -> np.ndarray | None:
            return None if value is None else np.asarray(value, dtype=np.float32)

        return cls(
            source_text=data["source"]["text"],
            source_tokens=data["source"]["tokens"],
            source_ids=data["source"]["ids"],
            target_text=data["target"]["text"],
            target_tokens=data["target"]["tokens"],
            target_ids=data["target"]["ids"],
            steps=data["steps"],
            attention={k: np.asarray(v, dtype=np.float32) for k, v in data["attention"].items()},
            masks={k: np.asarray(v, dtype=bool) for k, v in data["masks"].items()},
            positional_encoding=np.asarray(data["positional_encoding"], dtype=np.float32),
            model=data["model"],
            options=data.get("options", {}),
            forced_prefix=data.get("forced_prefix", 0),
            notices=data.get("notices", []),
            beam_tree=data.get("beam_tree", []),
            decoder_self_scores=array(data.get("decoder_self_scores")),
            vectors=None
            if data.get("vectors") is None
            else {kind: {name: array(a) for name, a in by_name.items()} for kind, by_name in data["vectors"].items()},
            residual=array(data.get("residual")),
            logit_lens=arrays_from_json(data.get("logit_lens")),
            attribution=arrays_from_json(data.get("attribution")),
            sublayers=None if data.get("sublayers") is None else nested(data["sublayers"], array),
            encoder_residual=array(data.get("encoder_residual")),
            replay=replay_arrays(data.get("replay")),
        )


def arrays_to_json(fields: dict[str, Any] | None) -> dict[str, Any] | None:
    """A dict of numpy arrays and plain values as JSON: float arrays rounded to DIGITS, integer arrays as lists."""
    if fields is None:
        return None
    out = {}
    for name, value in fields.items():
        if isinstance(value, np.ndarray):
            is_float = np.issubdtype(value.dtype, np.floating)
            value = np.round(value.astype(np.float64), DIGITS).tolist() if is_float else value.tolist()
        out[name] = value
    return out


def arrays_from_json(fields: dict[str, Any] | None) -> dict[str, Any] | None:
    """arrays_to_json's dict back: lists of numbers become arrays (int64 for names ending in "_ids", else float32);
    lists of strings and plain values stay as they are."""
    if fields is None:
        return None
    out = {}
    for name, value in fields.items():
        if isinstance(value, list) and np.asarray(value).dtype.kind not in "UO":
            value = np.asarray(value, dtype=np.int64 if name.endswith("_ids") else np.float32)
        out[name] = value
    return out


def nested(by_kind: dict[str, dict[str, Any]], convert) -> dict[str, dict[str, Any]]:
    """kind → name → array, each array converted (to JSON lists, or back)."""
    return {kind: {name: convert(a) for name, a in by_name.items()} for kind, by_name in by_kind.items()}


def replay_arrays(value: dict | None) -> dict[str, np.ndarray] | None:
    """Trace.replay from its JSON form: steps (N,) and probs (N, T) as arrays (None stays None)."""
    if value is None:
        return None
    steps = np.asarray(value["steps"], dtype=np.int64)
    return {"steps": steps, "probs": np.asarray(value["probs"], dtype=np.float32).reshape(len(steps), -1)}
