"""A two-head float32 layer with a denominator constant: trained, checked in one call, compared (docs/torch.md)."""
import torch

import certify.torch as ct

torch.manual_seed(0)
m, r, dv, H = 24, 8, 4, 2  # token bits, feature width and value width per head, heads
eps = 2.0**-20  # the library's denominator constant δ (a float64 holds it exactly: the table shows 1/1048576)


class Elu1(torch.nn.Module):  # φ(x) = elu(Wx + b) + 1 > 0, in PyTorch's default float32
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(m, r)

    def forward(self, x):
        return torch.nn.functional.elu(self.lin(x)) + 1


phi_q, phi_k = [Elu1() for _ in range(H)], [Elu1() for _ in range(H)]  # one callable per head
values = [torch.nn.Linear(m, dv) for _ in range(H)]
readout = torch.nn.Linear(m, 1 + H * dv)  # column 0 is β, then each head's w

loss = ct.fit(phi_q, phi_k, values, readout, family="rank-nine", steps=300, delta=eps)
report = ct.check(phi_q, phi_k, values=values, readout=readout, family="rank-nine", delta=eps)
print(f"trained: loss {loss:.2f}")
print(f"exact: solves {report.ok}, max error {float(report.max_error):.2f}, head ranks {report.head_ranks}; "
      f"the family's r >= {report.one_head_bound} is about one head, no bound is carried to {H}")
print("phi_k[0] on sequences:", ct.verify_tokenwise(phi_k[0], "rank-nine").verdict)


def layer(seq, rotary=False):
    """The two heads as a library runs them: (B, L, m) sequences → a prediction at every position."""
    seq = seq.float()
    q = torch.stack([f(seq) for f in phi_q])  # (H, B, L, r)
    k = torch.stack([f(seq) for f in phi_k])
    if rotary:  # rotary position embeddings: rotate feature pairs by a position-dependent angle
        pos = torch.arange(seq.shape[1], dtype=torch.float32)[:, None]
        angle = pos / 10 ** (torch.arange(r // 2) / (r // 2))
        cos, sin = torch.cos(angle), torch.sin(angle)
        rot = lambda t: torch.cat([t[..., 0::2] * cos - t[..., 1::2] * sin,  # noqa: E731
                                   t[..., 0::2] * sin + t[..., 1::2] * cos], -1)
        q, k = rot(q), rot(k)
    v = torch.stack([f(seq) for f in values])
    alpha = torch.einsum("hbir,hbjr->hbij", q, k)
    heads = torch.einsum("hbij,hbjd->hbid", alpha, v) / (alpha.sum(-1, keepdim=True) + eps)
    out = readout(seq)
    return out[..., 0] + (out[..., 1:] * torch.cat(list(heads), -1)).sum(-1)


for name, fn in (("faithful", layer), ("rotary", lambda s: layer(s, rotary=True))):
    c = ct.compare(fn, phi_q, phi_k, values=values, readout=readout, family="rank-nine", delta=eps)
    print(f"{name} layer vs its table: agrees {c.agrees}, largest difference "
          f"{'below 1e-4' if c.agrees else format(float(c.max_difference), '.0e')}")
