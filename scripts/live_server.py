"""What the scripts that picture a live server (``phoenix_picture.py``, ``mlflow_picture.py``) share: a wait for a
server's answer, its stop, the audit's flagged lines and the picture made small (the free loopback port is
``rt4chart.llm.managed.free_port``). Imported by those scripts as a sibling module (a script's folder is first on its
path)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path


def wait_until(check, what: str, seconds: float, every: float):
    """``check()``'s first true answer, asked every ``every`` seconds (an HTTP error counts as none yet); a
    ``RuntimeError`` naming ``what`` after ``seconds``."""
    import httpx

    deadline = time.monotonic() + seconds
    while True:
        try:
            found = check()
        except httpx.HTTPError:
            found = None
        if found:
            return found
        if time.monotonic() > deadline:
            raise RuntimeError(f"waited {seconds:.0f} s for {what}")
        time.sleep(every)


def shrink(shot: Path, output: Path) -> None:
    """A palette PNG, so that the picture stays small (a few hundred KB at most)."""
    try:
        from PIL import Image
    except ImportError:
        shutil.move(shot, output)
        return
    with Image.open(shot) as image:
        image.convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(output, optimize=True)
    shot.unlink()


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


def flagged_audit(command: list[str], out: Path, env: dict[str, str], cwd: Path) -> list[dict]:
    """Run ``command`` (an ``rt4chart audit`` writing ``out``) and return the lines of ``out`` it flagged; a
    ``RuntimeError`` when it fails or flags nothing (a picture would have nothing to show)."""
    print("$ rt4chart " + " ".join(command[3:]))
    done = subprocess.run(command, cwd=cwd, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"the audit exited {done.returncode}")
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    flagged = [line for line in lines if line.get("hallucinated")]
    if not flagged:
        raise RuntimeError("no trace was flagged: nothing to show")
    return flagged
