"""flash-linear-attention on a CPU: its feature maps and its naive op, δ = 1e-10·√K (docs/torch.md).

Needs `pip install --no-deps fla-core==0.6.0 triton` (skipped in the suite without it): fla's maps import triton,
which installs on a CPU machine; only its fused forward (chunk_linear_attn) and its RMSNorm need a GPU. The layer below
is fla's LinearAttention written with its naive recurrent op, causal, in float32 as fla computes, with
output_norm='identity'. naive_recurrent_linear_attn divides (q·scale)·S by (q·scale)·Σ_j k_j + 1e-10, scale = K^-1/2:
the denominator constant is δ = 1e-10·√K, K the width of the features.
"""
import warnings

import torch
from einops import rearrange
from torch import nn

with warnings.catch_warnings():  # "Triton is not supported on current platform, roll back to CPU."
    warnings.simplefilter("ignore")
    from fla.modules.feature_map import HedgehogFeatureMap
    from fla.ops.linear_attn.naive import naive_recurrent_linear_attn

import certify.torch as ct

H, D = 2, 12  # heads, head dim: hidden size 24 = rank-nine's m


class FlaLinearAttention(nn.Module):
    """fla.layers.LinearAttention(feature_map='hedgehog', output_norm='identity'), its naive op for the fused one."""

    def __init__(self):
        super().__init__()
        self.q_proj, self.k_proj, self.v_proj = (nn.Linear(H * D, H * D, bias=False) for _ in range(3))
        self.feature_map_q, self.feature_map_k = HedgehogFeatureMap(head_dim=D), HedgehogFeatureMap(head_dim=D)
        self.o_proj = nn.Linear(H * D, H * D, bias=False)

    def forward(self, x):
        q, k, v = (rearrange(p(x), "b t (h d) -> b t h d", h=H) for p in (self.q_proj, self.k_proj, self.v_proj))
        o, _ = naive_recurrent_linear_attn(self.feature_map_q(q), self.feature_map_k(k), v, normalize=True)
        return self.o_proj(rearrange(o, "b t h d -> b t (h d)"))


torch.manual_seed(0)
attn = FlaLinearAttention()
K = 2 * D  # Hedgehog's features: [softmax(2x), softmax(-2x)] of the head dim
head = ct.LinearHead(feature_map=attn.feature_map_q, key_feature_map=attn.feature_map_k, layout="BLHD",
                     q_proj=attn.q_proj, k_proj=attn.k_proj, v_proj=attn.v_proj, out_proj=attn.o_proj,
                     predict=nn.Linear(H * D, 1), heads=H, delta=1e-10 * K**0.5)
print(f"trained: loss {ct.fit(**head.parts(), family='rank-nine', steps=40, lr=0.02):.2f}")
report = ct.check(**head.parts(), family="rank-nine")
print(f"exact: solves {report.ok}, head ranks {report.head_ranks}")
same = ct.compare(head.layer(attn), **head.parts(), family="rank-nine", query_last=True)
print(f"fla's naive causal op vs the table: agrees {same.agrees}")
