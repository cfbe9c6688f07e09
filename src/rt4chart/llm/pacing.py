"""When the next request may start: the smooth per-minute limiter the backend (and the Ray engine's shared pacer)
waits on (a server's ``Retry-After`` is read in ``faults.retry_after``)."""

from __future__ import annotations

import asyncio
from typing import Protocol

__all__ = ["Limiter", "RateLimiter"]


class RateLimiter:
    """Spaces request starts at least ``60 / rpm`` seconds apart (a smooth limiter: no bursts).

    ``reserve`` books the next start and returns how long to wait for it; ``wait`` books and waits. The Ray engine
    keeps one in a named actor so that all its workers share one limit (``rt4chart.ray``)."""

    def __init__(self, rpm: float) -> None:
        self.interval = 60.0 / rpm
        self._next = 0.0

    def reserve(self, now: float) -> float:
        """Book the next request start at or after ``now`` (a monotonic clock, in seconds); the seconds to wait."""
        start = max(now, self._next)
        self._next = start + self.interval
        return start - now

    async def wait(self) -> None:
        delay = self.reserve(asyncio.get_running_loop().time())
        if delay > 0:
            await asyncio.sleep(delay)


class Limiter(Protocol):
    """What the backend waits on before each request start (``RateLimiter``, or one shared by many processes)."""

    async def wait(self) -> None: ...
