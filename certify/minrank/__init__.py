"""r*(m, 3): the least feature rank of one head solving Min-IP on every length-3 input over m-bit tokens (issue 31).

Both sides exact (docs/math.md §11; docs/results.md, "r*(m, 3) for small m" and "r*(m, 3) for every m ≤ 48"):

* ``rows`` — the row condition that decides whether a kernel row admits a correct readout,
  and the explicit readout when it does;
* ``verify`` — every length-3 input evaluated exactly with those readouts (``m ≤ 8``);
* ``search`` / ``upper`` — a low-rank kernel found numerically, rounded to integer factors
  and kept only when verified (``m ≤ 8``); the dense-softmax kernel (rank ``2^m``) otherwise;
* ``terwilliger`` / ``invariant`` / ``symmetric`` — kernels invariant under products of
  symmetric groups, by their Terwilliger blocks: the LP search (HiGHS), the shipped
  certificates (``certificates/``), each checked by ``certify/check_symmetric.py``;
* ``degree`` — ``K1(N)`` with its Gordan certificate (``certify/check_degree.py``): what
  fully invariant kernels cannot do;
* ``product_degree`` — the joint chain problem of a product of symmetric groups at bounded
  degree per part, with its certificate (``certify/check_degree.py``): what multilinear
  product kernels cannot do (docs/math.md §11, Proposition 11.12);
* ``lower`` — order obstructions (``r* ≥ 2`` from ``m = 4``, ``≥ 3`` from ``m = 5``), region
  counting and the ``⌊m/2⌋`` pair queries, checked by ``certify/check_obstruction.py``;
  ``results_rows`` — the committed results rows (``certify/check.py``) as lower bounds;
* ``bracket`` — both sides for one ``m`` (``certify minrank``).
"""
