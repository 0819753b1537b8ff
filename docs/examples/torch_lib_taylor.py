"""taylor-series-linear-attention: a trained layer in float32 and in bfloat16, checked through its parts (docs/torch.md).

Needs `pip install taylor-series-linear-attention` (skipped in the suite without it). Its feature map is the
second-order Taylor expansion of exp, [1, x, x⊗x/√2], whose kernel 1 + q·k + (q·k)²/2 is positive; its fused
to_kv projection is cut into keys and values. In bfloat16 the layer's own rounding is large; the same weights in
float32 compute the table's head, which compare reports beside it.
"""
import torch
from taylor_series_linear_attention import TaylorSeriesLinearAttn
from torch import nn

import certify.torch as ct

torch.manual_seed(0)
attn = TaylorSeriesLinearAttn(dim=24, dim_head=4, heads=2)  # float32
inner = 2 * 4
head = ct.LinearHead(feature_map=attn.taylor_expand_fn, q_proj=lambda x: attn.to_q[0](x) * attn.scale,
                     k_proj=lambda x: attn.to_kv[0](x)[..., :inner], v_proj=lambda x: attn.to_kv[0](x)[..., inner:],
                     out_proj=attn.to_out, predict=nn.Linear(24, 1), heads=2)
print(f"trained: loss {ct.fit(**head.parts(), family='rank-nine', steps=300, lr=0.01):.2f}")
report = ct.check(**head.parts(), family="rank-nine")
print(f"exact: solves {report.ok}, head ranks {report.head_ranks}")
print(f"float32 layer vs the table: agrees {ct.compare(head.layer(attn), **head.parts(), family='rank-nine').agrees}")
head.to(torch.bfloat16)
low = ct.compare(head.layer(attn), **head.parts(), family="rank-nine")
print(f"bfloat16 layer: within its own rounding {low.within}; the same weights in float32 agree {low.float32.within}; "
      f"agrees {low.agrees}")
