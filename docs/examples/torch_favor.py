"""A FAVOR+-style random-feature head, written inline: is it tokenwise, and its exact verdict (docs/torch.md)."""
import torch
import certify.torch as ct

torch.manual_seed(0)
m, r = 24, 32
omega = torch.randn(r, m, dtype=torch.float64) / 2  # fixed random features ω_1 … ω_r


def favor(x, stabilize=False):
    """φ(x) = exp(ω·x − |x|²/2 − c)/√r > 0; FAVOR+'s stabilizer c is a maximum over the whole sequence."""
    h = x @ omega.T - (x * x).sum(-1, keepdim=True) / 2
    c = h.amax(dim=(-2, -1), keepdim=True) if stabilize else 0.0
    return torch.exp(h - c) / r**0.5


# A library applies the map to a sequence (B, L, m); is each output a function of its own token?
plain = ct.verify_tokenwise(favor, "rank-nine")
print("plain:     ", plain.verdict, f"(every difference below {plain.rtol:.0e} of its column's largest output)")
print("stabilized:", ct.verify_tokenwise(lambda x: favor(x, stabilize=True), "rank-nine").text())
against = ct.verify_tokenwise(lambda x: favor(x, stabilize=True), "rank-nine", reference=favor)  # the map without it
print("stabilized against the plain map:", against.verdict, "| harmless:", against.harmless)

# The exact check of the (tokenwise) kernel alone: does some readout make it solve the family?
report = ct.check(favor, favor, family="rank-nine")
print("some readout solves:", report.readout_exists, "| exact kernel rank:", report.kernel_rank,
      "| certified r >=", report.certified_bound)
