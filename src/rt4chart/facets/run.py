"""Diagnose many records and aggregate: distributions by facet type, and agreement with gold hallucination spans.

``run_diagnoses`` writes, under the output folder, ``json/<id>.json`` and ``html/<id>.html`` per question,
``diagnoses.jsonl`` (all questions), ``summary.json`` and ``index.html`` (the aggregate table).

Gold agreement (records that carry gold hallucination spans of the answer, e.g. RAGTruth): a facet is
*unsupported* when the claims of the answer that address it join to contradicted or baseless; its *spans* are the
answer spans of those hallucinated claims. An answer's unsupported facets *coincide* with the gold when one of
their spans overlaps a gold span by at least one character. The same numbers are computed for the audit alone
(every hallucinated claim, whatever facet it addresses) as the baseline.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence

from ..errors import BackendError, InputError
from ._model import CATEGORIES, FACET_TYPES, Diagnosis
from .diagnose import Diagnoser
from .html import render_index, render_question


@dataclass(frozen=True)
class Item:
    """One record to diagnose, with optional gold answer spans ``[(start, end), ...]``."""

    index: int
    record: Optional[dict]
    gold: Optional[tuple[tuple[int, int], ...]] = None
    error: Optional[InputError] = None


def _overlaps(spans: Iterable[tuple[int, int]], gold: Sequence[tuple[int, int]]) -> bool:
    return any(s < ge and gs < e for s, e in spans for gs, ge in gold)


def unsupported_facet_spans(d: Diagnosis) -> list[tuple[int, int]]:
    """Answer spans of the hallucinated claims that address a facet whose answer status is ``unsupported``."""
    bad = {f.facet.index for f in d.facets if f.answer is not None and f.answer.status == "unsupported"}
    return [sp for c in d.claims if bad & set(c.facets) and c.label.hallucinated for sp in c.spans]


def hallucinated_claim_spans(d: Diagnosis) -> list[tuple[int, int]]:
    return [sp for c in d.claims if c.label.hallucinated for sp in c.spans]


@dataclass
class Aggregate:
    """Running totals over diagnosed records."""

    questions: int = 0
    errors: int = 0
    by_type: dict[str, dict[str, int]] = field(
        default_factory=lambda: {t: {c: 0 for c in CATEGORIES} for t in (*FACET_TYPES, "all")})
    gold_answers: int = 0
    gold_hallucinated: int = 0
    facet_flagged: int = 0
    facet_coincide: int = 0
    audit_flagged: int = 0
    audit_coincide: int = 0
    generation: bool = False
    relevance_method: Optional[str] = None

    def add(self, d: Diagnosis, gold: Optional[Sequence[tuple[int, int]]]) -> None:
        self.questions += 1
        self.generation = self.generation or d.generation
        self.relevance_method = d.relevance_method
        for f in d.facets:
            self.by_type[f.facet.type][f.category] += 1
            self.by_type["all"][f.category] += 1
        if gold is None or d.answer is None:
            return
        self.gold_answers += 1
        self.gold_hallucinated += bool(gold)
        facet_spans = unsupported_facet_spans(d)
        audit_spans = hallucinated_claim_spans(d)
        self.facet_flagged += bool(facet_spans)
        self.audit_flagged += bool(audit_spans)
        self.facet_coincide += _overlaps(facet_spans, gold)
        self.audit_coincide += _overlaps(audit_spans, gold)

    def summary(self) -> dict[str, Any]:
        facets = sum(self.by_type["all"].values())
        out: dict[str, Any] = {"questions": self.questions, "facets": facets, "errors": self.errors,
                               "generation": self.generation, "relevance_method": self.relevance_method,
                               "by_type": {t: dict(c) for t, c in self.by_type.items() if sum(c.values())}}
        out["distribution"] = {c: round(n / facets, 4) if facets else None for c, n in self.by_type["all"].items()}
        if self.gold_answers:
            def share(a: int, b: int) -> Optional[float]:
                return round(a / b, 4) if b else None

            out["gold"] = {
                "answers": self.gold_answers,
                "answers_with_gold_spans": self.gold_hallucinated,
                "answers_with_unsupported_facet": self.facet_flagged,
                "unsupported_facets_coincide_with_gold": self.facet_coincide,
                "share_unsupported_coinciding": share(self.facet_coincide, self.facet_flagged),
                "share_gold_answers_covered": share(self.facet_coincide, self.gold_hallucinated),
                "baseline_audit_answers_with_hallucinated_claim": self.audit_flagged,
                "baseline_audit_coinciding": self.audit_coincide,
                "baseline_share_flagged_coinciding": share(self.audit_coincide, self.audit_flagged),
                "baseline_share_gold_answers_covered": share(self.audit_coincide, self.gold_hallucinated),
            }
        return out


def _safe_name(rid: Any, used: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", str(rid)).strip("._") or "record"
    name, n = base[:80], 1
    while name in used:
        n += 1
        name = f"{base[:76]}-{n}"
    used.add(name)
    return name


async def run_diagnoses(items: Sequence[Item], diagnoser: Diagnoser, out_dir: Path, *, concurrency: int = 4,
                        on_result: Optional[Callable[[], None]] = None) -> tuple[dict[str, Any], list[str]]:
    """Diagnose ``items`` (at most ``concurrency`` at once), write every output file, return (summary, errors).
    ``on_result`` is called once per item when it is done (a progress bar).

    A record that is invalid or whose diagnosis raises is reported and skipped; the others go on. A configuration
    error from the LLM endpoint (HTTP 4xx other than 408/409/425/429) raises ``BackendError``.
    """
    out_dir = Path(out_dir)
    (out_dir / "json").mkdir(parents=True, exist_ok=True)
    (out_dir / "html").mkdir(parents=True, exist_ok=True)
    sem = asyncio.Semaphore(concurrency)
    agg = Aggregate()
    errors: list[str] = []
    results: dict[int, Diagnosis] = {}

    async def one(item: Item) -> None:
        try:
            await diagnose_one(item)
        finally:
            if on_result is not None:
                on_result()

    async def diagnose_one(item: Item) -> None:
        if item.error is not None or item.record is None:
            errors.append(str(item.error))
            return
        async with sem:
            try:
                results[item.index] = await diagnoser.diagnose(item.record, index=item.index)
            except InputError as exc:
                errors.append(str(exc))
            except BackendError as exc:
                if exc.status is not None and 400 <= exc.status < 500 and exc.status not in (408, 409, 425, 429):
                    raise  # a bad key, model or URL fails every record alike: stop the run
                errors.append(f"record {item.record.get('id', f'#{item.index}')!r}: {exc}")
            except Exception as exc:  # one bad record never loses the others
                rid = item.record.get("id", f"#{item.index}")
                errors.append(f"record {rid!r}: {type(exc).__name__}: {exc}")

    await asyncio.gather(*(one(it) for it in items))
    used: set[str] = set()
    links = []
    with (out_dir / "diagnoses.jsonl").open("w", encoding="utf-8") as jsonl:
        for item in items:
            d = results.get(item.index)
            if d is None:
                continue
            agg.add(d, item.gold)
            name = _safe_name(d.id if d.id is not None else f"record-{item.index}", used)
            data = d.to_json()
            if item.gold is not None:
                data["gold_spans"] = [list(g) for g in item.gold]
            text = json.dumps(data, ensure_ascii=False)
            jsonl.write(text + "\n")
            (out_dir / "json" / f"{name}.json").write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n",
                                                           encoding="utf-8")
            (out_dir / "html" / f"{name}.html").write_text(render_question(d), encoding="utf-8")
            links.append((str(d.id), f"html/{name}.html", d.categories))
    agg.errors = len(errors)
    summary = agg.summary()
    summary["errors_list"] = errors[:50]
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    (out_dir / "index.html").write_text(render_index(summary, links), encoding="utf-8")
    return summary, errors
