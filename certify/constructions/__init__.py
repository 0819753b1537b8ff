"""Upper-bound constructions, checked exhaustively and exactly (docs/math.md §8).

Each module is one construction; ``exhaustive`` enumerates every input a construction
covers and compares each exact prediction with its Min-IP target:

* ``rank_one`` — uniform kernel, ``v(z) = z``, readout ``2⟨x,a⟩ − ‖x‖₁``: exact at lengths
  1 and 2, fails at 3 (§3, A.2);
* ``softmax`` — kernel ``(1/(2n))^⟨x,z⟩``: error ``< 1/2`` at every length ``≤ n``; its
  Boolean-domain kernel has rank ``2^m`` (A.1);
* ``polynomial`` — rank one with a degree-``D`` polynomial readout, exact at length
  ``D + 1`` (B.4);
* ``relu`` — length 3, positional values and one ReLU (C.2);
* ``one_hot`` — one feature per query token: the rank-15 solution of the rank-nine
  family (§6.1), and the same for any family, checked by ``check-kernel``.

``certify construction NAME`` runs them. :data:`EXHAUSTIVE` maps the names of the
exhaustively checked ones to their classes.
"""
from .polynomial import Polynomial
from .rank_one import RankOne
from .relu import Relu
from .softmax import Softmax

__all__ = ["EXHAUSTIVE", "Polynomial", "RankOne", "Relu", "Softmax"]

EXHAUSTIVE = {"rank-one": RankOne, "softmax": Softmax, "polynomial": Polynomial, "relu": Relu}
