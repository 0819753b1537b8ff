"""Regenerate the example kernel tables: ``python docs/examples/make_examples.py``.

All tables cover the 240 distinct tokens of the rank-nine family (paper chains); see
``docs/examples/README.md`` for what each one shows and the output of
``certify check-kernel`` on it.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from witnesses import rank_nine_family  # noqa: E402


def family_tokens():
    fam = rank_nine_family("paper")
    tokens = sorted({z for X in fam.inputs for z in X.tokens})
    return fam, tokens


def bits(x: int, m: int = 24) -> str:
    return format(x, f"0{m}b")[::-1]


def softmin_table(base: float) -> dict:
    """φ_Q(x_S) = e_S (15 features, one per query token), φ_K(z)_S = base^(−⟨x_S, z⟩).

    The kernel of query x_S is decreasing in the overlap (docs/math.md §10). Values v(z) = z
    and readout ⟨x_i, a_i⟩ (beta = 0, w(x_i) = x_i): the dense-softmax construction of
    A.1 with temperature log(base); base 6 = e^{log 6} gives error < 1/2 at length 3.
    """
    fam, tokens = family_tokens()
    queries = list(fam.code.words)
    N, r = len(tokens), len(queries)
    phi_q = np.zeros((N, r))
    phi_k = np.zeros((N, r))
    vals = np.array([[(z >> k) & 1 for k in range(24)] for z in tokens], dtype=np.float64)
    for i, z in enumerate(tokens):
        if z in queries:
            phi_q[i, queries.index(z)] = 1.0
        for s, x in enumerate(queries):
            phi_k[i, s] = float(base) ** (-(x & z).bit_count())
    return {
        "tokens": np.array([bits(z) for z in tokens]),
        "phi_q": phi_q,
        "phi_k": phi_k,
        "beta": np.zeros(N),
        "w": vals.copy(),
        "values": vals,
    }


def one_bad_entry() -> dict:
    """The solving table with one kernel entry raised: α(x_0, y) = 1 for the level-3 key y of chain 0 → 1.

    That key is as attractive as the preferred key x_{S^c} (both α = 1), so the witness
    (x_0, x_{S^c}, y) — target 0 — is predicted near 1.5, and its jump is violated.
    """
    from witnesses import interpolating_key

    fam, tokens = family_tokens()
    table = softmin_table(6.0)
    s0, s1 = fam.code.words[0], fam.code.words[1]
    y = interpolating_key(s0, s1, 3, 24)
    table["phi_k"][tokens.index(y), 0] = 1.0
    return table


def main() -> None:
    np.savez_compressed(HERE / "rank15_solves.npz", **softmin_table(6.0))
    np.savez_compressed(HERE / "rank15_fails.npz", **one_bad_entry())
    np.savez_compressed(HERE / "rank15_flat_kernel.npz", **softmin_table(1.6))
    kernel_only = softmin_table(6.0)
    for k in ("beta", "w", "values"):
        del kernel_only[k]
    np.savez_compressed(HERE / "rank15_kernel_only.npz", **kernel_only)
    _, tokens = family_tokens()
    uniform = {
        "note": "the uniform kernel α ≡ 1 (rank 1) on the rank-nine family's tokens; no readout can exist",
        "tokens": [bits(z) for z in tokens],
        "phi_q": [[1] for _ in tokens],
        "phi_k": [[1] for _ in tokens],
    }
    (HERE / "uniform_kernel_only.json").write_text(json.dumps(uniform, indent=0) + "\n")
    print("wrote", ", ".join(p.name for p in sorted(HERE.glob("*.npz")) + [HERE / "uniform_kernel_only.json"]))


if __name__ == "__main__":
    main()
