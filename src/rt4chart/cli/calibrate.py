"""``rt4chart calibrate`` (fit a calibration of a judge on your labelled answers; with ``--judge hybrid --card``,
refit the hybrid judge's combination card for your model instead) and ``rt4chart eval calibrate`` (its learning
curve on a benchmark's audit results).

Exit codes: 0 written; 2 usage or input error (a bad label, a missing field, fewer than ``MIN_LABELS`` labels or
one class only, results of another judge): nothing is written then.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Optional

import click

from ._options import EXIT_OK, EXIT_USAGE, field_options, format_option, judge_options, write_output
from ..errors import ConfigError, InputError, MissingDependencyError, Rt4chartError

from ..eval.calibrate import CUTS, METHODS, PLATT_BELOW
from ..eval.labelled import cv_report, judge_of, judge_pool, read_labelled, render_report, results_of


def _console() -> Any:
    from rich.console import Console

    return Console(stderr=True)


def _fail(console: Any, message: object) -> None:
    from .._console import print_error

    print_error(console, message, soft_wrap=True)
    sys.exit(EXIT_USAGE)


def _audit(labelled: list, judge_kw: dict, console: Any) -> list[dict]:
    from ..jobs.batch import audit_lines, run_sync
    from ..io import Row
    from ..judges.llm import llm_env
    from ..judges.registry import build_auditor
    from ._options import auditor_options

    auditor = build_auditor(**auditor_options(judge_kw, llm_env(os.environ)))
    console.print(f"auditing {len(labelled)} labelled answers with the {auditor.judge.name} judge …",
                  highlight=False)
    rows = [Row(i, dict(rec)) for i, (rec, _, _) in enumerate(labelled)]
    lines = run_sync(audit_lines(rows, auditor))
    failed = [line for line in lines if "claims" not in line]
    if failed:
        raise InputError(f"{len(failed)} labelled answers could not be audited (first: {failed[0].get('id')}: "
                         f"{(failed[0].get('error') or {}).get('message')})")
    return lines


@click.command("calibrate")
@click.argument("labelled", metavar="LABELLED", type=str)
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="calibration JSON to write; - = stdout")
@click.option("--results", "results_path", type=click.Path(exists=True, dir_okay=False), default=None,
              metavar="RESULTS.jsonl", help="an audit of the labelled records to reuse instead of auditing them")
@click.option("--label-field", default="hallucinated", show_default=True,
              help="input field holding the gold label (true/false)")
@click.option("--target", default="f1", show_default=True, help="f1, precision:P or recall:R (e.g. precision:0.9)")
@click.option("--method", type=click.Choice(METHODS), default="auto", show_default=True,
              help=f"the monotone map: auto = Platt under {PLATT_BELOW} labels, else isotonic")
@click.option("--folds", type=click.IntRange(min=2), default=5, show_default=True, help="cross-validation folds")
@click.option("--bootstrap", "n_boot", type=click.IntRange(min=1), default=1000, show_default=True,
              help="group-bootstrap resamples")
@click.option("--seed", type=int, default=0, show_default=True, help="folds and bootstrap seed")
@format_option
@click.option("--card", "refit_card", is_flag=True,
              help="with --judge hybrid: refit the hybrid judge's combination card for the model in use (--gguf or "
              "--base-url/--model) from LABELLED, every claim asked (replies in the LLM response cache cost "
              "nothing), and write the card to -o instead of a calibration; audit with it by --combination")
@field_options
@judge_options
def calibrate(labelled: str, output: str, results_path: Optional[str], label_field: str, target: str, method: str,
              folds: int, n_boot: int, seed: int, fmt: Optional[str], refit_card: bool, fields: Any,
              **judge_kw: Any) -> None:
    """Fit a calibration of a judge for your data from labelled answers: a monotone map from the answer score to a
    probability and the decision threshold for --target. LABELLED holds records (id, context, answer, optional
    question) with a boolean `hallucinated` and optional `spans` ([{start, end}] in the answer). Prints
    cross-validated precision, recall and F1 (group-bootstrap intervals) before and after; apply the file with
    `rt4chart audit --calibration FILE`. With --judge hybrid --card, refit the hybrid judge's combination card for
    your model from the same file instead (the model is asked about every claim; cached replies cost nothing) and
    write it to -o; audit with it by `--combination CARD`."""
    from ..audit.calibration import answer_score, scored_decision
    from ..io import writes_over_input
    from ..eval.baselines import parse_target
    from ..eval.calibrate import check_labels, cross_validate, fit_calibration, judge_threshold

    console = _console()
    if judge_kw.get("calibration"):
        raise click.UsageError("--calibration applies a calibration; calibrate fits one on the judge's own scores")
    if writes_over_input(labelled, output) or (results_path and writes_over_input(results_path, output)):
        raise click.UsageError(f"-o/--output {output} is an input file")
    if refit_card:
        if results_path:
            raise click.UsageError("--card asks the model about every claim; --results (an audit that routed "
                                   "claims) cannot give their features")
        _refit_card(labelled, output, fmt, fields, label_field, judge_kw, console)
        return
    try:
        parse_target(target)
        data = read_labelled(labelled, fmt, fields, label_field)
        check_labels([label for _, label, _ in data])
        results = results_of(data, results_path) if results_path else _audit(data, judge_kw, console)
        judge, fingerprint = judge_of(results, judge_kw.get("judge_name", "auto"))
        scores = [answer_score(r) for r in results]
        y = [label for _, label, _ in data]
        pool = judge_pool(results_path, judge, fingerprint) if results_path else results
        own = judge_threshold([answer_score(r) for r in pool], [bool(scored_decision(r)) for r in pool])
        calibration = fit_calibration(scores, y, judge=judge, judge_fingerprint=fingerprint, target=target,
                                      method=method, own=own, meta={"judge_answers": len(pool)})
        groups = [(rec.task or "", rec.context) for rec, _, _ in data]
        decided, _, failed = cross_validate(scores, y, groups, judge=judge, target=target, method=method,
                                            folds=folds, seed=seed, own=own)
    except (ConfigError, InputError, MissingDependencyError) as exc:
        _fail(console, exc)
        return
    report = cv_report(data, results, scores, decided, n_boot=n_boot, seed=seed)
    meta = {**calibration.meta, "folds": folds, "failed_folds": failed, "cross_validated": report,
            "source": Path(labelled).name}
    calibration = replace(calibration, meta=meta)
    try:
        write_output(output, json.dumps(calibration.to_json(), indent=2) + "\n")
    except OSError as exc:
        _fail(console, f"cannot write {output}: {exc}")
    click.echo(render_report(calibration, report, failed), err=output == "-")
    if output != "-":
        console.print(f"wrote {output}", highlight=False, soft_wrap=True)
    sys.exit(EXIT_OK)


def _refit_card(labelled: str, output: str, fmt: Optional[str], fields: Any, label_field: str, judge_kw: dict,
                console: Any) -> None:
    """``calibrate --judge hybrid --card``: audit the labelled answers with the hybrid judge collecting (every claim
    asked of the model), fit the combination card on their claims (``rt4chart.eval.hybrid_card``), write it."""
    import hashlib
    from ..jobs.batch import audit_lines, run_sync
    from ..eval.calibrate import check_labels
    from ..eval.datasets import group_key
    from ..eval.hybrid_card import collecting, fit_card, labelled_rows
    from ..io import Row
    from ..judges.hybrid import HybridJudge
    from ..judges.llm import llm_env
    from ..judges.registry import build_auditor
    from ..llm.managed import managed_model
    from ._options import auditor_options

    if judge_kw.get("judge_name") not in ("auto", "hybrid"):
        raise click.UsageError(f"--card refits the hybrid judge's combination card, but the judge here is "
                               f"{judge_kw.get('judge_name')}: give --judge hybrid")
    judge_kw = {**judge_kw, "judge_name": "hybrid"}
    try:
        data = read_labelled(labelled, fmt, fields, label_field)
        check_labels([label for _, label, _ in data])
        with managed_model(judge_kw, binary=os.environ.get("RT4CHART_LLAMA_SERVER")):
            auditor = build_auditor(**auditor_options(judge_kw, llm_env(os.environ)))
            judge = auditor.judge
            assert isinstance(judge, HybridJudge)
            base = collecting(judge)
            console.print(f"asking the model about every claim of {len(data)} labelled answers (cached replies "
                          "cost nothing) …", highlight=False)
            lines = run_sync(audit_lines([Row(i, dict(rec)) for i, (rec, _, _) in enumerate(data)], auditor))
        rows = [row for (rec, label, spans), line in zip(data, lines) if "claims" in line
                for row in labelled_rows(line, label, spans, group=group_key(rec.task or "", rec.context))]
        model = getattr(judge.backend, "model", None)
        fitted_for = {"name": judge.model_file or model, "gguf": judge.model_file, "model": model}
        card = fit_card(rows, version="refit", fitted_for=fitted_for, rows_file=Path(labelled).name,
                        data=f"{len(data)} labelled answers ({Path(labelled).name}), gold from their labels and "
                        "spans", base=base)
        card["version"] = "refit-" + hashlib.sha256(json.dumps(card, sort_keys=True).encode()).hexdigest()[:12]
    except (ConfigError, InputError, MissingDependencyError) as exc:
        _fail(console, exc)
        return
    try:
        write_output(output, json.dumps(card, indent=2) + "\n")
    except OSError as exc:
        _fail(console, f"cannot write {output}: {exc}")
    m = card["metrics"]
    failed = sum("claims" not in line for line in lines)
    click.echo(f"combination card for {fitted_for['name']}: {card['fitted_on']['rows']} claims of {len(data)} "
               f"answers{f' ({failed} could not be audited)' if failed else ''}; threshold "
               f"{card['hallucinated']['threshold']:.2f}, out-of-fold answer F1 "
               f"{m['out_of_fold']['ragtruth_answer_f1']:.3f}, claim AUROC {m['auroc_out_of_fold']:.3f} (the model "
               f"alone {m['auroc_llm_alone']:.3f}, the local judge alone {m['auroc_local_alone']:.3f})")
    console.print(f"wrote {output}; audit with it: rt4chart audit INPUT --judge hybrid --combination {output} "
                  "(and the same model options)", highlight=False, soft_wrap=True)
    sys.exit(EXIT_OK)


@click.command("calibrate")
@click.option("--results", "results_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help="audit results of the dataset (the results.jsonl of `rt4chart eval run`)")
@click.option("--dataset", default="ragtruth", show_default=True, help="as for `eval score`")
@click.option("--split", default="test", show_default=True, help="train, test or all (RAGTruth)")
@click.option("--path", "data_path", default=None, help="as for `eval score`")
@click.option("--sizes", default="25,50,100,200", show_default=True, help="labelled answers per fit")
@click.option("--draws", type=click.IntRange(min=1), default=5, show_default=True, help="random draws per size")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--target", default="f1", show_default=True, help="f1, precision:P or recall:R")
@click.option("--method", type=click.Choice(METHODS), default="auto", show_default=True)
@click.option("--cut", type=click.Choice(CUTS), default="expected", show_default=True,
              help="choose the threshold on the map's expected counts or on the labels' counts")
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="folder for curve.json and curve.md")
def eval_calibrate(results_path: str, dataset: str, split: str, data_path: Optional[str], sizes: str, draws: int,
                   seed: int, target: str, method: str, cut: str, out_dir: Optional[str]) -> None:
    """Learning curve of calibration, task by task: fit on N labelled answers of one task, score the rest of that
    task against the judge's own decisions and against always flagging."""
    from ..eval.calibrate import learning_curve, render_curve
    from ._options import load_records
    from ..eval.predictions import read_predictions

    console = _console()
    try:
        counts = tuple(int(v) for v in sizes.split(","))
        if any(v < 1 for v in counts):
            raise ValueError
    except ValueError:
        raise click.UsageError(f"--sizes {sizes!r} is not a comma-separated list of positive numbers") from None
    try:
        records = load_records(dataset, split, None, data_path, None)
        preds, errors = read_predictions(results_path, audit_results=True)
        curve = learning_curve(records, preds, sizes=counts, draws=draws, seed=seed, target=target,
                               method=method, cut=cut)
    except (Rt4chartError, ValueError) as exc:
        _fail(console, exc)
        return
    curve["meta"] = {"dataset": dataset, "split": split, "results": results_path, "failed_rows": len(errors)}
    table = render_curve(curve, f"calibration learning curve: {dataset} {split}")
    if out_dir:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "curve.json").write_text(json.dumps(curve, indent=2) + "\n", encoding="utf-8")
        (out / "curve.md").write_text(table, encoding="utf-8")
        console.print(f"wrote {out / 'curve.json'} and {out / 'curve.md'}", highlight=False, soft_wrap=True)
    click.echo(table)
