"""Exact linear algebra, not about kernels: linear programs with proofs (docs/math.md §2).

* :mod:`~certify.linalg.simplex` — the exact simplex (two-phase, Bland's rule, python-flint
  ``fmpq``, sparse rows), with an optimal dual solution;
* :mod:`~certify.linalg.lp` — strict feasibility of ``l < A g < u`` with its proof (a
  solution, or a Farkas certificate), each verified by substitution; HiGHS (optional extra
  ``highs``) only proposes, the exact answer is checked.

``check-kernel``'s readout search (:mod:`certify.kernels.readout`) asks it one question
per query token; nothing here knows what a kernel is.
"""
from .lp import Feasibility, decide_feasibility, highs_available, strict_feasibility
from .simplex import LPError, as_fmpq

# the function simplex is certify.linalg.simplex.simplex (the module keeps the name here)
__all__ = ["LPError", "as_fmpq", "Feasibility", "strict_feasibility", "decide_feasibility", "highs_available"]
