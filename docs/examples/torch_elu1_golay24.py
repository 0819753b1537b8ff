"""Train an elu+1 head on the rank-nine family, then check it exactly on golay24 (docs/torch.md)."""
import torch
import certify.torch as ct

class Elu1(torch.nn.Module):  # φ(x) = elu(Wx + b) + 1 > 0: a positive feature map on the token bits
    def __init__(self, m, r): super().__init__(); self.lin = torch.nn.Linear(m, r, dtype=torch.float64)
    def forward(self, x): return torch.nn.functional.elu(self.lin(x)) + 1

torch.manual_seed(0)
phi_q, phi_k = Elu1(24, 16), Elu1(24, 16)
values, readout = torch.nn.Linear(24, 8, dtype=torch.float64), torch.nn.Linear(24, 9, dtype=torch.float64)
print("training loss:", round(ct.fit(phi_q, phi_k, values, readout, family="rank-nine", steps=300), 4))
report = ct.check(phi_q, phi_k, values=values, readout=readout, family="golay24", first_failure=True)
print("solves golay24:", report.ok, "| exact kernel rank:", report.kernel_rank, "| certified r >=", report.certified_bound)
