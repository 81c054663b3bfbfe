"""Translator = model + tokenizer: translate sentences and record traces; from_pretrained() finds checkpoints."""

from __future__ import annotations

import logging
import os
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import torch

from .cleaning import MARKUP, MAX_CHARS, clean_text
from .decoding import DecodeOptions, Hypothesis, generate
from .errors import Notice, UserError
from .hub.hub import TOKENIZER_NAME, CheckpointError, resolve_checkpoint
from .hub.model import Transformer as HubTransformer
from .model.hooks import Tracer, intervene
from .model.transformer import Transformer, resolve_device
from .probes.interventions import Intervention, input_hooks, recording_hooks
from .probes.lens import logit_lens
from .score import Score
from .scoring import score_german
from .tokenizer import Tokenizer
from .trace import ATTENTION_KINDS, Trace

log = logging.getLogger(__name__)
VECTOR_HOOKS = ("hook_q", "hook_k", "hook_v", "hook_z")  # each head's query, key, value and weighted sum of values
SOURCE_HOOKS = (
    "encoder.layers.*.self_attn.hook_pattern",
    "encoder.hook_pos",
    "encoder.layers.0.self_attn.hook_mask",
    *(f"encoder.layers.*.self_attn.{hook}" for hook in VECTOR_HOOKS),
    "encoder.layers.*.self_attn_sublayer.hook_*",  # the attention's input (after its LayerNorm) and its output
    "encoder.hook_input",
    "encoder.layers.*.hook_resid_*",
)
TARGET_HOOKS = (
    "decoder.layers.*.self_attn.hook_pattern",
    "decoder.layers.*.cross_attn.hook_pattern",
    "decoder.layers.0.self_attn.hook_mask",
    "decoder.layers.0.cross_attn.hook_mask",
    *(f"decoder.layers.*.{attn}.{hook}" for attn in ("self_attn", "cross_attn") for hook in VECTOR_HOOKS),
    "decoder.hook_input",
    "decoder.layers.*.hook_resid_*",
    "decoder.layers.*.self_attn_sublayer.hook_*",
    "decoder.layers.*.cross_attn_sublayer.hook_*",
)
PATTERN_HOOKS = SOURCE_HOOKS + TARGET_HOOKS  # what a trace records
UNKNOWN_SHARE = 0.5  # from this share of <unk> pieces on, a trace says that the model cannot read its input


def unknown_notice(pieces: list[str]) -> Notice | None:
    """A notice when at least UNKNOWN_SHARE of a sentence's pieces are <unk> (emoji, Japanese, …): it reads English."""
    # </s> and a lone "▁" (the space before the next piece) are not counted: they carry no word.
    read = [piece for piece in pieces if piece not in ("</s>", "<pad>", "▁")]
    unknown = sum(piece == "<unk>" for piece in read)
    if not read or unknown < UNKNOWN_SHARE * len(read):
        return None
    return Notice("notice-unknown-pieces", unknown=unknown, total=len(read))


class Translator:
    """A trained model with its tokenizer: translate(str | list[str]) and trace(str)."""

    def __init__(self, model: Transformer, tokenizer: Tokenizer, name: str = "custom"):
        if tokenizer.vocab_size != model.config.src_vocab_size:
            raise CheckpointError(
                f"tokenizer has {tokenizer.vocab_size} pieces but the model expects {model.config.src_vocab_size}"
            )
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.name = name
        self.n_parameters = model.num_parameters()  # counted once: it walks every module

    @classmethod
    def from_pretrained(
        cls, name_or_path: str | os.PathLike | None = None, device: str | torch.device = "auto", **hub_options
    ) -> Translator:
        """The model (Transformer.from_pretrained) and the tokenizer.model beside it, from a folder or the Hub.

        None is the bundled default checkpoint; `hub_options` (revision, cache_dir, token, force_download,
        local_files_only) apply to a Hub repo id, which is read from the local cache first.
        """
        folder = resolve_checkpoint(name_or_path, **hub_options)
        model = HubTransformer.from_pretrained(folder, map_location=resolve_device(device))
        tokenizer_file = folder / TOKENIZER_NAME
        if not tokenizer_file.is_file():
            raise CheckpointError(f"{folder} has no {TOKENIZER_NAME}")
        name = str(name_or_path) if name_or_path is not None else folder.name
        return cls(model, Tokenizer.load(tokenizer_file), name=Path(name).name if Path(name).is_dir() else name)

    @property
    def config(self):
        return self.model.config

    def encode_sources(self, texts: list[str]) -> tuple[torch.Tensor, list[list[str]]]:
        """Padded source ids (B, S) ending in </s>, and per sentence the notices (e.g. truncation)."""
        rows, notices = [], []
        max_len = self.config.max_len
        for text in texts:
            if not isinstance(text, str):
                raise TypeError(f"expected a sentence (str), got {type(text).__name__}")
            notes: list[str] = []
            cleaned = clean_text(text[:MAX_CHARS])
            if not cleaned:
                raise UserError("err-empty")
            if len(text) > MAX_CHARS:  # in the order the cuts are made: the characters, the markup, the tokens
                notes.append(Notice("notice-cut-chars", n=MAX_CHARS))
            if tags := MARKUP.findall(cleaned):
                cleaned = clean_text(MARKUP.sub(" ", cleaned))
                if not cleaned:
                    raise UserError("err-only-markup")
                notes.append(Notice("notice-markup", n=len(tags)))
            ids = self.tokenizer.encode(cleaned)
            if len(ids) > max_len:
                ids = ids[: max_len - 1] + [self.config.eos_id]
                notes.append(Notice("notice-cut-tokens", n=max_len))
            rows.append(ids)
            notices.append(notes)
        S = max(len(r) for r in rows)
        src = torch.full((len(rows), S), self.config.pad_id, dtype=torch.long)
        for b, ids in enumerate(rows):
            src[b, : len(ids)] = torch.tensor(ids)
        return src.to(self.model.device), notices

    def options(self, options: DecodeOptions | None = None, **overrides) -> DecodeOptions:
        return replace(options or DecodeOptions(), **overrides).validate()

    def translate(
        self,
        text: str | list[str],
        options: DecodeOptions | None = None,
        intervention: Intervention | None = None,
        truncate: bool = True,
        **overrides,
    ) -> str | list[str]:
        """English → German; a list in gives a list out, decoded as one padded batch (under `intervention` if given).

        Input longer than the model reads is cut (trace() lists it in its notices); with truncate=False it is
        refused with a ValueError instead, for callers that would otherwise never learn of the cut.
        """
        single = isinstance(text, str)
        texts = [text] if single else list(text)
        if not texts:
            return []
        if intervention is not None and intervention.needs_means and len(texts) > 1:  # means are per sentence
            return [self.translate(t, options, intervention, truncate, **overrides) for t in texts]
        src, notices = self.encode_sources(texts)
        cut = [i for i, notes in enumerate(notices) if notes]  # every notice says the input was cut
        if cut and not truncate:
            limits = dict(tokens=self.config.max_len, chars=MAX_CHARS)
            if single:
                raise UserError("err-text-too-long", **limits)
            raise UserError("err-texts-too-long", index=cut[0], **limits)
        opts = self.options(options, **overrides)
        extra = [] if intervention is None else input_hooks(self.model, src, intervention, opts)
        with intervene(self.model, extra):
            hyps = generate(self.model, src, opts)
        out = [self.tokenizer.decode(h.ids) for h in hyps]
        return out[0] if single else out

    def trace(
        self,
        text: str,
        strategy: str | None = None,
        max_new_tokens: int | None = None,
        forced_prefix: list[int] | None = None,
        options: DecodeOptions | None = None,
        intervention: Intervention | None = None,
        **overrides,
    ) -> Trace:
        """Translate one sentence and record every step and every attention pattern (under `intervention` if given)."""
        # strategy and max_new_tokens, when given, override `options` (which default to greedy, 64 tokens)
        given = {k: v for k, v in dict(strategy=strategy, max_new_tokens=max_new_tokens).items() if v is not None}
        opts = self.options(options, **given, **overrides)
        src, notices = self.encode_sources([text])
        unreadable = unknown_notice(self.tokenizer.ids_to_pieces(src[0].tolist()))
        if unreadable is not None:
            notices[0].append(unreadable)
        # a mean ablation's means come from the unmodified translation that starts with the same forced tokens
        extra = (
            []
            if intervention is None
            else input_hooks(self.model, src, intervention, opts, forced_prefix=forced_prefix)
        )
        if intervention is not None and not intervention.is_identity:
            notices[0].append(f"intervention: {intervention.describe()}")
        with intervene(self.model, extra):  # the hooks live only in this block: the shared model is not changed
            with torch.inference_mode(), Tracer(self.model, SOURCE_HOOKS) as source:
                memory = self.model.encode(src)  # (1, S, D), encoded once: decoding and the recording share it
            hyp = generate(self.model, src, opts, forced_prefix, memory=memory)[0]
        if len(hyp.ids) >= opts.max_new_tokens and hyp.ids[-1:] != [self.config.eos_id]:  # cut, not finished
            notices[0].append(Notice("notice-output-limit", n=opts.max_new_tokens))
        replay = [] if intervention is None else recording_hooks(intervention)  # row t: what y_t's query could see
        with intervene(self.model, extra + replay):  # the replay hooks are the decoder's: the memory stands
            n_forced = min(len(forced_prefix or []), len(hyp.ids))  # generate() cuts a prefix longer than the limit
            return self.record(text, src, hyp, opts, n_forced, notices[0], encoded=(memory, source))

    def score(self, source: str, german: str) -> Score:
        """Score a German sentence as the translation of `source`, piece by piece (scoring.py): one teacher-forced
        pass, beside the model's own greedy translation. German longer than max_len pieces is refused, not cut."""
        src, notices = self.encode_sources([source])
        unreadable = unknown_notice(self.tokenizer.ids_to_pieces(src[0].tolist()))
        notes = notices[0] + ([] if unreadable is None else [unreadable])
        return score_german(self.model, self.tokenizer, src, german, source, notes, name=self.name)

    @torch.inference_mode()
    def record(
        self,
        text: str,
        src: torch.Tensor,
        hyp: Hypothesis,
        opts: DecodeOptions,
        n_forced: int,
        notices: list[str],
        encoded: tuple[torch.Tensor, Tracer],
    ) -> Trace:
        """One teacher-forced pass of the decoder over <s> y1..y(T-1) with the tracer on.

        Row t is the query that produced y_t.

        (Cached decoding and this pass give the same numbers; the test suite checks it.) `encoded` is the source's
        memory and the Tracer that recorded its encoding: the encoder does not run again. The steps' probabilities
        come from decoding, so this pass stops before the output projection.
        """
        tgt_in = torch.tensor([[self.config.bos_id] + hyp.ids[:-1]], device=src.device)  # (1, T)
        memory, source = encoded
        with Tracer(self.model, TARGET_HOOKS) as tracer:
            self.model.decode(tgt_in, memory, src, logits=False)
        return self.assemble(text, src, hyp, opts, n_forced, notices, {**source.cache, **tracer.cache})

    def assemble(
        self,
        text: str,
        src: torch.Tensor,
        hyp: Hypothesis,
        opts: DecodeOptions,
        n_forced: int,
        notices: list[str],
        recorded: dict[str, torch.Tensor],
    ) -> Trace:
        """The Trace of `hyp` from the PATTERN_HOOKS tensors of a teacher-forced pass over <s> y1..y(T-1)."""
        cfg, tok = self.config, self.tokenizer
        steps = [
            dict(
                index=t,
                token=tok.id_to_piece(s.id),
                id=s.id,
                prob=s.prob,
                entropy=s.entropy,
                top_k=[dict(token=tok.id_to_piece(i), id=i, prob=p) for i, p in zip(s.top_ids, s.top_probs)],
            )
            for t, s in enumerate(hyp.steps)
        ]
        src_ids = src[0].tolist()
        residual = stack_residual(recorded, cfg.n_layers)
        return Trace(
            source_text=text,
            source_tokens=tok.ids_to_pieces(src_ids),
            source_ids=src_ids,
            target_text=tok.decode(hyp.ids),
            target_tokens=tok.ids_to_pieces(hyp.ids),
            target_ids=list(hyp.ids),
            steps=steps,
            attention={
                "encoder_self": stack_patterns(recorded, "encoder", "self_attn", cfg.n_layers),
                "decoder_self": stack_patterns(recorded, "decoder", "self_attn", cfg.n_layers),
                "cross": stack_patterns(recorded, "decoder", "cross_attn", cfg.n_layers),
            },
            masks={  # as the model applied them (layer 0; every layer uses the same), (Tq, Tk)
                "encoder": recorded["encoder.layers.0.self_attn.hook_mask"][0, 0].numpy(),
                "decoder": recorded["decoder.layers.0.self_attn.hook_mask"][0, 0].numpy(),
                "cross": recorded["decoder.layers.0.cross_attn.hook_mask"][0, 0].numpy(),
            },
            positional_encoding=recorded["encoder.hook_pos"][0].float().numpy(),
            decoder_self_scores=raw_scores(recorded, cfg.n_layers),
            vectors={kind: stack_vectors(recorded, kind, cfg.n_layers) for kind in ATTENTION_KINDS},
            residual=residual,
            logit_lens=logit_lens(self.model, residual, list(hyp.ids), tok.id_to_piece),  # ~1 ms: 6000 pieces
            sublayers={kind: stack_sublayer(recorded, kind, cfg.n_layers) for kind in ATTENTION_KINDS},
            encoder_residual=stack_residual(recorded, cfg.n_layers, "encoder"),
            model={"name": self.name, "config": cfg.to_dict(), "parameters": self.n_parameters},
            options=asdict(opts),
            forced_prefix=n_forced,
            notices=notices,
            beam_tree=hyp.beam_tree,
        )


def stack_patterns(recorded: dict[str, torch.Tensor], stack: str, attn: str, n_layers: int) -> np.ndarray:
    """Patterns of every layer of one attention kind for batch row 0: (L, H, Tq, Tk).

    float32 whatever the model's dtype.
    """
    return (
        torch.stack([recorded[f"{stack}.layers.{i}.{attn}.hook_pattern"][0] for i in range(n_layers)]).float().numpy()
    )


ATTENTIONS = {
    "encoder_self": ("encoder", "self_attn"),
    "decoder_self": ("decoder", "self_attn"),
    "cross": ("decoder", "cross_attn"),
}


def stack_vectors(recorded: dict[str, torch.Tensor], kind: str, n_layers: int) -> dict[str, np.ndarray]:
    """One attention kind's q, k, v and z for batch row 0, every layer: q, z (L, H, Tq, Dh); k, v (L, H, Tk, Dh)."""
    stack, attn = ATTENTIONS[kind]
    return {
        hook.removeprefix("hook_"): torch.stack(
            [recorded[f"{stack}.layers.{i}.{attn}.{hook}"][0] for i in range(n_layers)]
        )
        .float()
        .numpy()
        for hook in VECTOR_HOOKS
    }


def stack_residual(recorded: dict[str, torch.Tensor], n_layers: int, stack: str = "decoder") -> np.ndarray:
    """A stack's residual stream for batch row 0: the decoder's at residual_points (1 + 3L, T, D), the encoder's at
    encoder_residual_points (1 + 2L, S, D)."""
    points = ("mid", "cross", "post") if stack == "decoder" else ("mid", "post")
    names = [f"{stack}.hook_input"] + [
        f"{stack}.layers.{i}.hook_resid_{point}" for i in range(n_layers) for point in points
    ]
    return torch.stack([recorded[name][0] for name in names]).float().numpy()


def stack_sublayer(recorded: dict[str, torch.Tensor], kind: str, n_layers: int) -> dict[str, np.ndarray]:
    """One attention kind's sublayer for batch row 0, every layer: its input (what W_Q reads, after the LayerNorm
    where the preset has one there) and its output (after W_O), two (L, Tq, D)."""
    stack, attn = ATTENTIONS[kind]
    return {
        name: torch.stack([recorded[f"{stack}.layers.{i}.{attn}_sublayer.hook_{hook}"][0] for i in range(n_layers)])
        .float()
        .numpy()
        for name, hook in (("input", "in"), ("output", "out"))
    }


def raw_scores(recorded: dict[str, torch.Tensor], n_layers: int) -> np.ndarray:
    """Decoder self-attention scores Q Kᵀ / √Dh before the causal mask, for the mask pipeline view. (L, H, T, T)"""
    rows = []
    for i in range(n_layers):
        q, k = recorded[f"decoder.layers.{i}.self_attn.hook_q"][0], recorded[f"decoder.layers.{i}.self_attn.hook_k"][0]
        rows.append(q.float() @ k.float().transpose(-2, -1) / q.shape[-1] ** 0.5)  # (H, T, T)
    return torch.stack(rows).numpy()


def load_model(name_or_path: str | os.PathLike | None = None, device: str | torch.device = "auto") -> Translator:
    """The bundled default checkpoint, a bundled name, a local folder, or a Hub repo id ('owner/name')."""
    return Translator.from_pretrained(name_or_path, device)
