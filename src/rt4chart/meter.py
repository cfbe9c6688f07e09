"""Per-record usage accounting through a context variable.

The auditor opens a ``UsageMeter`` for each record inside that record's task; anything that spends model calls
(backend, judge, decomposer) calls ``record_usage`` and the tokens land on the right record even when many records
are audited concurrently by one shared judge.
"""

from __future__ import annotations

import contextvars
from contextlib import contextmanager
from typing import Iterator, Optional

from .types import Usage

_current: contextvars.ContextVar[Optional["UsageMeter"]] = contextvars.ContextVar("rt4chart_usage", default=None)


class UsageMeter:
    """Accumulates ``Usage`` for one unit of work."""

    def __init__(self) -> None:
        self.total = Usage()

    def add(self, usage: Usage) -> None:
        self.total = self.total + usage


def record_usage(usage: Usage) -> None:
    """Add ``usage`` to the meter of the current record, if any."""
    meter = _current.get()
    if meter is not None:
        meter.add(usage)


@contextmanager
def metering() -> Iterator[UsageMeter]:
    """Open a fresh meter for the current context (one record)."""
    meter = UsageMeter()
    token = _current.set(meter)
    try:
        yield meter
    finally:
        _current.reset(token)
