"""Interventions: change one forward pass with hooks — ablate heads, drop positions, lift the causal mask,
or switch on one of the seed notes' bugs — and leave the shared model untouched.

An `Intervention` is a frozen description; `hooks(model, intervention)` turns it into (hook name, fn)
pairs for `intervene(model, pairs)`, which applies them only inside its block, only in this context.
Shape letters: B batch, H heads, Tq queries, Tk keys, Dh d_head, D d_model.

Mean ablation replaces a head's output z (B, H, Tq, Dh) at every position by that head's average over
the positions of an *unmodified* run on the same sentence: the source tokens for an encoder head, the
positions of the unmodified translation (one teacher-forced pass) for a decoder head. The mean must come
from a full pass: cached decoding shows a head one position at a time, and the mean of one position is
the position itself. `input_hooks` measures those means and returns the hooks for one sentence.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, fields

import torch

from ..decoding import DecodeOptions, generate
from ..errors import UserError
from ..i18n import CATALOGUES, DEFAULT
from ..model.config import TransformerConfig
from ..model.hooks import HookPoint, Tracer
from ..model.masks import causal_mask
from ..trace import ATTENTION_KINDS

HookFn = Callable[[torch.Tensor, HookPoint], torch.Tensor | None]
ABLATIONS = ("zero", "mean")
# The seed notes' bugs that can be switched on in a trained model at run time (shared/seeds README).
SEED_BUGS = ("mask_ignored", "scale_multiplied", "scale_d_model", "target_padding_unmasked")
ATTENTION_MODULES = {
    "encoder_self": "encoder.layers.{}.self_attn",
    "decoder_self": "decoder.layers.{}.self_attn",
    "cross": "decoder.layers.{}.cross_attn",
}

# Short names for menus and checkboxes, and what each intervention reveals or why each bug breaks the model
# (1–3 sentences a learner reads beside the result): English, from the English catalogue ("iv-label-<name>",
# "iv-explain-<name>"), whose translations the other catalogues hold under the same keys.
LABELS = {k.removeprefix("iv-label-"): v for k, v in CATALOGUES[DEFAULT].items() if k.startswith("iv-label-")}
EXPLANATIONS = {k.removeprefix("iv-explain-"): v for k, v in CATALOGUES[DEFAULT].items() if k.startswith("iv-explain-")}


@dataclass(frozen=True)
class Intervention:
    """One per-call change to the forward pass; the default changes nothing."""

    ablate: tuple[tuple[str, int, int], ...] = ()  # (kind, layer, head), kind in ATTENTION_KINDS
    ablation: str = "zero"  # "zero": z_h = 0; "mean": z_h = its mean over the positions (module doc)
    no_positions: bool = False  # encoder and decoder get no positional encodings
    no_causal_mask: bool = False  # decoder self-attention may look at later target positions
    bug: str | None = None  # one of SEED_BUGS, or None

    def __post_init__(self) -> None:
        # Lists (from a UI or JSON) become tuples and numpy integers ints: hashable, immutable, comparable.
        object.__setattr__(
            self,
            "ablate",
            tuple(
                tuple(int(v) if isinstance(v, numbers.Integral) and not isinstance(v, bool) else v for v in entry)
                if isinstance(entry, (list, tuple))
                else entry
                for entry in self.ablate
            ),
        )
        self.validate()

    def validate(self, config: TransformerConfig | None = None) -> Intervention:
        """Raise ValueError naming the fix; with a config, also check layers and heads exist."""
        if self.ablation not in ABLATIONS:
            raise UserError("err-lab-ablation", choices=ABLATIONS, value=self.ablation)
        if self.bug is not None and self.bug not in SEED_BUGS:
            raise UserError("err-lab-bug", choices=SEED_BUGS, value=self.bug)
        for name in ("no_positions", "no_causal_mask"):
            if not isinstance(getattr(self, name), bool):
                raise UserError("err-lab-switch", name=name, value=getattr(self, name))
        for entry in self.ablate:
            if not (isinstance(entry, tuple) and len(entry) == 3):
                raise UserError("err-lab-head-shape", entry=entry)
            kind, layer, head = entry
            if kind not in ATTENTION_KINDS:
                raise UserError("err-lab-head-kind", choices=ATTENTION_KINDS, value=kind)
            for what, value in (("layer", layer), ("head", head)):
                if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                    raise UserError("err-lab-head-index", what=what, value=value, entry=entry)
            if config is not None and layer >= config.n_layers:
                raise UserError("err-lab-no-layer", layer=layer, last=config.n_layers - 1)
            if config is not None and head >= config.n_heads:
                raise UserError("err-lab-no-head", head=head, last=config.n_heads - 1)
        return self

    @property
    def is_identity(self) -> bool:
        """True when the intervention changes nothing."""
        return not (self.ablate or self.no_positions or self.no_causal_mask or self.bug)

    @property
    def needs_means(self) -> bool:
        """Mean ablation needs the heads' means from an unmodified run (see `input_hooks`)."""
        return bool(self.ablate) and self.ablation == "mean"

    @property
    def keys(self) -> list[str]:
        """The EXPLANATIONS / LABELS keys of what this intervention does, in a stable order."""
        out = [f"ablate_{self.ablation}"] if self.ablate else []
        out += [name for name in ("no_positions", "no_causal_mask") if getattr(self, name)]
        return out + ([self.bug] if self.bug else [])

    def describe(self) -> str:
        """A short English summary, e.g. "zero heads cross L1 H0; no positional encodings"."""
        if self.is_identity:
            return "no intervention"
        parts = []
        if self.ablate:
            heads = ", ".join(f"{kind} L{layer} H{head}" for kind, layer, head in self.ablate)
            parts.append(f"{'zero' if self.ablation == 'zero' else 'mean-ablate'} heads {heads}")
        if self.no_positions:
            parts.append("no positional encodings")
        if self.no_causal_mask:
            parts.append("no causal mask")
        if self.bug:
            parts.append(LABELS[self.bug])
        return "; ".join(parts)

    def to_dict(self) -> dict:
        """JSON-ready form (ablated heads as lists)."""
        return {
            f.name: ([list(a) for a in self.ablate] if f.name == "ablate" else getattr(self, f.name))
            for f in fields(self)
        }


# ---- the hook functions -------------------------------------------------------------------------------------


def is_masked(scores: torch.Tensor) -> torch.Tensor:
    """Masked entries of hook_scores hold the dtype's minimum (the model's masked_fill)."""
    return scores == torch.finfo(scores.dtype).min


def rescale_scores(factor: float) -> HookFn:
    """Multiply the unmasked scores by `factor`; masked ones stay at the minimum, nothing overflows to inf."""

    def hook(scores: torch.Tensor, _: HookPoint) -> torch.Tensor:
        info = torch.finfo(scores.dtype)
        return torch.where(is_masked(scores), scores, (scores * factor).clamp(info.min, info.max))

    return hook


def mask_everything(mask: torch.Tensor, _: HookPoint) -> torch.Tensor:
    """Every query may attend to every key: (B, 1, Tq, Tk) all True."""
    return torch.ones_like(mask)


def causal_only(mask: torch.Tensor, _: HookPoint) -> torch.Tensor:
    """The causal mask alone, without the target padding: (B, 1, Tq, Tk)."""
    Tq, Tk = mask.shape[-2:]
    return causal_mask(Tq, Tk, mask.device).expand_as(mask)


def padding_only(mask: torch.Tensor, _: HookPoint) -> torch.Tensor:
    """Drop the causal part: every query may see what the last query sees (all keys but padding)."""
    return mask[..., -1:, :].expand_as(mask)  # the last query's row is exactly the key padding mask


def keep_causal(mask: torch.Tensor, _: HookPoint) -> torch.Tensor:
    """The mask AND the causal mask: what the query producing y_t could see while decoding (nothing later)."""
    Tq, Tk = mask.shape[-2:]
    return mask & causal_mask(Tq, Tk, mask.device)


def no_positions(pos: torch.Tensor, _: HookPoint) -> torch.Tensor:
    """Positional encodings (1, L, D) → zeros: the first block sees the token embeddings alone."""
    return torch.zeros_like(pos)


def ablate_heads(heads: list[int], mean: torch.Tensor | None) -> HookFn:
    """z (B, H, Tq, Dh): the chosen heads' outputs become 0, or `mean` (B|1, H, 1, Dh) at every position."""

    def hook(z: torch.Tensor, _: HookPoint) -> torch.Tensor:
        z = z.clone()
        for h in heads:
            z[:, h] = 0.0 if mean is None else mean[:, h].to(z.device, z.dtype)  # (B|1, 1, Dh) broadcast over Tq
        return z

    return hook


def bug_hooks(bug: str, config: TransformerConfig) -> list[tuple[str, HookFn]]:
    """The hooks that reproduce one seed bug on a correctly built model."""
    d_head, d_model = config.d_head, config.d_model
    if bug == "mask_ignored":  # seed 000 bug 2: softmax never sees the mask, in any attention
        return [("*.hook_mask", mask_everything)]
    if bug == "scale_multiplied":  # seed 000 bug 1: Q Kᵀ · √Dh = (Q Kᵀ / √Dh) · Dh
        return [("*.hook_scores", rescale_scores(float(d_head)))]
    if bug == "scale_d_model":  # seed 004 bug 2: Q Kᵀ / √D = (Q Kᵀ / √Dh) · √Dh / √D
        return [("*.hook_scores", rescale_scores(math.sqrt(d_head) / math.sqrt(d_model)))]
    if bug == "target_padding_unmasked":  # seed 004 bug 3: the decoder's self-attention mask is causal only
        return [("decoder.layers.*.self_attn.hook_mask", causal_only)]
    raise UserError("err-lab-unknown-bug", choices=SEED_BUGS, value=bug)


def head_hook_name(kind: str, layer: int) -> str:
    """The hook of each head's output z in one attention, e.g. decoder.layers.1.cross_attn.hook_z."""
    return ATTENTION_MODULES[kind].format(layer) + ".hook_z"


def hooks(
    model: torch.nn.Module, intervention: Intervention, means: dict[str, torch.Tensor] | None = None
) -> list[tuple[str, HookFn]]:
    """(hook name or glob, fn) pairs for `intervene(model, …)`; mean ablation needs `means` from `head_means`."""
    intervention.validate(model.config)
    pairs: list[tuple[str, HookFn]] = []
    if intervention.bug:
        pairs += bug_hooks(intervention.bug, model.config)
    if intervention.no_causal_mask:  # after a mask bug, so the two compose
        pairs.append(("decoder.layers.*.self_attn.hook_mask", padding_only))
    if intervention.no_positions:
        pairs.append(("*.hook_pos", no_positions))
    by_hook: dict[str, list[int]] = {}
    for kind, layer, head in intervention.ablate:
        by_hook.setdefault(head_hook_name(kind, layer), []).append(head)
    for name, heads in by_hook.items():
        if intervention.ablation == "mean" and (means is None or name not in means):
            raise ValueError(f"mean ablation needs the mean output of {name}: use input_hooks() or head_means()")
        pairs.append((name, ablate_heads(sorted(set(heads)), None if intervention.ablation == "zero" else means[name])))
    return pairs


def recording_hooks(intervention: Intervention) -> list[tuple[str, HookFn]]:
    """Extra hooks for the teacher-forced pass that records a *free-running* translation (Translator.record).

    Its row t must show what the query producing y_t attended to when it was decoded, and then no later token
    existed. Interventions that lift the causal mask would otherwise show weights on tokens produced afterwards.
    """
    lifts = intervention.no_causal_mask or intervention.bug == "mask_ignored"
    return [("decoder.layers.*.self_attn.hook_mask", keep_causal)] if lifts else []


@torch.no_grad()
def head_means(
    model: torch.nn.Module, src_ids: torch.Tensor, target_ids: list[int], names: list[str]
) -> dict[str, torch.Tensor]:
    """Each named hook_z averaged over its query positions in one unmodified teacher-forced pass: (1, H, 1, Dh)."""
    if src_ids.shape[0] != 1:
        raise ValueError(f"head means are measured on one sentence, got a batch of {src_ids.shape[0]}")
    cfg = model.config
    tgt_in = torch.tensor([[cfg.bos_id] + list(target_ids)[:-1]], device=src_ids.device)  # (1, T)
    with Tracer(model, names) as tracer:
        model(src_ids, tgt_in)
    return {name: tracer[name].mean(dim=2, keepdim=True).to(src_ids.device) for name in names}


def input_hooks(
    model: torch.nn.Module,
    src_ids: torch.Tensor,
    intervention: Intervention,
    options: DecodeOptions | None = None,
    target_ids: list[int] | None = None,
    forced_prefix: list[int] | None = None,
) -> list[tuple[str, HookFn]]:
    """`hooks()` for one sentence (1, S); mean ablation measures its means on the unmodified translation
    `target_ids` (decoded here with `options`, starting with `forced_prefix`, when not given)."""
    intervention.validate(model.config)
    if not intervention.needs_means:
        return hooks(model, intervention)
    if target_ids is None:
        target_ids = generate(model, src_ids, options, forced_prefix)[0].ids
    names = sorted({head_hook_name(kind, layer) for kind, layer, _ in intervention.ablate})
    return hooks(model, intervention, head_means(model, src_ids, target_ids, names))
