"""Step-by-step decoding: greedy, beam search and sampling, recording every step.

Each step keeps the chosen token, its probability under the model (softmax of the
logits at temperature 1, whatever the strategy), the entropy of that distribution
in nats, and the top alternatives — the numbers the app's top-k chart shows.
A forced prefix makes the first tokens fixed (a learner's branch), then the
strategy continues from there. All strategies decode incrementally with the
key/value cache of `Transformer.decode`; `use_cache=False` instead recomputes the
whole prefix with a teacher-forced pass at every step (the Annotated Transformer's
way): the same tokens, O(T²) work instead of O(T), kept as the reference and baseline.
(Not the same under an intervention that lifts the causal mask: recomputed, the earlier
positions then see later tokens, which the cache never holds when they are computed.)
"""

from __future__ import annotations

import functools
import math
import numbers
import operator
from dataclasses import dataclass, field

import torch

from .errors import UserError
from .model.transformer import Transformer

STRATEGIES = ("greedy", "beam", "sample")
MAX_BEAM_SIZE = 16
MAX_SEED = 2**63  # torch.Generator.manual_seed takes a 64-bit integer
MIN_TEMPERATURE = 0.001  # logits / T must stay finite in float32; below this, sampling is greedy in all but name


@dataclass
class DecodeOptions:
    """How to pick the next token; `validate()` explains any absurd value."""

    strategy: str = "greedy"  # "greedy", "beam" or "sample"
    max_new_tokens: int = 64  # stop after this many generated tokens (</s> included)
    beam_size: int = 4  # hypotheses kept by beam search
    length_penalty: float = 0.6  # beam: score = log p / ((5 + len) / 6) ** α (Wu et al. 2016)
    temperature: float = 1.0  # sample: softmax(logits / temperature)
    top_k: int = 0  # sample: keep the k most likely tokens (0 = all)
    top_p: float = 1.0  # sample: keep the smallest set with mass ≥ p (nucleus)
    seed: int | None = 0  # sample: random seed (None = fresh randomness)
    n_alternatives: int = 5  # alternatives recorded per step
    use_cache: bool = True  # reuse earlier positions' keys/values (False: recompute the prefix each step)

    def validate(self) -> DecodeOptions:
        for name in ("max_new_tokens", "beam_size", "top_k", "n_alternatives"):
            if not is_int(getattr(self, name)):
                raise UserError("err-option-whole", name=name, value=getattr(self, name))
        for name in ("temperature", "top_p", "length_penalty"):
            if not is_number(getattr(self, name)):
                raise UserError("err-option-number", name=name, value=getattr(self, name))
        if not isinstance(self.use_cache, bool):
            raise UserError("err-option-use-cache", value=self.use_cache)
        if self.seed is not None and not (is_int(self.seed) and -MAX_SEED < self.seed < MAX_SEED):
            raise UserError("err-option-seed", value=self.seed)
        if not isinstance(self.strategy, str) or self.strategy not in STRATEGIES:
            raise UserError("err-option-strategy", choices=STRATEGIES, value=self.strategy)
        if self.max_new_tokens < 1:
            raise UserError("err-option-max-new-tokens", value=self.max_new_tokens)
        if not 1 <= self.beam_size <= MAX_BEAM_SIZE:
            raise UserError("err-option-beam-size", high=MAX_BEAM_SIZE, value=self.beam_size)
        if not (math.isfinite(self.temperature) and self.temperature >= MIN_TEMPERATURE):
            raise UserError("err-option-temperature", low=MIN_TEMPERATURE, value=self.temperature)
        if self.top_k < 0:
            raise UserError("err-option-top-k", value=self.top_k)
        if not 0.0 < self.top_p <= 1.0:
            raise UserError("err-option-top-p", value=self.top_p)
        if not math.isfinite(self.length_penalty) or not 0.0 <= self.length_penalty <= 5.0:
            raise UserError("err-option-length-penalty", value=self.length_penalty)
        if not 1 <= self.n_alternatives <= 50:
            raise UserError("err-option-n-alternatives", high=50, value=self.n_alternatives)
        return self


@dataclass(frozen=True)
class Chosen:
    """A decoding option a visitor chooses: its DecodeOptions field (the command line's flag: --beam-size), its
    short name (the page's control and a share link's parameter: beam) and the type its text is read as."""

    field: str
    name: str
    kind: type


# The options the page, a share link and the command line offer, in the page's order; one definition for all.
CHOSEN = (
    Chosen("strategy", "strategy", str),
    Chosen("beam_size", "beam", int),
    Chosen("temperature", "temperature", float),
    Chosen("top_k", "top_k", int),
    Chosen("top_p", "top_p", float),
    Chosen("seed", "seed", int),
    Chosen("max_new_tokens", "max_len", int),
)


def chosen_options(values: dict) -> DecodeOptions:
    """{short name: value} (CHOSEN's, every one) → validated DecodeOptions; numbers may arrive as floats from a
    slider, and a cleared seed box as None (seed 0)."""
    fields = {}
    for option in CHOSEN:
        value = values[option.name]
        if option.name == "seed" and value is None:
            value = 0
        fields[option.field] = option.kind(value)
    return DecodeOptions(**fields).validate()


def is_int(value) -> bool:
    """A whole number that is not a bool (True is an int in Python, never a beam size)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def is_number(value) -> bool:
    """A real number that is not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


@dataclass
class Step:
    """One generated token and what the model thought at that moment."""

    id: int
    prob: float  # p(token | source, prefix)
    entropy: float  # H(p) in nats
    top_ids: list[int]  # the most likely tokens, best first
    top_probs: list[float]


@dataclass
class Hypothesis:
    """A finished (or cut-off) output: token ids without <s>, ending with </s> when reached."""

    ids: list[int]
    steps: list[Step]
    log_prob: float = 0.0
    finished: bool = False
    beam_tree: list[dict] = field(default_factory=list)  # beam search only: every node explored


def describe(log_probs: torch.Tensor, n_alternatives: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per row of (N, V) log-probabilities: entropy (N,), top probabilities and ids (N, k)."""
    probs = log_probs.exp()
    entropy = -(probs * log_probs).nan_to_num().sum(-1)  # 0 · log 0 = 0
    top_probs, top_ids = probs.topk(min(n_alternatives, probs.shape[-1]), dim=-1)
    return entropy, top_probs, top_ids


def read_steps(
    tokens: torch.Tensor, log_probs: torch.Tensor, entropy, top_probs, top_ids, rows: torch.Tensor | None = None
) -> tuple[list[Step], list[float]]:
    """A Step for each chosen token (N,) of row `rows` (default: token i of row i), and their log-probabilities.

    Five transfers for the whole batch; reading token by token would cost about a dozen small tensor
    operations and transfers each.
    """
    if rows is None:
        chosen = log_probs.gather(-1, tokens[:, None]).squeeze(-1)  # (N,) log p(token)
    else:  # beam search: several candidates may come from one row
        chosen = log_probs[rows, tokens]
        entropy, top_probs, top_ids = entropy[rows], top_probs[rows], top_ids[rows]
    found = zip(tokens.tolist(), chosen.exp().tolist(), entropy.tolist(), top_ids.tolist(), top_probs.tolist())
    return [Step(*step) for step in found], chosen.tolist()


class Recompute:
    """Stands in for the key/value cache but keeps only the tokens fed so far (the Annotated Transformer's way).

    Each step runs the decoder teacher-forced over the whole prefix <s> y1..yt again and keeps the last
    position's logits: the same numbers as the cached path, with O(t) work per step instead of O(1).
    """

    def __init__(self) -> None:
        self.tgt_ids: torch.Tensor | None = None  # (N, t) every target token fed so far

    def reorder(self, index: torch.Tensor) -> None:
        """Keep batch rows `index` (beam search: follow the surviving hypotheses)."""
        self.tgt_ids = self.tgt_ids.index_select(0, index)


def new_cache(model: Transformer, options: DecodeOptions):
    """The model's key/value cache, or a Recompute when `options.use_cache` is off."""
    return model.new_cache() if options.use_cache else Recompute()


def next_token_logits(model: Transformer, token, memory, src_ids, cache) -> torch.Tensor:
    """Logits (N, V) of the next token; <pad> and <s> are never generated, so they get −inf."""
    if isinstance(cache, Recompute):
        cache.tgt_ids = token if cache.tgt_ids is None else torch.cat([cache.tgt_ids, token], dim=1)  # (N, t)
        logits = model.decode(cache.tgt_ids, memory, src_ids)[:, -1].float()  # every position again, keep the last
    else:
        logits = model.decode(token, memory, src_ids, cache)[:, -1].float()  # only the new position
    return ban_never_generated(logits, model.config)


def ban_never_generated(logits: torch.Tensor, config) -> torch.Tensor:
    """<pad> and <s> can never be generated: their logits in (…, V) become −inf, in place."""
    return logits.index_fill_(-1, never_generated(config.pad_id, config.bos_id, logits.device), float("-inf"))


@functools.cache
def never_generated(pad_id: int, bos_id: int, device: torch.device) -> torch.Tensor:
    """The ids of <pad> and <s>, as an index tensor made once (one from a list at every step costs 10 µs)."""
    with torch.inference_mode(False):  # a normal tensor, usable with autograd, even when first made in generate()
        return torch.tensor([pad_id, bos_id], device=device)


def filter_logits(logits: torch.Tensor, top_k: int, top_p: float) -> torch.Tensor:
    """Top-k then nucleus (top-p) filtering of (N, V) logits: removed tokens get −inf."""
    if top_k and top_k < logits.shape[-1]:
        kth = logits.topk(top_k, dim=-1).values[..., -1:]  # (N, 1)
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p < 1.0:
        sorted_logits, order = logits.sort(dim=-1, descending=True)
        cumulative = sorted_logits.softmax(-1).cumsum(-1)
        drop_sorted = cumulative - sorted_logits.softmax(-1) >= top_p  # mass before this token already ≥ p
        drop = drop_sorted.scatter(-1, order, drop_sorted)
        logits = logits.masked_fill(drop, float("-inf"))
    return logits


@torch.inference_mode()  # like no_grad, minus autograd's version counters: ~10% per cached step
def generate(
    model: Transformer,
    src_ids: torch.Tensor,
    options: DecodeOptions | None = None,
    forced_prefix: list[int] | None = None,
    memory: torch.Tensor | None = None,
) -> list[Hypothesis]:
    """Translate a batch of source ids (B, S); one hypothesis per row.

    `memory` is the encoder's output for `src_ids` (B, S, D) when the caller has run it already.
    """
    options = (options or DecodeOptions()).validate()
    max_new = min(options.max_new_tokens, model.config.max_len)
    try:  # numpy or torch integers become Python ints (a beam trace keeps them, and JSON takes only ints)
        prefix = [operator.index(t) for t in (forced_prefix if forced_prefix is not None else [])]
    except TypeError:
        raise TypeError(f"forced prefix token ids must be integers, got {list(forced_prefix)!r}") from None
    vocab = model.config.tgt_vocab_size
    bad = [t for t in prefix if not 0 <= t < vocab or t in (model.config.pad_id, model.config.bos_id)]
    if bad:
        raise UserError("err-prefix-ids", bad=bad)
    if model.config.eos_id in prefix[:-1]:
        raise UserError("err-prefix-eos")
    if options.strategy == "beam":  # one sentence at a time
        rows = [src_ids[i : i + 1] for i in range(src_ids.shape[0])]  # (1, S) each
        memories = [model.encode(row) if memory is None else memory[i : i + 1] for i, row in enumerate(rows)]
        return [beam_search(model, row, m, options, max_new, prefix) for row, m in zip(rows, memories)]
    memory = model.encode(src_ids) if memory is None else memory  # (B, S, D)
    return sample_or_greedy(model, src_ids, memory, options, max_new, prefix)


def sample_or_greedy(
    model, src_ids, memory, options: DecodeOptions, max_new: int, prefix: list[int]
) -> list[Hypothesis]:
    """Greedy (argmax) or ancestral sampling, batched; finished rows are fed <pad>.

    Sampling gives every row a generator of its own, all seeded alike, so that a sentence's sample does not
    depend on the other sentences of the batch nor on its place in it; seed None draws the seed without
    touching PyTorch's global generator.
    """
    cfg = model.config
    B = src_ids.shape[0]
    cache = new_cache(model, options)
    generators = []
    if options.strategy == "sample":
        seed = options.seed if options.seed is not None else torch.Generator().seed()
        generators = [torch.Generator(device=src_ids.device).manual_seed(seed) for _ in range(B)]
    hyps = [Hypothesis([], []) for _ in range(B)]
    token = torch.full((B, 1), cfg.bos_id, dtype=torch.long, device=src_ids.device)
    for t in range(max_new):
        logits = next_token_logits(model, token, memory, src_ids, cache)  # (B, V)
        log_probs = logits.log_softmax(-1)
        if t < len(prefix):
            choice = torch.full((B,), prefix[t], dtype=torch.long, device=src_ids.device)
        elif not generators:
            choice = logits.argmax(-1)  # (B,)
        else:
            probs = filter_logits(logits / options.temperature, options.top_k, options.top_p).softmax(-1)  # (B, V)
            choice = torch.cat(
                [torch.multinomial(probs[b : b + 1], 1, generator=g)[0] for b, g in enumerate(generators)]
            )
        entropy, top_probs, top_ids = describe(log_probs, options.n_alternatives)
        steps, step_log_probs = read_steps(choice, log_probs, entropy, top_probs, top_ids)
        for hyp, step, log_prob in zip(hyps, steps, step_log_probs):
            if hyp.finished:
                continue
            hyp.ids.append(step.id)
            hyp.steps.append(step)
            hyp.log_prob += log_prob
            hyp.finished = step.id == cfg.eos_id
        done = [h.finished for h in hyps]
        if all(done):
            break
        if any(done):  # finished rows are fed <pad> from now on
            choice = choice.masked_fill(torch.tensor(done, device=src_ids.device), cfg.pad_id)
        token = choice[:, None]  # (B, 1)
    return hyps


def length_penalty(length: int, alpha: float) -> float:
    """lp(Y) = ((5 + |Y|) / 6) ** α, Wu et al. (2016), eq. (14)."""
    return ((5 + length) / 6) ** alpha


def beam_search(model, src_ids, memory, options: DecodeOptions, max_new: int, prefix: list[int]) -> Hypothesis:
    """Keep the `beam_size` best partial translations by total log-probability.

    One sentence: src (1, S), memory (1, S, D).
    """
    cfg, k = model.config, options.beam_size
    cache = new_cache(model, options)
    beams = [Hypothesis([], [])]  # alive hypotheses, one per batch row
    finished: list[Hypothesis] = []
    tree: list[dict] = []
    parents = [-1]  # node index in `tree` of each alive beam
    token = torch.full((1, 1), cfg.bos_id, dtype=torch.long, device=src_ids.device)
    for t in range(max_new):
        n = len(beams)
        logits = next_token_logits(model, token, memory.expand(n, -1, -1), src_ids.expand(n, -1), cache)
        log_probs = logits.log_softmax(-1)  # (n, V)
        entropy, top_probs, top_ids = describe(log_probs, options.n_alternatives)
        if t < len(prefix):  # forced: every beam takes the prefix token (there is one beam)
            candidates = [(beams[0].log_prob + float(log_probs[0, prefix[t]]), 0, prefix[t])]
        else:
            scores = torch.tensor([b.log_prob for b in beams], device=logits.device)[:, None] + log_probs  # (n, V)
            best, flat = scores.flatten().topk(min(2 * k, scores.numel()))
            V = scores.shape[-1]
            # (a banned <pad> or <s> scores −inf: with a tiny vocabulary it could be among the 2k best)
            candidates = [(s, i // V, i % V) for s, i in zip(best.tolist(), flat.tolist()) if s != float("-inf")]
        as_tensor = functools.partial(torch.tensor, device=logits.device)
        steps, _ = read_steps(
            as_tensor([tok for *_, tok in candidates]),
            log_probs,
            entropy,
            top_probs,
            top_ids,
            rows=as_tensor([row for _, row, _ in candidates]),
        )
        new_beams, rows = [], []
        for (score, row, tok), step in zip(candidates, steps):
            parent = beams[row]
            hyp = Hypothesis(parent.ids + [tok], parent.steps + [step], score)
            node = dict(step=t, parent=parents[row], id=tok, log_prob=score, finished=tok == cfg.eos_id, kept=False)
            tree.append(node)
            if len(new_beams) >= k:
                continue  # scored but pruned: the beam is full
            node["kept"] = True
            if tok == cfg.eos_id:
                hyp.finished = True
                finished.append(hyp)
            else:
                new_beams.append((hyp, len(tree) - 1))
                rows.append(row)
        if len(finished) >= k or not new_beams:
            break
        beams = [h for h, _ in new_beams]
        parents = [i for _, i in new_beams]
        cache.reorder(torch.tensor(rows, device=src_ids.device))
        token = torch.tensor([[h.ids[-1]] for h in beams], device=src_ids.device)
    pool = finished or beams  # a finished translation beats one cut off at max_len, whatever their scores
    best = max(pool, key=lambda h: h.log_prob / length_penalty(len(h.ids), options.length_penalty))
    best.beam_tree = tree
    return best
