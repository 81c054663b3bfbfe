"""A tiny tokenizer + randomly initialised model, built in seconds, for tests that need a Translator.

Also EVIL, an HTML payload, and with_evil_tokens(trace), which puts it among a trace's tokens: figures and pages
must show it literally, never run it; MARKUP, pieces that Markdown would read as markup, and shown(markdown), what
a CommonMark renderer makes of a text.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import html
import itertools
import re
import tempfile
from pathlib import Path

import torch
from markdown_it import MarkdownIt

from transformer_viz import Transformer, TransformerConfig
from transformer_viz.tokenizer import Tokenizer
from transformer_viz.trace import Trace
from transformer_viz.translator import Translator

SUBJECTS = [("I", "ich"), ("you", "du"), ("we", "wir"), ("the dog", "der Hund"), ("my brother", "mein Bruder")]
VERBS = [("see", "sehe"), ("like", "mag"), ("have", "habe"), ("want", "will")]
OBJECTS = [("the house", "das Haus"), ("a cat", "eine Katze"), ("the garden", "den Garten"), ("coffee", "Kaffee")]
SENTENCES = [
    (f"{s} {v} {o}.", f"{sd} {vd} {od}.") for (s, sd), (v, vd), (o, od) in itertools.product(SUBJECTS, VERBS, OBJECTS)
]


@functools.cache
def tiny_tokenizer_file() -> Path:
    """A 56-piece SentencePiece model trained on the toy sentences (cached per test session)."""
    folder = Path(tempfile.mkdtemp(prefix="tv-tok-"))
    texts = [en for en, _ in SENTENCES] + [de for _, de in SENTENCES]
    Tokenizer.train(texts, folder / "tokenizer.model", vocab_size=56)
    return folder / "tokenizer.model"


def tiny_translator(preset: str = "seed000", seed: int = 0, **overrides) -> Translator:
    """A randomly initialised 2-layer model with the tiny tokenizer: fast, deterministic, nonsense output."""
    tokenizer = Tokenizer.load(tiny_tokenizer_file())
    torch.manual_seed(seed)
    fields = dict(
        src_vocab_size=tokenizer.vocab_size,
        tgt_vocab_size=tokenizer.vocab_size,
        d_model=32,
        n_heads=4,
        n_layers=2,
        d_ff=64,
        dropout=0.0,
        max_len=48,
    )
    config = TransformerConfig.preset(preset, **{**fields, **overrides})
    return Translator(Transformer(config).eval(), tokenizer, name=f"tiny-{preset}")


EVIL = "<img src=x onerror=alert(1)>"
EVIL_ESCAPED = "&lt;img src=x onerror=alert(1)&gt;"  # how a page must show it


def with_evil_tokens(trace: Trace) -> Trace:
    """The trace with EVIL as source token 1, as target token 0, and as step 0's choice and first alternative."""
    steps = copy.deepcopy(trace.steps)
    steps[0]["token"] = steps[0]["top_k"][0]["token"] = EVIL
    source = list(trace.source_tokens)
    source[1] = EVIL
    target = list(trace.target_tokens)
    target[0] = EVIL
    return dataclasses.replace(trace, source_tokens=source, target_tokens=target, steps=steps)


# Pieces and names that Markdown or HTML would otherwise read as markup.
MARKUP = ["**", "_a_", "[x](y)", "`c`", "</s>", "$$x$$", "\\", "# h", "a|b", "~~s~~", "&amp;", "1.", "- a", EVIL]


def shown(markdown: str) -> tuple[str, str]:
    """(HTML, visible text) of Markdown as a CommonMark renderer with tables and strikethrough shows it."""
    rendered = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)
    return rendered, html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip()


def bundle_learned_model(tmp_path, monkeypatch):
    """A tiny learned-positions seed004 as the only bundled model (in tmp_path), registered: returns it."""
    from transformer_viz.app import models
    from transformer_viz.hub.hub import save_checkpoint

    monkeypatch.delenv(models.HUB_MODEL_ENV, raising=False)
    learned = tiny_translator("seed004", seed=3)
    save_checkpoint(tmp_path / "seed004", learned.model, tiny_tokenizer_file())
    monkeypatch.setattr(models, "CHECKPOINTS_DIR", tmp_path)
    monkeypatch.setattr(models, "available_models", lambda folder=tmp_path: ["seed004"])
    models.register_translator("seed004", learned)
    return learned
