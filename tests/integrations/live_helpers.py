"""What the opt-in tests against real servers (``test_phoenix_live.py``, ``test_mlflow_live.py``) share: a wait
for a server's answer and its stop (the free loopback port is ``rt4chart.llm.managed.free_port``)."""

from __future__ import annotations

import os
import signal
import subprocess
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


def stop_group(proc: "subprocess.Popen[bytes]") -> None:
    """Stop a server started in a session of its own (``start_new_session=True``) and everything it started: SIGTERM
    to its process group, SIGKILL after 30 s; nothing when it has already stopped."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
