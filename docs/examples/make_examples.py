"""Regenerate the example kernel tables: ``python docs/examples/make_examples.py``.

All tables cover the 239 distinct tokens of the rank-nine family (paper chains); see
``docs/examples/README.md`` for what each one shows and the output of
``certify check-kernel`` on it. ``rank15_solves.npz`` is exactly what
``certify construction rank15 --out docs/examples/rank15_solves.npz`` writes: both call
``certify.constructions.one_hot`` (the tests compare the arrays). Every entry is an
integer, so the tables are exact. Every member is dated 1980-01-01
(``certify.kernels.table.npz_bytes``), so rerunning this script changes no byte.
"""
from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from certify.constructions.one_hot import one_hot_table, write_table  # noqa: E402
from certify.kernels.audit import load_family  # noqa: E402
from certify.kernels.table import npz_bytes  # noqa: E402
from witnesses import interpolating_key  # noqa: E402


def one_bad_entry(table: dict, family) -> dict:
    """The solving table with one kernel entry raised: α(x_0, y) = α(x_0, x_{S_0^c}) for the level-3 key y of chain 0 → 1.

    That key is as attractive as the preferred key ``x_{S^c}``, so the witness
    ``(x_0, x_{S^c}, y)`` — target 0 — is predicted near 1.5, and its jump is violated.
    """
    words = family.code_words
    y = interpolating_key(words[0], words[1], 3, family.m)
    tokens = [int(s[::-1], 2) for s in table["tokens"]]
    bad = dict(table, phi_k=table["phi_k"].copy())
    preferred = ((1 << family.m) - 1) ^ words[0]
    bad["phi_k"][tokens.index(y), 0] = bad["phi_k"][tokens.index(preferred), 0]
    return bad


def main() -> None:
    family = load_family(None)
    solves = one_hot_table(family)  # base n/ε = 6: certify construction rank15
    write_table(solves, str(HERE / "rank15_solves.npz"))
    write_table(one_bad_entry(solves, family), str(HERE / "rank15_fails.npz"))
    write_table(one_hot_table(family, base=Fraction(8, 5)), str(HERE / "rank15_flat_kernel.npz"))
    (HERE / "rank15_kernel_only.npz").write_bytes(npz_bytes({k: solves[k] for k in ("tokens", "phi_q", "phi_k")}))
    uniform = {
        "note": "the uniform kernel α ≡ 1 (rank 1) on the rank-nine family's tokens; no readout can exist",
        "tokens": list(solves["tokens"]),
        "phi_q": [[1] for _ in solves["tokens"]],
        "phi_k": [[1] for _ in solves["tokens"]],
    }
    (HERE / "uniform_kernel_only.json").write_text(json.dumps(uniform, indent=0) + "\n")
    print("wrote", ", ".join(p.name for p in sorted(HERE.glob("*.npz")) + [HERE / "uniform_kernel_only.json"]))


if __name__ == "__main__":
    main()
