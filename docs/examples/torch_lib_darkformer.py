"""darkformer-pytorch: a trained two-head SelfAttention, its stabilized keys, checked through its parts (docs/torch.md).

Needs `pip install darkformer-pytorch` (skipped in the suite without it). The key map subtracts a maximum over the
whole sequence, per head ("one positive scale per batch and head", as its docstring says): against the map without
the stabilizer that is a factor per sequence and head, which normalized attention does not see.
"""
import functools

import torch
from darkformer_pytorch import SelfAttention
from torch import nn

import certify.torch as ct

torch.manual_seed(0)
attn = SelfAttention(24, heads=2, num_features=16, projection_seed=0, deterministic=True)  # float32
rf, inner = attn.attention.random_features, attn.inner_dim
head = ct.LinearHead(feature_map=rf.query_feature_map, key_feature_map=functools.partial(rf.key_feature_map, stabilize=False),
                     q_proj=lambda x: attn.to_qkv(x)[..., :inner], k_proj=lambda x: attn.to_qkv(x)[..., inner:2 * inner],
                     v_proj=lambda x: attn.to_qkv(x)[..., 2 * inner:], out_proj=attn.to_output,
                     predict=nn.Linear(24, 1), heads=2)
print(f"trained: loss {ct.fit(**head.parts(), family='rank-nine', steps=50, lr=0.01):.2f}")
stabilized = ct.Layout(rf.key_feature_map, "BHLD", heads=2, project=head.phi_k.project)
rep = ct.verify_tokenwise(stabilized, "rank-nine", reference=head.phi_k)
print(f"stabilized keys against the plain map: {rep.verdict} per head, harmless {rep.harmless}")
report = ct.check(**head.parts(), family="rank-nine")
print(f"exact: solves {report.ok}, head ranks {report.head_ranks}")
same = ct.compare(head.layer(attn), **head.parts(), family="rank-nine")
print(f"the library's layer vs the table: agrees {same.agrees}")
