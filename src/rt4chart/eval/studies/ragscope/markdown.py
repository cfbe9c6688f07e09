"""The protocol's tables as Markdown (the same numbers as the JSON of :func:`~.protocol.run_protocol`)."""

from __future__ import annotations

from typing import Sequence

__all__ = ["render_markdown"]


def _ci(v: Sequence[float], digits: int = 3) -> str:
    return f"{v[0]:.{digits}f} [{v[1]:.{digits}f}, {v[2]:.{digits}f}]"


def render_markdown(result: dict) -> str:
    """The protocol's tables as Markdown (the same numbers as the JSON)."""
    rk = result["ranking"]
    scopes = [s for s in rk["RAGScope-E"] if s not in ("macro", "combined")] + ["macro", "combined"]
    lines = [
        f"n = {result['n']} answers, {result['n_groups']} context groups; positive rate "
        + ", ".join(f"{k} {v:.3f}" for k, v in result["positive_rate"].items())
        + f"; {result['folds']['n_splits']}-fold StratifiedGroupKFold (seed {result['folds']['seed']}), "
        f"{result['n_boot']} group-bootstrap resamples.",
        "",
        "**Ranking (AUROC / AP, 95% context-group intervals).**",
        "",
        "| scorer | " + " | ".join(scopes) + " |",
        "|---|" + "---|" * len(scopes),
    ]
    for name, rows in rk.items():
        cells = [f"{rows[s]['auroc'][0]:.3f} / {rows[s]['ap'][0]:.3f}" for s in scopes]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "| scorer (combined) | AUROC [95% CI] | AP [95% CI] |", "|---|---|---|"]
    for name, rows in rk.items():
        lines.append(f"| {name} | {_ci(rows['combined']['auroc'])} | {_ci(rows['combined']['ap'])} |")
    lines += ["", "**Paired deltas, RAGScope-E minus baseline (same resamples).**", "",
              "| scope / baseline | ΔAUROC [95% CI] | ΔAP [95% CI] |", "|---|---|---|"]
    for base, rows in result["deltas"].items():
        for s in scopes:
            lines.append(f"| {s} / {base} | {_ci(rows[s]['auroc'])} | {_ci(rows[s]['ap'])} |")
    op = result["operating_points"]
    lines += ["", "**Operating points: review precision at top-risk ρ, accepted risk at lowest-risk α.**", ""]
    rev = list(next(iter(op.values()))["combined"]["review"])
    acc = list(next(iter(op.values()))["combined"]["accept"])
    lines += [
        "| scope | scorer | " + " | ".join(f"review {float(f):.0%}" for f in rev) + " | "
        + " | ".join(f"accept {float(f):.0%}" for f in acc) + " |",
        "|---|---|" + "---|" * (len(rev) + len(acc)),
    ]
    for s in ["combined"] + [x for x in scopes if x not in ("macro", "combined")]:
        for name, rows in op.items():
            cells = [f"{rows[s]['review'][f][0]:.3f}" for f in rev] + [f"{rows[s]['accept'][f][0]:.3f}" for f in acc]
            lines.append(f"| {s} | {name} | " + " | ".join(cells) + " |")
    lines += ["", "| scope | scorer | review 10% [95% CI] | accept 50% [95% CI] |", "|---|---|---|---|"]
    for s in ["combined"] + [x for x in scopes if x not in ("macro", "combined")]:
        for name, rows in op.items():
            lines.append(f"| {s} | {name} | {_ci(rows[s]['review']['0.10'])} | {_ci(rows[s]['accept']['0.50'])} |")
    lines += ["", "**End-to-end ms/example** (features + scoring of held-out records, this run): "
              + ", ".join(f"{k} {v:.2f}" for k, v in result["ms_per_example"].items())]
    if "transfer" in result:
        lines += ["", "**Leave one task out** (fit on the other two tasks; AUROC / AP with 95% intervals).", "",
                  "| held-out task | scorer | AUROC | AP |", "|---|---|---|---|"]
        for t, rows in result["transfer"].items():
            for name, m in rows.items():
                lines.append(f"| {t} | {name} | {_ci(m['auroc'])} | {_ci(m['ap'])} |")
    if "calibration" in result:
        lines += ["", "**Target-only calibration** (RAGScope-C on k labels of the target task; macro mean ± SE over "
                  "seeds).", "", "| training | labels | AUROC | AP |", "|---|---|---|---|"]
        for k, m in result["calibration"]["macro"].items():
            kind = "zero-shot uncovered" if k == "zero-shot" else "target-only"
            lab = "0" if k == "zero-shot" else k
            lines.append(
                f"| {kind} | {lab} | {m['auroc'][0]:.3f} ± {m['auroc'][1]:.3f} | {m['ap'][0]:.3f} ± {m['ap'][1]:.3f} |"
            )
    return "\n".join(lines) + "\n"
