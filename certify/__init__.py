"""certify: exact proof certificates for "Three Tokens Force Exponential Feature Rank".

The top layer: ``codes`` ← ``witnesses`` ← ``certify``. This ``__init__`` imports
nothing heavy, so that ``certify.check`` (the stdlib-only checker) stays independent
and the CLI starts fast. Import the submodules you need:

* ``certify.check`` — the independent certificate checker (stdlib only), alone at
  the top: the one trusted file;
* ``certify.lemmas`` — ``domination``, ``amplification``, ``frobenius``: the lemmas
  of A.2 with exact arithmetic; ``unique_minimizer`` (A.4); ``identities`` (sympy);
* ``certify.certificates`` — ``producer``: builds and writes certificates;
  ``unique_minimizer`` (A.4 certificates); ``families`` (family files);
* ``certify.bounds`` — ``values`` (bound values for any ``m``, docs/math.md §7), ``render``
  (their text) and ``plot``;
* ``certify.kernels`` — ``table``, ``audit``, ``lp``: checking kernel tables against
  witness families, with an exact LP for readout existence;
* ``certify.constructions`` — the upper-bound constructions of docs/math.md §8, checked
  exhaustively and exactly (``certify construction``);
* ``certify.exact`` — exact numbers at the boundary (floats refused);
* ``certify.cli`` — the ``certify`` command.
"""
__version__ = "0.1.0"
__all__ = ["__version__"]
