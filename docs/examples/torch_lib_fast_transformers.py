"""pytorch-fast-transformers on a CPU: its AttentionLayer with LinearAttention, pure PyTorch (docs/torch.md).

Needs fast-transformers 0.4.0 built without its CUDA extensions (docs/torch.md, "Libraries"; skipped in the suite
without it). LinearAttention computes Σ_j α v / (Σ_j α + eps) with elu(x) + 1 features and eps = 1e-6, on (N, L, H, E)
tensors: layout "NLHE", delta=1e-6. In bfloat16 its key-length mask (LengthMask.float_matrix) is float32, made inside
the call; compare says so.
"""
import torch
from fast_transformers.attention import AttentionLayer, LinearAttention
from fast_transformers.masking import FullMask, LengthMask
from torch import nn

import certify.torch as ct

torch.manual_seed(0)
attn = AttentionLayer(LinearAttention(query_dimensions=12), d_model=24, n_heads=2)
inner = attn.inner_attention


def layer(x):
    """The library's layer on sequences (B, L, 24): self-attention, every position real."""
    B, L, _ = x.shape
    lengths = LengthMask(torch.full((B,), L, dtype=torch.int64, device=x.device), max_len=L)
    return attn(x, x, x, FullMask(L, device=x.device), lengths, lengths)


head = ct.LinearHead(feature_map=inner.feature_map.forward_queries, key_feature_map=inner.feature_map.forward_keys,
                     layout="NLHE", q_proj=attn.query_projection, k_proj=attn.key_projection,
                     v_proj=attn.value_projection, out_proj=attn.out_projection, predict=nn.Linear(24, 1), heads=2,
                     delta=inner.eps)
print(f"trained: loss {ct.fit(**head.parts(), family='rank-nine', steps=40, lr=0.02):.2f}")
report = ct.check(**head.parts(), family="rank-nine")
print(f"exact: solves {report.ok}, head ranks {report.head_ranks}")
print(f"the library's layer vs the table: agrees {ct.compare(head.layer(layer), **head.parts(), family='rank-nine').agrees}")
head.to(torch.bfloat16)  # the layer's projections and the prediction layer with it
try:
    ct.compare(head.layer(layer), **head.parts(), family="rank-nine")
except ValueError as exc:
    print("bfloat16:", str(exc).split(" already: ")[1])
