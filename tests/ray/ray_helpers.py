"""Helpers of the Ray engine's tests, importable by Ray workers (the fixtures put this folder on their PYTHONPATH):
RAGTruth records, the local engine's lines to compare with, and a judge whose process dies once."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

from rt4chart.judges.lexical import LexicalJudge

TIMING = ("seconds",)


def ragtruth_records(n: int) -> list[dict]:
    """``n`` RAGTruth test records as ``rt4chart eval run --limit`` takes them (tasks interleaved, groups whole)."""
    from rt4chart.eval.datasets import ENV_DATA_DIR, load_ragtruth
    from rt4chart.eval.runner import limit_records

    records = load_ragtruth("test", data_dir=os.environ.get(ENV_DATA_DIR) or None)
    return [r.to_record() for r in limit_records(records, n)]


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def untimed(line: dict) -> dict:
    """An output line without its wall-clock time (the one field two runs of the same audit may differ in)."""
    line = dict(line)
    if isinstance(line.get("usage"), dict):
        line["usage"] = {k: v for k, v in line["usage"].items() if k not in TIMING}
    return line


def read_lines(path: Path) -> list[dict]:
    return [untimed(json.loads(x)) for x in path.read_text(encoding="utf-8").splitlines()]


def local_lines(input_path: Path, out_path: Path, judge: str = "lexical", **options: Any) -> list[dict]:
    """The local engine's output lines for ``input_path`` (``rt4chart audit``'s code path)."""
    from rt4chart.jobs.batch import run_batch
    from rt4chart.io import FieldMap, read_rows
    from rt4chart.judges.registry import build_auditor

    fields = options.pop("fields", FieldMap())
    run_batch(list(read_rows(input_path)), build_auditor(judge, **options), out_path, fields=fields)
    return read_lines(out_path)


class KillOnceJudge(LexicalJudge):
    """The lexical judge, except that the first process to reach its ``after``-th call while ``marker`` does not
    exist writes its pid there and kills itself with SIGKILL, in the middle of a batch."""

    def __init__(self, marker: str, after: int = 5) -> None:
        super().__init__()
        self.marker, self.after = marker, after
        self.calls = 0

    async def judge(self, claims: Any, evidence: str, **kw: Any) -> Any:
        self.calls += 1
        if self.calls >= self.after and not os.path.exists(self.marker):
            Path(self.marker).write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
        return await super().judge(claims, evidence, **kw)
