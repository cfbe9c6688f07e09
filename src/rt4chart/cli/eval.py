"""``rt4chart eval``: audit a benchmark (``run``) or score any predictions file (``score``) with the same code.

Exit codes: 0 scored; 1 scored, but some prediction rows were bad or some records failed (listed);
2 usage or input error (unknown dataset, data not found, predictions missing for records).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Optional

import click

from ..errors import ConfigError, InputError, MissingDependencyError, Rt4chartError
from ..eval.studies.ablate import DEFAULT_GRID
from ._options import EXIT_OK, EXIT_USAGE, data_dir, load_records, write_output
from ._options import EXIT_RECORD_ERRORS as EXIT_PARTIAL


def _console() -> Any:
    from rich.console import Console

    return Console(stderr=True)


def _fail(console: Any, exc: Exception) -> None:
    from .._console import print_error

    print_error(console, exc, soft_wrap=True)
    sys.exit(EXIT_USAGE)


def dataset_options(f: Any, *, baselines: bool = True) -> Any:
    """``--dataset``, ``--split``, ``--task``, ``--path``, ``--limit``, ``--bootstrap``, ``--seed`` and, with
    ``baselines``, ``--no-baselines``."""
    opts = [
        click.option("--dataset", default="ragtruth", show_default=True,
                     help="ragtruth, ragtruth-faithjudge, ragtruth++, halubench or jsonl"),
        click.option("--split", default="test", show_default=True, help="train, test or all (RAGTruth)"),
        click.option("--task", default=None, help="qa, summary or data2txt (default: all tasks)"),
        click.option("--path", "data_path", default=None,
                     help="data folder or file (required for ragtruth++, halubench, jsonl; default for RAGTruth: "
                          "$RT4CHART_DATA_DIR or shared/data found above the working directory)"),
        click.option("--limit", type=click.IntRange(min=1), default=None,
                     help="only the first N records (source groups taken whole, tasks interleaved)"),
        click.option("--no-baselines", is_flag=True, help="do not score the baselines in the same table"),
        click.option("--bootstrap", "n_boot", type=click.IntRange(min=1), default=1000, show_default=True,
                     help="group-bootstrap resamples"),
        click.option("--seed", type=int, default=0, show_default=True, help="bootstrap seed"),
    ]
    if not baselines:
        opts = [opt for opt in opts if opt(lambda: None).__click_params__[-1].name != "no_baselines"]
    for opt in reversed(opts):
        f = opt(f)
    return f


def _thresholds(dataset: str, data_path: Optional[str], console: Any) -> Optional[dict]:
    from ..eval.runner import train_thresholds

    cache_dir = os.environ.get("RT4CHART_CACHE_DIR") or None
    if dataset.lower() != "ragtruth":
        try:
            return train_thresholds(data_dir=data_dir(), cache_dir=cache_dir)
        except InputError:
            console.print("[yellow]note:[/yellow] RAGTruth train split not found; risk baselines get no threshold")
            return None
    return train_thresholds(data_path, data_dir=data_dir(), cache_dir=cache_dir)


def _report_errors(errors: list, console: Any, what: str) -> None:
    if not errors:
        return
    console.print(f"[yellow]{len(errors)} {what} skipped:[/yellow]")
    for exc in errors[:10]:
        console.print(f"  {exc}", markup=False, highlight=False, soft_wrap=True)
    if len(errors) > 10:
        console.print(f"  … and {len(errors) - 10} more", markup=False)


@click.group(name="eval")
def eval_group() -> None:
    """Measure detectors on RAGTruth and other benchmarks (RT4CHART §4.2 metrics, RAGScope intervals)."""


@eval_group.command("score")
@dataset_options
@click.option("--predictions", "-p", "pred_path", required=True, type=click.Path(dir_okay=False),
              help="JSONL: id, hallucinated, optional score, spans [[start,end],…], label, evidence "
                   "(audit results are accepted too)")
@click.option("--name", default=None, help="system name in the table (default: the file name)")
@click.option("--allow-missing", is_flag=True, help="score only the records that have a prediction")
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="folder for metrics.json and table.md")
def score_cmd(dataset: str, split: str, task: Optional[str], data_path: Optional[str], limit: Optional[int],
              no_baselines: bool, n_boot: int, seed: int, pred_path: str, name: Optional[str], allow_missing: bool,
              out_dir: Optional[str]) -> None:
    """Score a predictions file against a dataset's gold labels (answer, span, ranking, per label)."""
    from ..eval.runner import run_meta, score, write_outputs
    from ..eval.predictions import read_predictions
    from ..eval.scoring import render_markdown

    console = _console()
    try:
        records = load_records(dataset, split, task, data_path, limit)
        preds, errors = read_predictions(pred_path)
        thresholds = None if no_baselines else _thresholds(dataset, data_path, console)
        report = score(records, preds, name=name or Path(pred_path).stem, baselines=not no_baselines,
                       thresholds=thresholds, missing="skip" if allow_missing else "error", n_boot=n_boot,
                       seed=seed, meta=run_meta(dataset, split, task, predictions=pred_path, limit=limit))
    except (ConfigError, InputError, MissingDependencyError) as exc:
        _fail(console, exc)
        return
    report["prediction_errors"] = [str(e) for e in errors]
    _report_errors(errors, console, "bad prediction rows")
    title = f"{dataset} {split}" + (f" {task}" if task else "")
    if out_dir:
        m, t = write_outputs(report, Path(out_dir), title)
        console.print(f"wrote {m} and {t}", highlight=False, soft_wrap=True)
    click.echo(render_markdown(report, title))
    sys.exit(EXIT_PARTIAL if errors else EXIT_OK)


@eval_group.command("baseline")
@click.option("--dataset", default="ragtruth", show_default=True, help="as for `score`")
@click.option("--split", default="test", show_default=True)
@click.option("--task", default=None)
@click.option("--path", "data_path", default=None, help="as for `score`")
@click.option("--name", "baseline", required=True,
              type=click.Choice(["always-hallucinated", "uncovered-token", "rouge-l"]),
              help="uncovered-token and rouge-l flag risk >= the F1-best threshold on the RAGTruth train split")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="predictions JSONL to write; - = stdout")
def baseline_cmd(dataset: str, split: str, task: Optional[str], data_path: Optional[str], baseline: str,
                 output: str) -> None:
    """Write a baseline's predictions (id, hallucinated, score, spans) for a dataset, to score like any detector."""
    from ..eval.runner import baseline_systems
    from ..eval.predictions import write_predictions

    console = _console()
    try:
        records = load_records(dataset, split, task, data_path, None)
        thresholds = None if baseline == "always-hallucinated" else _thresholds(dataset, data_path, console)
    except (ConfigError, InputError, MissingDependencyError) as exc:
        _fail(console, exc)
        return
    systems, notes = baseline_systems(records, thresholds)
    preds = systems[baseline]
    if any(p.hallucinated is None for p in preds):
        preds = [type(p)(p.id, False, p.score, p.spans, p.label, p.evidence) for p in preds]
        console.print("[yellow]note:[/yellow] no train threshold: every answer is written as not flagged; "
                      "use the score (AUROC/AP) only", highlight=False, soft_wrap=True)
    if output == "-":
        write_output("-", "".join(json.dumps(p.to_json(), ensure_ascii=False) + "\n" for p in preds))
    else:
        Path(output).parent.mkdir(parents=True, exist_ok=True)
        write_predictions(output, preds)
    thr = notes.get(baseline, {}).get("threshold")
    console.print(f"wrote {len(preds)} predictions to {output}" + (f" (threshold {thr:.4f})" if thr is not None
                                                                    else ""), highlight=False, soft_wrap=True)


def _judge_options(f: Any) -> Any:
    from ._options import judge_options

    return judge_options(f)


@eval_group.command("run")
@dataset_options
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="output folder (default: runs/eval-<dataset>-<split>[-<task>]-<judge>)")
@click.option("--resume", is_flag=True, help="keep results already in the output folder and audit the rest")
@click.option("--quiet", "-q", is_flag=True, help="no progress bar")
@click.option("--gate-accept", type=click.FloatRange(0.0, 1.0, max_open=True), default=None,
              help="cascade: accept this fraction of lowest-risk records with the RAGScope gate, unjudged")
@click.option("--shape", default="clean", show_default=True,
              help="input shape (RAGTruth): clean, or instruction-question (the row's instruction as question "
                   "for every task) and/or raw-data2txt (Data2txt contexts as the stored record literal), "
                   "comma-separated; the gold spans are unchanged")
@_judge_options
def run_cmd(dataset: str, split: str, task: Optional[str], data_path: Optional[str], limit: Optional[int],
            no_baselines: bool, n_boot: int, seed: int, out_dir: Optional[str], resume: bool, quiet: bool,
            gate_accept: Optional[float], shape: str, **judge_kw: Any) -> None:
    """Audit every record of a dataset, then score it: writes results.jsonl (audit results), predictions.jsonl,
    metrics.json and table.md in the output folder."""
    from ._options import auditor_options
    from ..judges.llm import llm_env
    from ..judges.registry import build_auditor
    from ..eval.runner import (cascade_summary, claim_labels, results_to_predictions, run, run_meta,
                               score, write_outputs)
    from ..eval.predictions import read_predictions
    from ..eval.scoring import render_markdown
    from ..eval.studies.shapes import parse_shape, shape_name, shape_records

    console = _console()
    judge_name = judge_kw.get("judge_name", "auto")
    try:
        shape = shape_name(parse_shape(shape))
    except ConfigError as exc:
        _fail(console, exc)
        return
    suffix = "" if shape == "clean" else "-" + shape.replace(",", "+")
    out = Path(out_dir or f"runs/eval-{dataset}-{split}{'-' + task if task else ''}-{judge_name}{suffix}")
    try:
        records = shape_records(load_records(dataset, split, task, data_path, limit), shape, dataset=dataset,
                                split=split, root=data_path, data_dir=data_dir())
        auditor = build_auditor(**auditor_options(judge_kw, llm_env(os.environ)))
        thresholds = None if no_baselines else _thresholds(dataset, data_path, console)
    except (ConfigError, InputError, MissingDependencyError) as exc:
        _fail(console, exc)
        return
    if (out / "results.jsonl").exists() and not resume:
        from .._console import print_error

        print_error(console, f"{out / 'results.jsonl'} exists; pass --resume to continue it or -o for a new folder",
                    soft_wrap=True)
        sys.exit(EXIT_USAGE)
    progress = not quiet and (console.is_terminal or os.environ.get("RT4CHART_PROGRESS") == "1")
    try:
        results, summary = run(records, auditor, out, resume=resume, progress=progress, console=console,
                               gate_accept=gate_accept)
    except ConfigError as exc:
        _fail(console, exc)
        return
    try:
        _, errors = results_to_predictions(results, out / "predictions.jsonl")
        preds, _ = read_predictions(out / "predictions.jsonl")
        report = score(records, preds, name=f"rt4chart ({judge_name})", baselines=not no_baselines,
                       thresholds=thresholds, missing="skip", n_boot=n_boot, seed=seed,
                       meta=run_meta(dataset, split, task, judge=judge_name, limit=limit, shape=shape,
                                  window=auditor.config.window, overlap=auditor.config.overlap,
                                  global_verification=auditor.config.global_verification,
                                  model_dir=judge_kw.get("model_dir")))
    except Rt4chartError as exc:
        _fail(console, exc)
        return
    report["record_errors"] = [str(e) for e in errors]
    report["claims"] = claim_labels(results, records)
    report["audit"] = {"seconds": round(summary.seconds, 2), "calls": summary.calls,
                       "prompt_tokens": summary.prompt_tokens, "completion_tokens": summary.completion_tokens,
                       "cost_usd": summary.cost_usd}
    if summary.cascade is not None:
        report["cascade"] = cascade_summary(records, summary.cascade)
        c = report["cascade"]
        console.print(f"cascade: {c['accepted_without_judge']}/{c['records']} records accepted by the gate without "
                      f"the judge ({c['judge_records_saved']:.0%} of judge work saved); "
                      f"{c['gold_hallucinated_accepted']} gold-hallucinated answers among them "
                      f"(recall ceiling {c['recall_ceiling']})", highlight=False, soft_wrap=True)
    _report_errors(errors, console, "records that failed (not scored)")
    title = f"{dataset} {split}" + (f" {task}" if task else "") + f", judge {judge_name}" + \
        ("" if shape == "clean" else f", shape {shape}")
    m, t = write_outputs(report, out, title)
    console.print(f"wrote {out / 'predictions.jsonl'}, {m} and {t}", highlight=False, soft_wrap=True)
    if not quiet:
        click.echo(render_markdown(report, title))
    sys.exit(EXIT_PARTIAL if errors else EXIT_OK)


@eval_group.command("citations")
@click.option("--split", default="rand_val", show_default=True, help="the ExpertQA split (the file's name)")
@click.option("--path", "data_path", default=None,
              help="the data folder holding expertqa/ (default: RT4CHART_DATA_DIR)")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="the first N claim sentences only")
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="output folder (default: runs/eval-citations-<split>-<judge>)")
@click.option("--quiet", "-q", is_flag=True, help="no progress bar")
@_judge_options
def citations_cmd(split: str, data_path: Optional[str], limit: Optional[int], out_dir: Optional[str], quiet: bool,
                  **judge_kw: Any) -> None:
    """Check ExpertQA's cited answers (each claim sentence against its answer's passages) and compare with the
    experts' support labels: AUROC and F1 for Missing vs Complete, the share flagged for Partial and Incomplete, and a
    marker-swap probe. Writes rows.jsonl, swaps.jsonl and metrics.json to the output folder."""
    from ._options import auditor_options
    from ..eval.citation_scores import evaluate
    from ..eval.datasets.expertqa import load_expertqa
    from ..judges.llm import llm_env
    from ..judges.registry import build_auditor

    console = _console()
    judge_name = judge_kw.get("judge_name", "auto")
    out = Path(out_dir or f"runs/eval-citations-{split}-{judge_name}")
    try:
        claims = load_expertqa(split, root=data_path or data_dir())[:limit]
        auditor = build_auditor(**auditor_options(judge_kw, llm_env(os.environ)))
    except (ConfigError, InputError, MissingDependencyError) as exc:
        _fail(console, exc)
        return
    progress = None
    if not quiet and (console.is_terminal or os.environ.get("RT4CHART_PROGRESS") == "1"):
        from rich.progress import Progress

        progress = Progress(console=console, transient=True)
        task = progress.add_task("checking citations", total=len(claims))
        progress.start()
    try:
        rows, swaps, metrics = evaluate(claims, auditor,
                                        on_result=(lambda: progress.advance(task)) if progress is not None else None)
    finally:
        if progress is not None:
            progress.stop()
    out.mkdir(parents=True, exist_ok=True)
    for name, items in (("rows.jsonl", rows), ("swaps.jsonl", swaps)):
        (out / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in items), encoding="utf-8")
    metrics = {"split": split, "judge": judge_name, **metrics}
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n", encoding="utf-8")
    m, s = metrics["missing_vs_complete"], metrics["swap"]
    click.echo(f"ExpertQA {split}, judge {judge_name}: {metrics['sentences']} claim sentences {metrics['counts']} "
               f"({metrics['unchecked']} more without passage text, not checked)\n"
               f"Missing vs Complete: AUROC {m['auroc']:.3f}, F1 {m['f1']:.3f} (P {m['precision']:.3f}, "
               f"R {m['recall']:.3f}; {metrics['missing_cited']} Missing sentences cite a passage)\n"
               f"cited sentences, Partial or Incomplete vs Complete: AUROC "
               f"{metrics['incomplete_vs_complete_cited']['auroc']}\nflagged share: "
               + ", ".join(f"{k} {v:.3f}" for k, v in metrics["flagged_share"].items() if v is not None)
               + f"\nmarker swap: {s['swapped']} swapped, detected {s['detected']}, untouched Complete flagged "
               f"{s['untouched_complete_flagged']}")
    console.print(f"wrote {out / 'metrics.json'}", highlight=False, soft_wrap=True)


def _ablate_options(f: Any) -> Any:
    from ._options import estimate_options, judge_options

    return dataset_options(judge_options(estimate_options(f), audit_settings=False), baselines=False)


@eval_group.command("ablate")
@_ablate_options
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="output folder (default: runs/ablate-<dataset>-<split>[-<task>]-<judge>)")
@click.option("--grid", default=DEFAULT_GRID, show_default=True,
              help="settings grid: W (chunk size), O (overlap) and global (on/off), e.g. "
                   "\"W=5,10,25,50;O=0,5,10;global=on,off\" (default: the paper's Table 9 grid); a point with O >= W "
                   "is skipped")
@click.option("--variants", default="no-global,holistic,batched,prefilter", show_default=True,
              help="one-change variants of the default setting, comma-separated (or none): no-global, holistic, "
                   "batched, prefilter; holistic and batched need --judge llm and are skipped otherwise")
@click.option("--resume", is_flag=True, help="continue the ablation in the output folder (settings and rows done "
              "are kept)")
@click.option("--quiet", "-q", is_flag=True, help="no progress bar and no table on stdout")
def ablate_cmd(dataset: str, split: str, task: Optional[str], data_path: Optional[str], limit: Optional[int],
               n_boot: int, seed: int, out_dir: Optional[str], grid: str, variants: str, resume: bool,
               quiet: bool, estimate: bool, tokenizer_file: Optional[str], reasoning_tokens: Optional[int],
               **judge_kw: Any) -> None:
    """Audit a dataset under several settings (W, O, global verification, decomposition, batching, prefilter) and
    compare them with the default (W=25, O=10, global on, sentence decomposition, per-claim): answer and span
    P/R/F1, AUROC, calls and tokens per answer, paired group-bootstrap deltas. Writes ablation.json, one results
    folder per setting, metrics.json and table.md. With --estimate, estimates each setting's LLM calls, tokens and
    cost instead (no model is called; estimate.json and estimate.md)."""
    from ._options import auditor_options
    from ..judges.estimate import check_estimable
    from ..judges.llm import llm_env
    from ..judges.registry import build_auditor
    from ..eval.studies.ablate import DEFAULT, check_manifest, manifest_of, parse_grid, parse_variants, plan

    console = _console()
    if not estimate and (tokenizer_file is not None or reasoning_tokens is not None):
        raise click.UsageError("--tokenizer and --reasoning-tokens configure --estimate, which is not given")
    options = auditor_options(judge_kw, llm_env(os.environ))
    try:
        parsed, chosen = parse_grid(grid), parse_variants(variants)
        plan(parsed, chosen, judge="llm")  # checks the grid before anything is loaded
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    judge_name = judge_kw.get("judge_name", "auto")
    out = Path(out_dir or f"runs/ablate-{dataset}-{split}{'-' + task if task else ''}-{judge_name}")
    try:
        default_auditor = None if estimate and check_estimable(options) else \
            build_auditor(**{**options, **DEFAULT.auditor_options()})
        resolved = "llm" if default_auditor is None else default_auditor.judge.name
        settings, skipped = plan(parsed, chosen, judge=resolved)
        records = load_records(dataset, split, task, data_path, limit)
        title = f"ablation: {dataset} {split}" + (f" {task}" if task else "") + f", judge {resolved}"
        if estimate:
            _ablate_estimate(records, settings, skipped, options, tokenizer_file, reasoning_tokens, out, title,
                             console, quiet)
            return
        check_manifest(out, manifest_of(settings, records, options, dataset=dataset, split=split, task=task,
                                        limit=limit, judge=resolved), resume=resume)
    except (ConfigError, InputError, MissingDependencyError) as exc:
        _fail(console, exc)
        return
    _run_ablation(records, settings, skipped, options, default_auditor, out, title, console, n_boot, seed, resume,
                  quiet)


def _run_ablation(records: list, settings: list, skipped: list, options: dict, default_auditor: Any, out: Path,
                  title: str, console: Any, n_boot: int, seed: int, resume: bool, quiet: bool) -> None:
    from ..errors import BackendError
    from ..judges.registry import build_auditor
    from ..eval.studies.ablate import run_settings, score_settings
    from ..eval.studies.ablate_report import write_report

    progress = not quiet and (console.is_terminal or os.environ.get("RT4CHART_PROGRESS") == "1")

    def build(s: Any) -> Any:
        return default_auditor if s is settings[0] else build_auditor(**{**options, **s.auditor_options()})

    def done(s: Any, summary: Any) -> None:
        console.print(f"{s.name}: {summary.ok} audited, {summary.errors} failed, {summary.skipped} already done "
                      f"({summary.seconds:.1f} s)", highlight=False, soft_wrap=True)

    try:
        run_settings(records, settings, build, out, resume=resume, progress=progress, console=console,
                     on_setting=done)
        report = score_settings(records, settings, out, n_boot=n_boot, seed=seed)
    except BackendError as exc:  # only configuration errors reach here (bad key, model, endpoint)
        _fail(console, ConfigError(f"the LLM endpoint rejected the request: {exc}"))
        return
    except (ConfigError, InputError) as exc:
        _fail(console, exc)
        return
    table = write_report(out, report, skipped, title)
    console.print(f"wrote {out / 'metrics.json'} and {out / 'table.md'}", highlight=False, soft_wrap=True)
    if not quiet:
        click.echo(table)
    sys.exit(EXIT_PARTIAL if any(s["record_errors"] for s in report["systems"].values()) else EXIT_OK)


def _ablate_estimate(records: list, settings: list, skipped: list, options: dict, tokenizer_file: Optional[str],
                     reasoning_tokens: Optional[int], out: Path, title: str, console: Any, quiet: bool) -> None:
    """``eval ablate --estimate``: every setting's estimated LLM calls, tokens and cost; no model is called."""
    from ..judges.estimate import Assumptions, token_counter
    from ..eval.studies.ablate import estimate_settings
    from ..eval.studies.ablate_report import write_estimates

    counter = token_counter(options.get("model") or "", tokenizer_file)
    assumptions = Assumptions() if reasoning_tokens is None else Assumptions(reasoning_tokens=reasoning_tokens)
    rows = estimate_settings(records, settings, options, counter=counter, assumptions=assumptions,
                             on_setting=lambda s: console.print(f"estimated {s.name}", highlight=False))
    table = write_estimates(out, rows, skipped, records=len(records), model=options.get("model"), title=title)
    console.print(f"wrote {out / 'estimate.json'} and {out / 'estimate.md'}", highlight=False, soft_wrap=True)
    if not quiet:
        click.echo(table)


def _add_calibrate() -> None:
    from .calibrate import eval_calibrate

    eval_group.add_command(eval_calibrate)


_add_calibrate()
