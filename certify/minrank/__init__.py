"""r*(m, 3): the least feature rank of one head solving Min-IP on every length-3 input over m-bit tokens (issue 31).

Both sides exact, for small ``m`` (docs/math.md §11; docs/results.md, "r*(m, 3) for small m"):

* ``rows`` — the row condition that decides whether a kernel row admits a correct readout,
  and the explicit readout when it does;
* ``verify`` — every length-3 input evaluated exactly with those readouts (``m ≤ 8``);
* ``search`` / ``upper`` — a low-rank kernel found numerically, rounded to integer factors
  and kept only when verified; the dense-softmax kernel (rank ``2^m``) otherwise;
* ``obstruction`` / ``lower`` — order obstructions (``r* ≥ 2`` from ``m = 4``, ``≥ 3`` from
  ``m = 5``), a certificate and its standard-library checker; plus the tool's certified
  bound from a best-chain search certificate;
* ``bracket`` — both sides for one ``m`` (``certify minrank``).
"""
