"""performer-pytorch: FAVOR+ SelfAttention through its parts; its key stabilizer is not harmless (docs/torch.md).

Needs `pip install performer-pytorch` (skipped in the suite without it). softmax_kernel stabilizes the keys by
the maximum over the sequence and then adds eps = 1e-4: ratio·(exp(h − c) + eps). The eps, added after the
sequence's factor, makes it more than a factor per sequence, so the layer is not its table's head — by little.
"""
import functools

import torch
from performer_pytorch import SelfAttention
from performer_pytorch.performer_pytorch import softmax_kernel
from torch import nn

import certify.torch as ct

torch.manual_seed(0)
attn = SelfAttention(dim=24, heads=2, dim_head=12, nb_features=16).to(torch.float64)
fa = attn.fast_attention
kernel = functools.partial(softmax_kernel, projection_matrix=fa.projection_matrix)
head = ct.LinearHead(feature_map=functools.partial(kernel, is_query=True), q_proj=attn.to_q, k_proj=attn.to_k,
                     key_feature_map=functools.partial(kernel, is_query=False), v_proj=attn.to_v,
                     out_proj=attn.to_out, predict=nn.Linear(24, 1, dtype=torch.float64), heads=2)
print(f"trained: loss {ct.fit(**head.parts(), family='rank-nine', steps=100, lr=0.01):.2f}")
print("keys on sequences:", ct.verify_tokenwise(head.phi_k, "rank-nine").verdict)
report = ct.check(**head.parts(), family="rank-nine")
print(f"exact: solves {report.ok}, head ranks {report.head_ranks}")
same = ct.compare(head.layer(attn), **head.parts(), family="rank-nine")
print(f"the library's layer vs the table: agrees {same.agrees}, worst relative above 1e-9: {same.worst_relative > 1e-9}")
