"""Both sides of the bracket (issues 16 and 32): the certified lower bound and a verified low-rank solution.

``reduced`` turns a length-3 witness family into its reduced matrix (queries × keys, jumps;
docs/math.md §12), ``descent`` proposes low-rank factors of it numerically (floats, seeded,
budgeted by iterations), ``lift`` writes them as a kernel table with a fixed readout and
keeps only tables that the exact check of ``certify check-kernel`` verifies, and ``upper``
bisects the rank between the certified bound and the exponential start. ``linalg`` keeps
every BLAS or LAPACK call of a large block short, so that Ctrl-C and SIGTERM act at once.
"""
from .descent import Constraints, constraints, descend, exponential_start, truncate
from .lift import lift_table, verify_lifted
from .reduced import ETA, Reduced, ReductionError, reduce_family
from .upper import BracketRangeError, Solution, TooMuchWork, UpperResult, upper_side, write_solution

__all__ = ["ETA", "Reduced", "ReductionError", "reduce_family", "Constraints", "constraints", "descend",
           "exponential_start", "truncate", "lift_table", "verify_lifted", "BracketRangeError", "Solution", "UpperResult", "upper_side",
           "write_solution", "TooMuchWork"]
