"""The lemmas of the paper, with exact arithmetic (docs/math.md §3–§5, §7, §9).

* ``domination`` — weight domination (A.2): one jump's three witnesses force
  ``α(x,y) > μ·α(x,z)``;
* ``amplification`` — chains of jumps multiply their factors; the best split of a rise;
* ``frobenius`` — the trace–Frobenius rank bound (exact ranks: :mod:`certify.linalg.rank`);
* ``sharper`` — the sharper last steps (shifted, square, null-shifted, square-kernel), exactly;
  ``choice`` — choosing the step and its parameters (floats propose, exact values decide);
* ``unique_minimizer`` — A.4: four typed inputs force ``K(x,y) > ((d−1)/2)·K(x,z)``;
* ``identities`` — the symbolic identities behind them (sympy; ``certify identities``).
"""
