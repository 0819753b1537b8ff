"""linear-attention-transformer: its non-causal attention normalizes the keys over the sequence (docs/torch.md).

Needs `pip install linear-attention-transformer` (skipped in the suite without it). linear_attn takes
q.softmax(dim=-1) (per token) but k.softmax(dim=-2): each key feature divided by its sum over the sequence, a
factor per sequence *and feature column* — not tokenwise, and not harmless. The causal variant uses exp(k) per
token, which is.
"""
import torch
from linear_attention_transformer.linear_attention_transformer import SelfAttention
from torch import nn

import certify.torch as ct

torch.manual_seed(0)
attn = SelfAttention(dim=24, heads=2).to(torch.float64)
d = attn.d_heads
head = ct.LinearHead(feature_map=lambda t: t.softmax(dim=-1) * d ** -0.5, key_feature_map=torch.exp,
                     q_proj=attn.to_q, k_proj=attn.to_k, v_proj=attn.to_v, out_proj=attn.to_out,
                     predict=nn.Linear(24, 1, dtype=torch.float64), heads=2)
library_keys = ct.Layout(lambda t: t.softmax(dim=-2), "BHLD", heads=2, project=attn.to_k)
print("the library's keys against exp per token:",
      ct.verify_tokenwise(library_keys, "rank-nine", reference=head.phi_k).verdict)
print(f"the library's layer vs the table: agrees {ct.compare(head.layer(attn), **head.parts(), family='rank-nine').agrees}")
