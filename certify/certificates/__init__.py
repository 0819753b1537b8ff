"""Producing certificates and family files (docs/certificate-format.md); the checker is ``certify.check``.

* ``producer`` — builds a rank certificate from a witness family, writes it, describes it;
* ``unique_minimizer`` — the unique-minimizer certificate of A.4 (its own ``format``);
* ``families`` — witness-family files for ``certify family`` (docs/families.md).
"""
