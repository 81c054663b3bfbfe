"""The encoder–decoder Transformer of "Attention Is All You Need", with hook points everywhere.

Shape letters, used in every comment: B batch, S source length, T target length,
H heads, D d_model, Dh d_head, V vocabulary size.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from .attention import KeyValueCache, MultiHeadAttention
from .config import TransformerConfig
from .hooks import HookPoint, hook_names, name_hook_points
from .masks import causal_mask, cross_mask, decoder_mask, encoder_mask, padding_mask


class TokenEmbedding(nn.Module):
    """Token ids → vectors, × √D (sec. 3.4) and exactly zero at <pad> when the config says so."""

    def __init__(self, vocab_size: int, config: TransformerConfig):
        super().__init__()
        self.lookup = nn.Embedding(vocab_size, config.d_model)
        self.pad_id = config.pad_id
        self.zero_pad = config.zero_pad_embeddings
        self.scale = math.sqrt(config.d_model) if config.scale_embeddings else 1.0
        # std D^-1/2: scaled by √D the inputs have unit variance, and the tied output projection
        # starts with logits of order 1 (N(0, 1) rows would give logits of order √D).
        nn.init.normal_(self.lookup.weight, std=config.d_model**-0.5)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        e = self.lookup(ids)  # (B, L, D)
        if self.zero_pad:
            e = e * (ids != self.pad_id).unsqueeze(-1)  # exact zeros even if the row is tied and trained
        return e * self.scale


class SinusoidalPositionalEncoding(nn.Module):
    """PE(pos, 2i) = sin(pos / 10000^(2i/D)), PE(pos, 2i+1) = cos(pos / 10000^(2i/D)), sec. 3.5."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.max_len = config.max_len
        pos = torch.arange(config.max_len, dtype=torch.float64)[:, None]  # (max_len, 1)
        two_i = torch.arange(0, config.d_model, 2, dtype=torch.float64)  # (D/2,)
        angle = pos / 10000.0 ** (two_i / config.d_model)  # (max_len, D/2)
        table = torch.zeros(config.max_len, config.d_model, dtype=torch.float64)
        table[:, 0::2], table[:, 1::2] = torch.sin(angle), torch.cos(angle)
        # A buffer: built once, moves with .to(device), not a parameter, not saved.
        self.register_buffer("table", table.float(), persistent=False)

    def forward(self, length: int, offset: int = 0) -> torch.Tensor:
        check_length(length + offset, self.max_len)
        return self.table[offset : offset + length].unsqueeze(0)  # (1, L, D)


class LearnedPositionalEmbedding(nn.Module):
    """One trained vector per position, nn.Embedding(max_len, D) (as in BERT / the Korean notes)."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.max_len = config.max_len
        self.table = nn.Embedding(config.max_len, config.d_model)
        nn.init.normal_(self.table.weight, std=config.d_model**-0.5)  # the same scale as the token embeddings

    def forward(self, length: int, offset: int = 0) -> torch.Tensor:
        check_length(length + offset, self.max_len)
        return self.table.weight[offset : offset + length].unsqueeze(0)  # (1, L, D)


def check_length(length: int, max_len: int) -> None:
    """Refuse sequences longer than the positional table, naming the limit."""
    if length > max_len:
        raise ValueError(f"sequence of {length} tokens is longer than the model's max_len={max_len}; shorten the input")


class FeedForward(nn.Module):
    """FFN(x) = max(0, x W1 + b1) W2 + b2, eq. (2)."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.w_1 = nn.Linear(config.d_model, config.d_ff)
        self.w_2 = nn.Linear(config.d_ff, config.d_model)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w_2(self.dropout(torch.relu(self.w_1(x))))  # (B, L, D)


class Sublayer(nn.Module):
    """Residual connection around a sublayer, in either norm order (sec. 5.4 dropout before the add).

    pre-LN:  x + Dropout(f(LayerNorm(x)))      post-LN:  LayerNorm(x + Dropout(f(x)))
    """

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.norm = nn.LayerNorm(config.d_model, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.dropout)
        self.norm_first = config.norm_first
        self.hook_in = HookPoint()  # (B, L, D) what f(·) reads: LayerNorm(x) in pre-LN, x itself in post-LN
        self.hook_out = HookPoint()  # (B, L, D) the sublayer's output f(·), before dropout and the add

    def forward(self, x: torch.Tensor, sublayer) -> torch.Tensor:
        if self.norm_first:
            return x + self.dropout(self.hook_out(sublayer(self.hook_in(self.norm(x)))))
        return self.norm(x + self.dropout(self.hook_out(sublayer(self.hook_in(x)))))


class EncoderLayer(nn.Module):
    """Self-attention then FFN, each wrapped in a residual Sublayer."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.self_attn = MultiHeadAttention(config)
        self.self_attn_sublayer = Sublayer(config)
        self.ffn = FeedForward(config)
        self.ffn_sublayer = Sublayer(config)
        self.hook_resid_mid = HookPoint()  # (B, S, D) after self-attention
        self.hook_resid_post = HookPoint()  # (B, S, D) after the FFN: the block's output

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = self.hook_resid_mid(self.self_attn_sublayer(x, lambda x: self.self_attn(x, x, mask)))
        return self.hook_resid_post(self.ffn_sublayer(x, self.ffn))


class DecoderLayer(nn.Module):
    """Masked self-attention, cross-attention over the encoder memory, then FFN."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.self_attn = MultiHeadAttention(config)
        self.self_attn_sublayer = Sublayer(config)
        self.cross_attn = MultiHeadAttention(config)
        self.cross_attn_sublayer = Sublayer(config)
        self.ffn = FeedForward(config)
        self.ffn_sublayer = Sublayer(config)
        self.hook_resid_mid = HookPoint()  # (B, T, D) after self-attention
        self.hook_resid_cross = HookPoint()  # (B, T, D) after cross-attention
        self.hook_resid_post = HookPoint()  # (B, T, D) after the FFN: the block's output
        self.max_len = config.max_len  # positions a self-attention cache may grow to

    def forward(self, y, memory, self_mask, cross_mask, cache: dict | None = None) -> torch.Tensor:
        y = self.self_attn_sublayer(y, lambda y: self.self_attn(y, y, self_mask, cache, "self", self.max_len))
        y = self.hook_resid_mid(y)
        source = None if cache is not None and "cross" in cache else memory  # memory K/V are cached once
        y = self.cross_attn_sublayer(y, lambda y: self.cross_attn(y, source, cross_mask, cache, "cross"))
        y = self.hook_resid_cross(y)
        return self.hook_resid_post(self.ffn_sublayer(y, self.ffn))


class Embedder(nn.Module):
    """Token embedding + positional encoding (+ dropout): the first block's input."""

    def __init__(self, embed: TokenEmbedding, config: TransformerConfig):
        super().__init__()
        self.embed = embed
        self.pos = (
            SinusoidalPositionalEncoding(config)
            if config.positional == "sinusoidal"
            else LearnedPositionalEmbedding(config)
        )
        self.dropout = nn.Dropout(config.dropout)
        self.hook_embed = HookPoint()  # (B, L, D) token embeddings (scaled)
        self.hook_pos = HookPoint()  # (1, L, D) the positional encodings that are added
        self.hook_input = HookPoint()  # (B, L, D) their sum after dropout

    def embed_input(self, ids: torch.Tensor, offset: int = 0) -> torch.Tensor:
        x = self.hook_embed(self.embed(ids))  # (B, L, D)
        pos = self.hook_pos(self.pos(ids.shape[1], offset), shared=True)  # (1, L, D), a view of the table
        return self.hook_input(self.dropout(x + pos))


class Encoder(Embedder):
    """N encoder layers over the embedded source; returns the memory (B, S, D)."""

    def __init__(self, embed: TokenEmbedding, config: TransformerConfig):
        super().__init__(embed, config)
        self.layers = nn.ModuleList(EncoderLayer(config) for _ in range(config.n_layers))
        self.norm = nn.LayerNorm(config.d_model, eps=config.layer_norm_eps) if config.final_norm else nn.Identity()
        self.hook_output = HookPoint()  # (B, S, D) the memory the decoder attends to

    def forward(self, src_ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = self.embed_input(src_ids)  # (B, S, D)
        for layer in self.layers:
            x = layer(x, mask)
        return self.hook_output(self.norm(x))


class Decoder(Embedder):
    """N decoder layers, then the output projection to next-token logits (B, T, V)."""

    def __init__(self, embed: TokenEmbedding, config: TransformerConfig):
        super().__init__(embed, config)
        self.layers = nn.ModuleList(DecoderLayer(config) for _ in range(config.n_layers))
        self.norm = nn.LayerNorm(config.d_model, eps=config.layer_norm_eps) if config.final_norm else nn.Identity()
        self.generator = nn.Linear(config.d_model, config.tgt_vocab_size)
        if config.tie_embeddings:  # sec. 3.4: share the target embedding and pre-softmax weights
            self.generator.weight = embed.lookup.weight
        self.hook_output = HookPoint()  # (B, T, D) the last hidden state
        self.hook_logits = HookPoint()  # (B, T, V) next-token scores before softmax

    def forward(
        self, y, memory, self_mask, cross_mask, caches: list[dict] | None = None, offset: int = 0, logits: bool = True
    ):
        y = self.embed_input(y, offset)  # (B, T, D)
        for i, layer in enumerate(self.layers):
            y = layer(y, memory, self_mask, cross_mask, None if caches is None else caches[i])
        y = self.hook_output(self.norm(y))
        if not logits:  # a pass that only records what the layers saw skips the T × D × V projection
            return y
        return self.hook_logits(self.generator(y))  # (B, T, V)


class DecoderCache:
    """Keys/values of the target positions decoded so far, per layer, for incremental decoding."""

    def __init__(self, n_layers: int):
        self.layers: list[dict[str, KeyValueCache]] = [{} for _ in range(n_layers)]  # "self", "cross"
        self.tgt_ids: torch.Tensor | None = None  # (B, t) every target token fed so far
        self.target_keys: torch.Tensor | None = None  # (B, 1, 1, t) padding_mask(tgt_ids): True at real tokens
        self.source_keys: torch.Tensor | None = None  # (B, 1, 1, S) padding_mask(src_ids), made on the first step

    @property
    def length(self) -> int:
        return 0 if self.tgt_ids is None else self.tgt_ids.shape[1]

    def append(self, tgt_ids: torch.Tensor, src_ids: torch.Tensor, pad_id: int) -> None:
        """Record the new target ids (B, Tnew) and which of them are real keys; the source's once."""
        new_keys = padding_mask(tgt_ids, pad_id)  # (B, 1, 1, Tnew)
        if self.tgt_ids is None:
            self.tgt_ids, self.target_keys = tgt_ids, new_keys
            self.source_keys = padding_mask(src_ids, pad_id)  # the source is the same at every step
        else:
            self.tgt_ids = torch.cat([self.tgt_ids, tgt_ids], dim=1)
            self.target_keys = torch.cat([self.target_keys, new_keys], dim=-1)

    def reorder(self, index: torch.Tensor) -> None:
        """Keep batch rows `index` (beam search: follow the surviving hypotheses)."""
        self.tgt_ids = self.tgt_ids.index_select(0, index)
        self.target_keys = self.target_keys.index_select(0, index)
        self.source_keys = self.source_keys.index_select(0, index)
        for layer in self.layers:
            for keys_values in layer.values():
                keys_values.reorder(index)


class Transformer(nn.Module):
    """Encoder–decoder Transformer: forward(src_ids, tgt_ids) → logits (B, T, V), teacher-forced."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        config.validate()
        self.config = config
        src_embed = TokenEmbedding(config.src_vocab_size, config)
        tgt_embed = src_embed if config.share_embeddings else TokenEmbedding(config.tgt_vocab_size, config)
        self.encoder = Encoder(src_embed, config)
        self.decoder = Decoder(tgt_embed, config)
        self.reset_parameters()
        name_hook_points(self)

    def reset_parameters(self) -> None:
        """Xavier-uniform for every projection matrix (as the Annotated Transformer); zero <pad> rows."""
        for name, p in self.named_parameters():
            if p.dim() > 1 and "lookup" not in name and "pos.table" not in name:
                nn.init.xavier_uniform_(p)
        with torch.no_grad():
            for embed in {self.encoder.embed, self.decoder.embed}:
                if embed.zero_pad:
                    embed.lookup.weight[self.config.pad_id].zero_()

    @property
    def device(self) -> torch.device:
        return self.decoder.generator.weight.device  # (next(self.parameters()) would walk every module)

    def encode(self, src_ids: torch.Tensor) -> torch.Tensor:
        """Source ids (B, S) → memory (B, S, D)."""
        return self.encoder(src_ids, encoder_mask(src_ids, self.config.pad_id))

    def decode(
        self,
        tgt_ids: torch.Tensor,
        memory: torch.Tensor,
        src_ids: torch.Tensor,
        cache: DecoderCache | None = None,
        logits: bool = True,
    ) -> torch.Tensor:
        """Target ids (B, T) → logits (B, T, V); with a cache, `tgt_ids` are only the new positions.

        With logits=False it stops at the last hidden state (B, T, D), before the output projection.
        """
        pad = self.config.pad_id
        if cache is None:
            self_mask = decoder_mask(tgt_ids, pad)  # (B, 1, T, T)
            return self.decoder(tgt_ids, memory, self_mask, cross_mask(src_ids, tgt_ids.shape[1], pad), logits=logits)
        offset, T_new = cache.length, tgt_ids.shape[1]
        cache.append(tgt_ids, src_ids, pad)
        # decoder_mask(cache.tgt_ids, pad, T_new) and cross_mask(src_ids, T_new, pad), from the cached key masks:
        # one new query sits after every earlier position, so only padding can hide a key from it.
        self_mask = (
            cache.target_keys if T_new == 1 else cache.target_keys & causal_mask(T_new, cache.length, tgt_ids.device)
        )
        return self.decoder(
            tgt_ids, memory, self_mask, cache.source_keys, cache.layers, offset, logits
        )  # masks broadcast over Tnew

    def new_cache(self) -> DecoderCache:
        return DecoderCache(self.config.n_layers)

    def forward(self, src_ids: torch.Tensor, tgt_ids: torch.Tensor) -> torch.Tensor:
        """Teacher forcing: logits[:, t] predicts tgt_ids[:, t + 1]. (B, T, V)"""
        return self.decode(tgt_ids, self.encode(src_ids), src_ids)

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def hook_names(self) -> list[str]:
        return hook_names(self)


def resolve_device(device: str | torch.device = "auto") -> torch.device:
    """ "auto" → CUDA if present, else Apple MPS, else CPU; anything else is checked and passed to torch.device."""
    if str(device) != "auto":
        try:
            chosen = torch.device(device)
        except (RuntimeError, TypeError):
            raise ValueError(f"unknown device {device!r}; use auto, cpu, cuda, cuda:N or mps") from None
        if chosen.type == "cuda" and not torch.cuda.is_available():
            raise ValueError(f"device {device!r} asked for, but this machine has no usable CUDA GPU; use cpu or auto")
        if chosen.type == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
            raise ValueError(f"device {device!r} asked for, but Apple's MPS is not available here; use cpu or auto")
        return chosen
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
