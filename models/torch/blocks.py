"""PyTorch modules of the model blocks chipless runs on its emulated devices, the same blocks
models/graphs/ holds as tensor graphs: an MLP, a GPT-2 block, a BERT encoder layer, a
LLaMA-style block and a small CNN. Written with plain PyTorch ops (no fused attention kernels)
so that each op is one a PyTorch backend sees; weights from a fixed seed.

    import torch, blocks
    model, inputs = blocks.build("gpt2", seed=0)
    model.to("tpu")(*[x.to("tpu") for x in inputs])
"""
import math

import torch
from torch import nn
import torch.nn.functional as F


class MLP(nn.Module):
    """Two linear layers with a GELU between them."""

    def __init__(self, d_in=256, hidden=1024, d_out=256):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d_in, hidden), nn.Linear(hidden, d_out)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


def _heads(x, heads):
    """[B, S, H*D] -> [B, H, S, D]."""
    b, s, d = x.shape
    return x.view(b, s, heads, d // heads).transpose(1, 2)


def _merge(x):
    """[B, H, S, D] -> [B, S, H*D]."""
    b, h, s, d = x.shape
    return x.transpose(1, 2).reshape(b, s, h * d)


def attention(q, k, v, mask=None):
    """softmax(q k^T / sqrt(d) + mask) v over [B, H, S, D]."""
    scores = q @ k.transpose(-1, -2) * (1.0 / math.sqrt(q.shape[-1]))
    if mask is not None:
        scores = scores + mask
    return torch.softmax(scores, dim=-1) @ v


class GPT2Block(nn.Module):
    """Pre-norm: a = x + Attn(LN1(x)) (causal); y = a + MLP(LN2(a)), GELU(tanh) in 4d."""

    def __init__(self, d=768, heads=12):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.c_attn, self.c_proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.proj = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x, mask):
        q, k, v = self.c_attn(self.ln1(x)).split(x.shape[-1], dim=-1)
        a = attention(_heads(q, self.heads), _heads(k, self.heads), _heads(v, self.heads), mask)
        x = x + self.c_proj(_merge(a))
        return x + self.proj(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class BertLayer(nn.Module):
    """Post-norm: a = LN1(x + Attn(x)); y = LN2(a + FFN(a)), GELU(erf) in 4d."""

    def __init__(self, d=768, heads=12):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ln1, self.ln2 = nn.LayerNorm(d, eps=1e-12), nn.LayerNorm(d, eps=1e-12)
        self.up, self.down = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        h = self.heads
        a = attention(_heads(self.q(x), h), _heads(self.k(x), h), _heads(self.v(x), h))
        x = self.ln1(x + self.o(_merge(a)))
        return self.ln2(x + self.down(F.gelu(self.up(x))))


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps, self.weight = eps, nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


class LlamaBlock(nn.Module):
    """RMSNorm, rotary embedding, grouped-query attention (causal), SwiGLU."""

    def __init__(self, d=1024, heads=8, kv_heads=2, hidden=2816):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, d // heads
        self.norm1, self.norm2 = RMSNorm(d), RMSNorm(d)
        self.wq = nn.Linear(d, d, bias=False)
        self.wk = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.wv = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.wo = nn.Linear(d, d, bias=False)
        self.w1, self.w3 = nn.Linear(d, hidden, bias=False), nn.Linear(d, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d, bias=False)

    def forward(self, x, cos, sin, mask):
        h = self.norm1(x)
        q, k, v = _heads(self.wq(h), self.heads), _heads(self.wk(h), self.kv_heads), \
            _heads(self.wv(h), self.kv_heads)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        repeat = self.heads // self.kv_heads
        k, v = k.repeat_interleave(repeat, dim=1), v.repeat_interleave(repeat, dim=1)
        x = x + self.wo(_merge(attention(q, k, v, mask)))
        h = self.norm2(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class SmallCNN(nn.Module):
    """Two convolutions with ReLU and max pooling, then a linear classifier."""

    def __init__(self, classes=10):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(3, 16, 3, padding=1), nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 8 * 8, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


def causal_mask(s):
    return torch.triu(torch.full((s, s), -1e4), diagonal=1)


def rotary(s, hd):
    inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
    angles = torch.outer(torch.arange(s).float(), inv)
    angles = torch.cat([angles, angles], dim=-1)
    return angles.cos(), angles.sin()


def build(name, seed=0, batch=1, seq=32):
    """(module, example inputs) of block `name` with weights and inputs from `seed`."""
    torch.manual_seed(seed)
    if name == "mlp":
        return MLP(), (torch.randn(batch * seq, 256),)
    if name == "gpt2":
        return GPT2Block(), (torch.randn(batch, seq, 768), causal_mask(seq))
    if name == "bert":
        return BertLayer(), (torch.randn(batch, seq, 768),)
    if name == "llama":
        model = LlamaBlock()
        cos, sin = rotary(seq, model.hd)
        return model, (torch.randn(batch, seq, 1024), cos, sin, causal_mask(seq))
    if name == "cnn":
        return SmallCNN(), (torch.randn(batch, 3, 32, 32),)
    raise ValueError(f"unknown block '{name}' (mlp, gpt2, bert, llama, cnn)")


NAMES = ("mlp", "gpt2", "bert", "llama", "cnn")
