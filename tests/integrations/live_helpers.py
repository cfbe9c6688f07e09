"""What the opt-in tests against real servers (``test_phoenix_live.py``, ``test_mlflow_live.py``) share: a wait
for a server's answer (the free loopback port is ``rt4chart.llm.managed.free_port``)."""

from __future__ import annotations

import time

import httpx


def wait_until(check, what: str, seconds: float, every: float):
    """``check()``'s first true answer, asked every ``every`` seconds (an HTTP error counts as none yet); an
    ``AssertionError`` naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            found = check()
        except httpx.HTTPError:
            found = None
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds:.0f} s for {what}")
        time.sleep(every)
