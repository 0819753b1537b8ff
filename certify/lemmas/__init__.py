"""The lemmas of the paper's A.2, with exact arithmetic (docs/math.md §3–§5).

* ``domination`` — weight domination: one jump's three witnesses force
  ``α(x,y) > μ·α(x,z)``;
* ``amplification`` — chains of jumps multiply their factors; the best split of a rise;
* ``frobenius`` — the trace–Frobenius rank bound and exact ranks (python-flint).
"""
