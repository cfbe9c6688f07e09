"""Per-record usage accounting through a context variable.

The auditor opens a ``UsageMeter`` for each record inside that record's task; anything that spends model calls
(backend, judge, decomposer) calls ``record_usage`` and the tokens land on the right record even when many records
are audited concurrently by one shared judge. A judge that kept going past a problem (the hybrid judge whose model
call failed keeps its offline verdicts) says so with ``record_note``, and the note lands in that record's ``errors``.
"""

from __future__ import annotations

import contextvars
from contextlib import contextmanager
from typing import Iterator, Optional

from ..types import RecordError, Usage

_current: contextvars.ContextVar[Optional["UsageMeter"]] = contextvars.ContextVar("rt4chart_usage", default=None)


class UsageMeter:
    """Accumulates ``Usage`` for one unit of work."""

    def __init__(self) -> None:
        self.total = Usage()
        self.notes: list[RecordError] = []

    def add(self, usage: Usage) -> None:
        self.total = self.total + usage


def record_usage(usage: Usage) -> None:
    """Add ``usage`` to the meter of the current record, if any."""
    meter = _current.get()
    if meter is not None:
        meter.add(usage)


def record_note(note: RecordError) -> None:
    """Add ``note`` to the ``errors`` of the current record, if any (once: the same note twice is kept once)."""
    meter = _current.get()
    if meter is not None and note not in meter.notes:
        meter.notes.append(note)


@contextmanager
def metering() -> Iterator[UsageMeter]:
    """Open a fresh meter for the current context (one record)."""
    meter = UsageMeter()
    token = _current.set(meter)
    try:
        yield meter
    finally:
        _current.reset(token)
