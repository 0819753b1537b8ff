"""Producing rank certificates (docs/certificate-format.md); the checker is ``certify.check``.

* ``producer`` — builds a certificate from a witness family, writes it, describes it.
"""
