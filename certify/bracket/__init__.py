"""Both sides of the bracket (issue 16): the certified lower bound and a verified low-rank solution.

``factor`` proposes low-rank kernels numerically (floats, seeded, budgeted by iterations);
``upper`` rounds them to rationals and keeps only tables that the exact check of
``certify check-kernel`` verifies. The lower side is the certificate's proved bound.
"""
from .factor import Geometry, factor_search, geometry, truncate
from .upper import Solution, UpperResult, upper_side, verify_factors, write_solution

__all__ = ["Geometry", "geometry", "factor_search", "truncate", "Solution", "UpperResult", "upper_side",
           "verify_factors", "write_solution"]
