"""Bound values for a given ``m`` (docs/bounds.md): ``values`` computes, ``render`` writes text, ``plot`` draws.

The public names of :mod:`certify.bounds.values` are re-exported here, so
``certify.bounds.all_bounds(m)`` works as before.
"""
from .values import *  # noqa: F401,F403
from .values import __all__  # noqa: F401
