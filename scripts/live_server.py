"""What the scripts that picture a live server (``phoenix_picture.py``, ``mlflow_picture.py``) share: a wait for a
server's answer and the picture made small (the free loopback port is ``rt4chart.llm.managed.free_port``). Imported
by those scripts as a sibling module (a script's folder is first on its path)."""

from __future__ import annotations

import shutil
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
