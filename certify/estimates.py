"""How long a command may run, and how its estimate is said (issue 42).

A search is estimated from a count of its work before it starts (``certify minrank``:
entry-steps; ``certify bracket``: entry-iterations), converted to seconds on the 2-core
machine by each command's documented constant; a run estimated above :data:`MAX_SECONDS`
is refused with exit 2. :func:`duration` says a number of seconds as a person reads it.

>>> duration(600), duration(5 * 3600), duration(10 * 86_400)
('10 minutes', '5 hours', '10 days')
"""
from __future__ import annotations

__all__ = ["MAX_SECONDS", "duration"]

#: The longest search a command starts: a day on the 2-core machine, by the command's estimate.
MAX_SECONDS = 86_400


def duration(seconds: float) -> str:
    """``seconds`` in minutes below two hours, hours below two days, else days (rounded)."""
    if seconds < 7200:
        return f"{seconds / 60:,.0f} minutes"
    if seconds < 2 * 86_400:
        return f"{seconds / 3600:,.0f} hours"
    return f"{seconds / 86_400:,.0f} days"
