"""certify: exact proof certificates for "Three Tokens Force Exponential Feature Rank".

The top layer: ``codes`` ← ``witnesses`` ← ``certify``. This ``__init__`` imports
nothing heavy, so that ``certify.check`` (the stdlib-only checker) stays independent
and the CLI starts fast. Import the submodules you need:

* ``certify.check``, ``certify.check_split``, ``certify.check_obstruction``, ``certify.check_symmetric``,
  ``certify.check_degree`` — the trusted checkers (stdlib only; the
  others rest on ``check.py``'s reader), together at the top (docs/architecture.md);
* ``certify.lemmas`` — the lemmas of A.2–A.4 with exact arithmetic, the sharper last steps
  and their choice; ``identities`` (sympy);
* ``certify.certificates`` — building, writing and expanding certificates;
* ``certify.bounds`` — bound values for any ``m`` (docs/math.md §7), their text and plot;
* ``certify.kernels`` — ``certify check-kernel``, one module per stage;
* ``certify.linalg`` — exact linear algebra: ranks with proofs, the exact simplex and LP;
* ``certify.search``, ``certify.bracket``, ``certify.minrank`` — searches whose answers
  the exact checks decide;
* ``certify.constructions`` — the upper-bound constructions of docs/math.md §8;
* ``certify.training``, ``certify.experiments``, ``certify.torch`` — training heads,
  the §6 experiments and the PyTorch glue (the optional extra ``train``);
* ``certify.exact``, ``certify.outputs`` — exact numbers at the boundary, output files
  written whole or not at all;
* ``certify.cli`` — the ``certify`` command, one thin module per command group.
"""
__version__ = "0.1.0"
__all__ = ["__version__"]
