"""performer-pytorch, causal: its eps sits in the key sum, a denominator that depends on the query (docs/torch.md).

Needs `pip install performer-pytorch` (skipped in the suite without it). Its causal op on the CPU,
causal_linear_attention_noncuda, divides by q·(Σ_j k_j + eps): Σ_j α + eps·Σ_i φ_i(q), with eps = 1e-6.
With ReLU features (generalized_attention=True) the maps are tokenwise, and the layer is the head of
delta=KeyEps(1e-6) — in the model class (docs/math.md §2, "A query-dependent denominator"), checked exactly.
"""
import contextlib
import functools
import io

import torch
from performer_pytorch import SelfAttention
from performer_pytorch.performer_pytorch import generalized_kernel
from torch import nn

import certify.torch as ct

torch.manual_seed(0)
with contextlib.redirect_stdout(io.StringIO()):  # "unable to import cuda code …": it takes its CPU path
    attn = SelfAttention(dim=24, heads=2, dim_head=12, nb_features=16, causal=True,
                         generalized_attention=True).to(torch.float64)
fa = attn.fast_attention
kernel = functools.partial(generalized_kernel, projection_matrix=fa.projection_matrix, kernel_fn=fa.kernel_fn)
predict = nn.Linear(24, 1, dtype=torch.float64)


def head(delta):
    return ct.LinearHead(feature_map=kernel, q_proj=attn.to_q, k_proj=attn.to_k, v_proj=attn.to_v,
                         out_proj=attn.to_out, predict=predict, heads=2, delta=delta)


print(f"trained: loss {ct.fit(**head(ct.KeyEps(1e-6)).parts(), family='rank-nine', steps=40, lr=0.01):.2f}")
plain = ct.compare(head(0).layer(attn), **head(0).parts(), family="rank-nine", query_last=True)
print(f"with delta=0: agrees {plain.agrees}, cause {plain.cause}, suggested {plain.suggested_delta}")
same = ct.compare(head(ct.KeyEps(1e-6)).layer(attn), **head(ct.KeyEps(1e-6)).parts(), family="rank-nine",
                  query_last=True)
print(f"with delta=KeyEps(1e-6): agrees {same.agrees}")
report = ct.check(**head(ct.KeyEps(1e-6)).parts(), family="rank-nine")
print(f"exact: solves {report.ok}, head ranks {report.head_ranks}")
