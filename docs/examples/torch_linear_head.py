"""A two-head float32 linear-attention layer, written as the libraries write it, checked through its parts.

docs/torch.md, "From a layer's parts": certify.torch.LinearHead builds the head (query and key maps, values,
readout, δ) from the layer's projections, feature map and output projection plus a prediction layer; fit trains
the layer's own parameters through it, check proves the verdict in one call, verify_tokenwise looks at each head,
and compare runs the layer itself — in float32, then in bfloat16 — against the exact predictions of its table.
"""
import torch
from torch import nn

import certify.torch as ct


class LinearAttention(nn.Module):
    """As performer-pytorch or linear-attention-transformer write it: fused (b, n, h·d) projections, elu+1, eps."""

    def __init__(self, dim, heads, dim_head, eps=1e-6):
        super().__init__()
        self.heads, self.eps = heads, eps
        self.to_q = nn.Linear(dim, heads * dim_head, bias=False)
        self.to_k = nn.Linear(dim, heads * dim_head, bias=False)
        self.to_v = nn.Linear(dim, heads * dim_head, bias=False)
        self.to_out = nn.Linear(heads * dim_head, dim)

    def feature_map(self, t):
        return nn.functional.elu(t) + 1

    def forward(self, x):
        b, n, _ = x.shape
        split = lambda t: t.reshape(b, n, self.heads, -1).transpose(1, 2)  # noqa: E731 - 'b n (h d) -> b h n d'
        q, k, v = self.feature_map(split(self.to_q(x))), self.feature_map(split(self.to_k(x))), split(self.to_v(x))
        kv = torch.einsum("bhnd,bhne->bhde", k, v)
        z = 1 / (torch.einsum("bhnd,bhd->bhn", q, k.sum(2)) + self.eps)
        out = torch.einsum("bhnd,bhde,bhn->bhne", q, kv, z)
        return self.to_out(out.transpose(1, 2).reshape(b, n, -1))


torch.manual_seed(0)
attn = LinearAttention(dim=24, heads=2, dim_head=6)  # float32, PyTorch's default
head = ct.LinearHead(feature_map=attn.feature_map, q_proj=attn.to_q, k_proj=attn.to_k, v_proj=attn.to_v,
                     out_proj=attn.to_out, predict=nn.Linear(24, 1), heads=2, delta=attn.eps)

before = attn.to_q.weight.detach().clone()
loss = ct.fit(**head.parts(), family="rank-nine", steps=200, lr=0.01)
print(f"trained: loss {loss:.2f}; the layer's query projection changed: {not torch.equal(attn.to_q.weight, before)}")

report = ct.check(**head.parts(), family="rank-nine")
print(f"exact: solves {report.ok}, max error {float(report.max_error):.2f}, head ranks {report.head_ranks}")

for h, phi_k in enumerate(head.parts()["phi_k"]):
    print(f"phi_k head {h} on sequences: {ct.verify_tokenwise(phi_k, 'rank-nine').verdict}")

same = ct.compare(head.layer(attn), **head.parts(), family="rank-nine")
print(f"float32 layer vs its table: agrees {same.agrees}, worst relative below 1e-5: {same.worst_relative < 1e-5}")

head.to(torch.bfloat16)  # the layer's own parameters too: the head owns them
low = ct.compare(head.layer(attn), **head.parts(), family="rank-nine")
print(f"bfloat16 layer vs its table: agrees {low.agrees} (rtol {low.rtol:.2f} from {low.depth} roundings in a row); "
      f"the same weights in float32 agree: {low.float32.within}")
