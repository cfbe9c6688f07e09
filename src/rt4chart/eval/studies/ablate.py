"""Ablations of the audit settings on one dataset (``rt4chart eval ablate``; RT4CHART §4.4-4.5, Tables 6, 8 and 9).

Every setting audits the same records with the same judge, one ``eval run`` each (``runner.run``: a resumable
results file per setting); the settings are then scored together by ``scoring.evaluate`` with paired
group-bootstrap deltas against the default setting (the same resamples for every setting), on the records that every
setting audited.

Settings: the default (the paper's W=25, O=10, global verification on, sentence decomposition, per-claim calls); one
per point of a grid over W, O and global verification (``parse_grid``; the paper's Table 9 grid by default); and
one-change variants (``VARIANTS``). A grid point with O >= W, and a variant that does not apply to the judge (holistic
decomposition and batched calls need the LLM judge), are skipped with the reason.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

from ...audit.config import AuditConfig
from ...errors import ConfigError, InputError
from ...io import json_objects
from ..datasets import EvalRecord
from ..predictions import Prediction, read_predictions
from ..runner import results_to_predictions, run
from ..scoring import evaluate

__all__ = ["Setting", "DEFAULT", "DEFAULT_GRID", "VARIANTS", "parse_grid", "parse_variants", "plan",
           "manifest_of", "check_manifest", "run_settings", "score_settings", "estimate_settings"]

#: the paper's chunking grid (RT4CHART Table 9)
DEFAULT_GRID = "W=15,25,35;O=5,10"
#: one-change variants of the default setting, each against the paper's finding it tests
VARIANTS = {
    "no-global": "global verification off: local labels are final (Table 6)",
    "holistic": "holistic claim decomposition, one call per answer (Table 8)",
    "batched": "all claims of an answer in one call per chunk and one global call (cost, DESIGN.md)",
    "prefilter": "chunks sharing no content word with a claim are not judged (cost, DESIGN.md)",
}
_LLM_ONLY = {"holistic": "decomposition", "batched": "granularity"}
_NOT_OFFLINE = {
    "holistic": "needs the LLM decomposer; the {judge} judge reads claims from the rule decomposer",
    "batched": "batches the LLM judge's calls; the {judge} judge makes none",
}
_GRID_KEY = re.compile(r"^\s*(\w+)\s*=\s*(.*?)\s*$")
_GLOBAL = {"on": True, "off": False}


#: the audit's default settings (``AuditConfig``), which the default setting keeps
_AUDIT = AuditConfig()


@dataclass(frozen=True)
class Setting:
    """One audit setting: W, O, global verification, LLM decomposition and granularity (None: the judge's default,
    i.e. sentence decomposition by the LLM, the rule decomposer for the offline judges, and per-claim calls) and the
    prefilter. ``name`` says how it differs from the default."""

    name: str
    window: int = _AUDIT.window
    overlap: int = _AUDIT.overlap
    global_verification: bool = _AUDIT.global_verification
    decomposition: Optional[str] = None
    granularity: Optional[str] = None
    prefilter: bool = _AUDIT.prefilter

    def auditor_options(self) -> dict[str, Any]:
        """The ``build_auditor`` options this setting sets."""
        out: dict[str, Any] = {"window": self.window, "overlap": self.overlap,
                               "global_verification": self.global_verification, "prefilter": self.prefilter}
        if self.decomposition is not None:
            out["decomposition"] = self.decomposition
        if self.granularity is not None:
            out["granularity"] = self.granularity
        return out

    def key(self) -> tuple:
        return (self.window, self.overlap, self.global_verification, self.decomposition, self.granularity,
                self.prefilter)


DEFAULT = Setting("default")


def _ints(key: str, values: str, minimum: int) -> tuple[int, ...]:
    out = []
    for v in values.split(","):
        v = v.strip()
        if not re.fullmatch(r"\d+", v) or int(v) < minimum:
            raise ConfigError(f"--grid: {key}={values!r}: {v!r} is not a whole number >= {minimum}")
        out.append(int(v))
    return tuple(dict.fromkeys(out))


def parse_grid(text: str) -> dict[str, tuple]:
    """``"W=5,10,25,50;O=0,5,10;global=on,off"`` as ``{"W": (5, 10, 25, 50), "O": (0, 5, 10), "global": (True,
    False)}``. Keys: ``W`` (chunk size in sentences, >= 1), ``O`` (overlap, >= 0), ``global`` (on/off); a key left out
    keeps the default's value. ``ConfigError`` for an unknown or repeated key, an empty or malformed value."""
    grid: dict[str, tuple] = {}
    for part in [p for p in text.split(";") if p.strip()]:
        m = _GRID_KEY.match(part)
        if m is None or not m.group(2):
            raise ConfigError(f"--grid: {part.strip()!r} is not KEY=V1,V2,... (keys W, O, global; e.g. "
                              f"{DEFAULT_GRID!r})")
        key, values = m.group(1), m.group(2)
        norm = {"w": "W", "o": "O", "global": "global"}.get(key.lower())
        if norm is None:
            raise ConfigError(f"--grid: unknown key {key!r}; the keys are W (chunk size), O (overlap) and global "
                              "(on/off)")
        if norm in grid:
            raise ConfigError(f"--grid: {norm} is given twice")
        if norm == "global":
            bad = [v.strip() for v in values.split(",") if v.strip().lower() not in _GLOBAL]
            if bad:
                raise ConfigError(f"--grid: global={values!r}: {bad[0]!r} is not on or off")
            grid[norm] = tuple(dict.fromkeys(_GLOBAL[v.strip().lower()] for v in values.split(",")))
        else:
            grid[norm] = _ints(norm, values, 1 if norm == "W" else 0)
    if not grid:
        raise ConfigError(f"--grid is empty; give e.g. {DEFAULT_GRID!r}")
    return grid


def parse_variants(text: str) -> tuple[str, ...]:
    """Comma-separated names from ``VARIANTS`` (``""`` or ``none``: no variant); ``ConfigError`` for an unknown one."""
    names = [v.strip() for v in text.split(",") if v.strip()]
    if names == ["none"]:
        return ()
    unknown = [v for v in names if v not in VARIANTS]
    if unknown:
        raise ConfigError(f"--variants: unknown variant {unknown[0]!r}; choose from {', '.join(VARIANTS)} (or none)")
    return tuple(dict.fromkeys(names))


def _name(s: Setting) -> str:
    """How ``s`` differs from the default, e.g. ``W15-O5 no-global``; ``default`` when it does not."""
    parts = []
    if (s.window, s.overlap) != (DEFAULT.window, DEFAULT.overlap):
        parts.append(f"W{s.window}-O{s.overlap}")
    if not s.global_verification:
        parts.append("no-global")
    if s.decomposition == "holistic":
        parts.append("holistic")
    if s.granularity == "batched":
        parts.append("batched")
    if s.prefilter:
        parts.append("prefilter")
    return " ".join(parts) or "default"


def plan(grid: Mapping[str, Sequence], variants: Sequence[str], *, judge: str
         ) -> tuple[list[Setting], list[tuple[str, str]]]:
    """The settings to run, default first, and the skipped ones with why. ``judge`` is the judge's name (``llm``
    or an offline judge): holistic and batched apply to the LLM judge only. A setting reached twice (a grid point
    equal to a variant) runs once. ``ConfigError`` when every W/O pair of a grid has O >= W."""
    settings: dict[tuple, Setting] = {DEFAULT.key(): DEFAULT}
    skipped: list[tuple[str, str]] = []
    points = 0
    for w in grid.get("W", (DEFAULT.window,)):
        for o in grid.get("O", (DEFAULT.overlap,)):
            for g in grid.get("global", (DEFAULT.global_verification,)):
                s = replace(DEFAULT, window=w, overlap=o, global_verification=g)
                s = replace(s, name=_name(s))
                if o >= w:
                    skipped.append((s.name, f"O={o} >= W={w}: chunks must overlap by less than their size"))
                    continue
                points += 1
                settings.setdefault(s.key(), s)
    if grid and not points:
        raise ConfigError("--grid: every W/O pair has O >= W (chunks must overlap by less than their size); nothing "
                          "to run")
    for v in variants:
        if v in _LLM_ONLY and judge != "llm":
            skipped.append((v, _NOT_OFFLINE[v].format(judge=judge)))
            continue
        s = {"no-global": replace(DEFAULT, global_verification=False),
             "holistic": replace(DEFAULT, decomposition="holistic"),
             "batched": replace(DEFAULT, granularity="batched"),
             "prefilter": replace(DEFAULT, prefilter=True)}[v]
        s = replace(s, name=_name(s))
        settings.setdefault(s.key(), s)
    return list(settings.values()), skipped


def folder_name(s: Setting) -> str:
    """The folder of a setting's results inside the ablation folder."""
    return s.name.replace(" ", "_")


def records_digest(records: Sequence[EvalRecord]) -> str:
    """A short hash of the records' ids in order: a resumed ablation must audit the same records."""
    return hashlib.sha1("\n".join(r.id for r in records).encode()).hexdigest()[:16]


def check_manifest(out: Path, manifest: Mapping[str, Any], *, resume: bool) -> None:
    """Write ``out/ablation.json`` (a fresh run; ``ConfigError`` if it exists without ``resume``) or check that the
    one there describes the same ablation (a resumed run; ``ConfigError`` naming the first difference)."""
    path = out / "ablation.json"
    if path.exists():
        if not resume:
            raise ConfigError(f"{path} exists; pass --resume to continue that ablation or -o for a new folder")
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{path} is unreadable ({exc}); use -o for a new folder") from exc
        for key in manifest:
            if old.get(key) != manifest[key]:
                raise ConfigError(f"{path} holds another ablation ({key}: {old.get(key)!r}, now {manifest[key]!r}); "
                                  "use -o for a new folder")
        return
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


#: ``build_auditor`` options that do not change an audit's results (or that a setting sets): not in the manifest
_TRANSPORT = ("judge", "api_key", "cache", "cache_path", "timeout", "rpm", "decomposition", "granularity",
              *(f.name for f in fields(AuditConfig)))


def manifest_of(settings: Sequence[Setting], records: Sequence[EvalRecord], options: Mapping[str, Any],
                **meta: Any) -> dict[str, Any]:
    """What ``check_manifest`` keeps and compares: ``meta``, the judge's ``build_auditor`` options that change
    results (as JSON: paths become strings), the records (count and ``records_digest``) and the settings."""
    judge_options = {k: v for k, v in options.items() if k not in _TRANSPORT}
    plain = json.loads(json.dumps({**meta, "judge_options": judge_options}, default=str))
    return {**plain, "records": len(records), "record_ids": records_digest(records),
            "settings": [asdict(s) for s in settings]}


def run_settings(records: Sequence[EvalRecord], settings: Sequence[Setting], build: Callable[[Setting], Any],
                 out: Path, *, resume: bool, progress: bool = False, console: Any = None,
                 on_setting: Optional[Callable[[Setting, Any], None]] = None) -> None:
    """Audit ``records`` under every setting into ``out/<setting>/results.jsonl``, in turn; with ``resume`` the rows
    already there are kept (``runner.run``), so a killed ablation continues where it stopped. ``timing.json`` beside
    each results file adds up the wall seconds and the records audited of every run that finished."""
    for s in settings:
        folder = out / folder_name(s)
        summary = run(records, build(s), folder, resume=resume, progress=progress, console=console)[1]
        timing = folder / "timing.json"
        spent = json.loads(timing.read_text(encoding="utf-8")) if resume and timing.exists() else \
            {"seconds": 0.0, "audited": 0}
        spent = {"seconds": round(spent["seconds"] + summary.seconds, 3), "audited": spent["audited"] + summary.records}
        timing.write_text(json.dumps(spent) + "\n", encoding="utf-8")
        if on_setting is not None:
            on_setting(s, summary)


def _usage(results: Path, ids: set[str]) -> dict[str, Any]:
    """Mean calls, tokens, cost and audit seconds (each record's own, concurrent with others) per answer over the
    results of ``ids``, and the setting's wall seconds per record audited (``timing.json``, None when a run was
    killed before it finished)."""
    totals = {"calls": 0.0, "prompt_tokens": 0.0, "completion_tokens": 0.0, "cost_usd": 0.0, "seconds": 0.0}
    n = 0
    for row in json_objects(results):
        if str(row.get("id")) not in ids or not isinstance(row.get("usage"), dict):
            continue
        n += 1
        for k in totals:
            totals[k] += float(row["usage"].get(k) or 0)
    out: dict[str, Any] = {"answers": n, **{f"{k}_per_answer": (v / n if n else None) for k, v in totals.items()}}
    timing = results.parent / "timing.json"
    spent = json.loads(timing.read_text(encoding="utf-8")) if timing.exists() else {}
    out["wall_seconds_per_answer"] = spent["seconds"] / spent["audited"] if spent.get("audited") else None
    return out


def _same(a: Prediction, b: Prediction) -> bool:
    return (a.hallucinated, a.label, a.spans) == (b.hallucinated, b.label, b.spans)


def score_settings(records: Sequence[EvalRecord], settings: Sequence[Setting], out: Path, *, n_boot: int = 1000,
                   seed: int = 0) -> dict:
    """Score every setting's results on the records that all settings audited (paired: the same records and the same
    bootstrap resamples), with deltas against the first setting (the default). The report is ``evaluate``'s plus,
    per setting, ``setting``, ``usage`` (per answer), ``same_as_reference`` (the share of answers whose label,
    flag and spans equal the reference's) and ``record_errors``; and ``paired`` (records scored, and the ids left out
    because some setting has no result for them)."""
    preds: dict[str, dict[str, Prediction]] = {}
    errors: dict[str, list[str]] = {}
    for s in settings:
        folder = out / folder_name(s)
        if not (folder / "results.jsonl").exists():
            raise InputError(f"no results for setting {s.name!r} in {folder}", field="results")
        _, errs = results_to_predictions(folder / "results.jsonl", folder / "predictions.jsonl")
        preds[s.name], _ = read_predictions(folder / "predictions.jsonl")
        errors[s.name] = [str(e) for e in errs]
    common = set.intersection(*(set(p) for p in preds.values())) if preds else set()
    kept = [r for r in records if r.id in common]
    if not kept:
        raise InputError("no record has a result in every setting", field="id")
    reference = settings[0].name
    systems = {name: [p[r.id] for r in kept] for name, p in preds.items()}
    report = evaluate(kept, systems, n_boot=n_boot, seed=seed, reference=reference)
    ids = {r.id for r in kept}
    for s in settings:
        entry = report["systems"][s.name]
        entry["setting"] = asdict(s)
        entry["usage"] = _usage(out / folder_name(s) / "results.jsonl", ids)
        entry["same_as_reference"] = round(sum(_same(a, b) for a, b in zip(systems[s.name], systems[reference]))
                                           / len(kept), 4)
        entry["record_errors"] = errors[s.name]
    left_out = [r.id for r in records if r.id not in common]
    report["paired"] = {"reference": reference, "records": len(records), "scored": len(kept),
                        "left_out": len(left_out), "left_out_ids": left_out[:20]}
    return report


def estimate_settings(records: Sequence[EvalRecord], settings: Sequence[Setting], options: Mapping[str, Any], *,
                      counter: Any, assumptions: Any, on_setting: Optional[Callable[[Setting], None]] = None
                      ) -> list[tuple[Setting, Any]]:
    """Every setting's ``rt4chart.judges.estimate.Estimate`` of the LLM judge on ``records`` (``options``: the
    judge's ``build_auditor`` options); no model is called."""
    from ...judges.estimate import estimate

    inputs = [r.to_record() for r in records]
    rows = []
    for s in settings:
        rows.append((s, estimate(inputs, counter=counter, assumptions=assumptions,
                                 **{**options, **s.auditor_options()})))
        if on_setting is not None:
            on_setting(s)
    return rows
