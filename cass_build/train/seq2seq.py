"""The CASS translation model: a small encoder-decoder transformer (torch).

Written for two consumers: training (whole sequences, teacher forcing) and ONNX
export (the encoder once per unit; the decoder a block of tokens per call with a
self-attention KV cache). The attention is spelled out with plain matmuls rather
than ``nn.MultiheadAttention`` so the exported graphs stay small and the cache
layout is ours: ``[layers, 2, batch, heads, length, head_dim]``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch import Tensor, nn
from torch.nn import functional as F

__all__ = ["Config", "Seq2Seq"]


@dataclass(frozen=True)
class Config:
    vocab: int = 4096
    d_model: int = 256
    heads: int = 4
    enc_layers: int = 3
    dec_layers: int = 2
    ff: int = 768
    max_len: int = 1024
    dropout: float = 0.0
    copy: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Attention(nn.Module):
    def __init__(self, cfg: Config) -> None:
        super().__init__()
        self.heads = cfg.heads
        self.dh = cfg.d_model // cfg.heads
        self.q = nn.Linear(cfg.d_model, cfg.d_model)
        self.kv = nn.Linear(cfg.d_model, 2 * cfg.d_model)
        self.o = nn.Linear(cfg.d_model, cfg.d_model)

    def split(self, x: Tensor) -> Tensor:  # [B, T, D] -> [B, H, T, dh]
        b, t, _ = x.shape
        return x.view(b, t, self.heads, self.dh).transpose(1, 2)

    def keys_values(self, x: Tensor) -> tuple[Tensor, Tensor]:
        k, v = self.kv(x).chunk(2, dim=-1)
        return self.split(k), self.split(v)

    def attend(self, x: Tensor, k: Tensor, v: Tensor, mask: Tensor | None) -> Tensor:
        q = self.split(self.q(x))
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        b, h, t, dh = out.shape
        return self.o(out.transpose(1, 2).reshape(b, t, h * dh))


class _FeedForward(nn.Module):
    def __init__(self, cfg: Config) -> None:
        super().__init__()
        self.up = nn.Linear(cfg.d_model, cfg.ff)
        self.down = nn.Linear(cfg.ff, cfg.d_model)

    def forward(self, x: Tensor) -> Tensor:
        return self.down(F.gelu(self.up(x)))


class _EncoderLayer(nn.Module):
    def __init__(self, cfg: Config) -> None:
        super().__init__()
        self.n1 = nn.LayerNorm(cfg.d_model)
        self.att = _Attention(cfg)
        self.n2 = nn.LayerNorm(cfg.d_model)
        self.ff = _FeedForward(cfg)

    def forward(self, x: Tensor, mask: Tensor | None) -> Tensor:
        h = self.n1(x)
        k, v = self.att.keys_values(h)
        x = x + self.att.attend(h, k, v, mask)
        return x + self.ff(self.n2(x))


class _DecoderLayer(nn.Module):
    def __init__(self, cfg: Config) -> None:
        super().__init__()
        self.n1 = nn.LayerNorm(cfg.d_model)
        self.self_att = _Attention(cfg)
        self.n2 = nn.LayerNorm(cfg.d_model)
        self.cross = _Attention(cfg)
        self.n3 = nn.LayerNorm(cfg.d_model)
        self.ff = _FeedForward(cfg)


class Seq2Seq(nn.Module):
    def __init__(self, cfg: Config) -> None:
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab, cfg.d_model)
        self.enc_pos = nn.Embedding(cfg.max_len, cfg.d_model)
        self.dec_pos = nn.Embedding(cfg.max_len, cfg.d_model)
        self.encoder = nn.ModuleList(_EncoderLayer(cfg) for _ in range(cfg.enc_layers))
        self.enc_norm = nn.LayerNorm(cfg.d_model)
        self.decoder = nn.ModuleList(_DecoderLayer(cfg) for _ in range(cfg.dec_layers))
        self.dec_norm = nn.LayerNorm(cfg.d_model)
        self.scale = math.sqrt(cfg.d_model)
        nn.init.normal_(self.embed.weight, std=cfg.d_model**-0.5)
        if cfg.copy:
            # Copying: a query over the last decoder layer's cross-attention keys, and a
            # gate between that distribution over source tokens and the vocabulary's.
            self.copy_q = nn.Linear(cfg.d_model, cfg.d_model)
            self.copy_gate = nn.Linear(cfg.d_model, 1)

    # -- encoder -------------------------------------------------------------
    def encode(self, src: Tensor, src_mask: Tensor | None = None) -> Tensor:
        """``src`` [B, S] -> memory [B, S, D]; ``src_mask`` [B, S] marks real tokens."""
        pos = torch.arange(src.shape[1], device=src.device)
        x = self.embed(src) * self.scale + self.enc_pos(pos)
        mask = None if src_mask is None else src_mask[:, None, None, :]
        for layer in self.encoder:
            x = layer(x, mask)
        return self.enc_norm(x)

    def cross_kv(self, memory: Tensor) -> Tensor:
        """The decoder's cross-attention keys and values: [L, 2, B, H, S, dh]."""
        kvs = []
        for layer in self.decoder:
            k, v = layer.cross.keys_values(memory)
            kvs.append(torch.stack((k, v)))
        return torch.stack(kvs)

    # -- decoder -------------------------------------------------------------
    def decode(
        self,
        tgt: Tensor,
        past: Tensor,
        cross: Tensor,
        src_mask: Tensor | None = None,
        src: Tensor | None = None,
    ) -> tuple[Tensor, Tensor]:
        """A block of target tokens after ``past`` cached positions.

        ``tgt`` [B, K]; ``past`` [L, 2, B, H, P, dh]; ``cross`` [L, 2, B, H, S, dh];
        ``src`` [B, S], the source ids (a copying model needs them). Returns scores
        [B, K, V] (log-probabilities for a copying model, logits otherwise: both are
        what cross-entropy and argmax take) and the cache grown to P + K positions.
        """
        p = past.shape[4]
        k_len = tgt.shape[1]
        pos = torch.arange(k_len, device=tgt.device) + p
        x = self.embed(tgt) * self.scale + self.dec_pos(pos)
        # Query i (position p + i) sees cached and block keys up to its own position.
        keys = torch.arange(p + k_len, device=tgt.device)
        causal = (keys[None, :] <= pos[:, None])[None, None]
        cmask = None if src_mask is None else src_mask[:, None, None, :]
        present = []
        for i, layer in enumerate(self.decoder):
            h = layer.n1(x)
            k, v = layer.self_att.keys_values(h)
            k = torch.cat((past[i, 0], k), dim=2)
            v = torch.cat((past[i, 1], v), dim=2)
            present.append(torch.stack((k, v)))
            x = x + layer.self_att.attend(h, k, v, causal)
            x = x + layer.cross.attend(layer.n2(x), cross[i, 0], cross[i, 1], cmask)
            x = x + layer.ff(layer.n3(x))
        h = self.dec_norm(x)
        logits = h @ self.embed.weight.t()
        if self.cfg.copy:
            if src is None:
                msg = "a copying model decodes with the source ids"
                raise ValueError(msg)
            logits = self._with_copy(h, logits, cross, src, cmask)
        return logits, torch.stack(present)

    def _with_copy(
        self, h: Tensor, logits: Tensor, cross: Tensor, src: Tensor, cmask: Tensor | None
    ) -> Tensor:
        """log(g * p_vocab + (1 - g) * p_copy): unseen identifiers are copied from the
        source rather than spelled from the vocabulary (the synthetic data's names are
        all the vocabulary had seen). Computed in float32: the mixture of two softmaxes
        loses its small terms in bfloat16."""
        b, s = src.shape
        keys = cross[-1, 0].transpose(1, 2).reshape(b, s, -1).float()  # [B, S, D]
        q = self.copy_q(h).float()
        scores = q @ keys.transpose(1, 2) / self.scale  # [B, K, S]
        if cmask is not None:
            scores = scores.masked_fill(~cmask[:, 0], float("-inf"))
        attn = torch.softmax(scores, dim=-1)
        gate = torch.sigmoid(self.copy_gate(h).float())  # [B, K, 1]
        vocab = torch.softmax(logits.float(), dim=-1) * gate
        index = src[:, None, :].expand(b, h.shape[1], s)
        mixed = vocab.scatter_add(2, index, attn * (1.0 - gate))
        return torch.log(mixed + 1e-9)

    def empty_cache(self, batch: int, device: torch.device | None = None) -> Tensor:
        cfg = self.cfg
        dh = cfg.d_model // cfg.heads
        return torch.zeros(cfg.dec_layers, 2, batch, cfg.heads, 0, dh, device=device)

    def forward(self, src: Tensor, src_mask: Tensor, tgt_in: Tensor) -> Tensor:
        """Teacher forcing: logits [B, T, V] for every target position."""
        memory = self.encode(src, src_mask)
        cross = self.cross_kv(memory)
        empty = self.empty_cache(src.shape[0], src.device)
        logits, _ = self.decode(tgt_in, empty, cross, src_mask, src)
        return logits


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
