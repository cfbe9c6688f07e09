"""The outputs of ``rt4chart eval ablate``: the markdown table of an ablation (``render_ablation``) and the files
it writes (``write_report``: metrics.json and table.md; ``write_estimates``: estimate.json and estimate.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

__all__ = ["render_ablation", "write_report", "write_estimates"]


def _f(x: Optional[float], digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _delta(d: Optional[list]) -> str:
    if not d or d[0] is None:
        return "—"
    ci = "" if d[1] is None else f" [{d[1]:+.3f}, {d[2]:+.3f}]"
    return f"{d[0]:+.3f}{ci}"


def render_ablation(report: Mapping[str, Any], skipped: Sequence[tuple[str, str]], title: str) -> str:
    """Markdown: one row per setting (overall scope) with answer P/R/F1, span F1, AUROC, their paired deltas
    against the default, calls and tokens per answer, and the share of answers predicted as by the default."""
    p = report["paired"]
    b = report["bootstrap"]
    lines = [f"### {title}", "",
             f"{p['scored']} answers ({report['positives']} hallucinated) from {report['groups']} source contexts, the "
             f"same for every setting" + (f" ({p['left_out']} left out: some setting has no result for them)"
                                         if p["left_out"] else "") +
             f". Deltas: setting minus `{p['reference']}`, {b['confidence']:.0%} percentile intervals of the paired "
             f"differences over {b['resamples']} resamples of source-context groups (seed {b['seed']}).", "",
             "| setting | W | O | global | answer P / R / F1 | ΔF1 | span F1 | Δspan F1 | AUROC | ΔAUROC | "
             "calls/answer | tokens/answer (prompt + completion) | wall s/answer | same as default |",
             "|---|---:|---:|---|---|---|---:|---|---:|---|---:|---:|---:|---:|"]
    for name, sys_ in report["systems"].items():
        s = sys_["setting"]
        a = (sys_.get("answer") or {}).get("overall") or {}
        sp = (sys_.get("span") or {}).get("overall") or {}
        rk = (sys_.get("ranking") or {}).get("overall") or {}
        d = (sys_.get("deltas") or {}).get("overall") or {}
        u = sys_["usage"]
        tokens = (u["prompt_tokens_per_answer"] or 0) + (u["completion_tokens_per_answer"] or 0)
        answer = " / ".join(_f(a.get(k)) for k in ("precision", "recall", "f1")) if a else "—"
        lines.append(
            f"| {name} | {s['window']} | {s['overlap']} | {'on' if s['global_verification'] else 'off'} | {answer} | "
            f"{_delta(d.get('answer_f1'))} | {_f(sp.get('f1'))} | {_delta(d.get('span_f1'))} | {_f(rk.get('auroc'))} | "
            f"{_delta(d.get('auroc'))} | {_f(u['calls_per_answer'], 1)} | "
            f"{_f(u['prompt_tokens_per_answer'], 0)} + {_f(u['completion_tokens_per_answer'], 0)} = {tokens:,.0f} | "
            f"{_f(u['wall_seconds_per_answer'], 3)} | {sys_['same_as_reference']:.1%} |")
    for name, why in skipped:
        lines.append(f"- skipped {name}: {why}")
    failed = {n: len(s["record_errors"]) for n, s in report["systems"].items() if s["record_errors"]}
    if failed:
        lines.append("- records that failed (error rows, left out of every setting): "
                     + ", ".join(f"{n} {k}" for n, k in failed.items()))
    return "\n".join(lines) + "\n"


def write_report(out: Path, report: dict, skipped: Sequence[tuple[str, str]], title: str) -> str:
    """Write ``metrics.json`` (``report`` with the manifest as ``meta`` and the skipped settings) and ``table.md``
    into ``out``; returns the table."""
    report["meta"] = json.loads((out / "ablation.json").read_text(encoding="utf-8"))
    report["skipped"] = [{"setting": n, "reason": why} for n, why in skipped]
    table = render_ablation(report, skipped, title)
    (out / "metrics.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "table.md").write_text(table, encoding="utf-8")
    return table


def write_estimates(out: Path, rows: Sequence[tuple[Any, Any]], skipped: Sequence[tuple[str, str]], *, records: int,
                    model: Optional[str], title: str) -> str:
    """Write ``estimate.json`` and ``estimate.md`` for ``(setting, Estimate)`` rows into ``out``; returns the
    markdown."""
    from ...judges.estimate import render_estimates

    table = render_estimates([(s.name, e) for s, e in rows], title=f"{title}: estimate for model {model}")
    table += "".join(f"- skipped {n}: {why}\n" for n, why in skipped)
    out.mkdir(parents=True, exist_ok=True)
    (out / "estimate.json").write_text(json.dumps(
        {"records": records, "model": model,
         "settings": {s.name: {"setting": s.auditor_options(), **e.to_json()} for s, e in rows},
         "skipped": [{"setting": n, "reason": why} for n, why in skipped]}, indent=2) + "\n", encoding="utf-8")
    (out / "estimate.md").write_text(table, encoding="utf-8")
    return table
